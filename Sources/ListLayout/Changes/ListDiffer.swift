#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
///    order), or one of the few old items after it (an item deleted just before: identifiers are
///    unique, so this is where the index would find it, without the index's random reads); else a
///    look-up in the old snapshot's index. Not found, or found in a deleted section: inserted. Found in
///    another section: moved. Found in the same section: stays if it belongs to a longest increasing
///    run of old indexes, else moves. Each run records its old range, and each item matched from
///    another section its old position. Items of a
///    bitwise-copyable type are compared a block of bytes at a time (`memcmp`) along such a run
///    (`matchRun`). Only when the old indexes do not increase is the per-item `sources` written, for
///    the longest increasing subsequence.
/// 4. The rest of each old surviving section: items in no run's old range and not matched from another
///    section are deleted (gone, or gone into an inserted section). Found by walking the gaps between
///    the runs, so a section whose items mostly stay costs a step per run, not per item (when the runs
///    are out of order, sections or items having moved, a flag per old item instead).
///
/// Allocations: the result's arrays, the runs' old ranges, a few arrays per section, and scratch
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
    /// The old ranges (flat positions) of the runs matched in order within a section, in the order
    /// found: by old position within a section whose items keep their order.
    @usableFromInline var keptRuns: [Range<Int>] = []
    /// The old flat positions of items matched by an item of another surviving section.
    @usableFromInline var keptElsewhere: [Int] = []

    // Scratch, per section.
    @usableFromInline var lis = LongestIncreasingSubsequence()
    /// For each item of a new section's middle whose items change order, where it comes from: its
    /// index in the same old section (`>= 0`), ``inserted``, ``stays`` (marked by the longest increasing
    /// subsequence), or `firstOther - n` for the `n`th entry of ``others``.
    @usableFromInline var sources: [Int] = []
    /// Old paths of the items of a new section's middle that come from another section.
    @usableFromInline var others: [ItemPath] = []

    @inlinable static var inserted: Int { -1 }
    @inlinable static var stays: Int { -2 }
    @inlinable static var firstOther: Int { -3 }
    /// How many old items after the next one ``diffMiddle(_:of:oldItems:oldMiddle:old:new:)`` compares
    /// with a new item before it looks the item up in the old snapshot's index.
    @inlinable static var lookahead: Int { 4 }

    @inlinable
    init(old: ListSnapshot<SectionID, Item>, new: ListSnapshot<SectionID, Item>) {
        self.old = old
        self.new = new
    }

    @inlinable
    mutating func run() -> ListChanges {
        matchSections()
        oldMiddles = Array(repeating: 0..<0, count: old.sections.count)
        for j in new.sections.indices where newToOld[j] >= 0 {
            diffSection(old: newToOld[j], new: j)
        }
        collectDeletions()
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
        var sources = self.sources, others = self.others, keptRuns = self.keptRuns
        self.sources = []
        self.others = []
        self.keptRuns = []
        defer {
            self.sources = sources
            self.others = others
            self.keptRuns = keptRuns
        }
        others.removeAll(keepingCapacity: true)
        // What the loop records, in order of position in `middle` (offsets from its start): the runs of
        // items matched in this section, the insertions, and the items from other sections. While the
        // old indexes only increase, the batch is the insertions and the moves from other sections;
        // only when they do not is the per-item `sources` written (from these) for the longest
        // increasing subsequence. Nothing is written per item of a run.
        var runs: [(offset: Int, old: Int, count: Int)] = []
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
        var k = middle.lowerBound
        while k < middle.upperBound {
            // A run kept in order, side by side: no look-up, no bounds check. `next` is one past the
            // last old index matched, so the run's indexes only increase.
            let runStart = k, runOld = next
            Self.matchRun(old: oldBuffer, from: &next, upTo: oldMiddle.upperBound,
                          new: newBuffer, from: &k, upTo: middle.upperBound) {
                changes.updatedItems.append(ItemPath(section: j, item: $0))
            }
            if k > runStart {
                keptRuns.append((oldStart + runOld)..<(oldStart + next))
                runs.append((runStart - middle.lowerBound, runOld, k - runStart))
                last = next - 1
            }
            guard k < middle.upperBound else { break }
            let item = newBuffer[k]
            // Heckel's rule a few places further: an item deleted (or moved away) just before this one
            // leaves its old neighbours in order, and an identifier found there is the one the index
            // would give (identifiers are unique), without the index's random reads.
            var ahead = next &+ 1
            let aheadEnd = Swift.min(next &+ 1 &+ Self.lookahead, oldMiddle.upperBound)
            while ahead < aheadEnd && oldBuffer[ahead].id != item.id { ahead &+= 1 }
            if ahead < aheadEnd {
                next = ahead
                continue
            }
            guard let flat = old.itemIndex.position(of: item.id) else {
                // New: an insertion here.
                insertions.append(k - middle.lowerBound)
                k += 1
                continue
            }
            if oldItemsRange.contains(flat) {
                // In this section: the next run starts with it (its identifier matches).
                let source = flat - oldStart
                if source < last { increasing = false }
                next = source
                continue
            }
            let from = old.indexPath(forFlatIndex: flat)
            if oldToNew[from.section] >= 0 {
                keptElsewhere.append(flat)
                if old.sections[from.section].items[from.item] != item {
                    changes.updatedItems.append(ItemPath(section: j, item: k))
                }
                fromOthers.append(k - middle.lowerBound)
                others.append(from)
            } else {
                // Its old section is deleted: an insertion here.
                insertions.append(k - middle.lowerBound)
            }
            k += 1
        }
        }
        }
        if increasing {
            // No item of this section moves: the batch is the insertions and the moves from other
            // sections, each already in order of position.
            for m in insertions { changes.insertedItems.append(ItemPath(section: j, item: middle.lowerBound + m)) }
            for (n, m) in fromOthers.enumerated() {
                changes.movedItems.append(ListMove(from: others[n],
                                                   to: ItemPath(section: j, item: middle.lowerBound + m)))
            }
            return
        }
        // Where each item of the middle comes from, for the longest increasing subsequence.
        sources.removeAll(keepingCapacity: true)
        sources.append(contentsOf: repeatElement(Self.inserted, count: middle.count))
        sources.withUnsafeMutableBufferPointer { sources in
            for run in runs {
                for r in 0..<run.count { sources[run.offset + r] = run.old + r }
            }
            for (n, m) in fromOthers.enumerated() { sources[m] = Self.firstOther - n }
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

    /// Advances `o` and `n` together while `old[o]` and `new[n]` have the same identifier, calling
    /// `updated` with `n` for each pair whose contents differ.
    ///
    /// For items of a bitwise-copyable type, blocks of items are first compared as raw bytes
    /// (`memcmp`, which the C library vectorizes for the machine it runs on), with no per-item
    /// identifier or `==` call: items with the same bytes are the same item with the same contents. A
    /// block that differs (by contents, or only by padding bytes, or a tail too short for one) is
    /// compared item by item, so the result is the same as that of the item-by-item loop alone, except
    /// that a bitwise-identical item whose `==` is not reflexive (a NaN inside) is not reported as
    /// updated.
    ///
    /// - Parameters:
    ///   - old: The old section's items.
    ///   - o: Where the run starts in `old`; on return, one past its end.
    ///   - oldEnd: Where the run must end in `old` at the latest.
    ///   - new: The new section's items.
    ///   - n: Where the run starts in `new`; on return, one past its end.
    ///   - newEnd: Where the run must end in `new` at the latest.
    ///   - updated: Called with the new index of each item of the run whose contents changed.
    /// - Complexity: O(length of the run).
    @inlinable @inline(__always)
    static func matchRun(old: UnsafeBufferPointer<Item>, from o: inout Int, upTo oldEnd: Int,
                         new: UnsafeBufferPointer<Item>, from n: inout Int, upTo newEnd: Int,
                         updated: (Int) -> Void) {
        let stride = MemoryLayout<Item>.stride
        if _isPOD(Item.self), stride > 0,
            let oldBase = old.baseAddress, let newBase = new.baseAddress
        {
            let block = 16
            while true {
                while n + block <= newEnd && o + block <= oldEnd {
                    guard memcmp(oldBase + o, newBase + n, block * stride) == 0 else { break }
                    o += block
                    n += block
                }
                // Item by item, for at most one block: up to the first change, then blocks again.
                let stop = Swift.min(n + block, newEnd)
                while n < stop && o < oldEnd && old[o].id == new[n].id {
                    if old[o] != new[n] { updated(n) }
                    o += 1
                    n += 1
                }
                if n < stop || n == newEnd { return }
            }
        }
        while n < newEnd && o < oldEnd && old[o].id == new[n].id {
            if old[o] != new[n] { updated(n) }
            o += 1
            n += 1
        }
    }

    /// Step 4: the old items of the surviving sections that no surviving new section matched, section
    /// by section in order, by walking the gaps between the runs' old ranges.
    @inlinable
    mutating func collectDeletions() {
        // Runs come in order of old position unless sections or items changed order. Then (up to a
        // run per item, when a section is shuffled) a flag per old item costs less than sorting them.
        let inOrder = keptRuns.withUnsafeBufferPointer { runs in
            runs.indices.dropFirst().allSatisfy { runs[$0 - 1].lowerBound < runs[$0].lowerBound }
        }
        if !inOrder {
            collectDeletionsByFlags()
            return
        }
        keptElsewhere.sort()
        var deletions = changes.deletedItems
        changes.deletedItems = []
        var r = 0, e = 0
        for i in old.sections.indices where oldToNew[i] >= 0 {
            let start = old.sectionStarts[i]
            var p = start + oldMiddles[i].lowerBound
            let end = start + oldMiddles[i].upperBound
            // Runs lie within their section's middle, and do not overlap: an old item is matched once.
            while r < keptRuns.count && keptRuns[r].upperBound <= p { r += 1 }
            while p < end {
                if r < keptRuns.count && keptRuns[r].lowerBound <= p {
                    p = keptRuns[r].upperBound
                    r += 1
                    continue
                }
                let gapEnd = r < keptRuns.count ? Swift.min(end, keptRuns[r].lowerBound) : end
                while p < gapEnd {
                    while e < keptElsewhere.count && keptElsewhere[e] < p { e += 1 }
                    if e < keptElsewhere.count && keptElsewhere[e] == p {
                        e += 1
                    } else {
                        deletions.append(ItemPath(section: i, item: p - start))
                    }
                    p += 1
                }
            }
        }
        changes.deletedItems = deletions
    }

    /// Step 4 when the runs are not in order of old position: one flag per old item, set for the runs
    /// and the items taken by other sections, then read back over each surviving section's middle.
    @inlinable
    mutating func collectDeletionsByFlags() {
        var kept = [Bool](repeating: false, count: old.numberOfItems)
        kept.withUnsafeMutableBufferPointer { kept in
            for run in keptRuns { kept[run].update(repeating: true) }
            for position in keptElsewhere { kept[position] = true }
        }
        var deletions = changes.deletedItems
        changes.deletedItems = []
        // Eight flags a word (bytes 0 or 1): a stretch of items that stay is skipped eight at a time.
        let allKept = UInt64(0x0101_0101_0101_0101)
        let wordSize = MemoryLayout<UInt64>.size
        kept.withUnsafeBufferPointer { kept in
            for i in old.sections.indices where oldToNew[i] >= 0 {
                let start = old.sectionStarts[i]
                let middle = oldMiddles[i]
                var k = middle.lowerBound
                while k < middle.upperBound {
                    if k + wordSize <= middle.upperBound,
                        UnsafeRawPointer(kept.baseAddress! + start + k).loadUnaligned(as: UInt64.self) == allKept
                    {
                        k += wordSize
                        continue
                    }
                    if !kept[start + k] { deletions.append(ItemPath(section: i, item: k)) }
                    k += 1
                }
            }
        }
        changes.deletedItems = deletions
    }
}
