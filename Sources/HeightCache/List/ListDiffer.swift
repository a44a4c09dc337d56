/// The work of ``ListSnapshot/changes(from:)``: matches sections, then each surviving section's items,
/// by identifier, and writes the batch.
///
/// Steps:
/// 1. Sections: each new section's old index from the old snapshot's index (`newToOld`, `oldToNew`;
///    -1 for inserted and deleted ones). Surviving sections outside a longest increasing run of old
///    indexes move.
/// 2. For each surviving section, the common prefix and suffix of identifiers (old and new at the
///    same offsets) stay, with contents compared only; identical snapshots stop here, with no hashing.
/// 3. The rest of the new section: one look-up per item in the old snapshot's index. Not found, or
///    found in a deleted section: inserted. Found in another section: moved. Found in the same section:
///    a candidate to stay; candidates outside a longest increasing run of old indexes move. Each match
///    marks the old item as kept.
/// 4. The rest of each old surviving section: items not marked are deleted (gone, or gone into an
///    inserted section).
///
/// Scratch arrays are reused from section to section: the allocations of one diff do not grow with the
/// number of items, except for the result and one flag per old item.
struct ListDiffer<SectionID: Hashable & Sendable, Item: Identifiable & Hashable & Sendable> where Item.ID: Sendable {
    let old: ListSnapshot<SectionID, Item>
    let new: ListSnapshot<SectionID, Item>
    private var changes = ListChanges()
    /// For each old section, its index in the new snapshot, or -1 when deleted.
    private var oldToNew: [Int] = []
    /// For each new section, its index in the old snapshot, or -1 when inserted.
    private var newToOld: [Int] = []
    /// For each old section, where its middle (the part not in a common prefix or suffix) lies.
    private var oldMiddles: [Range<Int>] = []
    /// For each old section, the position of its first item in the old snapshot's flattened items.
    private var oldStarts: [Int] = []
    /// One flag per old item (flattened): matched by an item of a surviving new section.
    private var kept: [Bool] = []

    // Scratch, per section.
    private var lis = LongestIncreasingSubsequence()
    private var candidates: [Int] = []
    private var keep: [Bool] = []
    /// For each item of a new section's middle: its old section, or `Self.inserted` / `Self.stays`.
    private var fromSection: [Int] = []
    private var fromItem: [Int] = []

    private static var inserted: Int { -1 }
    private static var stays: Int { -2 }

    init(old: ListSnapshot<SectionID, Item>, new: ListSnapshot<SectionID, Item>) {
        self.old = old
        self.new = new
    }

    mutating func run() -> ListChanges {
        matchSections()
        oldMiddles = Array(repeating: 0..<0, count: old.sections.count)
        oldStarts.reserveCapacity(old.sections.count)
        var start = 0
        for section in old.sections {
            oldStarts.append(start)
            start += section.items.count
        }
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
    private mutating func matchSections() {
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
        candidates.removeAll(keepingCapacity: true)
        for j in newSections.indices where newToOld[j] >= 0 { candidates.append(newToOld[j]) }
        lis.mark(candidates, keep: &keep)
        var k = 0
        for j in newSections.indices where newToOld[j] >= 0 {
            if !keep[k] { changes.movedSections.append(ListMove(from: newToOld[j], to: j)) }
            k += 1
        }
    }

    /// Steps 2 and 3 for one section present in both snapshots.
    private mutating func diffSection(old i: Int, new j: Int) {
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
        while prefix < shorter && oldItems[prefix].id == newItems[prefix].id { prefix += 1 }
        var suffix = 0
        while suffix < shorter - prefix && oldItems[oldCount - 1 - suffix].id == newItems[newCount - 1 - suffix].id {
            suffix += 1
        }
        oldMiddles[i] = prefix..<(oldCount - suffix)
        for k in 0..<prefix where oldItems[k] != newItems[k] {
            changes.updatedItems.append(ItemPath(section: j, item: k))
        }

        // Step 3: the middle of the new section.
        let middle = prefix..<(newCount - suffix)
        if !middle.isEmpty {
            diffMiddle(middle, of: newItems, old: i, new: j)
        }

        for k in (newCount - suffix)..<newCount where oldItems[k - newCount + oldCount] != newItems[k] {
            changes.updatedItems.append(ItemPath(section: j, item: k))
        }
    }

    private mutating func diffMiddle(_ middle: Range<Int>, of newItems: [Item], old i: Int, new j: Int) {
        fromSection.removeAll(keepingCapacity: true)
        fromItem.removeAll(keepingCapacity: true)
        candidates.removeAll(keepingCapacity: true)
        for k in middle {
            let item = newItems[k]
            guard let from = old.itemPaths[item.id], oldToNew[from.section] >= 0 else {
                // New, or its old section is deleted: an insertion here.
                fromSection.append(Self.inserted)
                fromItem.append(0)
                continue
            }
            kept[oldStarts[from.section] + from.item] = true
            if old.sections[from.section].items[from.item] != item {
                changes.updatedItems.append(ItemPath(section: j, item: k))
            }
            fromSection.append(from.section)
            fromItem.append(from.item)
            if from.section == i { candidates.append(from.item) }
        }
        if !candidates.isEmpty {
            lis.mark(candidates, keep: &keep)
            var c = 0
            for m in fromSection.indices where fromSection[m] == i {
                if keep[c] { fromSection[m] = Self.stays }
                c += 1
            }
        }
        for m in fromSection.indices {
            let to = ItemPath(section: j, item: middle.lowerBound + m)
            switch fromSection[m] {
            case Self.inserted: changes.insertedItems.append(to)
            case Self.stays: break
            case let section: changes.movedItems.append(ListMove(from: ItemPath(section: section, item: fromItem[m]), to: to))
            }
        }
    }

    /// Step 4: the old items of a surviving section that no surviving new section matched.
    private mutating func collectDeletions(inOldSection i: Int) {
        let start = oldStarts[i]
        for k in oldMiddles[i] where !kept[start + k] {
            changes.deletedItems.append(ItemPath(section: i, item: k))
        }
    }
}
