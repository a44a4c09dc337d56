import Benchmark
import Foundation
import HeightCache
import TextMeasure

/// The multilingual corpus from the package's tests, read by the tests' own loader (`Corpus.swift`
/// here is a link to Tests/TestSupport/Corpus.swift).
private let corpus: [String] = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return Corpus.load(from: url.appendingPathComponent("Tests/Corpus/multilingual.txt").path) ?? []
}()

private let measurer = try! TextMeasurer()
private let style = TextStyle(size: 17)
/// A typical list row: about 150 characters of English.
private let row = "Reminder: the team meeting has moved to Thursday at 3 pm. Please bring your quarterly numbers and any questions about the roadmap."

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(2), maxIterations: 1_000_000)

    // Shaping every run afresh: the cost of a text never seen, with no word seen before either.
    Benchmark("Cold measurement per corpus text (no shaped-word cache)",
              configuration: .init(scalingFactor: .one)) { benchmark in
        let uncached = TextMeasurer(cascade: measurer.cascade, shapeCacheCapacity: 0)
        benchmark.startMeasurement()
        for text in corpus {
            blackHole(try uncached.measure(text, style: style, width: 320))
        }
    }

    Benchmark("Measurement per corpus text (warm shaped-word cache)") { benchmark in
        for text in corpus { _ = try measurer.measure(text, style: style, width: 320) }
        benchmark.startMeasurement()
        for text in corpus {
            blackHole(try measurer.measure(text, style: style, width: 320))
        }
    }

    Benchmark("Relayout of a prepared 150-character text at a new width",
              configuration: .init(scalingFactor: .kilo)) { benchmark in
        let prepared = try measurer.prepare(row, style: style)
        let widths = (0..<64).map { 200 + Double($0) * 3.5 }
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try prepared.layout(width: widths[i & 63], withLines: false))
        }
    }

    Benchmark("HeightCache hit", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let cache = HeightCache<Int>(measure: { model, width in Double(model % 7) * 20 + width / 100 })
        for model in 0..<1_000 { _ = cache.height(for: model, width: 390) }
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(cache.height(for: i % 1_000, width: 390))
        }
    }

    Benchmark("Estimate of a 150-character row", configuration: .init(scalingFactor: .kilo)) { benchmark in
        _ = try measurer.estimate(row, style: style, width: 320)   // builds the advance profile
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try measurer.estimate(row, style: style, width: 320))
        }
    }

    Benchmark("Batch throughput: corpus x 8 widths on all cores") { benchmark in
        let requests = corpus.flatMap { text in
            [180.0, 240, 300, 343, 390, 414, 600, 716].map { MeasureRequest(text: text, style: style, width: $0) }
        }
        benchmark.startMeasurement()
        blackHole(measurer.measure(requests))
    }

    // Memory per entry = (peak at 100,000 − peak at 10,000) / 90,000.
    for count in [10_000, 100_000] {
        Benchmark("\(count) cached heights (resident memory)",
                  configuration: .init(metrics: [.peakMemoryResident, .mallocCountTotal], maxIterations: 3)) { _ in
            let cache = HeightCache<Int>(capacity: count, measure: { model, _ in Double(model) })
            for model in 0..<count { _ = cache.height(for: model, width: 390) }
            blackHole(cache.statistics.entries)
        }
    }
}
