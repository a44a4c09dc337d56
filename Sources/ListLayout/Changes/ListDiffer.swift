/// The work of ``ListSnapshot/changes(from:)``: matches sections, then each surviving section's items,
/// by identifier, and writes the batch.
///
/// Steps:
/// 1. Sections: each new section's old index from the old snapshot's index (`newToOld`, `oldToNew`;
///    -1 for inserted and deleted ones). Surviving sections outside a longest increasing run of old
///    indexes move.
/// 2. For each surviving section, the common prefix and suffix of identifiers (old and new at the
///    same offsets) stay, with contents compared only; identical snapshots stop here, with no hashing.
///    Sections whose item arrays share storage are skipped outright.
/// 3. The rest of the new section, item by item: the old item after the last one matched from this
///    section, when its identifier is the same (Heckel's neighbour rule: no hashing along a run kept in
///    order); else a look-up in the old snapshot's index. Not found, or found in a deleted section:
///    inserted. Found in another section: moved. Found in the same section: stays if it belongs to a
///    longest increasing run of old indexes, else moves. Each match marks the old item as kept.
/// 4. The rest of each old surviving section: items not marked are deleted (gone, or gone into an
///    inserted section).
///
/// Allocations: the result's arrays, one flag per old item, a few arrays per section, and scratch
/// arrays reused from section to section (grown to the largest section).
///
/// Used from `@inlinable` code so that it is specialized for the caller's item type: unspecialized,
/// every identifier comparison and look-up goes through witness tables (about ten times slower).
@usableFromInline
struct ListDiffer<SectionID: Hashable & Sendable, Item: Identifiable & Hashable & Sendable> where Item.ID: Sendable {
    @usableFromInline let old: ListSnapshot<SectionID, Item>
    @usableFromInline let new: ListSnapshot<SectionID, Item>
    @usableFromInline var changes = ListChanges()
    /// For each old section, its index in the new snapshot, or -1 when deleted.
    @usableFromInline var oldToNew: [Int] = []
    /// For each new section, its index in the old snapshot, or -1 when inserted.
    @usableFromInline var newToOld: [Int] = []
    /// For each old section, where its middle (the part not in a common prefix or suffix) lies.
    @usableFromInline var oldMiddles: [Range<Int>] = []
    /// One flag per old item (flattened): matched by an item of a surviving new section.
    @usableFromInline var kept: [Bool] = []

    // Scratch, per section.
    @usableFromInline var lis = LongestIncreasingSubsequence()
    /// For each item of a new section's middle, where it comes from: its index in the same old section
    /// (`>= 0`), ``inserted``, ``stays`` (marked by the longest increasing subsequence), or
    /// `firstOther - n` for the `n`th entry of ``others``.
    @usableFromInline var sources: [Int] = []
    /// Old paths of the items of a new section's middle that come from another section.
    @usableFromInline var others: [ItemPath] = []

    @inlinable static var inserted: Int { -1 }
    @inlinable static var stays: Int { -2 }
    @inlinable static var firstOther: Int { -3 }

    @inlinable
    init(old: ListSnapshot<SectionID, Item>, new: ListSnapshot<SectionID, Item>) {
        self.old = old
        self.new = new
    }

    @inlinable
    mutating func run() -> ListChanges {
        matchSections()
        oldMiddles = Array(repeating: 0..<0, count: old.sections.count)
        kept = Array(repeating: false, count: old.numberOfItems)
        for j in new.sections.indices where newToOld[j] >= 0 {
            diffSection(old: newToOld[j], new: j)
        }
        for i in old.sections.indices where oldToNew[i] >= 0 {
            collectDeletions(inOldSection: i)
        }
        return changes
    }

    /// Step 1: which sections are deleted, inserted, moved.
    @inlinable
    mutating func matchSections() {
        let oldSections = old.sections
        let newSections = new.sections
        if oldSections.count == newSections.count,
            zip(oldSections, newSections).allSatisfy({ $0.id == $1.id })
        {
            oldToNew = Array(oldSections.indices)
            newToOld = oldToNew
            return
        }
        oldToNew = Array(repeating: -1, count: oldSections.count)
        newToOld = Array(repeating: -1, count: newSections.count)
        for (j, section) in newSections.enumerated() {
            if let i = old.sectionIndexes[section.id] {
                newToOld[j] = i
                oldToNew[i] = j
            } else {
                changes.insertedSections.append(j)
            }
        }
        for i in oldSections.indices where oldToNew[i] < 0 {
            changes.deletedSections.append(i)
        }
        sources = newToOld
        lis.mark(&sources, with: Self.stays)
        for j in newSections.indices where sources[j] >= 0 {
            changes.movedSections.append(ListMove(from: sources[j], to: j))
        }
    }

    /// Steps 2 and 3 for one section present in both snapshots.
    @inlinable
    mutating func diffSection(old i: Int, new j: Int) {
        let oldItems = old.sections[i].items
        let newItems = new.sections[j].items
        let oldCount = oldItems.count
        let newCount = newItems.count
        let shared = oldItems.withUnsafeBufferPointer { o in
            newItems.withUnsafeBufferPointer { n in o.baseAddress == n.baseAddress }
        }
        if shared && oldCount == newCount {
            // The same storage: the same items, contents and all.
            oldMiddles[i] = oldCount..<oldCount
            return
        }
        // Step 2: common prefix and suffix by identifier.
        var prefix = 0
        let shorter = Swift.min(oldCount, newCount)
        while prefix < shorter && oldItems[prefix].id == newItems[prefix].id {
            if oldItems[prefix] != newItems[prefix] {
                changes.updatedItems.append(ItemPath(section: j, item: prefix))
            }
            prefix += 1
        }
        var suffix = 0
        while suffix < shorter - prefix && oldItems[oldCount - 1 - suffix].id == newItems[newCount - 1 - suffix].id {
            suffix += 1
        }
        oldMiddles[i] = prefix..<(oldCount - suffix)

        // Step 3: the middle of the new section.
        let middle = prefix..<(newCount - suffix)
        if !middle.isEmpty {
            diffMiddle(middle, of: newItems, oldItems: oldItems, oldMiddle: oldMiddles[i], old: i, new: j)
        }

        for k in (newCount - suffix)..<newCount where oldItems[k - newCount + oldCount] != newItems[k] {
            changes.updatedItems.append(ItemPath(section: j, item: k))
        }
    }

    /// Step 3 for the items of new section `j` in `middle`; `oldItems[oldMiddle]` is the part of its old
    /// section `i` not in the common prefix and suffix.
    @inlinable
    mutating func diffMiddle(_ middle: Range<Int>, of newItems: [Item], oldItems: [Item], oldMiddle: Range<Int>,
                             old i: Int, new j: Int) {
        // The scratch arrays are moved out of `self` for the loop: appending to a stored property of a
        // struct in a mutating method checks its uniqueness on every append, and this loop runs once
        // per item of the middle (a million for a long list changed all over).
        var sources = self.sources, others = self.others, kept = self.kept
        self.sources = []
        self.others = []
        self.kept = []
        defer {
            self.sources = sources
            self.others = others
            self.kept = kept
        }
        sources.removeAll(keepingCapacity: true)
        sources.reserveCapacity(middle.count)
        others.removeAll(keepingCapacity: true)
        // Positions in `middle` (offsets from its start) of the insertions, in order: while the old
        // indexes only increase, the batch is these and the moves from other sections, with no second
        // pass over the middle.
        var insertions: [Int] = []
        var fromOthers: [Int] = []
        let oldStart = old.sectionStarts[i]
        let oldItemsRange = oldStart..<(oldStart + oldItems.count)   // flat positions of section i
        var increasing = true
        var last = -1
        // The old item after the last one matched in this section: Heckel's neighbour rule matches it
        // to the next new item by comparing identifiers, with no hashing, so a run of items kept in
        // order costs one look-up at its start.
        var next = oldMiddle.lowerBound
        oldItems.withUnsafeBufferPointer { oldBuffer in
        newItems.withUnsafeBufferPointer { newBuffer in
        kept.withUnsafeMutableBufferPointer { keptBuffer in
        var k = middle.lowerBound
        while k < middle.upperBound {
            // A run kept in order, side by side: no look-up, no bounds check. `next` is one past the
            // last old index matched, so the run's indexes only increase.
            while k < middle.upperBound && next < oldMiddle.upperBound && oldBuffer[next].id == newBuffer[k].id {
                keptBuffer[oldStart + next] = true
                if oldBuffer[next] != newBuffer[k] { changes.updatedItems.append(ItemPath(section: j, item: k)) }
                sources.append(next)
                last = next
                next += 1
                k += 1
            }
            guard k < middle.upperBound else { break }
            defer { k += 1 }
            let source: Int
            let item = newBuffer[k]
            if let flat = old.itemIndex.position(of: item.id) {
                if oldItemsRange.contains(flat) {
                    source = flat - oldStart
                } else {
                    let from = old.indexPath(forFlatIndex: flat)
                    guard oldToNew[from.section] >= 0 else {
                        // Its old section is deleted: an insertion here.
                        insertions.append(sources.count)
                        sources.append(Self.inserted)
                        continue
                    }
                    keptBuffer[flat] = true
                    if old.sections[from.section].items[from.item] != item {
                        changes.updatedItems.append(ItemPath(section: j, item: k))
                    }
                    fromOthers.append(sources.count)
                    sources.append(Self.firstOther - others.count)
                    others.append(from)
                    continue
                }
            } else {
                // New: an insertion here.
                insertions.append(sources.count)
                sources.append(Self.inserted)
                continue
            }
            keptBuffer[oldStart + source] = true
            if oldBuffer[source] != item { changes.updatedItems.append(ItemPath(section: j, item: k)) }
            if source < last { increasing = false }
            last = source
            next = source + 1
            sources.append(source)
        }
        }
        }
        }
        if increasing {
            // No item of this section moves: the batch is the insertions and the moves from other
            // sections, each already in order of position.
            for m in insertions { changes.insertedItems.append(ItemPath(section: j, item: middle.lowerBound + m)) }
            for m in fromOthers {
                changes.movedItems.append(ListMove(from: others[Self.firstOther - sources[m]],
                                                   to: ItemPath(section: j, item: middle.lowerBound + m)))
            }
            return
        }
        // Items of this section outside a longest increasing run of old indexes move.
        lis.mark(&sources, with: Self.stays)
        for m in sources.indices {
            let to = ItemPath(section: j, item: middle.lowerBound + m)
            let source = sources[m]
            if source >= 0 {
                changes.movedItems.append(ListMove(from: ItemPath(section: i, item: source), to: to))
            } else if source == Self.inserted {
                changes.insertedItems.append(to)
            } else if source != Self.stays {
                changes.movedItems.append(ListMove(from: others[Self.firstOther - source], to: to))
            }
        }
    }

    /// Step 4: the old items of a surviving section that no surviving new section matched.
    @inlinable
    mutating func collectDeletions(inOldSection i: Int) {
        let start = old.sectionStarts[i]
        for k in oldMiddles[i] where !kept[start + k] {
            changes.deletedItems.append(ItemPath(section: i, item: k))
        }
    }
}
