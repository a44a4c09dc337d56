import Foundation

import Testing
import TextMeasureSupport
import TestSupport
@testable import TextRows
@testable import ListLayout
@testable import TextMeasure

/// Counts calls from any thread.
final class Counter: Sendable {
    private let value = Locked(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// A model whose hash ignores its contents: equal hashes, different models.
struct Colliding: Hashable, Sendable {
    var text: String
    func hash(into hasher: inout Hasher) { hasher.combine(0) }
}

@Suite("HeightCache")
struct HeightCacheTests {
    @Test func measuresOnceThenAnswersFromTheCache() {
        let calls = Counter()
        let cache = HeightCache<String>(measure: { text, width in
            calls.increment()
            return Double(text.count) * 1000 / width
        })
        #expect(cache.height(for: "hello", width: 100) == 50)
        #expect(cache.height(for: "hello", width: 100) == 50)
        #expect(cache.height(for: "hello!", width: 100) == 60)
        #expect(calls.count == 2)
        let stats = cache.statistics
        #expect(stats.hits == 1)
        #expect(stats.misses == 2)
        #expect(stats.entries == 2)
    }

    @Test func modelsWithEqualHashesNeverShareAHeight() {
        let cache = HeightCache<Colliding>(measure: { model, _ in Double(model.text.count) })
        #expect(cache.height(for: Colliding(text: "a"), width: 10) == 1)
        #expect(cache.height(for: Colliding(text: "abc"), width: 10) == 3)
        #expect(cache.height(for: Colliding(text: "a"), width: 10) == 1)
    }

    @Test func aMeasurementIsReusedOnlyWhereItsRangeHolds() {
        let calls = Counter()
        // Pretend heights change at every multiple of 100 px.
        let cache = HeightCache<String>(measurement: { _, width in
            calls.increment()
            let bucket = (width / 100).rounded(.down)
            return RowMeasurement(height: 10 * (10 - bucket), validWidths: bucket * 100..<(bucket + 1) * 100)
        })
        #expect(cache.height(for: "row", width: 320) == 70)
        #expect(cache.height(for: "row", width: 350) == 70)   // same range: no measuring
        #expect(calls.count == 1)
        #expect(cache.statistics.rangeHits == 1)
        #expect(cache.height(for: "row", width: 400) == 60)   // outside: measured
        #expect(calls.count == 2)
    }

    @Test func aPlainClosureHoldsOnlyAtItsWidth() {
        let calls = Counter()
        let cache = HeightCache<String>(measure: { _, width in calls.increment(); return width })
        _ = cache.height(for: "a", width: 100)
        _ = cache.height(for: "a", width: 100.0001)   // the same width in 1/1024 px
        _ = cache.height(for: "a", width: 101)
        #expect(calls.count == 2)
    }

    @Test func recentWidthsAreRetainedAndOlderOnesDropped() {
        let calls = Counter()
        let cache = HeightCache<Int>(retainedWidths: 2, measure: { model, width in calls.increment(); return Double(model) + width })
        for model in 0..<10 { _ = cache.height(for: model, width: 390) }   // portrait
        for model in 0..<10 { _ = cache.height(for: model, width: 844) }   // landscape
        for model in 0..<10 { _ = cache.height(for: model, width: 390) }   // portrait again: cached
        #expect(calls.count == 20)
        for model in 0..<10 { _ = cache.height(for: model, width: 600) }   // a third width drops 844
        #expect(cache.statistics.widths == 2)
        #expect(cache.statistics.entries == 20)
        for model in 0..<10 { _ = cache.height(for: model, width: 844) }
        #expect(calls.count == 40)
    }

    @Test func capacityEvictsTheLeastRecentlyUsed() {
        let calls = Counter()
        let cache = HeightCache<Int>(capacity: 3, measure: { model, _ in calls.increment(); return Double(model) })
        for model in 0..<3 { _ = cache.height(for: model, width: 100) }
        _ = cache.height(for: 0, width: 100)   // 0 is now the most recent; 1 the least
        _ = cache.height(for: 3, width: 100)   // evicts 1
        #expect(cache.statistics.evictions == 1)
        #expect(cache.cachedHeight(for: 1, width: 100) == nil)
        #expect(cache.cachedHeight(for: 0, width: 100) == 0)
        #expect(cache.statistics.entries == 3)
    }

    @Test func invalidateAndRemoveAll() {
        let calls = Counter()
        let cache = HeightCache<String>(measure: { _, _ in calls.increment(); return 1 })
        _ = cache.height(for: "a", width: 100)
        _ = cache.height(for: "a", width: 200)
        _ = cache.height(for: "b", width: 100)
        cache.invalidate("a")
        #expect(cache.cachedHeight(for: "a", width: 100) == nil)
        #expect(cache.cachedHeight(for: "a", width: 200) == nil)
        #expect(cache.cachedHeight(for: "b", width: 100) == 1)
        cache.removeAll()
        #expect(cache.statistics.entries == 0)
        _ = cache.height(for: "b", width: 100)
        #expect(calls.count == 4)
    }

    @Test func estimatesNeverMeasure() {
        let calls = Counter()
        let cache = HeightCache<Int>(measure: { model, _ in calls.increment(); return Double(model) })
        #expect(cache.estimatedHeight(for: 5, width: 100) == 44)   // nothing known: UIKit's default
        _ = cache.height(for: 10, width: 100)
        _ = cache.height(for: 30, width: 100)
        #expect(cache.estimatedHeight(for: 10, width: 100) == 10)   // exact when cached
        #expect(cache.estimatedHeight(for: 99, width: 100) == 20)   // mean of measured rows
        #expect(cache.estimatedHeight(for: 99, width: 100, conservative: true) == 30)
        #expect(calls.count == 2)
        #expect(cache.statistics.estimates == 3)   // the three calls with no cached height
        let custom = HeightCache<Int>(measure: { _, _ in 1 }, estimate: { model, _ in HeightEstimate(expected: Double(model), maximum: 99) })
        #expect(custom.estimatedHeight(for: 7, width: 10) == 7)
        #expect(custom.estimatedHeight(for: 7, width: 10, conservative: true) == 99)
    }

    /// Sixteen threads miss on one key while its measurement is under way (held until the other
    /// fifteen wait for it): one measurement, fifteen coalesced.
    @Test func concurrentMissesOnOneKeyMeasureOnce() {
        let calls = Counter()
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let cache = HeightCache<String>(measure: { _, _ in
            calls.increment()
            started.signal()
            release.wait()   // under way until the test lets it finish
            return 42
        })
        let heights = Locked([Double]())
        let group = DispatchGroup()
        // Threads of their own (serial queues overcommit), so that blocked callers block no pool.
        DispatchQueue(label: "first").async(group: group) {
            let height = cache.height(for: "same", width: 320)
            heights.withLock { $0.append(height) }
        }
        started.wait()
        for thread in 0..<15 {
            DispatchQueue(label: "waiter \(thread)").async(group: group) {
                let height = cache.height(for: "same", width: 320)
                heights.withLock { $0.append(height) }
            }
        }
        while cache.statistics.coalesced < 15 { sched_yield() }   // every waiter has joined
        release.signal()
        group.wait()
        #expect(heights.withLock { $0 }.count == 16 && heights.withLock { $0 }.allSatisfy { $0 == 42 })
        #expect(calls.count == 1)
        #expect(cache.statistics.coalesced == 15)
    }

    /// A batch adds its heights to the default estimate at once: the mean and the tallest of every
    /// row measured at the width, whether one by one or in batches (fixed seed).
    @Test func batchesAndSingleRowsFeedTheSameDefaultEstimate() {
        var random = SplitMix64(seed: 0xE571)
        let heights = (0..<300).map { _ in Double(Int.random(in: 10...200, using: &random)) }
        let cache = HeightCache<Int>(measure: { model, width in heights[model] + (width == 200 ? 1 : 0) })
        _ = cache.prefetch(Array(0..<100), width: 100)
        for model in 100..<150 { _ = cache.height(for: model, width: 100) }
        _ = cache.measurements(for: Array(150..<300), width: 100)
        _ = cache.prefetch(Array(0..<10), width: 200)   // another width: its own figures
        let mean = heights.reduce(0, +) / Double(heights.count)
        #expect(abs(cache.estimatedHeight(for: 1_000, width: 100) - mean) < 1e-9)
        #expect(cache.estimatedHeight(for: 1_000, width: 100, conservative: true) == heights.max())
        #expect(cache.estimatedHeight(for: 1_000, width: 200, conservative: true) == heights[0..<10].max()! + 1)
        #expect(cache.statistics.misses == 310)
    }

    /// Many threads, many keys, widths changing: every answer equals a direct measurement. Run under
    /// `swift test --sanitize=thread` to check the locking.
    @Test func concurrentUseGivesTheSameAnswersAsSerialUse() async {
        let cache = HeightCache<Int>(capacity: 500, retainedWidths: 3, measure: { model, width in Double(model * 7 % 13) + width / 10 })
        let widths = [320.0, 375, 414, 768]
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for step in 0..<2_000 {
                        let model = (step * 31 + task) % 700
                        let width = widths[(step / 50 + task) % widths.count]
                        if step % 97 == 0 { cache.invalidate(model) }
                        let expected = Double(model * 7 % 13) + width / 10
                        if cache.height(for: model, width: width) != expected { wrong += 1 }
                        let estimate = cache.estimatedHeight(for: model + 1, width: width)
                        if !estimate.isFinite { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(cache.statistics.entries <= 500)
    }
}

@Suite("Prefetching")
struct PrefetchTests {
    @Test func prefetchMeasuresMissingRowsOnceAndReturnsHeightsInOrder() {
        let calls = Counter()
        let cache = HeightCache<Int>(measure: { model, width in calls.increment(); return Double(model) + width })
        _ = cache.height(for: 3, width: 100)
        let heights = cache.prefetch(Array(0..<200), width: 100)
        #expect(heights == (0..<200).map { Double($0) + 100 })
        #expect(calls.count == 200)
        #expect(cache.statistics.entries == 200)
    }

    /// A batch with repeated models measures each once, and so do batches overlapping on several
    /// threads at once (each waits for rows another is measuring instead of measuring them again).
    @Test func overlappingBatchesMeasureEachRowOnce() async {
        let calls = Counter()
        let cache = HeightCache<Int>(capacity: 50_000, measure: { model, _ in calls.increment(); return Double(model) })
        let repeated = (0..<300).map { $0 % 100 }
        #expect(cache.measurements(for: repeated, width: 10).map(\.height) == repeated.map(Double.init))
        #expect(calls.count == 100)
        await withTaskGroup(of: [Double].self) { group in
            for offset in 0..<8 {
                group.addTask { cache.prefetch(Array((offset * 500)..<(offset * 500 + 2_000)), width: 20) }
            }
            for await heights in group { #expect(heights.count == 2_000) }
        }
        #expect(calls.count == 100 + 5_500)   // 0 ..< 3,500 + 2,000 at width 20, each once
        #expect(cache.prefetch([7, 7, 9_000], width: 20) == [7, 7, 9_000])
        #expect(calls.count == 100 + 5_501)
    }

    /// Estimates for many rows at once are what the rows' own estimates would be, cached rows included.
    @Test func batchEstimatesMatchOneByOne() throws {
        let row = RowLayout<String>(insets: RowInsets(all: 8), elements: [.text({ $0 }, style: TextStyle(size: 15))])
        let cache = try HeightCache(layout: row, measurer: TextMeasurer())
        let texts = ["short", String(repeating: "a long line of words ", count: 20), "", "日本語のテキスト"]
        _ = cache.height(for: texts[1], width: 200)
        for conservative in [false, true] {
            let batch = cache.estimatedHeights(for: texts, width: 200, conservative: conservative)
            #expect(batch == texts.map { cache.estimatedHeight(for: $0, width: 200, conservative: conservative) })
        }
        #expect(cache.estimatedHeights(for: texts, width: .nan) == Array(repeating: cache.fallbackEstimate, count: 4))
    }
}

/// Widths are checked by the package's one rule (`MeasurementLimits`): the calls documented never to
/// trap answer "nothing cached" and an estimate for any width, however large, small or not a number.
@Suite("HeightCache widths")
struct HeightCacheWidthTests {
    @Test(arguments: [0, -1, 1e-300, 1e12, 1e20, 1e300, .infinity, .nan])
    func lookupsNeverTrapOnWidthsOutOfRange(width: Double) throws {
        let cache = HeightCache<String>(measure: { text, _ in Double(text.count) })
        _ = cache.height(for: "abc", width: 100)
        #expect(cache.cachedHeight(for: "abc", width: width) == nil)
        #expect(cache.estimatedHeight(for: "abc", width: width) == cache.fallbackEstimate)
        #expect(cache.estimatedHeight(for: "abc", width: width, conservative: true) == .infinity)

        let row = RowLayout<String>(insets: RowInsets(all: 8), elements: [.text({ $0 }, style: TextStyle(size: 15))])
        let rows = try HeightCache(layout: row, measurer: TextMeasurer())
        #expect(rows.cachedHeight(for: "abc", width: width) == nil)
        #expect(rows.estimatedHeight(for: "abc", width: width).isFinite)
    }

    /// A row narrower than its insets, or as wide as allowed, measures (the text is laid out at the
    /// narrowest width the package allows, or at a billion pixels).
    @Test func rowsAtTheEdgesOfTheWidthRange() throws {
        let row = RowLayout<String>(insets: RowInsets(top: 2, leading: 40, bottom: 2, trailing: 40),
                                    elements: [.text({ $0 }, style: TextStyle(size: 15))])
        let cache = try HeightCache(layout: row, measurer: TextMeasurer())
        #expect(cache.height(for: "ab", width: MeasurementLimits.width.lowerBound) > 0)
        #expect(cache.height(for: "ab cd", width: MeasurementLimits.width.upperBound) > 0)
        #expect(cache.height(for: "ab cd", width: 10) >= cache.height(for: "ab cd", width: 1e9))
    }
}
