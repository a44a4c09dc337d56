/// A batch of changes to an ``OffsetTree`` stated the way a batch update states them: entries removed
/// at their indexes before the batch, entries inserted or set at their indexes after it. ``edits()``
/// turns it into the tree's own edits, all at indexes before the batch, for
/// ``OffsetTree/apply(_:entries:strategy:)``.
///
/// ```swift
/// var batch = OffsetTreeBatch()
/// batch.remove(4..<6)              // entries 4 and 5 of the tree as it is
/// batch.insert(header, at: 0)      // entry 0 of the tree as it will be
/// batch.set(row, at: 7)            // entry 7 after the batch: one that stays, or one inserted
/// let (edits, entries) = batch.edits()
/// tree.apply(edits, entries: entries)
/// ```
///
/// The entries that stay keep their order; each new index counts the entries inserted before it and
/// those that stay.
struct OffsetTreeBatch {
    private var removals: [Range<Int>] = []
    private var placements: [(index: Int, entry: OffsetTree.Entry, overwrites: Bool)] = []

    /// Makes room for this many removals and placements (insertions and sets).
    mutating func reserveCapacity(removals: Int, placements: Int) {
        self.removals.reserveCapacity(removals)
        self.placements.reserveCapacity(placements)
    }

    /// Removes the entries at `range`, indexes in the tree before the batch (disjoint from the other
    /// ranges removed).
    mutating func remove(_ range: Range<Int>) {
        if !range.isEmpty { removals.append(range) }
    }

    /// Inserts `entry` so that it is at `index` after the batch (one entry inserted at each index).
    mutating func insert(_ entry: OffsetTree.Entry, at index: Int) {
        placements.append((index, entry, false))
    }

    /// Sets the entry at `index` after the batch: an entry that stays, or one this batch inserts.
    mutating func set(_ entry: OffsetTree.Entry, at index: Int) {
        placements.append((index, entry, true))
    }

    /// The batch as the tree's edits, sorted, at indexes before the batch, and the entries they refer
    /// to.
    ///
    /// An entry that stays and is the *m*-th to stay was at old index *m* plus the number of entries
    /// removed before it; an insertion at new index *j* after *r* other insertions goes before the
    /// entry that is the (*j* − *r*)-th to stay (or at the end).
    ///
    /// - Complexity: O(k log k) for k removals and placements; the lists a diff gives are sorted
    ///   already, which the sort takes in about O(k).
    func edits() -> (edits: [OffsetTree.Edit], entries: [OffsetTree.Entry]) {
        let removals = self.removals.sorted { $0.lowerBound < $1.lowerBound }
        let placements = self.placements.sorted {
            $0.index != $1.index ? $0.index < $1.index : !$0.overwrites && $1.overwrites
        }
        var edits: [OffsetTree.Edit] = [], entries: [OffsetTree.Entry] = []
        edits.reserveCapacity(removals.count + placements.count)
        entries.reserveCapacity(placements.count)
        var nextRemoval = 0, removedBefore = 0
        /// The old index of the `m`-th entry that stays (`m` past the last: the end), once the
        /// removals before it are edits.
        func oldIndex(ofStaying m: Int) -> Int {
            while nextRemoval < removals.count && removals[nextRemoval].lowerBound <= m + removedBefore {
                let range = removals[nextRemoval]
                precondition(edits.last.map { $0.range.upperBound <= range.lowerBound } ?? true,
                             "OffsetTreeBatch: overlapping removals")
                edits.append(OffsetTree.Edit(range: range, replacement: entries.count..<entries.count))
                removedBefore += range.count
                nextRemoval += 1
            }
            return m + removedBefore
        }
        var inserted = 0
        var lastInserted: Int?
        for placement in placements {
            if placement.overwrites && placement.index == lastInserted {
                entries[entries.count - 1] = placement.entry
                continue
            }
            precondition(placement.overwrites || placement.index != lastInserted,
                         "OffsetTreeBatch: two entries inserted at \(placement.index)")
            let old = oldIndex(ofStaying: placement.index - inserted)
            let added = entries.count..<entries.count + 1
            entries.append(placement.entry)
            if placement.overwrites {
                edits.append(OffsetTree.Edit(range: old..<old + 1, replacement: added))
            } else if let last = edits.last, last.range == old..<old, last.replacement.upperBound == added.lowerBound {
                // The next entry of a run inserted at one place.
                edits[edits.count - 1].replacement = last.replacement.lowerBound..<added.upperBound
            } else {
                edits.append(OffsetTree.Edit(range: old..<old, replacement: added))
            }
            if !placement.overwrites {
                inserted += 1
                lastInserted = placement.index
            }
        }
        for range in removals[nextRemoval...] {
            edits.append(OffsetTree.Edit(range: range, replacement: entries.count..<entries.count))
        }
        return (edits, entries)
    }
}
