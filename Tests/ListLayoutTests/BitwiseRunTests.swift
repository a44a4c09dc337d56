import TestSupport
import Testing
import ListLayout

/// A `Post` as plain bits: its identifier and its text's number. `ListDiffer` compares runs of such
/// items as raw words; `Post`, which holds a `String`, takes the item-by-item path. Both must give the
/// same batch for the same snapshots.
struct BitwisePost: Identifiable, Hashable, Sendable {
    let id: Int
    var text: Int

    /// The same post; equal texts get equal numbers.
    init(_ post: Post) {
        id = post.id
        text = post.text.hashValue
    }
}

@Suite struct BitwiseRunTests {
    func bitwise(_ snapshot: PostSnapshot) throws -> ListSnapshot<String, BitwisePost> {
        try ListSnapshot(sections: snapshot.sections.map {
            ListSection(id: $0.id, items: $0.items.map(BitwisePost.init))
        })
    }

    @Test func bitwiseItemsGiveTheSameBatchAsItemByItem() throws {
        var generator = ListPairGenerator(seed: 0xB17)
        for _ in 0..<2_000 {
            let (oldSections, newSections) = generator.pair()
            let old = try PostSnapshot(sections: oldSections), new = try PostSnapshot(sections: newSections)
            let expected = new.changes(from: old)
            #expect(try bitwise(new).changes(from: bitwise(old)) == expected)
        }
    }

    @Test func longSectionsGiveTheSameBatchAsItemByItem() throws {
        // Sections long enough for whole blocks of raw words, changed sparsely (long runs kept in order,
        // edits inside them, deletions and insertions at block edges or not) and densely.
        var generator = ListPairGenerator(seed: 0x5EED)
        for round in 0..<60 {
            let count = generator.int(0...3_000)
            var items = (0..<count).map { _ in generator.newPost() }
            let old = try PostSnapshot(sections: [ListSection(id: "a", items: Array(items[..<(count / 3)])),
                                                  ListSection(id: "b", items: Array(items[(count / 3)...]))])
            let changes = round % 3 == 0 ? count / 2 : generator.int(0...40)
            for _ in 0..<changes where !items.isEmpty {
                let k = generator.int(0...items.count - 1)
                switch generator.int(0...4) {
                case 0: items.remove(at: k)
                case 1: items.insert(generator.newPost(), at: k)
                case 2: items[k].text = generator.text()
                case 3: items.insert(items.remove(at: k), at: generator.int(0...items.count - 1))
                default: items[k].text += "!"
                }
            }
            let cut = round % 2 == 0 ? items.count / 3 : generator.int(0...items.count)
            let new = try PostSnapshot(sections: [ListSection(id: "a", items: Array(items[..<cut])),
                                                  ListSection(id: "b", items: Array(items[cut...]))])
            let expected = new.changes(from: old)
            #expect(try bitwise(new).changes(from: bitwise(old)) == expected)
            #expect(verify(expected, from: old, to: new))
        }
    }
}
