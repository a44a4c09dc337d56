import TestSupport
import Testing
import ListLayout

/// A `Post` as plain bits: its identifier and its text's number. `ListDiffer` compares runs of such
/// items as raw bytes; `Post`, which holds a `String`, takes the item-by-item path. Both must give the
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

/// A `Post` in 12 bytes, a size that is not a whole number of words.
struct NarrowPost: Identifiable, Hashable, Sendable {
    let id: Int32
    var text: Int32
    var extra: Int32 = 7

    init(_ post: Post) {
        id = Int32(truncatingIfNeeded: post.id)
        text = Int32(truncatingIfNeeded: post.text.hashValue)
    }
}

/// A `Post` with padding: 5 bytes of fields in a stride of 8. The padding's bytes are not part of
/// the value, so a block may differ only there; it must then be compared item by item.
struct PaddedPost: Identifiable, Hashable, Sendable {
    let id: Int32
    var text: Bool

    init(_ post: Post) {
        id = Int32(truncatingIfNeeded: post.id)
        text = post.text.hashValue & 1 == 0
    }
}

@Suite struct BitwiseRunTests {
    func converted<T: Identifiable & Hashable & Sendable>(_ snapshot: PostSnapshot, _ convert: (Post) -> T) throws
        -> ListSnapshot<String, T> where T.ID: Sendable {
        try ListSnapshot(sections: snapshot.sections.map { ListSection(id: $0.id, items: $0.items.map(convert)) })
    }

    /// Padded posts whose padding bytes are all `fill`: the same values in arrays filled differently
    /// differ in their bytes only.
    func padded(_ snapshot: PostSnapshot, fill: UInt8) throws -> ListSnapshot<String, PaddedPost> {
        try ListSnapshot(sections: snapshot.sections.map { section in
            // An empty section stays the shared empty array: asked for zero capacity, the initializer
            // writes its count into that shared storage, a race ThreadSanitizer reports (as `exactCopy`
            // in the preparer avoids).
            guard !section.items.isEmpty else { return ListSection(id: section.id, items: []) }
            let items = [PaddedPost](unsafeUninitializedCapacity: section.items.count) { buffer, count in
                UnsafeMutableRawBufferPointer(buffer).initializeMemory(as: UInt8.self, repeating: fill)
                for (i, post) in section.items.enumerated() { (buffer.baseAddress! + i).initialize(to: PaddedPost(post)) }
                count = section.items.count
            }
            return ListSection(id: section.id, items: items)
        })
    }

    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func narrowAndPaddedItemsGiveTheSameBatchAsItemByItem() throws {
        #expect(_isPOD(NarrowPost.self) && _isPOD(PaddedPost.self))
        #expect(MemoryLayout<NarrowPost>.stride == 12)
        #expect(MemoryLayout<PaddedPost>.size < MemoryLayout<PaddedPost>.stride)
        var generator = ListPairGenerator(seed: 0x12B)
        for round in 0..<400 {
            let (old, new) = try round % 2 == 0 ? longPair(&generator, round: round / 2) : {
                let (oldSections, newSections) = generator.pair()
                return (try PostSnapshot(sections: oldSections), try PostSnapshot(sections: newSections))
            }()
            let expected = new.changes(from: old)
            #expect(try converted(new, NarrowPost.init).changes(from: converted(old, NarrowPost.init)) == expected)
            // A padded post keeps one bit of its text: compared with posts that keep the same bit. Old
            // and new padding differ, so every block compared differs in its bytes.
            let paddedOld = try padded(old, fill: 0x00), paddedNew = try padded(new, fill: 0xFF)
            let bitOld = try PostSnapshot(sections: paddedOld.sections.map { section in
                ListSection(id: section.id, items: section.items.map { Post(Int($0.id), $0.text ? "a" : "b") })
            })
            let bitNew = try PostSnapshot(sections: paddedNew.sections.map { section in
                ListSection(id: section.id, items: section.items.map { Post(Int($0.id), $0.text ? "a" : "b") })
            })
            #expect(paddedNew.changes(from: paddedOld) == bitNew.changes(from: bitOld))
        }
    }

    @Test func itemsThatDifferOnlyInPaddingAreUnchanged() throws {
        let posts = (0..<40).map { Post($0, "x\($0 % 3)") }
        let old = try PostSnapshot(sections: [ListSection(id: "a", items: posts)])
        // New items at both ends: no common prefix or suffix, so the whole section goes through runs.
        let new = try PostSnapshot(sections: [ListSection(id: "a", items: [Post(100, "y")] + posts + [Post(101, "y")])])
        let zeros = try padded(old, fill: 0x00), ones = try padded(new, fill: 0xFF)
        #expect(Array(zeros.sections[0].items) == Array(ones.sections[0].items[1...40]))
        #expect(zeros.sections[0].items.withUnsafeBytes { Array($0) }
                != ones.sections[0].items[1...40].withUnsafeBytes { Array($0) })
        let changes = ones.changes(from: zeros)
        #expect(changes.insertedItems == [ItemPath(section: 0, item: 0), ItemPath(section: 0, item: 41)])
        #expect(changes.updatedItems.isEmpty && changes.deletedItems.isEmpty && changes.movedItems.isEmpty)
    }

    /// Deletions of one to five items in a row (the index is consulted past four), an insertion and
    /// an item moved back to the front: the exact batch, the same for plain-bit and `String` items.
    @Test func deletionsNearARunAreMatchedAsBefore() throws {
        let deleted: Set<Int> = [5, 10, 11, 15, 16, 17, 22, 23, 24, 25, 30, 31, 32, 33, 34]
        var ids = [38] + (0..<40).filter { !deleted.contains($0) && $0 != 38 }
        ids.insert(100, at: ids.firstIndex(of: 21)!)
        let old = try PostSnapshot(sections: [ListSection(id: "a", items: (0..<40).map { Post($0, "p") })])
        let new = try PostSnapshot(sections: [ListSection(id: "a", items: ids.map { Post($0, $0 == 7 ? "edited" : "p") })])
        let changes = new.changes(from: old)
        #expect(changes.deletedItems == deleted.sorted().map { ItemPath(section: 0, item: $0) })
        #expect(changes.insertedItems == [ItemPath(section: 0, item: ids.firstIndex(of: 100)!)])
        #expect(changes.movedItems == [ListMove(from: ItemPath(section: 0, item: 38), to: ItemPath(section: 0, item: 0))])
        #expect(changes.updatedItems == [ItemPath(section: 0, item: ids.firstIndex(of: 7)!)])
        #expect(try bitwise(new).changes(from: bitwise(old)) == changes)
        #expect(verify(changes, from: old, to: new))
    }

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

    /// Two snapshots of two sections long enough for whole blocks, changed sparsely (long runs kept in
    /// order, edits inside them, deletions and insertions at block edges or not) or densely.
    func longPair(_ generator: inout ListPairGenerator, round: Int) throws -> (old: PostSnapshot, new: PostSnapshot) {
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
            case 3 where items.count > 1: items.insert(items.remove(at: k), at: generator.int(0...items.count - 1))
            default: items[k].text += "!"
            }
        }
        let cut = round % 2 == 0 ? items.count / 3 : generator.int(0...items.count)
        let new = try PostSnapshot(sections: [ListSection(id: "a", items: Array(items[..<cut])),
                                              ListSection(id: "b", items: Array(items[cut...]))])
        return (old, new)
    }

    @Test func longSectionsGiveTheSameBatchAsItemByItem() throws {
        var generator = ListPairGenerator(seed: 0x5EED)
        for round in 0..<60 {
            let (old, new) = try longPair(&generator, round: round)
            let expected = new.changes(from: old)
            #expect(try bitwise(new).changes(from: bitwise(old)) == expected)
            #expect(verify(expected, from: old, to: new))
        }
    }
}
