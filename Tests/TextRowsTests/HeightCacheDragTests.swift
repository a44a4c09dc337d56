import Testing
import TestSupport
@testable import TextRows
@testable import ListLayout
@testable import TextMeasure

/// A width drag through the cache: the entries kept are exactly those of the retained widths, and
/// the measurements equal a fresh cache's.
@Suite("HeightCache drag")
struct HeightCacheDragTests {
    /// A seeded random walk of widths, each step a batch at the new width, checked against a model
    /// of the retained widths (most recent last): entries, widths and evictions match it exactly, and
    /// every retained width still answers every row.
    @Test(arguments: [1, 3, 4])
    func dropsExactlyTheWidthsThatFallOutOfTheRetainedSet(retainedWidths: Int) {
        let models = Array(0..<60)
        let cache = HeightCache<Int>(capacity: 10_000, retainedWidths: retainedWidths,
                                     measure: { model, width in Double(model) * 0.5 + width })
        var random = SplitMix64(seed: 0xD2A6_0000 &+ UInt64(retainedWidths))
        var retained: [Int] = []   // widths in px, most recent last
        var dropped = 0
        var width = 320
        for _ in 0..<200 {
            width = max(200, min(440, width + Int.random(in: -3...3, using: &random)))
            let heights = cache.prefetch(models, width: Double(width))
            #expect(heights == models.map { Double($0) * 0.5 + Double(width) })
            if let index = retained.firstIndex(of: width) { retained.remove(at: index) }
            retained.append(width)
            if retained.count > retainedWidths { retained.removeFirst(); dropped += 1 }
            let statistics = cache.statistics
            #expect(statistics.widths == retained.count)
            #expect(statistics.entries == retained.count * models.count)
            #expect(statistics.evictions == dropped * models.count)
        }
        // Oldest first, so that every look-up touches a width already retained and drops none.
        for width in retained {
            for model in models {
                #expect(cache.cachedHeight(for: model, width: Double(width)) == Double(model) * 0.5 + Double(width))
            }
        }
        #expect(cache.statistics.entries == retained.count * models.count)
    }

    /// Rows of real text dragged 1 px at a time over 160 px and back: every measurement equals the
    /// row laid out afresh at that width, and the cache holds only the retained widths' entries.
    @Test func aDragOfRealRowsEqualsFreshMeasurements() throws {
        let row = RowLayout<String>(insets: RowInsets(top: 10, leading: 16, bottom: 10, trailing: 16),
                                    elements: [.text({ $0 }, style: TextStyle(size: 17))])
        let measurer = try TextMeasurer()
        let words = "the meeting tomorrow morning at the station office project review slides build test".split(separator: " ")
        var random = SplitMix64(seed: 0xD2A6)
        let texts = (0..<120).map { id -> String in
            (0..<Int.random(in: 3...30, using: &random)).map { _ in String(words.randomElement(using: &random)!) }
                .joined(separator: " ") + " \(id)."
        }
        let cache = try HeightCache(layout: row, measurer: measurer, retainedWidths: 4)
        let prepared = PreparedTextCache(measurer: measurer, capacity: texts.count)
        for step in 0..<320 {
            let width = 240 + Double(step < 160 ? step : 320 - step)
            let measured = cache.measurements(for: texts, width: width)
            let fresh = try texts.map { text throws(TextMeasureError) in try row.measure(text, width: width, texts: prepared) }
            #expect(measured == fresh, "width \(width)")
            #expect(cache.statistics.widths == min(step + 1, 4))
            #expect(cache.statistics.entries <= 4 * texts.count)
        }
    }
}
