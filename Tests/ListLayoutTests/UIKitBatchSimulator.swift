import ListLayout

/// What UIKit's `performBatchUpdates` would say about a batch it rejects, in its words where it has
/// them ("Invalid update: invalid number of items in section 2. …").
struct UIKitBatchError: Error, CustomStringConvertible {
    var description: String
}

/// Replays a ``ListChanges`` on an old snapshot the way `UICollectionView`/`UITableView` do, after
/// checking every rule they enforce, so a batch that would crash a real list is caught on Linux.
///
/// UIKit's model: deletions and move sources index the old data; insertions and move destinations
/// index the new data (which the data source answers — here the new snapshot: section counts, the
/// identifiers of inserted sections and items). Sections and items not mentioned keep their relative
/// order and fill the remaining slots. Counts must add up, per section:
/// new = old − deleted − moved out + inserted + moved in.
///
/// Stricter than UIKit in two places the package promises more: item changes never point into deleted
/// or inserted sections, and each list is sorted with no repeats.
struct UIKitBatchSimulator<SectionID: Hashable & Sendable, Item: Identifiable & Hashable & Sendable>
where Item.ID: Sendable {
    typealias Snapshot = ListSnapshot<SectionID, Item>

    /// The state a list would show after the batch: section identifiers, and each section's item
    /// identifiers.
    struct Replayed: Equatable {
        var sectionIDs: [SectionID]
        var itemIDs: [[Item.ID]]

        init(sectionIDs: [SectionID], itemIDs: [[Item.ID]]) {
            self.sectionIDs = sectionIDs
            self.itemIDs = itemIDs
        }

        init(_ snapshot: Snapshot) {
            sectionIDs = []
            itemIDs = []
            for section in snapshot.sections {
                sectionIDs.append(section.id)
                var ids: [Item.ID] = []
                ids.reserveCapacity(section.items.count)
                for item in section.items { ids.append(item.id) }
                itemIDs.append(ids)
            }
        }
    }

    /// Validates `changes` against `old` and the data source `new`, then replays it on `old`.
    ///
    /// - Returns: The sections and items UIKit would show; equal to `Replayed(new)` for a correct batch.
    /// - Throws: `UIKitBatchError` describing the first rule broken.
    static func replay(_ changes: ListChanges, on old: Snapshot, dataSource new: Snapshot) throws(UIKitBatchError)
        -> Replayed
    {
        let oldCount = old.sections.count
        let newCount = new.sections.count

        // Sections.
        try checkSortedUnique(changes.deletedSections, "deletedSections")
        try checkSortedUnique(changes.insertedSections, "insertedSections")
        for s in changes.deletedSections where !(0..<oldCount).contains(s) {
            throw fail("attempt to delete section \(s), but there are only \(oldCount) sections before the update")
        }
        for s in changes.insertedSections where !(0..<newCount).contains(s) {
            throw fail("attempt to insert section \(s) but there are only \(newCount) sections after the update")
        }
        let deletedSections = Set(changes.deletedSections)
        let insertedSections = Set(changes.insertedSections)
        var movedFrom = Set<Int>()
        var movedTo = Set<Int>()
        var sectionSource = [Int?](repeating: nil, count: newCount)   // new section → old section
        for move in changes.movedSections {
            guard (0..<oldCount).contains(move.from), (0..<newCount).contains(move.to) else {
                throw fail("attempt to move section \(move.from) to \(move.to) with \(oldCount) sections before and \(newCount) after")
            }
            guard !deletedSections.contains(move.from) else {
                throw fail("attempt to move section \(move.from) which is being deleted")
            }
            guard !insertedSections.contains(move.to) else {
                throw fail("attempt to move section \(move.from) to \(move.to) which is being inserted")
            }
            guard movedFrom.insert(move.from).inserted, movedTo.insert(move.to).inserted else {
                throw fail("attempt to perform multiple moves with section \(move.from) or to section \(move.to)")
            }
            sectionSource[move.to] = move.from
        }
        let expectedSections = oldCount - deletedSections.count + insertedSections.count
        guard newCount == expectedSections else {
            throw fail("Invalid update: invalid number of sections. The number of sections contained in the collection view after the update (\(newCount)) must be equal to the number of sections contained in the collection view before the update (\(oldCount)), plus or minus the number of sections inserted or deleted (\(insertedSections.count) inserted, \(deletedSections.count) deleted).")
        }
        // Untouched sections fill the free slots in their old order.
        var untouchedSections = (0..<oldCount).filter { !deletedSections.contains($0) && !movedFrom.contains($0) }
            .makeIterator()
        for j in 0..<newCount where !insertedSections.contains(j) && !movedTo.contains(j) {
            sectionSource[j] = untouchedSections.next()
        }
        var oldToNew = [Int?](repeating: nil, count: oldCount)
        for (j, i) in sectionSource.enumerated() { if let i { oldToNew[i] = j } }

        // Items: ranges, repeats, and the sections they point into.
        try checkSortedUnique(changes.deletedItems, "deletedItems")
        try checkSortedUnique(changes.insertedItems, "insertedItems")
        try checkSortedUnique(changes.updatedItems, "updatedItems")
        for path in changes.deletedItems {
            try checkOld(path, in: old, "delete")
            guard !deletedSections.contains(path.section) else {
                throw fail("attempt to delete item \(path) from section \(path.section), which is being deleted")
            }
        }
        for path in changes.insertedItems {
            try checkNew(path, in: new, "insert")
            guard !insertedSections.contains(path.section) else {
                throw fail("attempt to insert item \(path) into section \(path.section), which is being inserted")
            }
        }
        for path in changes.updatedItems {
            try checkNew(path, in: new, "reconfigure")
            guard !insertedSections.contains(path.section) else {
                throw fail("attempt to reconfigure item \(path) in section \(path.section), which is being inserted")
            }
        }
        let deletedItems = Set(changes.deletedItems)
        let insertedItems = Set(changes.insertedItems)
        var itemsMovedFrom = Set<ItemPath>()
        var itemsMovedTo = Set<ItemPath>()
        for move in changes.movedItems {
            try checkOld(move.from, in: old, "move")
            try checkNew(move.to, in: new, "move")
            guard !deletedSections.contains(move.from.section) else {
                throw fail("attempt to move item \(move.from) out of section \(move.from.section), which is being deleted")
            }
            guard !insertedSections.contains(move.to.section) else {
                throw fail("attempt to move item \(move.from) into section \(move.to.section), which is being inserted")
            }
            guard !deletedItems.contains(move.from) else {
                throw fail("attempt to delete and move the same item (\(move.from))")
            }
            guard !insertedItems.contains(move.to) else {
                throw fail("attempt to insert and move to the same item (\(move.to))")
            }
            guard itemsMovedFrom.insert(move.from).inserted, itemsMovedTo.insert(move.to).inserted else {
                throw fail("attempt to perform multiple moves from \(move.from) or to \(move.to)")
            }
        }

        // Counts, per surviving section.
        var deletedPer = [Int](repeating: 0, count: oldCount)
        var movedOutPer = [Int](repeating: 0, count: oldCount)
        var insertedPer = [Int](repeating: 0, count: newCount)
        var movedInPer = [Int](repeating: 0, count: newCount)
        for path in changes.deletedItems { deletedPer[path.section] += 1 }
        for path in changes.insertedItems { insertedPer[path.section] += 1 }
        for move in changes.movedItems {
            movedOutPer[move.from.section] += 1
            movedInPer[move.to.section] += 1
        }
        for (j, source) in sectionSource.enumerated() {
            guard let i = source else { continue }
            let before = old.sections[i].items.count
            let after = new.sections[j].items.count
            guard after == before - deletedPer[i] - movedOutPer[i] + insertedPer[j] + movedInPer[j] else {
                throw fail("Invalid update: invalid number of items in section \(j). The number of items contained in an existing section after the update (\(after)) must be equal to the number of items contained in that section before the update (\(before)), plus or minus the number of items inserted or deleted from that section (\(insertedPer[j]) inserted, \(deletedPer[i]) deleted) and plus or minus the number of items moved into or out of that section (\(movedInPer[j]) moved in, \(movedOutPer[i]) moved out).")
            }
        }

        // Replay.
        var result = Replayed(sectionIDs: [], itemIDs: [])
        var slots = [[Item.ID?]](repeating: [], count: newCount)
        for (j, source) in sectionSource.enumerated() {
            let section = new.sections[j]
            slots[j] = source == nil ? section.items.map(\.id) : Array(repeating: nil, count: section.items.count)
            result.sectionIDs.append(source.map { old.sections[$0].id } ?? section.id)
        }
        for path in changes.insertedItems { slots[path.section][path.item] = new.item(at: path).id }
        for move in changes.movedItems { slots[move.to.section][move.to.item] = old.item(at: move.from).id }
        for (i, section) in old.sections.enumerated() {
            guard let j = oldToNew[i] else { continue }
            var untouched = section.items.indices.lazy
                .filter { !deletedItems.contains(ItemPath(section: i, item: $0)) && !itemsMovedFrom.contains(ItemPath(section: i, item: $0)) }
                .map { section.items[$0].id }
                .makeIterator()
            for k in slots[j].indices where slots[j][k] == nil { slots[j][k] = untouched.next() }
        }
        for section in slots {
            var ids: [Item.ID] = []
            for id in section {
                guard let id else { throw fail("a slot stayed empty after the replay") }
                ids.append(id)
            }
            result.itemIDs.append(ids)
        }
        return result
    }

    private static func fail(_ message: String) -> UIKitBatchError { UIKitBatchError(description: message) }

    private static func checkSortedUnique<T: Comparable>(_ list: [T], _ name: String) throws(UIKitBatchError) {
        for k in list.indices.dropFirst() where !(list[k - 1] < list[k]) {
            throw fail("\(name) is not strictly ascending: \(list[k - 1]) then \(list[k])")
        }
    }

    private static func checkOld(_ path: ItemPath, in old: Snapshot, _ verb: String) throws(UIKitBatchError) {
        guard (0..<old.sections.count).contains(path.section) else {
            throw fail("attempt to \(verb) item \(path) from section \(path.section), but there are only \(old.sections.count) sections before the update")
        }
        let count = old.sections[path.section].items.count
        guard (0..<count).contains(path.item) else {
            throw fail("attempt to \(verb) item \(path.item) from section \(path.section) which only contains \(count) items before the update")
        }
    }

    private static func checkNew(_ path: ItemPath, in new: Snapshot, _ verb: String) throws(UIKitBatchError) {
        guard (0..<new.sections.count).contains(path.section) else {
            throw fail("attempt to \(verb) item \(path) into section \(path.section), but there are only \(new.sections.count) sections after the update")
        }
        let count = new.sections[path.section].items.count
        guard (0..<count).contains(path.item) else {
            throw fail("attempt to \(verb) item \(path.item) into section \(path.section), but there are only \(count) items in section \(path.section) after the update")
        }
    }
}
