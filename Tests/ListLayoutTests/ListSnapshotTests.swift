import Testing
import ListLayout

@Suite("ListSnapshot")
struct ListSnapshotTests {
    @Test func duplicateIdentifiersThrowNamingTheIdentifier() {
        #expect(throws: ListSnapshotError<String, Int>.duplicateSection("a")) {
            try snapshot(["a": [1], "b": [2], "a": [3]])
        }
        #expect(throws: ListSnapshotError<String, Int>.duplicateItem(7)) {
            try snapshot(["a": [1, 7, 2, 7]])
        }
        #expect(throws: ListSnapshotError<String, Int>.duplicateItem(7)) {   // across sections
            try snapshot(["a": [1, 7], "b": [2, 7]])
        }
        do {
            _ = try PostSnapshot(items: [Post(1), Post(1)], inSection: "s")
            Issue.record("no error")
        } catch {
            switch error {   // typed throws: no cast
            case .duplicateItem(let id): #expect(id == 1)
            case .duplicateSection: Issue.record("wrong case")
            }
            #expect("\(error)" == "Duplicate item identifier 1 in a list snapshot")
        }
    }

    @Test func lookUps() throws {
        let s = try snapshot(["a": [10, 11], "b": [], "c": [12]])
        #expect(s.numberOfItems == 3)
        #expect(s.numberOfSections == 3)
        #expect(s.sections.map(\.id) == ["a", "b", "c"])
        #expect(s.indexPath(of: 12) == ItemPath(section: 2, item: 0))
        #expect(s.indexPath(of: 99) == nil)
        #expect(s.sectionIndex(of: "b") == 1)
        #expect(s.sectionIndex(of: "z") == nil)
        #expect(s.item(at: ItemPath(section: 0, item: 1)) == Post(11, "11"))
        #expect(s.item(withID: 10) == Post(10, "10"))
        #expect(s.contains(11) && !s.contains(13))
        #expect(PostSnapshot.empty.numberOfItems == 0 && PostSnapshot().sections.isEmpty)
        #expect(try snapshot(["x": []]).isEmpty)
        #expect(s == (try snapshot(["a": [10, 11], "b": [], "c": [12]])))
    }

    @Test func flatIndexesCountItemsAcrossSections() throws {
        let s = try snapshot(["empty": [], "a": [10, 11], "b": [], "c": [12], "d": []])
        let paths = [ItemPath(section: 1, item: 0), ItemPath(section: 1, item: 1), ItemPath(section: 3, item: 0)]
        for (flat, path) in paths.enumerated() {
            #expect(s.flatIndex(of: path) == flat)
            #expect(s.indexPath(forFlatIndex: flat) == path)
        }
        #expect(s.flatIndex(of: ItemPath(section: 4, item: 0)) == 3)   // the end
    }

    /// An identifier whose hash is the same for every value: every look-up probes past the others.
    struct CollidingID: Hashable, Sendable {
        var value: Int
        func hash(into hasher: inout Hasher) { hasher.combine(0) }
    }

    struct Tagged: Identifiable, Hashable, Sendable {
        var id: CollidingID
    }

    @Test func identifiersWithEqualHashesStayApart() throws {
        let items = (0..<300).map { Tagged(id: CollidingID(value: $0)) }
        let s = try ListSnapshot<Int, Tagged>(sections: [ListSection(id: 0, items: Array(items[..<100])),
                                                         ListSection(id: 1, items: Array(items[100...]))])
        for (flat, item) in items.enumerated() {
            #expect(s.indexPath(of: item.id) == s.indexPath(forFlatIndex: flat))
        }
        #expect(s.indexPath(of: CollidingID(value: 300)) == nil)
        #expect(throws: ListSnapshotError<Int, CollidingID>.duplicateItem(CollidingID(value: 7))) {
            try ListSnapshot<Int, Tagged>(sections: [ListSection(id: 0, items: items + [items[7]])])
        }
        var reversed = items
        reversed.reverse()
        let new = try ListSnapshot<Int, Tagged>(sections: [ListSection(id: 1, items: reversed)])
        let changes = new.changes(from: s)
        #expect(changes.deletedSections == [0] && changes.insertedItems.count == 100 && changes.movedItems.count == 199)
    }

    @Test func pathsOrderBySectionThenItem() {
        #expect(ItemPath(section: 0, item: 9) < ItemPath(section: 1, item: 0))
        #expect(ItemPath(section: 1, item: 2) < ItemPath(section: 1, item: 3))
        #expect(!(ItemPath(section: 1, item: 3) < ItemPath(section: 1, item: 3)))
        #expect("\(ItemPath(section: 1, item: 3))" == "[1, 3]")
    }
}
