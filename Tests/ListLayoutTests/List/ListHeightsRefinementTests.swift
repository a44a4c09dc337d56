import Testing
import TextMeasureSupport
@testable import ListLayout

/// A large lazy first apply counts every row with one provisional estimate, then refines each row's own
/// estimate in the background without moving the reader's row.
@Suite("ListHeights background refinement")
struct ListHeightsRefinementTests {
    /// Each row's own estimate: 20...80 px by identifier. Measured rows: 10 px taller.
    static func estimate(_ post: Post) -> Double { Double(20 + (post.id &* 7_919) % 61) }

    static func list(byHand: Bool) -> PostList {
        let cache = HeightCache<Post>(measure: { post, _ in estimate(post) + 10 },
                                      estimate: { post, _ in HeightEstimate(expected: estimate(post), maximum: 200) })
        let list = PostList(cache: cache, width: 390, measuring: .lazy(overscan: 100),
                            sectionHeaderHeight: ListFixture.headerHeight, sectionFooterHeight: ListFixture.footerHeight)
        list.refinesByHand.withLock { $0 = byHand }
        return list
    }

    static let rowCount = ListHeights<String, Post>.refinedInBackground + 4_321

    /// Three sections (one empty), `rowCount` rows.
    static func snapshot(extra: [Post] = []) throws -> PostSnapshot {
        let posts = ListFixture.posts(0..<rowCount)
        let cut = 2 * rowCount / 3
        return try PostSnapshot(sections: [ListSection(id: "a", items: extra + Array(posts[..<cut])),
                                           ListSection(id: "empty1", items: []),
                                           ListSection(id: "b", items: Array(posts[cut...]))])
    }

    /// Every row's entry: its own estimate (or, when exact, its measurement).
    static func expectRefined(_ list: PostList, _ snapshot: PostSnapshot) {
        let entries = list.entries
        var index = 0, wrong = 0
        for section in snapshot.sections {
            index += 1
            for post in section.items {
                let entry = entries[index]
                let expected = entry.kind == .item ? estimate(post) + 10 : estimate(post)
                if entry.height != OffsetTree.units(expected) { wrong += 1 }
                index += 1
            }
            index += 1
        }
        #expect(wrong == 0)
    }

    @Test func everyRowEndsWithItsOwnEstimate() throws {
        let list = Self.list(byHand: false)
        let snapshot = try Self.snapshot()
        list.apply(snapshot)
        list.waitForRefinement()
        Self.expectRefined(list, snapshot)
        #expect(list.refinementToken == nil)
    }

    @Test func theReadersRowStaysWhereItIs() throws {
        let list = Self.list(byHand: true)
        let snapshot = try Self.snapshot()
        list.apply(snapshot)
        let token = try #require(list.refinementToken)
        // Every row starts with the same provisional estimate.
        let provisional = Set(list.entries.filter { $0.kind == .estimatedItem }.map(\.height))
        #expect(provisional.count == 1)

        // The reader is well inside the list, 17 px into some row.
        var viewTop = 2_000_000.0
        viewTop += list.prepareRows(in: viewTop..<viewTop + 800)
        let row = try #require(list.itemPath(atOffset: viewTop))
        let distance = viewTop - list.offset(of: row)!

        var steps = 0
        while list.refineStep(token: token) {
            steps += 1
            if steps % 3 == 0 {
                // The view asks now and then: each answer keeps the row at the same distance.
                viewTop += list.prepareRows(in: viewTop..<viewTop + 800)
                #expect(abs(viewTop - list.offset(of: row)! - distance) < 1 / 1024)
            }
        }
        viewTop += list.prepareRows(in: viewTop..<viewTop + 800)
        #expect(abs(viewTop - list.offset(of: row)! - distance) < 1 / 1024)
        #expect(steps > 2)
        Self.expectRefined(list, snapshot)
    }

    @Test func anAnchoredApplyMidwayHandsOverTheCorrectionAndTheRefinementGoesOn() throws {
        let list = Self.list(byHand: true)
        let snapshot = try Self.snapshot()
        list.apply(snapshot)
        let token = try #require(list.refinementToken)
        var viewTop = 3_000_000.0
        viewTop += list.prepareRows(in: viewTop..<viewTop + 800)
        let row = try #require(list.itemPath(atOffset: viewTop))
        let rowID = snapshot.item(at: row).id
        let distance = viewTop - list.offset(of: row)!
        for _ in 0..<3 { _ = list.refineStep(token: token) }

        // New rows arrive at the top, with the view's (stale) offset as the anchor.
        let newer = try Self.snapshot(extra: ListFixture.posts(Self.rowCount..<Self.rowCount + 50))
        let (_, offset) = list.apply(newer, anchor: viewTop)
        let moved = try #require(newer.indexPath(of: rowID))
        #expect(abs(offset - list.offset(of: moved)! - distance) < 1 / 1024)

        while list.refineStep(token: token) {}
        Self.expectRefined(list, newer)
    }

    @Test func smallListsAndListsWithoutAnEstimateAreNotRefined() throws {
        let small = Self.list(byHand: true)
        small.apply(try PostSnapshot(sections: [ListSection(id: "s", items: ListFixture.posts(0..<1_000))]))
        #expect(small.refinementToken == nil)
        let log = MeasureLog()
        let plain = ListFixture.list(log, measuring: .lazy(overscan: 100))
        plain.apply(try Self.snapshot())
        #expect(plain.refinementToken == nil)
        #expect(log.count == 0)
    }
}
