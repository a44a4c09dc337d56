import TestSupport
import Testing
import TextMeasureSupport
@testable import ListLayout

@Suite("ListHeights anchoring")
struct ListHeightsAnchorTests {
    static func chat(_ ids: some Sequence<Int>) throws -> PostSnapshot {
        try PostSnapshot(sections: [ListSection(id: "chat", items: ListFixture.posts(ids))])
    }

    static func rows(_ ids: some Sequence<Int>) -> Double {
        ids.reduce(0) { $0 + ListFixture.height(Post($1, "t"), width: 390) }
    }

    /// A list of messages 100..<300, scrolled so that message 220's top is 7 px above the viewport.
    static func scrolled() throws -> (list: PostList, anchor: Double) {
        let list = ListFixture.list(MeasureLog())
        list.apply(try chat(100..<300))
        return (list, try #require(list.offset(of: ItemPath(section: 0, item: 120))) + 7)
    }

    @Test func prependingOlderMessagesKeepsTheMessageReadInPlace() throws {
        let (list, anchor) = try Self.scrolled()
        let (changes, offset) = list.apply(try Self.chat(50..<300), anchor: anchor)
        #expect(changes.insertedItems.count == 50)
        #expect(offset == anchor + Self.rows(50..<100))
        #expect(list.offset(of: ItemPath(section: 0, item: 170))! + 7 == offset)
    }

    @Test func deletingAboveMovesTheContentUp() throws {
        let (list, anchor) = try Self.scrolled()
        let (_, offset) = list.apply(try Self.chat(Array(100..<110) + Array(120..<300)), anchor: anchor)
        #expect(offset == anchor - Self.rows(110..<120))
    }

    @Test func aRowAboveGrowingMovesTheContentDown() throws {
        let (list, anchor) = try Self.scrolled()
        var items = ListFixture.posts(100..<300)
        items[5].text = "a much longer text"   // 18 characters instead of 1: 68 px taller
        let (changes, offset) = list.apply(try PostSnapshot(sections: [ListSection(id: "chat", items: items)]),
                                           anchor: anchor)
        #expect(changes.updatedItems == [ItemPath(section: 0, item: 5)])
        #expect(offset == anchor + 68)
    }

    @Test func aDeletedAnchorRowHandsOverToTheNextRowThatStays() throws {
        let (list, anchor) = try Self.scrolled()
        let oldTop = try #require(list.offset(of: ItemPath(section: 0, item: 123)))   // message 223
        // Messages 220...222 go; 223 keeps its distance from the viewport's top.
        let (_, offset) = list.apply(try Self.chat(Array(100..<220) + Array(223..<300)), anchor: anchor)
        let newTop = try #require(list.offset(of: ItemPath(section: 0, item: 120)))
        #expect(newTop - offset == oldTop - anchor)
    }

    @Test func aDeletedAnchorRowWithNothingAfterHandsOverToTheRowBefore() throws {
        let (list, anchor) = try Self.scrolled()
        let oldTop = try #require(list.offset(of: ItemPath(section: 0, item: 119)))   // message 219
        let (_, offset) = list.apply(try Self.chat(100..<220), anchor: anchor)
        let newTop = try #require(list.offset(of: ItemPath(section: 0, item: 119)))
        #expect(newTop - offset == oldTop - anchor)
    }

    @Test func aMovedAnchorRowIsFollowed() throws {
        let (list, anchor) = try Self.scrolled()
        let (changes, offset) = list.apply(try Self.chat([220] + Array(100..<220) + Array(221..<300)), anchor: anchor)
        #expect(!changes.movedItems.isEmpty)
        #expect(offset == 12 + 7)   // message 220 is now the first row, under the 12 px header
    }

    @Test func anEmptyListKeepsTheAnchorAndAnEmptiedOneGoesToTheTop() throws {
        let list = ListFixture.list(MeasureLog())
        #expect(list.apply(try Self.chat(0..<10), anchor: 0).contentOffset == 0)
        #expect(list.apply(try Self.chat(20..<30), anchor: 100).contentOffset == 0)
    }

    /// Random pairs against the rule computed over plain arrays: the row (or header, or footer) at the
    /// anchor keeps its distance if it lives on; else the nearest item row after it that is neither
    /// deleted nor moved (nor in a deleted or moved section); else the nearest such row before it.
    @Test func randomPairsFollowTheRule() throws {
        enum Identity: Hashable { case header(String), item(Int), footer(String) }
        func identities(_ snapshot: PostSnapshot) -> [Identity] {
            snapshot.sections.flatMap { [.header($0.id)] + $0.items.map { .item($0.id) } + [.footer($0.id)] }
        }
        var generator = ListPairGenerator(seed: 99)
        var rng = SplitMix64(seed: 5)
        var checked = 0
        for _ in 0..<1_500 {
            let (oldSections, newSections) = generator.pair()
            let old = try PostSnapshot(sections: oldSections), new = try PostSnapshot(sections: newSections)
            let oldEntries = ListFixture.entries(old), newEntries = ListFixture.entries(new)
            let oldOffsets = ListFixture.offsets(oldEntries), newOffsets = ListFixture.offsets(newEntries)
            guard oldOffsets.last! > 0, !newEntries.isEmpty else { continue }
            let list = ListFixture.list(MeasureLog())
            list.apply(old)
            let anchor = Double.random(in: 0..<oldOffsets.last!, using: &rng).rounded(.down)
            let (changes, offset) = list.apply(new, anchor: anchor)

            let oldIDs = identities(old), newIDs = identities(new)
            var newIndex: [Identity: Int] = [:]
            for (i, id) in newIDs.enumerated() { newIndex[id] = i }
            let start = oldEntries.indices.first { oldOffsets[$0] <= anchor && anchor < oldOffsets[$0 + 1] }!
            let leaving = Set(changes.deletedSections + changes.movedSections.map(\.from))
            let removed = Set(changes.deletedItems + changes.movedItems.map(\.from))
            var stays: [Bool] = []   // item rows only take over
            for (s, section) in old.sections.enumerated() {
                stays.append(false)
                for i in section.items.indices { stays.append(!leaving.contains(s) && !removed.contains(ItemPath(section: s, item: i))) }
                stays.append(false)
            }
            let row = newIndex[oldIDs[start]] != nil ? start
                : ((start + 1)..<oldEntries.count).first { stays[$0] } ?? (0..<start).last { stays[$0] }
            if let row {
                #expect(offset == newOffsets[newIndex[oldIDs[row]]!] + anchor - oldOffsets[row])
            } else {
                #expect(offset == 0)
            }
            checked += 1
        }
        #expect(checked > 1_000)
    }
}
