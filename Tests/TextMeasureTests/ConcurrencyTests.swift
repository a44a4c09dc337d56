import Testing
@testable import TextMeasure

@Suite("Thread safety")
struct ConcurrencyTests {
    /// Many tasks measure the corpus at once through one shared measurer; every result equals the
    /// serial one. Run under `swift test --sanitize=thread` to check for races.
    @Test func concurrentMeasurementsMatchSerialOnes() async throws {
        let measurer = Fixtures.measurer
        let texts = Array(Fixtures.corpus.prefix(80))
        let style = TextStyle(size: 15)
        let serial = try texts.map { try measurer.measure($0, style: style, width: 140) }
        let parallel = try await withThrowingTaskGroup(of: (Int, TextMeasurement).self) { group in
            for round in 0..<4 {
                for (index, text) in texts.enumerated() {
                    group.addTask { (index, try measurer.measure(text, style: style, width: 140 + Double(round) * 0)) }
                }
            }
            var results: [(Int, TextMeasurement)] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(parallel.count == texts.count * 4)
        for (index, result) in parallel { #expect(result == serial[index]) }
    }

    /// Tasks preparing the corpus at three sizes at once through one fresh measurer, so that words
    /// stored plain at one size are put together at the others while other tasks store them: every
    /// result equals shaping afresh. Run under `swift test --sanitize=thread` to check for races.
    @Test func concurrentPreparationAcrossSizesMatchesUncached() async throws {
        let cascade = Fixtures.measurer.cascade
        let measurer = TextMeasurer(cascade: cascade)
        let uncached = TextMeasurer(cascade: cascade, shapeCacheCapacity: 0)
        let texts = Array(Fixtures.corpus.prefix(120))
        let sizes = [13.0, 15, 17]
        let expected = try sizes.map { size in try texts.map { try uncached.measure($0, style: TextStyle(size: size), width: 150) } }
        let results = try await withThrowingTaskGroup(of: [(Int, Int, TextMeasurement)].self) { group in
            for task in 0..<6 {
                group.addTask {
                    try texts.indices.map { index in
                        let size = (index + task) % sizes.count
                        return (size, index, try measurer.measure(texts[index], style: TextStyle(size: sizes[size]), width: 150))
                    }
                }
            }
            var all: [(Int, Int, TextMeasurement)] = []
            for try await batch in group { all += batch }
            return all
        }
        #expect(results.count == 6 * texts.count)
        for (size, index, result) in results { #expect(result == expected[size][index], "\(texts[index])") }
        #expect(measurer.shapingStatistics.piecesResized > 0)
    }

    @Test func fontsLoadedConcurrentlyAreOneInstance() async throws {
        let fonts = try await withThrowingTaskGroup(of: FontFace.self) { group in
            for _ in 0..<16 { group.addTask { try TextMeasurer().cascade.primary } }
            var fonts: [FontFace] = []
            for try await font in group { fonts.append(font) }
            return fonts
        }
        #expect(fonts.allSatisfy { $0 === fonts[0] })
    }
}

@Suite("Batch measurement")
struct BatchMeasurementTests {
    @Test func manyRequestsComeBackInOrderWithErrorsInTheirSlots() throws {
        let measurer = Fixtures.measurer
        var requests = Fixtures.corpus.map { MeasureRequest(text: $0, style: TextStyle(size: 15), width: 200) }
        requests.insert(MeasureRequest(text: "bad", style: TextStyle(size: 15), width: -1), at: 7)
        let results = measurer.measure(requests)
        #expect(results.count == requests.count)
        for (request, result) in zip(requests, results) {
            if request.width < 0 {
                #expect(throws: TextMeasureError.invalidWidth(-1)) { try result.get() }
            } else {
                #expect(try result.get() == measurer.measure(request.text, style: request.style, width: request.width))
            }
        }
    }
}
