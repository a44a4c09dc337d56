import Testing
import TestSupport
import TextMeasureSupport
@testable import ListLayout

@Suite("ListHeights")
struct ListHeightsTests {
    @Test func firstApplyInsertsEverythingAndLaysOutHeadersRowsAndFooters() throws {
        let log = MeasureLog()
        let list = ListFixture.list(log)
        let snapshot = try PostSnapshot(sections: [
            ListSection(id: "s1", items: ListFixture.posts(0..<3)),
            ListSection(id: "empty", items: []),
            ListSection(id: "s2", items: ListFixture.posts(3..<5)),
        ])
        let changes = list.apply(snapshot)
        #expect(changes == ListChanges(insertedSections: [0, 1, 2]))
        #expect(log.measured == Array(0..<5))
        let entries = ListFixture.entries(snapshot)
        let offsets = ListFixture.offsets(entries)
        #expect(list.entries == entries)
        #expect(list.totalHeight == offsets.last!)
        // Entries: s1 header (6 px), rows 1...3, footer (0); empty's header, footer; s2 header, rows 8, 9, footer.
        #expect(list.offset(of: ItemPath(section: 0, item: 0)) == 6)
        #expect(list.offset(of: ItemPath(section: 2, item: 1)) == offsets[9])
        #expect(list.height(of: ItemPath(section: 2, item: 1)) == ListFixture.height(Post(4, "t"), width: 390))
        #expect(list.offset(of: .header(section: 1)) == offsets[5])
        #expect(list.height(of: .footer(section: 1)) == 5)
        #expect(list.element(atOffset: 0) == .header(section: 0))
        #expect(list.element(atOffset: offsets[5] + 1) == .header(section: 1))
        #expect(list.element(atOffset: offsets[3]) == .item(ItemPath(section: 0, item: 2)))
        #expect(list.element(atOffset: offsets[10]) == .footer(section: 2))
        for (index, entry) in entries.enumerated() where entry.kind == .item {
            let path = list.itemPath(atOffset: offsets[index] + 0.5)!
            #expect(list.offset(of: path) == offsets[index])
        }
        // On a header or footer: the first item below.
        #expect(list.itemPath(atOffset: 1) == ItemPath(section: 0, item: 0))
        #expect(list.itemPath(atOffset: offsets[5]) == ItemPath(section: 2, item: 0))
        // The last footer: the last item above.
        #expect(list.itemPath(atOffset: list.totalHeight - 1) == ItemPath(section: 2, item: 1))
    }

    @Test func pathsAndOffsetsOutOfRangeGiveNil() throws {
        let list = ListFixture.list(MeasureLog())
        #expect(list.itemPath(atOffset: 0) == nil)
        #expect(list.totalHeight == 0)
        list.apply(try PostSnapshot(sections: [ListSection(id: "s", items: ListFixture.posts(0..<3))]))
        #expect(list.height(of: ItemPath(section: 0, item: 3)) == nil)
        #expect(list.height(of: ItemPath(section: 1, item: 0)) == nil)
        #expect(list.offset(of: ItemPath(section: -1, item: 0)) == nil)
        #expect(list.offset(of: ItemPath(section: 0, item: -1)) == nil)
        #expect(list.height(of: .header(section: 1)) == nil)
        #expect(list.itemPath(atOffset: -0.5) == nil)
        #expect(list.itemPath(atOffset: list.totalHeight) == nil)
        #expect(list.itemPath(atOffset: .nan) == nil)
        #expect(list.element(atOffset: .infinity) == nil)
        list.prefetch([ItemPath(section: 5, item: 5)])   // ignored
    }

    /// Random snapshot pairs (sections and items deleted, inserted, moved within and across sections,
    /// edited): after applying both, the offsets are exactly those of a fresh layout of the second,
    /// and the batch is the diff's.
    @Test func randomPairsLeaveExactlyTheOffsetsOfAFreshLayout() throws {
        var generator = ListPairGenerator(seed: 2024)
        for _ in 0..<1_500 {
            let (oldSections, newSections) = generator.pair()
            let old = try PostSnapshot(sections: oldSections), new = try PostSnapshot(sections: newSections)
            let list = ListFixture.list(MeasureLog())
            list.apply(old)
            #expect(list.entries == ListFixture.entries(old))
            let changes = list.apply(new)
            #expect(changes == new.changes(from: old))
            #expect(list.entries == ListFixture.entries(new))
            #expect(list.snapshot == new)
        }
    }

    @Test func measuresOnlyRowsNewOrChanged() throws {
        let log = MeasureLog()
        let list = ListFixture.list(log)
        let first = try PostSnapshot(sections: [ListSection(id: "chat", items: ListFixture.posts(100..<300))])
        list.apply(first)
        #expect(log.count == 200)
        log.reset()
        // 50 older messages on top, one message edited, two deleted, one moved.
        var items = ListFixture.posts(50..<100) + first.sections[0].items
        items[60].text = "edited"
        items.removeSubrange(70..<72)
        items.append(items.remove(at: 80))
        let second = try PostSnapshot(sections: [ListSection(id: "chat", items: items)])
        let changes = list.apply(second)
        #expect(changes.insertedItems.count == 50 && changes.updatedItems.count == 1)
        #expect(log.measured == Array(50..<100) + [110])
        #expect(list.entries == ListFixture.entries(second))
        log.reset()
        list.apply(second)
        #expect(log.count == 0)
    }

    @Test func rowsThatKeepTheirContentsKeepTheirHeightsEvenWhenTheCacheForgotThem() throws {
        let log = MeasureLog()
        let list = ListFixture.list(log, capacity: 1)   // the cache remembers one row
        let old = try PostSnapshot(sections: [
            ListSection(id: "a", items: ListFixture.posts(0..<20)),
            ListSection(id: "b", items: ListFixture.posts(20..<40)),
        ])
        list.apply(old)
        log.reset()
        // Section b moves on top, rows move inside and across sections, section a goes away and its
        // rows live on in a new section c.
        let new = try PostSnapshot(sections: [
            ListSection(id: "b", items: ListFixture.posts([21, 20] + Array(22..<40) + [3])),
            ListSection(id: "c", items: ListFixture.posts([0, 1, 2] + Array(4..<20))),
        ])
        list.apply(new)
        #expect(log.count == 0)
        #expect(list.entries == ListFixture.entries(new))
    }

    @Test func reconfiguredItemsAreMeasuredAgainAndReportedAsUpdated() throws {
        let log = MeasureLog()
        let list = ListFixture.list(log)
        let snapshot = try PostSnapshot(sections: [ListSection(id: "s", items: ListFixture.posts(0..<10))])
        list.apply(snapshot)
        log.reset()
        let changes = list.apply(snapshot, reconfiguring: [3, 7, 99])
        #expect(changes == ListChanges(updatedItems: [ItemPath(section: 0, item: 3), ItemPath(section: 0, item: 7)]))
        #expect(log.measured == [3, 7])
    }

    @Test func widthChangeReusesMeasurementsWhoseRangeStillHolds() throws {
        let log = MeasureLog()
        // Even ids hold from 200 to 500 px; odd ids only at the width measured.
        let cache = HeightCache<Post>(measurement: { post, width in
            log.record(post.id)
            let height = ListFixture.height(post, width: 390)
            return post.id % 2 == 0 ? RowMeasurement(height: height, validWidths: 200..<500)
                                    : RowMeasurement(height: height + (width == 390 ? 0 : 10), width: width)
        })
        let list = PostList(cache: cache, width: 390)
        let snapshot = try PostSnapshot(sections: [ListSection(id: "s", items: ListFixture.posts(0..<100))])
        list.apply(snapshot)
        log.reset()
        let top = try #require(list.offset(of: ItemPath(section: 0, item: 40)))
        let offset = list.setWidth(320, anchor: top + 5)
        #expect(log.measured == Array(stride(from: 1, to: 100, by: 2)))
        #expect(list.width == 320)
        // 20 odd rows above row 40 grew by 10 px each; the anchor row (even) kept its height.
        #expect(offset == top + 200 + 5)
        #expect(list.offset(of: ItemPath(section: 0, item: 40)) == top + 200)
        log.reset()
        list.setWidth(390)   // back: every height still cached
        #expect(log.count == 0)
        #expect(list.offset(of: ItemPath(section: 0, item: 40)) == top)
    }

    /// A drag asks the cache only for the rows whose range no longer holds, and its heights are those
    /// of a list laid out at each width from scratch (fixed seed, random ranges).
    @Test func aDragAsksOnlyForRowsWhoseRangeFailsAndAgreesWithAFreshLayout() throws {
        // Row r's height changes every (10 + r % 37) px: its range is the band holding the width.
        @Sendable func measurement(_ post: Post, _ width: Double) -> RowMeasurement {
            let band = Double(10 + post.id % 37), index = (width / band).rounded(.down)
            return RowMeasurement(height: 20 + Double(post.id % 5) * 3 + 1_000 / (index + 1),
                                  validWidths: index * band..<(index + 1) * band)
        }
        let log = MeasureLog()
        let cache = HeightCache<Post>(measurement: { post, width in log.record(post.id); return measurement(post, width) })
        let list = PostList(cache: cache, width: 300)
        let snapshot = try PostSnapshot(sections: [ListSection(id: "a", items: ListFixture.posts(0..<150)),
                                                   ListSection(id: "b", items: ListFixture.posts(150..<400))])
        list.apply(snapshot)
        var random = SplitMix64(seed: 0xD7A6)
        var width = 300.0, asked = 0
        for _ in 0..<120 {
            let previous = width
            width = max(50, min(900, width + Double(Int.random(in: -6...6, using: &random)) + 0.25))
            log.reset()
            list.setWidth(width)
            let expected = snapshot.sections.flatMap(\.items).filter { post in
                !measurement(post, previous).validWidths.contains(width)
            }.map(\.id)
            #expect(log.measured.allSatisfy(Set(expected).contains), "width \(width)")
            asked += log.count
            let fresh = PostList(cache: HeightCache<Post>(measurement: measurement), width: width)
            fresh.apply(snapshot)
            #expect(list.entries == fresh.entries, "width \(width)")
        }
        #expect(asked > 400 && asked < 120 * 400 / 4)   // rows were measured again, far from all of them
    }

    /// A drag updates its entries in place: width-dependent headers and footers, an empty section and
    /// the anchor come out as in a list laid out at each width from scratch (fixed seed).
    @Test func aDragWithHeadersFootersAndAnEmptySectionAgreesWithAFreshLayout() throws {
        @Sendable func measurement(_ post: Post, _ width: Double) -> RowMeasurement {
            let band = Double(7 + post.id % 23), index = (width / band).rounded(.down)
            return RowMeasurement(height: 12 + Double(post.id % 7) * 2 + 900 / (index + 1),
                                  validWidths: index * band..<(index + 1) * band)
        }
        @Sendable func header(_ section: String, _ width: Double) -> Double { Double(section.count) + width / 50 }
        @Sendable func footer(_ section: String, _ width: Double) -> Double { section == "b" ? 0 : 1_000 / width }
        func list(width: Double) -> PostList {
            PostList(cache: HeightCache<Post>(measurement: measurement), width: width,
                     sectionHeaderHeight: header, sectionFooterHeight: footer)
        }
        let snapshot = try PostSnapshot(sections: [ListSection(id: "a", items: ListFixture.posts(0..<90)),
                                                   ListSection(id: "b", items: []),
                                                   ListSection(id: "cc", items: ListFixture.posts(90..<250))])
        let dragged = list(width: 320)
        dragged.apply(snapshot)
        var random = SplitMix64(seed: 0x5EED_D2A6)
        var width = 320.0
        for _ in 0..<80 {
            width = max(60, min(700, width + Double(Int.random(in: -9...9, using: &random))))
            let anchor = Double(Int.random(in: 0..<8_000, using: &random))
            let offset = dragged.setWidth(width, anchor: anchor)
            let fresh = list(width: width)
            fresh.apply(snapshot)
            #expect(dragged.entries == fresh.entries, "width \(width)")
            #expect(dragged.totalHeight == fresh.totalHeight, "width \(width)")
            #expect(offset.isFinite)
        }
    }

    /// Heights a drag keeps are read again once the cache forgets them: an invalidated row is measured
    /// anew at the next width even where its old range holds.
    @Test func aDragReadsInvalidatedRowsAgain() throws {
        let generation = Locked(0)
        let cache = HeightCache<Post>(measurement: { post, _ in
            RowMeasurement(height: Double(post.id + 10 * generation.withLock { $0 }), validWidths: 0..<1_000)
        })
        let list = PostList(cache: cache, width: 300)
        list.apply(try PostSnapshot(sections: [ListSection(id: "s", items: ListFixture.posts(0..<10))]))
        list.setWidth(301)
        #expect(list.height(of: ItemPath(section: 0, item: 3)) == 3)
        generation.withLock { $0 = 1 }
        cache.invalidate(Post(3, "t"))
        list.setWidth(302)
        #expect(list.height(of: ItemPath(section: 0, item: 3)) == 13)
        #expect(list.height(of: ItemPath(section: 0, item: 4)) == 4)   // still valid: kept
        cache.removeAll()
        list.setWidth(303)
        #expect(list.height(of: ItemPath(section: 0, item: 4)) == 14)
    }
}
