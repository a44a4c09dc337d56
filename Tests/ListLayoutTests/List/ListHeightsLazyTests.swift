import Dispatch
import Testing
import TextMeasureSupport
@testable import ListLayout

@Suite("ListHeights lazy mode and prefetch")
struct ListHeightsLazyTests {
    /// Every row is estimated at 50 px; measured rows are 20...50 px (ListFixture.height).
    static func lazyList(_ log: MeasureLog, overscan: Double = 200,
                         measure: (@Sendable (Post) -> Void)? = nil) -> PostList {
        let cache = HeightCache<Post>(measure: { post, width in
            measure?(post)
            log.record(post.id)
            return ListFixture.height(post, width: width)
        }, estimate: { _, _ in HeightEstimate(expected: 50, maximum: 80) })
        return PostList(cache: cache, width: 390, measuring: .lazy(overscan: overscan))
    }

    static func rows(_ count: Int) throws -> PostSnapshot {
        try PostSnapshot(sections: [ListSection(id: "s", items: ListFixture.posts(0..<count))])
    }

    @Test func aHundredThousandRowsCountWithEstimatesUntilNeeded() throws {
        let log = MeasureLog()
        let list = Self.lazyList(log)
        list.apply(try Self.rows(100_000))
        #expect(log.count == 0)
        #expect(list.totalHeight == 50 * 100_000)
        #expect(list.itemPath(atOffset: 50 * 1_000 + 10) == ItemPath(section: 0, item: 1_000))
    }

    @Test func preparingRowsMeasuresTheViewportAndOverscanAndKeepsTheViewportSteady() throws {
        let log = MeasureLog()
        let list = Self.lazyList(log)
        list.apply(try Self.rows(10_000))
        let top = 50.0 * 1_000 + 10   // 10 px into row 1000
        let anchorRow = ItemPath(section: 0, item: 1_000)
        let before = try #require(list.offset(of: anchorRow))
        let correction = list.prepareRows(in: top..<top + 800)
        // Rows above the top row (in the overscan) shrank from 50 px: the content above moved up.
        #expect(correction < 0)
        #expect(list.offset(of: anchorRow)! == before + correction)
        // Every row meeting the corrected viewport plus overscan is exact, and was measured once.
        let viewport = (top + correction - 200)..<(top + correction + 800 + 200)
        let first = list.itemPath(atOffset: viewport.lowerBound)!.item
        let last = list.itemPath(atOffset: viewport.upperBound)!.item
        let entries = list.entries
        for item in first...last { #expect(entries[item + 1].kind == .item) }
        #expect(entries[first].kind == .estimatedItem && entries[last + 2].kind == .estimatedItem)
        #expect(log.measured == Array(first...last))
        // Nothing left to do there.
        log.reset()
        #expect(list.prepareRows(in: (top + correction)..<(top + correction + 800)) == 0)
        #expect(log.count == 0)
    }

    @Test func eagerListsHaveNothingToPrepare() throws {
        let list = ListFixture.list(MeasureLog())
        list.apply(try Self.rows(100))
        #expect(list.prepareRows(in: 0..<500) == 0)
    }

    @Test func prefetchedRowsAreNotMeasuredAgain() throws {
        let log = MeasureLog()
        let list = Self.lazyList(log, overscan: 0)
        list.apply(try Self.rows(10_000))
        let paths = (2_000..<2_050).map { ItemPath(section: 0, item: $0) }
        list.prefetch(paths)
        list.prefetchGroup.wait()
        #expect(log.measured == Array(2_000..<2_050))
        // Offsets do not move until the rows are prepared.
        #expect(list.offset(of: ItemPath(section: 0, item: 2_000)) == 50.0 * 2_000)
        let top = 50.0 * 2_000
        list.prepareRows(in: top..<top + 1_000)
        let measured = log.measured
        #expect(Set(measured).count == measured.count)   // nothing twice
        #expect(Set(measured).isSuperset(of: 2_000..<2_050))
        // Exact rows are not prefetched again.
        log.reset()
        list.prefetch(paths)
        list.prefetchGroup.wait()
        #expect(log.count == 0)
    }

    @Test func cancelledPrefetchStopsMeasuring() throws {
        let log = MeasureLog()
        let started = DispatchSemaphore(value: 0)
        let gate = DispatchGroup()   // every measurement waits here until the test opens it
        gate.enter()
        let list = Self.lazyList(log, measure: { _ in
            started.signal()
            gate.wait()
        })
        list.apply(try Self.rows(1_000))
        list.prefetch((0..<1_000).map { ItemPath(section: 0, item: $0) })
        started.wait()          // a measurement is under way, and stuck
        list.cancelPrefetch()   // returns at once all the same
        gate.leave()
        list.prefetchGroup.wait()
        // Only the measurements under way when cancelled finish: one per worker thread.
        #expect(log.count >= 1 && log.count <= 16)
    }

    @Test func widthChangeInLazyModeKeepsMeasuredRowsExactWhereTheirRangeHolds() throws {
        let log = MeasureLog()
        let cache = HeightCache<Post>(measurement: { post, _ in
            log.record(post.id)
            return RowMeasurement(height: 30, validWidths: 300..<500)
        }, estimate: { _, _ in HeightEstimate(expected: 50, maximum: 80) })
        let list = PostList(cache: cache, width: 390, measuring: .lazy(overscan: 0))
        list.apply(try Self.rows(1_000))
        list.prepareRows(in: 0..<300)   // rows 0..<10 (or so) measured
        let measured = log.count
        log.reset()
        list.setWidth(320)
        #expect(log.count == 0)
        let entries = list.entries
        #expect(entries[1...measured].allSatisfy { $0.kind == .item && $0.height == OffsetTree.units(30) })
        #expect(entries[(measured + 1)..<1_001].allSatisfy { $0.kind == .estimatedItem })
        list.setWidth(200)   // outside the range: estimates again
        #expect(list.entries.allSatisfy { $0.kind != .item })
    }
}
