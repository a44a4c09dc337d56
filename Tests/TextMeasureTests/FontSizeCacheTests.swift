import Foundation
import TestSupport
import Testing
@testable import TextMeasure

/// The bounded cache of per-size HarfBuzz fonts, and the shaped-piece cache's keys across its evictions.
@Suite("Font sizes")
struct FontSizeCacheTests {
    /// A face no other test uses (a copy of Noto Sans under a path of its own: faces are shared per
    /// path), so that its count of live fonts is this test's alone.
    static func privateFace() throws -> FontFace {
        let folder = try Fixtures.freshFolder(named: "textmeasure")
        let copy = folder.appendingPathComponent("NotoSans-Regular.ttf")
        try FileManager.default.copyItem(atPath: Fixtures.root + "/Fonts/NotoSans-Regular.ttf", toPath: copy.path)
        return try FontCascade(files: [FontFile(path: copy.path)]).primary
    }

    /// Sizes 8.00, 8.01, 8.02, ... px.
    static func sizes(_ count: Int) -> [Double] {
        (0..<count).map { 8 + Double($0) / 100 }
    }

    static let text = "The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs."

    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func liveFontsStayWithinTheCapacityOverFiveThousandSizes() throws {
        let face = try Self.privateFace()
        let measurer = TextMeasurer(cascade: try FontCascade(files: [FontFile(path: face.path)]))
        #expect(measurer.cascade.primary === face)
        for size in Self.sizes(5_000) {
            let result = try measurer.measure(Self.text, style: TextStyle(size: size), width: 200)
            #expect(result.lineCount > 0)
        }
        #expect(measurer.scaledFonts.count == TextMeasurer.fontSizeCapacity)
        #expect(face.liveScaledFontCount <= TextMeasurer.fontSizeCapacity)
        #expect(face.liveScaledFontCount > 0)
    }

    @Test func evictedSizesAreMadeAgainWithTheSameMetrics() throws {
        let cache = ScaledFontCache(faces: Fixtures.measurer.cascade.fonts, capacity: 2)
        let first = cache.fonts(scale: 16 * 1024)
        let firstMetrics = first.map { [$0.ascender, $0.descender, $0.lineGap] }
        _ = cache.fonts(scale: 17 * 1024)
        _ = cache.fonts(scale: 18 * 1024)   // evicts 16 px
        #expect(cache.count == 2)
        let again = cache.fonts(scale: 16 * 1024)
        #expect(again.map(\.id) == first.map(\.id))
        #expect(zip(again, first).allSatisfy { $0 !== $1 })
        #expect(again.map { [$0.ascender, $0.descender, $0.lineGap] } == firstMetrics)
    }

    /// Many sizes cycling through the bounded font cache, more than it holds, so that fonts are freed
    /// and made again (a freed `hb_font_t`'s memory is typically handed to the next one made): every
    /// width must equal uncached shaping. Keyed by the `hb_font_t`'s address, the shaped-piece cache
    /// would return one size's widths for another here.
    @Test func shapedPiecesAreKeyedByFontIdentityNotAddress() throws {
        let cascade = try FontCascade(files: [FontFile(path: try Self.privateFace().path)])
        let cached = TextMeasurer(cascade: cascade)
        let uncached = TextMeasurer(cascade: cascade, shapeCacheCapacity: 0)
        let sizes = Self.sizes(3 * TextMeasurer.fontSizeCapacity)
        for round in 0..<3 {
            for size in round % 2 == 0 ? sizes : sizes.reversed() {
                let style = TextStyle(size: size)
                let expected = try uncached.measure(Self.text, style: style, width: 240)
                let got = try cached.measure(Self.text, style: style, width: 240)
                #expect(got == expected, "size \(size), round \(round)")
            }
        }
        #expect(cached.shapingStatistics.pieceHits > 0)
    }

    /// Tasks measuring at more sizes than the cache holds, at once, through one measurer: results equal
    /// serial uncached ones, and when all are done the live fonts are within the bound. Run under
    /// `swift test --sanitize=thread` to check for races.
    @Test func concurrentMeasuringAcrossEvictionsMatchesSerial() async throws {
        let face = try Self.privateFace()
        let cascade = try FontCascade(files: [FontFile(path: face.path)])
        let measurer = TextMeasurer(cascade: cascade)
        let sizes = Self.sizes(2 * TextMeasurer.fontSizeCapacity + 7)
        let uncached = TextMeasurer(cascade: cascade, shapeCacheCapacity: 0)
        let expected = try sizes.map { try uncached.measure(Self.text, style: TextStyle(size: $0), width: 180) }
        let results = try await withThrowingTaskGroup(of: [(Int, TextMeasurement)].self) { group in
            for task in 0..<8 {
                group.addTask {
                    var results: [(Int, TextMeasurement)] = []
                    for step in 0..<sizes.count {
                        let index = (step * 7 + task * 31) % sizes.count
                        results.append((index, try measurer.measure(Self.text, style: TextStyle(size: sizes[index]),
                                                                    width: 180)))
                    }
                    return results
                }
            }
            var all: [(Int, TextMeasurement)] = []
            for try await batch in group { all += batch }
            return all
        }
        #expect(results.count == 8 * sizes.count)
        for (index, result) in results { #expect(result == expected[index]) }
        #expect(measurer.scaledFonts.count <= TextMeasurer.fontSizeCapacity)
        // Only this test's measurers hold fonts of this face: the uncached one ≤ its capacity too.
        #expect(face.liveScaledFontCount <= 2 * TextMeasurer.fontSizeCapacity)
    }
}
