/// The vertical layout of a list as a sequence of entries (section headers, rows, section footers),
/// each with a height in integer units of 1/1024 px: where entry *i* starts, which entry holds
/// offset *y*, and the content height, all exact (integer sums) after any sequence of edits.
///
/// A B+ tree with subtree sums. Leaves hold up to 128 entries, inner nodes up to 64 children with each
/// child's entry count, height sum and number of section headers ("marks"). Nodes live in flat arrays
/// of fixed-size slots addressed by index, so the tree is a plain value (copy-on-write arrays, no
/// references, `Sendable` for free) and a descent touches no reference counts.
///
/// | operation | cost |
/// |---|---|
/// | ``offset(of:)``, ``index(containing:)``, ``setEntry(_:at:)``, ``insert(_:at:)``, ``remove(at:)`` | O(log n) |
/// | ``markCount(before:)`` (section of an entry), ``indexOfMark(_:)`` (entry of a section) | O(log n) |
/// | ``insert(contentsOf:at:)``, ``removeSubrange(_:)`` of k entries | O(k log n), or O(n + k) when k is large |
/// | ``init(_:)`` (bulk build), ``entries`` | O(n) |
///
/// Entries of height 0 contain no offset: ``index(containing:)`` never returns them.
///
/// ```swift
/// var tree = OffsetTree(rows.map { OffsetTree.Entry(height: OffsetTree.units(heightOf($0)), kind: .item) })
/// tree.offset(of: 40)                                  // where row 40 starts, in units
/// tree.index(containing: OffsetTree.units(scrollY))    // the row at the top of the viewport
/// tree.insert(OffsetTree.Entry(height: OffsetTree.units(56), kind: .item), at: 0)   // O(log n)
/// ```
///
/// ``ListHeights`` keeps one for its list; use one directly for a list you lay out yourself.
public struct OffsetTree: Sendable {
    /// What an entry stands for. Headers are the tree's marks: the section of entry *i* is the number
    /// of headers at or before *i*, minus one.
    public enum Kind: UInt8, Sendable {
        /// A row whose height is exact (measured).
        case item
        /// A row whose height is an estimate (lazy mode).
        case estimatedItem
        case header
        case footer

        @inlinable var isMark: Bool { self == .header }
        @inlinable var isItem: Bool { self == .item || self == .estimatedItem }
    }

    /// One entry: a height in 1/1024 px and a kind.
    public struct Entry: Hashable, Sendable {
        public var height: Int64
        public var kind: Kind

        public init(height: Int64, kind: Kind) {
            precondition(height >= 0, "OffsetTree: heights must not be negative")
            self.height = height
            self.kind = kind
        }
    }

    /// Units per pixel of the sums.
    public static let unitsPerPixel = 1024.0

    /// A height in pixels as units (rounded to the nearest 1/1024 px).
    @inlinable
    public static func units(_ pixels: Double) -> Int64 {
        precondition(pixels.isFinite && pixels >= 0, "OffsetTree: a height must be finite and not negative, got \(pixels)")
        return Int64((pixels * unitsPerPixel).rounded())
    }

    /// Units as pixels.
    @inlinable
    public static func pixels(_ units: Int64) -> Double { Double(units) / unitsPerPixel }

    static let leafCapacity = 128
    static let leafMinimum = 32
    static let innerCapacity = 64
    static let innerMinimum = 16
    /// Slots hold one more than the capacity: a node overflows by one before it splits.
    static let leafStride = leafCapacity + 1
    static let innerStride = innerCapacity + 1
    /// Fill of nodes made by a bulk build, leaving room for inserts.
    static let leafFill = 96
    static let innerFill = 48

    // Leaf slot l holds its entries at [l * leafStride, l * leafStride + leafSize[l]).
    private var leafHeights: [Int64] = []
    private var leafKinds: [Kind] = []
    private var leafSize: [Int] = []
    private var freeLeaves: [Int] = []
    // Inner slot n holds its children (node indexes one level down) and their aggregates at
    // [n * innerStride, n * innerStride + innerSize[n]).
    private var innerChild: [Int] = []
    private var innerCount: [Int] = []
    private var innerSum: [Int64] = []
    private var innerMarks: [Int] = []
    private var innerSize: [Int] = []
    private var freeInners: [Int] = []

    private var root = 0
    /// Levels of inner nodes above the leaves (0: the root is a leaf).
    private var depth = 0

    /// A node with its entry count, height sum and marks, as its parent stores them.
    private typealias Aggregate = (node: Int, count: Int, sum: Int64, marks: Int)

    /// Number of entries.
    public private(set) var count = 0
    /// Sum of all heights, in units.
    public private(set) var total: Int64 = 0
    /// Number of headers (sections).
    public private(set) var marks = 0

    /// An empty tree.
    public init() {
        root = allocateLeaf()
    }

    /// A tree holding `entries`, built bottom-up in O(n).
    public init(_ entries: some Collection<Entry>) {
        self.init(count: entries.count, entries)
    }

    /// A tree holding the first `count` entries of `entries` (which has at least that many), built
    /// bottom-up in O(n) without an intermediate array.
    public init(count n: Int, _ entries: some Sequence<Entry>) {
        self.init()
        guard n > 0 else { return }
        leafHeights.removeAll(keepingCapacity: true)
        leafKinds.removeAll(keepingCapacity: true)
        leafSize.removeAll()
        let leaves = n <= Self.leafCapacity ? 1 : (n + Self.leafFill - 1) / Self.leafFill
        // Room for a quarter more leaves: the first splits after a build do not reallocate (and copy)
        // the whole storage, a pause of milliseconds at a million rows.
        let room = leaves + leaves / 4 + 4
        leafHeights.reserveCapacity(room * Self.leafStride)
        leafKinds.reserveCapacity(room * Self.leafStride)
        leafSize.reserveCapacity(room)
        var level: [Aggregate] = []
        level.reserveCapacity(leaves)
        var iterator = entries.makeIterator()
        for leaf in 0..<leaves {
            let size = n / leaves + (leaf < n % leaves ? 1 : 0)
            var sum: Int64 = 0, marks = 0
            for _ in 0..<size {
                let entry = iterator.next()!
                leafHeights.append(entry.height)
                leafKinds.append(entry.kind)
                sum += entry.height
                if entry.kind.isMark { marks += 1 }
            }
            leafHeights.append(contentsOf: repeatElement(0, count: Self.leafStride - size))
            leafKinds.append(contentsOf: repeatElement(.item, count: Self.leafStride - size))
            leafSize.append(size)
            level.append((leaf, size, sum, marks))
        }
        buildInnerNodes(over: level)
    }

    // MARK: Queries

    /// The entry at `index`.
    /// - Complexity: O(log n).
    public func entry(at index: Int) -> Entry {
        precondition(index >= 0 && index < count, "OffsetTree: index \(index) out of 0..<\(count)")
        var node = root, i = index
        for _ in 0..<depth {
            let base = node * Self.innerStride
            var c = 0
            while i >= innerCount[base + c] { i -= innerCount[base + c]; c += 1 }
            node = innerChild[base + c]
        }
        let slot = node * Self.leafStride + i
        return Entry(unchecked: leafHeights[slot], kind: leafKinds[slot])
    }

    /// The offset at which entry `index` starts: the sum of the heights before it (`count` gives
    /// ``total``).
    /// - Complexity: O(log n).
    public func offset(of index: Int) -> Int64 {
        precondition(index >= 0 && index <= count, "OffsetTree: index \(index) out of 0...\(count)")
        if index == count { return total }
        var node = root, i = index
        var sum: Int64 = 0
        for _ in 0..<depth {
            let base = node * Self.innerStride
            var c = 0
            while i >= innerCount[base + c] {
                i -= innerCount[base + c]
                sum += innerSum[base + c]
                c += 1
            }
            node = innerChild[base + c]
        }
        let base = node * Self.leafStride
        for slot in base..<base + i { sum += leafHeights[slot] }
        return sum
    }

    /// The entry whose span `offset..<offset + height` holds `offset`; `nil` outside `0..<total`.
    /// - Complexity: O(log n).
    public func index(containing offset: Int64) -> Int? {
        guard offset >= 0 && offset < total else { return nil }
        var node = root, remaining = offset, index = 0
        for _ in 0..<depth {
            let base = node * Self.innerStride
            var c = 0
            while remaining >= innerSum[base + c] {
                remaining -= innerSum[base + c]
                index += innerCount[base + c]
                c += 1
            }
            node = innerChild[base + c]
        }
        var slot = node * Self.leafStride
        while remaining >= leafHeights[slot] {
            remaining -= leafHeights[slot]
            slot += 1
            index += 1
        }
        return index
    }

    /// Number of headers among the entries before `index`.
    /// - Complexity: O(log n).
    public func markCount(before index: Int) -> Int {
        precondition(index >= 0 && index <= count, "OffsetTree: index \(index) out of 0...\(count)")
        if index == count { return marks }
        var node = root, i = index, found = 0
        for _ in 0..<depth {
            let base = node * Self.innerStride
            var c = 0
            while i >= innerCount[base + c] {
                i -= innerCount[base + c]
                found += innerMarks[base + c]
                c += 1
            }
            node = innerChild[base + c]
        }
        let base = node * Self.leafStride
        for slot in base..<base + i where leafKinds[slot].isMark { found += 1 }
        return found
    }

    /// The index of header number `mark` (0-based); `count` when `mark == marks`.
    /// - Complexity: O(log n).
    public func indexOfMark(_ mark: Int) -> Int {
        precondition(mark >= 0 && mark <= marks, "OffsetTree: mark \(mark) out of 0...\(marks)")
        if mark == marks { return count }
        var node = root, remaining = mark, index = 0
        for _ in 0..<depth {
            let base = node * Self.innerStride
            var c = 0
            while remaining >= innerMarks[base + c] {
                remaining -= innerMarks[base + c]
                index += innerCount[base + c]
                c += 1
            }
            node = innerChild[base + c]
        }
        var slot = node * Self.leafStride
        while true {
            if leafKinds[slot].isMark {
                if remaining == 0 { return index }
                remaining -= 1
            }
            slot += 1
            index += 1
        }
    }

    /// Calls `body` with each entry from `start` on, in order, until it returns `false`.
    /// - Complexity: O(log n + entries visited).
    public func forEach(from start: Int, _ body: (_ index: Int, _ entry: Entry) -> Bool) {
        precondition(start >= 0 && start <= count, "OffsetTree: index \(start) out of 0...\(count)")
        guard start < count else { return }
        _ = visit(root, level: depth, skipping: start, index: start, body)
    }

    private func visit(_ node: Int, level: Int, skipping: Int, index: Int,
                       _ body: (Int, Entry) -> Bool) -> Bool {
        if level == 0 {
            let base = node * Self.leafStride
            for i in skipping..<leafSize[node] {
                if !body(index + i - skipping, Entry(unchecked: leafHeights[base + i], kind: leafKinds[base + i])) {
                    return false
                }
            }
            return true
        }
        let base = node * Self.innerStride
        var skip = skipping, index = index
        for c in 0..<innerSize[node] {
            let size = innerCount[base + c]
            if skip >= size { skip -= size; continue }
            if !visit(innerChild[base + c], level: level - 1, skipping: skip, index: index, body) { return false }
            index += size - skip
            skip = 0
        }
        return true
    }

    /// Every entry, in order.
    /// - Complexity: O(n).
    public var entries: [Entry] {
        var result: [Entry] = []
        result.reserveCapacity(count)
        forEach(from: 0) { _, entry in result.append(entry); return true }
        return result
    }

    // MARK: Edits

    /// Replaces the entry at `index` (a new height, or an estimate turned exact) and returns the old
    /// one.
    /// - Complexity: O(log n).
    @discardableResult
    public mutating func setEntry(_ entry: Entry, at index: Int) -> Entry {
        precondition(index >= 0 && index < count, "OffsetTree: index \(index) out of 0..<\(count)")
        // One descent, remembering the way down, instead of one to read the old entry and another to
        // apply the change (a drag step sets hundreds of entries); an entry set to what it was (a
        // row whose lines moved but not its height) changes nothing.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: max(1, depth)) { path in
            var node = root, i = index
            for level in 0..<depth {
                let base = node * Self.innerStride
                var c = 0
                while i >= innerCount[base + c] { i -= innerCount[base + c]; c += 1 }
                path[level] = base + c
                node = innerChild[base + c]
            }
            let slot = node * Self.leafStride + i
            let old = Entry(unchecked: leafHeights[slot], kind: leafKinds[slot])
            guard old != entry else { return old }
            let delta = entry.height - old.height
            let markDelta = (entry.kind.isMark ? 1 : 0) - (old.kind.isMark ? 1 : 0)
            for level in 0..<depth {
                innerSum[path[level]] += delta
                innerMarks[path[level]] += markDelta
            }
            leafHeights[slot] = entry.height
            leafKinds[slot] = entry.kind
            total += delta
            marks += markDelta
            return old
        }
    }

    /// Inserts `entry` before entry `index` (`count` appends).
    /// - Complexity: O(log n).
    public mutating func insert(_ entry: Entry, at index: Int) {
        precondition(index >= 0 && index <= count, "OffsetTree: index \(index) out of 0...\(count)")
        if let sibling = insert(entry, at: index, into: root, level: depth) {
            let node = allocateInner()
            let base = node * Self.innerStride
            for (slot, child) in [root, sibling].enumerated() {
                let aggregate = self.aggregate(of: child, level: depth)
                innerChild[base + slot] = child
                innerCount[base + slot] = aggregate.count
                innerSum[base + slot] = aggregate.sum
                innerMarks[base + slot] = aggregate.marks
            }
            innerSize[node] = 2
            root = node
            depth += 1
        }
        count += 1
        total += entry.height
        if entry.kind.isMark { marks += 1 }
    }

    /// Inserts `entries` before entry `index`.
    /// - Complexity: O(k log n) for k entries; O(n + k) (a rebuild) when k is more than an eighth of n.
    public mutating func insert(contentsOf entries: some Collection<Entry>, at index: Int) {
        precondition(index >= 0 && index <= count, "OffsetTree: index \(index) out of 0...\(count)")
        if entries.count > 64 && entries.count > count / 8 {
            var all = self.entries
            all.insert(contentsOf: entries, at: index)
            self = OffsetTree(all)
            return
        }
        for (offset, entry) in entries.enumerated() { insert(entry, at: index + offset) }
    }

    /// Removes the entry at `index` and returns it.
    /// - Complexity: O(log n).
    @discardableResult
    public mutating func remove(at index: Int) -> Entry {
        precondition(index >= 0 && index < count, "OffsetTree: index \(index) out of 0..<\(count)")
        let entry = remove(at: index, from: root, level: depth)
        while depth > 0 && innerSize[root] == 1 {
            let child = innerChild[root * Self.innerStride]
            freeInner(root)
            root = child
            depth -= 1
        }
        count -= 1
        total -= entry.height
        if entry.kind.isMark { marks -= 1 }
        return entry
    }

    /// Removes the entries in `range` and returns them.
    /// - Complexity: O(k log n) for k entries; O(n) (a rebuild) when k is more than an eighth of n.
    @discardableResult
    public mutating func removeSubrange(_ range: Range<Int>) -> [Entry] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "OffsetTree: range \(range) out of 0..<\(count)")
        if range.count > 64 && range.count > count / 8 {
            var all = self.entries
            let removed = Array(all[range])
            all.removeSubrange(range)
            self = OffsetTree(all)
            return removed
        }
        var removed: [Entry] = []
        removed.reserveCapacity(range.count)
        for _ in range { removed.append(remove(at: range.lowerBound)) }
        return removed
    }

    // MARK: Batched edits

    /// One change of a batch (see ``apply(_:entries:)``): the entries at `range`, indexes in the tree
    /// before the batch, give way to the batch's entries at `replacement`.
    struct Edit: Equatable {
        var range: Range<Int>
        var replacement: Range<Int>
    }

    /// How a batch is applied: edit by edit, or in one pass over the leaves.
    enum BatchStrategy {
        /// Per-edit descents when the edits are few against the leaves, else one pass.
        case automatic
        case oneByOne
        case onePass
    }

    /// Applies a batch of edits as one change: each edit's `range` (in the tree as it is before the
    /// batch) is replaced by `entries[edit.replacement]`.
    ///
    /// - Parameters:
    ///   - edits: Sorted by range, ranges not overlapping; an empty range (an insertion) may touch its
    ///     neighbours, and comes first among edits at its index.
    ///   - entries: The new entries the edits refer to.
    ///   - strategy: ``BatchStrategy/automatic`` but in tests, which compare the two ways.
    /// - Complexity: O(k log n) for k edits when they are few against the leaves; else one pass,
    ///   O(n / leafFill + k + the entries of the leaves edited).
    mutating func apply(_ edits: [Edit], entries: [Entry], strategy: BatchStrategy = .automatic) {
        guard !edits.isEmpty else { return }
        let oneByOne = switch strategy {
        // A descent scans a few dozen child slots on each level and shifts half a leaf; the pass
        // visits every leaf's aggregate once and rebuilds the inner nodes.
        case .automatic: edits.count * Self.leavesPerDescent < leafSize.count - freeLeaves.count
        case .oneByOne: true
        case .onePass: false
        }
        if oneByOne { applyOneByOne(edits, entries: entries) } else { applyInOnePass(edits, entries: entries) }
    }

    /// About as many leaves as the pass visits for the cost of one descent.
    static let leavesPerDescent = 16

    /// The batch as single edits, last first, so that every index still refers to the tree before
    /// the batch.
    private mutating func applyOneByOne(_ edits: [Edit], entries: [Entry]) {
        for edit in edits.reversed() {
            let replacement = entries[edit.replacement]
            let kept = min(edit.range.count, replacement.count)
            for (offset, entry) in replacement.prefix(kept).enumerated() { setEntry(entry, at: edit.range.lowerBound + offset) }
            let lower = edit.range.lowerBound + kept
            if edit.range.count > kept {
                for _ in kept..<edit.range.count { remove(at: lower) }
            } else if replacement.count > kept {
                insert(contentsOf: replacement.dropFirst(kept), at: lower)
            }
        }
    }

    /// The batch in one walk over the leaves, in order: a leaf no edit reaches is kept as it is; a
    /// leaf edited keeps its slot when its new size is within the bounds of a leaf, else its entries
    /// (merged with the edits) are gathered with those of its neighbours and cut into new leaves.
    /// The inner nodes are then built again over the leaves.
    private mutating func applyInOnePass(_ edits: [Edit], entries: [Entry]) {
        let leaves = orderedLeaves()
        var built: [Aggregate] = []
        built.reserveCapacity(leaves.count + edits.count / Self.leafFill + 2)
        // Entries gathered for new leaves.
        var gatheredHeights: [Int64] = [], gatheredKinds: [Kind] = []
        var e = 0
        // Whether edits[e]'s replacement is already gathered (its range continues into this leaf).
        var replaced = false
        var start = 0
        for (position, leaf) in leaves.enumerated() {
            if gatheredHeights.count >= Self.leafMinimum {
                cutLeaves(from: &gatheredHeights, &gatheredKinds, into: &built)
            }
            let end = start + leaf.count
            let isLast = position == leaves.count - 1
            // Edits reach a leaf when they start before its end (an insertion at the very end belongs
            // to the last leaf).
            func reaches(_ edit: Edit) -> Bool { edit.range.lowerBound < end || isLast }
            defer { start = end }
            guard e < edits.count && reaches(edits[e]) else {
                if gatheredHeights.isEmpty {
                    built.append(leaf)
                } else {
                    // Too few entries gathered for a leaf of their own: this leaf's join them.
                    gather(leaf.node, 0..<leaf.count, into: &gatheredHeights, &gatheredKinds)
                    freeLeaf(leaf.node)
                }
                continue
            }
            var last = e
            while last + 1 < edits.count && reaches(edits[last + 1]) { last += 1 }
            if gatheredHeights.isEmpty && !replaced && edits[last].range.upperBound <= end,
               let edited = editInPlace(leaf, startingAt: start, edits, e...last, entries: entries,
                                        isOnlyLeaf: leaves.count == 1) {
                built.append(edited)
                e = last + 1
                continue
            }
            var cursor = start
            while e < edits.count && reaches(edits[e]) {
                let edit = edits[e]
                if edit.range.lowerBound > cursor {
                    gather(leaf.node, cursor - start..<edit.range.lowerBound - start, into: &gatheredHeights, &gatheredKinds)
                }
                if !replaced {
                    for entry in entries[edit.replacement] {
                        gatheredHeights.append(entry.height)
                        gatheredKinds.append(entry.kind)
                    }
                    replaced = true
                }
                cursor = max(cursor, min(edit.range.upperBound, end))
                guard edit.range.upperBound <= end else { break }
                e += 1
                replaced = false
            }
            if cursor < end { gather(leaf.node, cursor - start..<leaf.count, into: &gatheredHeights, &gatheredKinds) }
            freeLeaf(leaf.node)
        }
        if !gatheredHeights.isEmpty || built.isEmpty {
            // The last entries gathered are too few for a leaf: the leaf before takes them.
            if gatheredHeights.count < Self.leafMinimum, let previous = built.popLast() {
                var heights: [Int64] = [], kinds: [Kind] = []
                gather(previous.node, 0..<previous.count, into: &heights, &kinds)
                freeLeaf(previous.node)
                gatheredHeights.insert(contentsOf: heights, at: 0)
                gatheredKinds.insert(contentsOf: kinds, at: 0)
            }
            cutLeaves(from: &gatheredHeights, &gatheredKinds, into: &built)
        }
        buildInnerNodes(over: built)
    }

    /// Applies the edits of one leaf inside its slot, last first, and returns its new aggregate; `nil`
    /// (and nothing changed) when its new size is out of a leaf's bounds.
    private mutating func editInPlace(_ leaf: Aggregate, startingAt start: Int, _ edits: [Edit], _ ofLeaf: ClosedRange<Int>,
                                      entries: [Entry], isOnlyLeaf: Bool) -> Aggregate? {
        // Last first, the leaf may grow before it shrinks: every size on the way must fit its slot.
        var size = leaf.count, largest = leaf.count
        for e in ofLeaf.reversed() {
            size += edits[e].replacement.count - edits[e].range.count
            largest = max(largest, size)
        }
        guard largest <= Self.leafCapacity && (size >= Self.leafMinimum || isOnlyLeaf) else { return nil }
        var sum = leaf.sum, marks = leaf.marks
        let base = leaf.node * Self.leafStride
        leafHeights.withUnsafeMutableBufferPointer { heights in
            leafKinds.withUnsafeMutableBufferPointer { kinds in
                var end = base + leaf.count
                for e in ofLeaf.reversed() {
                    let edit = edits[e]
                    let lower = base + edit.range.lowerBound - start, upper = base + edit.range.upperBound - start
                    for slot in lower..<upper {
                        sum -= heights[slot]
                        if kinds[slot].isMark { marks -= 1 }
                    }
                    // Move the entries after the range to their place behind the replacement.
                    let shift = edit.replacement.count - edit.range.count
                    Self.move(end - upper, from: upper, to: upper + shift, in: heights)
                    Self.move(end - upper, from: upper, to: upper + shift, in: kinds)
                    end += shift
                    for k in edit.replacement {
                        let entry = entries[k]
                        heights[lower + k - edit.replacement.lowerBound] = entry.height
                        kinds[lower + k - edit.replacement.lowerBound] = entry.kind
                        sum += entry.height
                        if entry.kind.isMark { marks += 1 }
                    }
                }
            }
        }
        leafSize[leaf.node] = size
        return (leaf.node, size, sum, marks)
    }

    /// Moves `count` elements of a buffer of plain values (the two ranges may overlap) with one
    /// `memmove`.
    private static func move<T>(_ count: Int, from source: Int, to target: Int, in buffer: UnsafeMutableBufferPointer<T>) {
        guard count > 0 && source != target else { return }
        precondition(source >= 0 && target >= 0 && max(source, target) + count <= buffer.count)
        UnsafeMutableRawPointer(buffer.baseAddress! + target)
            .copyMemory(from: buffer.baseAddress! + source, byteCount: count * MemoryLayout<T>.stride)
    }

    /// Appends the entries at `range` of a leaf to `heights` and `kinds`.
    private func gather(_ node: Int, _ range: Range<Int>, into heights: inout [Int64], _ kinds: inout [Kind]) {
        let base = node * Self.leafStride
        heights.append(contentsOf: leafHeights[base + range.lowerBound..<base + range.upperBound])
        kinds.append(contentsOf: leafKinds[base + range.lowerBound..<base + range.upperBound])
    }

    /// Moves the gathered entries into new leaves of even sizes (one leaf, maybe empty, when they fit
    /// in one) and appends their aggregates to `built`.
    private mutating func cutLeaves(from heights: inout [Int64], _ kinds: inout [Kind], into built: inout [Aggregate]) {
        let n = heights.count
        let pieces = n <= Self.leafCapacity ? 1 : (n + Self.leafFill - 1) / Self.leafFill
        var next = 0
        for piece in 0..<pieces {
            let size = n / pieces + (piece < n % pieces ? 1 : 0)
            let node = allocateLeaf()
            let base = node * Self.leafStride
            var sum: Int64 = 0, marks = 0
            for k in 0..<size {
                sum += heights[next + k]
                if kinds[next + k].isMark { marks += 1 }
            }
            leafHeights.replaceSubrange(base..<base + size, with: heights[next..<next + size])
            leafKinds.replaceSubrange(base..<base + size, with: kinds[next..<next + size])
            leafSize[node] = size
            built.append((node, size, sum, marks))
            next += size
        }
        heights.removeAll(keepingCapacity: true)
        kinds.removeAll(keepingCapacity: true)
    }

    /// Every leaf, in order, with the aggregate its parent stores.
    private func orderedLeaves() -> [Aggregate] {
        guard depth > 0 else {
            let aggregate = aggregate(of: root, level: 0)
            return [(root, aggregate.count, aggregate.sum, aggregate.marks)]
        }
        // The inner nodes just above the leaves, in order, one level at a time.
        var nodes = [root]
        for _ in 1..<depth {
            var below: [Int] = []
            for node in nodes {
                let base = node * Self.innerStride
                below.append(contentsOf: innerChild[base..<base + innerSize[node]])
            }
            nodes = below
        }
        var leaves: [Aggregate] = []
        leaves.reserveCapacity(leafSize.count - freeLeaves.count)
        for node in nodes {
            let base = node * Self.innerStride
            for slot in base..<base + innerSize[node] {
                leaves.append((innerChild[slot], innerCount[slot], innerSum[slot], innerMarks[slot]))
            }
        }
        return leaves
    }

    /// Replaces the inner nodes with new ones over `leaves` (in order, at least one), filled as a bulk
    /// build fills them, and sets the root and the totals.
    private mutating func buildInnerNodes(over leaves: [Aggregate]) {
        innerChild.removeAll(keepingCapacity: true)
        innerCount.removeAll(keepingCapacity: true)
        innerSum.removeAll(keepingCapacity: true)
        innerMarks.removeAll(keepingCapacity: true)
        innerSize.removeAll(keepingCapacity: true)
        freeInners.removeAll(keepingCapacity: true)
        var level = leaves
        depth = 0
        while level.count > 1 {
            let groups = level.count <= Self.innerCapacity ? 1 : (level.count + Self.innerFill - 1) / Self.innerFill
            var next: [Aggregate] = []
            next.reserveCapacity(groups)
            var start = 0
            for group in 0..<groups {
                let size = level.count / groups + (group < level.count % groups ? 1 : 0)
                let node = allocateInner()
                let base = node * Self.innerStride
                var aggregate: Aggregate = (node, 0, 0, 0)
                for (slot, child) in level[start..<start + size].enumerated() {
                    innerChild[base + slot] = child.node
                    innerCount[base + slot] = child.count
                    innerSum[base + slot] = child.sum
                    innerMarks[base + slot] = child.marks
                    aggregate.count += child.count
                    aggregate.sum += child.sum
                    aggregate.marks += child.marks
                }
                innerSize[node] = size
                next.append(aggregate)
                start += size
            }
            level = next
            depth += 1
        }
        root = level[0].node
        count = level[0].count
        total = level[0].sum
        marks = level[0].marks
    }

    // MARK: Node internals

    private mutating func allocateLeaf() -> Int {
        if let node = freeLeaves.popLast() { leafSize[node] = 0; return node }
        leafHeights.append(contentsOf: repeatElement(0, count: Self.leafStride))
        leafKinds.append(contentsOf: repeatElement(.item, count: Self.leafStride))
        leafSize.append(0)
        return leafSize.count - 1
    }

    private mutating func allocateInner() -> Int {
        if let node = freeInners.popLast() { innerSize[node] = 0; return node }
        innerChild.append(contentsOf: repeatElement(0, count: Self.innerStride))
        innerCount.append(contentsOf: repeatElement(0, count: Self.innerStride))
        innerSum.append(contentsOf: repeatElement(0, count: Self.innerStride))
        innerMarks.append(contentsOf: repeatElement(0, count: Self.innerStride))
        innerSize.append(0)
        return innerSize.count - 1
    }

    private mutating func freeLeaf(_ node: Int) {
        leafSize[node] = 0
        freeLeaves.append(node)
    }

    private mutating func freeInner(_ node: Int) {
        innerSize[node] = 0
        freeInners.append(node)
    }

    private func size(of node: Int, level: Int) -> Int {
        level == 0 ? leafSize[node] : innerSize[node]
    }

    /// Count, height sum and marks of a node, from its own slots.
    /// - Complexity: O(node size).
    private func aggregate(of node: Int, level: Int) -> (count: Int, sum: Int64, marks: Int) {
        if level == 0 {
            let base = node * Self.leafStride
            var sum: Int64 = 0, marks = 0
            for slot in base..<base + leafSize[node] {
                sum += leafHeights[slot]
                if leafKinds[slot].isMark { marks += 1 }
            }
            return (leafSize[node], sum, marks)
        }
        let base = node * Self.innerStride
        var count = 0, sum: Int64 = 0, marks = 0
        for slot in base..<base + innerSize[node] {
            count += innerCount[slot]
            sum += innerSum[slot]
            marks += innerMarks[slot]
        }
        return (count, sum, marks)
    }

    /// Stores child `c` of inner node `node` with aggregates computed from the child itself.
    private mutating func refresh(child c: Int, of node: Int, level: Int) {
        let slot = node * Self.innerStride + c
        let aggregate = self.aggregate(of: innerChild[slot], level: level - 1)
        innerCount[slot] = aggregate.count
        innerSum[slot] = aggregate.sum
        innerMarks[slot] = aggregate.marks
    }

    /// Inserts into the subtree at `node`; returns a new right sibling when the node split.
    private mutating func insert(_ entry: Entry, at index: Int, into node: Int, level: Int) -> Int? {
        if level == 0 {
            let base = node * Self.leafStride
            let size = leafSize[node]
            var slot = base + size
            while slot > base + index {
                leafHeights[slot] = leafHeights[slot - 1]
                leafKinds[slot] = leafKinds[slot - 1]
                slot -= 1
            }
            leafHeights[base + index] = entry.height
            leafKinds[base + index] = entry.kind
            leafSize[node] = size + 1
            return size + 1 > Self.leafCapacity ? split(node, level: 0) : nil
        }
        let base = node * Self.innerStride
        let size = innerSize[node]
        var c = 0, i = index
        while c < size - 1 && i > innerCount[base + c] { i -= innerCount[base + c]; c += 1 }
        innerCount[base + c] += 1
        innerSum[base + c] += entry.height
        if entry.kind.isMark { innerMarks[base + c] += 1 }
        guard let sibling = insert(entry, at: i, into: innerChild[base + c], level: level - 1) else { return nil }
        var slot = base + size
        while slot > base + c + 1 {
            innerChild[slot] = innerChild[slot - 1]
            innerCount[slot] = innerCount[slot - 1]
            innerSum[slot] = innerSum[slot - 1]
            innerMarks[slot] = innerMarks[slot - 1]
            slot -= 1
        }
        innerChild[base + c + 1] = sibling
        innerSize[node] = size + 1
        refresh(child: c, of: node, level: level)
        refresh(child: c + 1, of: node, level: level)
        return size + 1 > Self.innerCapacity ? split(node, level: level) : nil
    }

    /// Moves the upper half of `node` into a new node and returns it.
    private mutating func split(_ node: Int, level: Int) -> Int {
        let size = self.size(of: node, level: level)
        let keep = size / 2
        if level == 0 {
            let sibling = allocateLeaf()
            moveLeafEntries(from: node, range: keep..<size, to: sibling, at: 0)
            return sibling
        }
        let sibling = allocateInner()
        moveChildren(from: node, range: keep..<size, to: sibling, at: 0)
        return sibling
    }

    /// Moves a range of entries of one leaf to position `at` of another (which has room).
    private mutating func moveLeafEntries(from source: Int, range: Range<Int>, to target: Int, at position: Int) {
        let sourceBase = source * Self.leafStride, targetBase = target * Self.leafStride
        let moved = range.count, targetSize = leafSize[target], sourceSize = leafSize[source]
        // Open a gap in the target.
        var slot = targetBase + targetSize - 1
        while slot >= targetBase + position {
            leafHeights[slot + moved] = leafHeights[slot]
            leafKinds[slot + moved] = leafKinds[slot]
            slot -= 1
        }
        for k in 0..<moved {
            leafHeights[targetBase + position + k] = leafHeights[sourceBase + range.lowerBound + k]
            leafKinds[targetBase + position + k] = leafKinds[sourceBase + range.lowerBound + k]
        }
        // Close the gap in the source.
        for k in range.upperBound..<sourceSize {
            leafHeights[sourceBase + k - moved] = leafHeights[sourceBase + k]
            leafKinds[sourceBase + k - moved] = leafKinds[sourceBase + k]
        }
        leafSize[target] = targetSize + moved
        leafSize[source] = sourceSize - moved
    }

    /// Moves a range of children (with their aggregates) of one inner node to another.
    private mutating func moveChildren(from source: Int, range: Range<Int>, to target: Int, at position: Int) {
        let sourceBase = source * Self.innerStride, targetBase = target * Self.innerStride
        let moved = range.count, targetSize = innerSize[target], sourceSize = innerSize[source]
        var slot = targetBase + targetSize - 1
        while slot >= targetBase + position {
            copyChild(from: slot, to: slot + moved)
            slot -= 1
        }
        for k in 0..<moved { copyChild(from: sourceBase + range.lowerBound + k, to: targetBase + position + k) }
        for k in range.upperBound..<sourceSize { copyChild(from: sourceBase + k, to: sourceBase + k - moved) }
        innerSize[target] = targetSize + moved
        innerSize[source] = sourceSize - moved
    }

    private mutating func copyChild(from source: Int, to target: Int) {
        innerChild[target] = innerChild[source]
        innerCount[target] = innerCount[source]
        innerSum[target] = innerSum[source]
        innerMarks[target] = innerMarks[source]
    }

    /// Removes from the subtree at `node`, which may be left under its minimum (the parent fixes it).
    private mutating func remove(at index: Int, from node: Int, level: Int) -> Entry {
        if level == 0 {
            let base = node * Self.leafStride
            let size = leafSize[node]
            let entry = Entry(unchecked: leafHeights[base + index], kind: leafKinds[base + index])
            for slot in base + index..<base + size - 1 {
                leafHeights[slot] = leafHeights[slot + 1]
                leafKinds[slot] = leafKinds[slot + 1]
            }
            leafSize[node] = size - 1
            return entry
        }
        let base = node * Self.innerStride
        var c = 0, i = index
        while i >= innerCount[base + c] { i -= innerCount[base + c]; c += 1 }
        let child = innerChild[base + c]
        let entry = remove(at: i, from: child, level: level - 1)
        innerCount[base + c] -= 1
        innerSum[base + c] -= entry.height
        if entry.kind.isMark { innerMarks[base + c] -= 1 }
        let minimum = level - 1 == 0 ? Self.leafMinimum : Self.innerMinimum
        if size(of: child, level: level - 1) < minimum && innerSize[node] > 1 {
            rebalance(child: c, of: node, level: level)
        }
        return entry
    }

    /// Merges child `c` with a neighbour when both fit in one node, else shares their entries evenly.
    private mutating func rebalance(child c: Int, of node: Int, level: Int) {
        let base = node * Self.innerStride
        let left = c > 0 ? c - 1 : c
        let right = left + 1
        let leftNode = innerChild[base + left], rightNode = innerChild[base + right]
        let childLevel = level - 1
        let leftSize = size(of: leftNode, level: childLevel), rightSize = size(of: rightNode, level: childLevel)
        let capacity = childLevel == 0 ? Self.leafCapacity : Self.innerCapacity
        if leftSize + rightSize <= capacity {
            if childLevel == 0 {
                moveLeafEntries(from: rightNode, range: 0..<rightSize, to: leftNode, at: leftSize)
                freeLeaf(rightNode)
            } else {
                moveChildren(from: rightNode, range: 0..<rightSize, to: leftNode, at: leftSize)
                freeInner(rightNode)
            }
            for slot in base + right..<base + innerSize[node] - 1 { copyChild(from: slot + 1, to: slot) }
            innerSize[node] -= 1
            refresh(child: left, of: node, level: level)
            return
        }
        let half = (leftSize + rightSize) / 2
        if leftSize > half {
            if childLevel == 0 {
                moveLeafEntries(from: leftNode, range: half..<leftSize, to: rightNode, at: 0)
            } else {
                moveChildren(from: leftNode, range: half..<leftSize, to: rightNode, at: 0)
            }
        } else if leftSize < half {
            if childLevel == 0 {
                moveLeafEntries(from: rightNode, range: 0..<half - leftSize, to: leftNode, at: leftSize)
            } else {
                moveChildren(from: rightNode, range: 0..<half - leftSize, to: leftNode, at: leftSize)
            }
        }
        refresh(child: left, of: node, level: level)
        refresh(child: right, of: node, level: level)
    }

    // MARK: Checking

    /// Checks every invariant (aggregates, node sizes, uniform depth); for tests.
    func validate() -> Bool {
        func check(_ node: Int, level: Int, isRoot: Bool) -> (count: Int, sum: Int64, marks: Int)? {
            let size = self.size(of: node, level: level)
            if level == 0 {
                guard size <= Self.leafCapacity, isRoot || size >= Self.leafMinimum else { return nil }
                return aggregate(of: node, level: 0)
            }
            guard size <= Self.innerCapacity, size >= (isRoot ? 2 : Self.innerMinimum) else { return nil }
            let base = node * Self.innerStride
            var total = (count: 0, sum: Int64(0), marks: 0)
            for c in 0..<size {
                guard let child = check(innerChild[base + c], level: level - 1, isRoot: false),
                      child.count == innerCount[base + c], child.sum == innerSum[base + c],
                      child.marks == innerMarks[base + c] else { return nil }
                total.count += child.count
                total.sum += child.sum
                total.marks += child.marks
            }
            return total
        }
        guard let all = check(root, level: depth, isRoot: true) else { return false }
        return all.count == count && all.sum == total && all.marks == marks
    }
}

extension OffsetTree.Entry {
    /// An entry read back from the tree (already checked when it went in).
    @inline(__always)
    init(unchecked height: Int64, kind: OffsetTree.Kind) {
        self.height = height
        self.kind = kind
    }
}
