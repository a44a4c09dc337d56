import TestSupport
import Testing
@testable import ListLayout

/// Applies on lists large enough for the offset tree to have several levels, with few changes (the
/// tree takes them edit by edit) and many (one pass over the leaves): the offsets are those of a
/// fresh layout, the batch is the diff's, and an anchor row that lives on keeps its distance.
@Suite("List heights, large batches")
struct ListHeightsBatchTests {
    /// Old and new snapshots of many sections and thousands of rows; `rate` is the share of rows
    /// deleted, edited, moved and inserted (sections: five times as often).
    struct LargePairGenerator {
        var rng: SplitMix64
        private var nextItem = 0
        private var nextSection = 0

        init(seed: UInt64) { rng = SplitMix64(seed: seed) }

        mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
        mutating func post() -> Post {
            nextItem += 1
            return Post(nextItem, String(repeating: "x", count: int(0...6)))
        }
        mutating func section(_ count: Int) -> ListSection<String, Post> {
            nextSection += 1
            return ListSection(id: "s\(nextSection)", items: (0..<count).map { _ in post() })
        }

        mutating func pair(rate: Double) -> (old: [ListSection<String, Post>], new: [ListSection<String, Post>]) {
            let sections = chance(0.2) ? 1 : int(2...40)
            let old = (0..<sections).map { _ in section(chance(0.1) ? 0 : int(1...(sections == 1 ? 8_000 : 400))) }
            var new = old.filter { _ in !chance(rate * 5) }
            var floating: [Post] = []
            for s in new.indices {
                var kept: [Post] = []
                for var post in new[s].items where !chance(rate) {
                    if chance(rate / 2) { floating.append(post); continue }
                    if chance(rate) { post.text += "!" }
                    kept.append(post)
                }
                new[s].items = kept
            }
            for _ in 0..<int(0...2) where chance(rate * 20) {
                new.insert(section(chance(0.3) ? 0 : int(1...50)), at: int(0...new.count))
            }
            if new.count > 1 && chance(rate * 20) {
                let moved = new.remove(at: int(0...new.count - 1))
                new.insert(moved, at: int(0...new.count))
            }
            guard !new.isEmpty else { return (old, new) }
            let rows = new.reduce(0) { $0 + $1.items.count }
            for post in floating + (0..<Int(Double(rows) * rate) + int(0...2)).map({ _ in post() }) {
                let s = int(0...new.count - 1)
                new[s].items.insert(post, at: int(0...new[s].items.count))
            }
            return (old, new)
        }
    }

    @Test(arguments: [0.0005, 0.003, 0.03, 0.2])
    func largeRandomPairsLeaveExactlyTheOffsetsOfAFreshLayout(rate: Double) throws {
        enum Identity: Hashable { case header(String), item(Int), footer(String) }
        func identities(_ snapshot: PostSnapshot) -> [Identity] {
            snapshot.sections.flatMap { [.header($0.id)] + $0.items.map { .item($0.id) } + [.footer($0.id)] }
        }
        var generator = LargePairGenerator(seed: UInt64(rate * 1_000_000))
        var rng = SplitMix64(seed: 11)
        for round in 0..<12 {
            let (oldSections, newSections) = generator.pair(rate: rate)
            let old = try PostSnapshot(sections: oldSections), new = try PostSnapshot(sections: newSections)
            let list = ListFixture.list(MeasureLog())
            list.apply(old)
            let oldEntries = ListFixture.entries(old), newEntries = ListFixture.entries(new)
            let oldOffsets = ListFixture.offsets(oldEntries), newOffsets = ListFixture.offsets(newEntries)
            if round % 2 == 0 || oldOffsets.last! == 0 {
                let changes = list.apply(new)
                #expect(changes == new.changes(from: old))
            } else {
                let anchor = Double.random(in: 0..<oldOffsets.last!, using: &rng).rounded(.down)
                let (changes, offset) = list.apply(new, anchor: anchor)
                #expect(changes == new.changes(from: old))
                let row = oldEntries.indices.first { oldOffsets[$0] <= anchor && anchor < oldOffsets[$0 + 1] }!
                if let newRow = identities(new).firstIndex(of: identities(old)[row]) {
                    #expect(offset == newOffsets[newRow] + anchor - oldOffsets[row])
                } else {
                    #expect(offset.isFinite)
                }
            }
            #expect(list.entries == newEntries)
            #expect(list.snapshot == new)
        }
    }

    /// Rows carried by the batch keep their entries: in lazy mode, a row whose estimate was made exact
    /// stays exact wherever it moves, and new rows arrive estimated.
    @Test func lazyRowsKeepTheirEntries() throws {
        var generator = LargePairGenerator(seed: 0x1A2)
        for rate in [0.001, 0.05] {
            let (oldSections, newSections) = generator.pair(rate: rate)
            let old = try PostSnapshot(sections: oldSections), new = try PostSnapshot(sections: newSections)
            let list = ListFixture.list(MeasureLog(), measuring: .lazy(overscan: 100))
            list.apply(old)
            let before = list.entries
            var kinds: [Int: OffsetTree.Entry] = [:]
            var index = 0
            for section in old.sections {
                index += 1
                for post in section.items { kinds[post.id] = before[index]; index += 1 }
                index += 1
            }
            let changes = list.apply(new)
            let updated = Set(changes.updatedItems.map { new.item(at: $0).id })
            let after = list.entries
            index = 0
            for section in new.sections {
                index += 1
                for post in section.items {
                    if let entry = kinds[post.id], !updated.contains(post.id) {
                        #expect(after[index] == entry)
                    } else {
                        #expect(after[index].kind == .estimatedItem)
                    }
                    index += 1
                }
                index += 1
            }
            #expect(after.count == index)
        }
    }
}
