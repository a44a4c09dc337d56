import Testing
import ListLayout

/// A list item for the list tests: identity is `id`, contents are `text`.
struct Post: Identifiable, Hashable, Sendable {
    let id: Int
    var text: String

    init(_ id: Int, _ text: String = "") {
        self.id = id
        self.text = text
    }
}

typealias PostSnapshot = ListSnapshot<String, Post>

/// A snapshot from section names and item identifiers (contents: the id as text).
func snapshot(_ sections: KeyValuePairs<String, [Int]>) throws -> PostSnapshot {
    try PostSnapshot(sections: sections.map { ListSection(id: $0.key, items: $0.value.map { Post($0, "\($0)") }) })
}

/// Checks a batch with the UIKit simulator: it must be accepted and replay to `new`.
func expectReplays(_ changes: ListChanges, from old: PostSnapshot, to new: PostSnapshot,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(throws: Never.self, sourceLocation: sourceLocation) {
        let replayed = try UIKitBatchSimulator.replay(changes, on: old, dataSource: new)
        #expect(replayed == .init(new), sourceLocation: sourceLocation)
    }
}

@Suite("ListChanges: unit cases")
struct ListChangesTests {
    @Test func identicalSnapshotsGiveNoChanges() throws {
        let a = try snapshot(["x": Array(0..<50), "y": [], "z": Array(50..<60)])
        let b = try snapshot(["x": Array(0..<50), "y": [], "z": Array(50..<60)])   // built apart
        #expect(b.changes(from: a).isEmpty)
        #expect(a.changes(from: a).isEmpty)                                          // one storage
        #expect(PostSnapshot().changes(from: .empty).isEmpty)
    }

    @Test func movingOneItemIsOneMove() throws {
        let old = try snapshot(["s": Array(0..<10)])
        let new = try snapshot(["s": [0, 1, 3, 4, 5, 6, 7, 8, 9, 2]])
        let changes = new.changes(from: old)
        #expect(changes == ListChanges(movedItems: [ListMove(from: ItemPath(section: 0, item: 2),
                                                             to: ItemPath(section: 0, item: 9))]))
        expectReplays(changes, from: old, to: new)

        // To the front, and across sections: still one move each.
        let front = try snapshot(["s": [9, 0, 1, 2, 3, 4, 5, 6, 7, 8]])
        #expect(front.changes(from: old).movedItems == [ListMove(from: ItemPath(section: 0, item: 9),
                                                                 to: ItemPath(section: 0, item: 0))])
        let two = try snapshot(["a": [0, 1, 2], "b": [3, 4]])
        let across = try snapshot(["a": [0, 2], "b": [3, 1, 4]])
        let acrossChanges = across.changes(from: two)
        #expect(acrossChanges == ListChanges(movedItems: [ListMove(from: ItemPath(section: 0, item: 1),
                                                                   to: ItemPath(section: 1, item: 1))]))
        expectReplays(acrossChanges, from: two, to: across)
    }

    @Test func reorderingSectionsMovesOnlySections() throws {
        let old = try snapshot(["a": [1, 2], "b": [3], "c": [4, 5, 6], "d": []])
        let new = try snapshot(["c": [4, 5, 6], "a": [1, 2], "b": [3], "d": []])
        let changes = new.changes(from: old)
        #expect(changes == ListChanges(movedSections: [ListMove(from: 2, to: 0)]))
        expectReplays(changes, from: old, to: new)

        let reversed = try snapshot(["d": [], "c": [4, 5, 6], "b": [3], "a": [1, 2]])
        let reversal = reversed.changes(from: old)
        #expect(reversal.movedSections.count == 3)
        #expect(reversal.deletedItems.isEmpty && reversal.insertedItems.isEmpty && reversal.movedItems.isEmpty)
        expectReplays(reversal, from: old, to: reversed)
    }

    @Test func anItemWhoseSectionIsDeletedIsInsertedWhereItLivesOn() throws {
        let old = try snapshot(["a": [1, 2], "b": [3, 4]])
        let new = try snapshot(["b": [3, 2, 4]])
        let changes = new.changes(from: old)
        #expect(changes == ListChanges(deletedSections: [0], insertedItems: [ItemPath(section: 0, item: 1)]))
        expectReplays(changes, from: old, to: new)
    }

    @Test func anItemMovingIntoANewSectionIsDeletedWhereItWas() throws {
        let old = try snapshot(["a": [1, 2, 3]])
        let new = try snapshot(["a": [1, 3], "b": [2, 9]])
        let changes = new.changes(from: old)
        #expect(changes == ListChanges(insertedSections: [1], deletedItems: [ItemPath(section: 0, item: 1)]))
        expectReplays(changes, from: old, to: new)
    }

    @Test func changedContentsAreUpdatesAtTheirNewPaths() throws {
        let old = try PostSnapshot(sections: [ListSection(id: "a", items: [Post(1, "x"), Post(2, "y"), Post(3, "z")])])
        let new = try PostSnapshot(sections: [ListSection(id: "a", items: [Post(0, "new"), Post(3, "Z"), Post(1, "x"), Post(2, "Y")])])
        let changes = new.changes(from: old)
        #expect(changes.insertedItems == [ItemPath(section: 0, item: 0)])
        #expect(changes.movedItems == [ListMove(from: ItemPath(section: 0, item: 2), to: ItemPath(section: 0, item: 1))])
        #expect(changes.updatedItems == [ItemPath(section: 0, item: 1), ItemPath(section: 0, item: 3)])
        expectReplays(changes, from: old, to: new)
    }

    @Test func emptySnapshotsOnEitherSide() throws {
        let full = try snapshot(["a": [1, 2], "b": [], "c": [3]])
        let grow = full.changes(from: .empty)
        #expect(grow == ListChanges(insertedSections: [0, 1, 2]))
        expectReplays(grow, from: .empty, to: full)
        let shrink = PostSnapshot.empty.changes(from: full)
        #expect(shrink == ListChanges(deletedSections: [0, 1, 2]))
        expectReplays(shrink, from: full, to: .empty)
    }

    @Test func sectionMovesMixWithItemMovesAcrossSections() throws {
        let old = try snapshot(["a": [1, 2, 3], "b": [4, 5], "c": [6], "gone": [7, 8]])
        let new = try snapshot(["c": [6, 2, 8], "new": [5], "a": [3, 1], "b": [4, 9]])
        let changes = new.changes(from: old)
        #expect(changes.deletedSections == [3])
        #expect(changes.insertedSections == [1])
        #expect(changes.movedSections == [ListMove(from: 2, to: 0)])
        #expect(changes.movedItems.count == 2)   // 2 changes section; 1 or 3 leaves its place
        #expect(changes.insertedItems == [ItemPath(section: 0, item: 2), ItemPath(section: 3, item: 1)])
        #expect(changes.deletedItems == [ItemPath(section: 1, item: 1)])   // 5 went into the new section
        expectReplays(changes, from: old, to: new)
    }

    @Test func theSimulatorRejectsWhatUIKitRejects() throws {
        let old = try snapshot(["a": [1, 2, 3]])
        let new = try snapshot(["a": [1, 3, 4]])
        // Deleting 2 but not inserting 4: the count does not add up.
        let short = ListChanges(deletedItems: [ItemPath(section: 0, item: 1)])
        #expect {
            try UIKitBatchSimulator.replay(short, on: old, dataSource: new)
        } throws: { error in
            "\(error)".hasPrefix("Invalid update: invalid number of items in section 0.")
        }
        // Deleting and moving one item.
        let both = ListChanges(deletedItems: [ItemPath(section: 0, item: 1)], insertedItems: [ItemPath(section: 0, item: 2)],
                               movedItems: [ListMove(from: ItemPath(section: 0, item: 1), to: ItemPath(section: 0, item: 0))])
        #expect(throws: UIKitBatchError.self) { try UIKitBatchSimulator.replay(both, on: old, dataSource: new) }
        // An index out of range.
        let far = ListChanges(deletedItems: [ItemPath(section: 0, item: 3)], insertedItems: [ItemPath(section: 0, item: 2)])
        #expect(throws: UIKitBatchError.self) { try UIKitBatchSimulator.replay(far, on: old, dataSource: new) }
        // Counts that add up but ids that do not: replays to something else.
        let wrong = ListChanges(deletedItems: [ItemPath(section: 0, item: 0)], insertedItems: [ItemPath(section: 0, item: 2)])
        #expect(try UIKitBatchSimulator.replay(wrong, on: old, dataSource: new) != .init(new))
    }
}
