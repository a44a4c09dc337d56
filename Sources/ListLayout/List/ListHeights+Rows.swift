import TextMeasureSupport
import Dispatch

extension ListHeights {
    // MARK: Width

    /// Lays the list out at a new width (a rotation, a split view).
    ///
    /// Rows whose measurement holds at the new width (their valid width range) are not measured
    /// again; in eager mode the others are measured on all cores, in lazy mode they count with an
    /// estimate until ``prepareRows(in:)`` or ``prefetch(_:)`` reaches them. Prefetching under way is
    /// cancelled (it was for the old width).
    ///
    /// In eager mode the list keeps every row's range from the last width change, so a drag (width
    /// after width, no snapshot in between) asks the cache only for the rows whose range does not hold
    /// the new width. Invalidating the cache (``HeightCache/invalidate(_:)``,
    /// ``HeightCache/removeAll()``) or applying a snapshot makes the next width ask for every row.
    ///
    /// - Parameter width: The new width: a finite number greater than 0 (a precondition).
    /// - Complexity: O(n) range checks during a drag, O(n) cache look-ups otherwise, plus the
    ///   measurements that cannot be reused.
    public func setWidth(_ width: Double) {
        _ = setWidth(width, anchor: 0)
    }

    /// Lays the list out at a new width, like ``setWidth(_:)``, and returns the content offset that
    /// keeps the row at the top of the viewport in place: its top stays at the same distance from the
    /// viewport's top, scaled by how much the row grew or shrank.
    ///
    /// - Parameters:
    ///   - width: The new width: a finite number greater than 0 (a precondition).
    ///   - anchor: The content offset now. Must be finite.
    /// - Returns: The new content offset (`anchor` when the list is empty or the width is the same).
    /// - Complexity: As ``setWidth(_:)``.
    @discardableResult
    public func setWidth(_ width: Double, anchor: Double) -> Double {
        precondition(WidthLimits.isValid(width),
                     "ListHeights.setWidth: \(WidthLimits.outOfRange(width))")
        precondition(anchor.isFinite, "ListHeights.setWidth: anchor must be finite, got \(anchor)")
        cancelPrefetch()
        return edits.withLock { _ in
            let cacheGeneration = cache.generation
            // Eager mode, after a width change and nothing else: the rows whose range holds keep
            // their heights. The ranges are moved out of the state, not copied: this edit replaces them.
            var held: (ranges: [Range<Double>], modelHashes: [Int])?
            let (snapshot, oldWidth, kinds) = state.withLock { state -> (Snapshot, Double, [OffsetTree.Entry]?) in
                // Lazy mode keeps apart the rows measured (looked up again) and the estimated ones.
                let kinds = measuring == .eager || state.snapshot.sections.isEmpty ? nil : state.tree.entries
                if kinds == nil, OffsetTree.units(width) != OffsetTree.units(state.width),
                   state.rowRanges?.version == state.version, state.rowRanges?.cacheGeneration == cacheGeneration {
                    held = state.rowRanges.take().map { ($0.ranges, $0.modelHashes) }
                }
                return (state.snapshot, state.width, kinds)
            }
            guard OffsetTree.units(width) != OffsetTree.units(oldWidth) else { return anchor }
            let newEntries: NewEntries, ranges: (ranges: [Range<Double>], modelHashes: [Int])?
            if held?.ranges.count == snapshot.numberOfItems, var dragged = held.take() {
                newEntries = .changed(layOutDrag(snapshot, width: width, ranges: &dragged.ranges,
                                                 modelHashes: dragged.modelHashes))
                ranges = dragged
            } else {
                let laidOut = layOut(snapshot, width: width, previous: kinds)
                (newEntries, ranges) = (.all(laidOut.entries), laidOut.ranges)
            }
            return state.withLock { state in
                let anchor = anchor + Self.takePendingCorrection(in: &state)
                state.refinement = nil   // every row is estimated afresh at the new width
                var offset = anchor
                if state.tree.count > 0 {
                    let y = Self.units(atOffset: anchor)
                    let index = state.tree.index(containing: y) ?? (y < 0 ? 0 : state.tree.count - 1)
                    let oldTop = state.tree.offset(of: index), oldHeight = state.tree.entry(at: index).height
                    switch newEntries {
                    case .all(let entries):
                        state.tree = OffsetTree(entries)
                    case .changed(let changes):
                        // The tree is the one the ranges were kept for: the ranges' version matched
                        // the list's, and the edits lock held since keeps every other edit out.
                        for change in changes { state.tree.setEntry(change.entry, at: change.index) }
                    }
                    let newHeight = state.tree.entry(at: index).height
                    var distance = anchor - OffsetTree.pixels(oldTop)
                    if oldHeight > 0 && distance > 0 { distance *= Double(newHeight) / Double(oldHeight) }
                    offset = OffsetTree.pixels(state.tree.offset(of: index)) + distance
                }
                state.width = width
                state.version += 1
                state.rowRanges = ranges.map {
                    RowRanges(ranges: $0.ranges, modelHashes: $0.modelHashes, version: state.version,
                              cacheGeneration: cacheGeneration)
                }
                return offset
            }
        }
    }

    /// A width change's new entries: all of them, or (a drag step) only those that change.
    private enum NewEntries {
        case all([OffsetTree.Entry])
        case changed([(index: Int, entry: OffsetTree.Entry)])
    }

    /// Every entry of `snapshot` at `width`, and in eager mode every row's valid widths and hash
    /// value. `previous` (lazy mode) tells which rows were measured.
    private func layOut(_ snapshot: Snapshot, width: Double, previous: [OffsetTree.Entry]?)
        -> (entries: [OffsetTree.Entry], ranges: (ranges: [Range<Double>], modelHashes: [Int])?) {
        let items = snapshot.sections.flatMap(\.items)
        var rows: [OffsetTree.Entry]
        var ranges: (ranges: [Range<Double>], modelHashes: [Int])? = nil
        if let previous {
            var measured: [Bool] = []
            measured.reserveCapacity(items.count)
            for entry in previous where entry.kind.isItem { measured.append(entry.kind == .item) }
            // On this thread, as in `measure(_:width:)`: look-ups contend for the cache's lock.
            rows = items.indices.map { i in
                if measured[i], let exact = cache.cachedHeight(for: items[i], width: width) {
                    return OffsetTree.Entry(height: OffsetTree.units(exact), kind: .item)
                }
                return OffsetTree.Entry(height: OffsetTree.units(cache.estimatedHeight(for: items[i], width: width)),
                                        kind: .estimatedItem)
            }
        } else if measuring == .eager {
            // Hashed here, once, instead of by the cache: the drag steps that follow hand the cache
            // these hashes with the rows they ask for again.
            let modelHashes = items.map(\.hashValue)
            let measured = cache.measurements(for: items, modelHashes: modelHashes, width: width)
            rows = measured.map { OffsetTree.Entry(unchecked: OffsetTree.units($0.height), kind: .item) }
            ranges = (measured.map(\.validWidths), modelHashes)
        } else {
            rows = measure(items, width: width).map { OffsetTree.Entry(unchecked: $0, kind: .estimatedItem) }
        }
        var entries: [OffsetTree.Entry] = []
        entries.reserveCapacity(rows.count + 2 * snapshot.numberOfSections)
        var next = 0
        for section in snapshot.sections {
            let ends = supplements(of: section.id, width: width)
            entries.append(ends.header)
            entries.append(contentsOf: rows[next..<next + section.items.count])
            next += section.items.count
            entries.append(ends.footer)
        }
        return (entries, ranges)
    }

    /// A drag step: the entries that change at `width`, by index (every section's header and footer,
    /// and the rows whose range in `ranges`, the last width change's, does not hold `width`, asked for
    /// again), with `ranges` brought up to date. The changed rows' items are found section by
    /// section, not copied into one array; the tree is updated in place, not rebuilt.
    private func layOutDrag(_ snapshot: Snapshot, width: Double, ranges: inout [Range<Double>], modelHashes: [Int])
        -> [(index: Int, entry: OffsetTree.Entry)] {
        var changes: [(index: Int, entry: OffsetTree.Entry)] = []
        // The rows whose lines change, in list order: row index and entry index.
        var changed: [(row: Int, entry: Int)] = []
        var changedItems: [Item] = []
        var changedHashes: [Int] = []
        var row = 0, entry = 0
        for section in snapshot.sections {
            let ends = supplements(of: section.id, width: width)
            changes.append((entry, ends.header))
            entry += 1
            for item in section.items.indices where !ranges[row + item].contains(width) {
                changed.append((row + item, entry + item))
                changedItems.append(section.items[item])
                changedHashes.append(modelHashes[row + item])
            }
            row += section.items.count
            entry += section.items.count
            changes.append((entry, ends.footer))
            entry += 1
        }
        let measured = cache.measurements(for: changedItems, modelHashes: changedHashes, width: width)
        for (index, measurement) in zip(changed, measured) {
            changes.append((index.entry, OffsetTree.Entry(unchecked: OffsetTree.units(measurement.height), kind: .item)))
            ranges[index.row] = measurement.validWidths
        }
        return changes
    }

    // MARK: Lazy rows

    /// Measures the rows that come within the overscan of a viewport and still count with an
    /// estimate (lazy mode; in eager mode every row is exact and this returns 0), then returns how far
    /// the content moved above the viewport's top row, so that the viewport stays where it is.
    ///
    /// ```swift
    /// // In scrollViewDidScroll, or before laying out a frame:
    /// let visible = scrollView.contentOffset.y..<scrollView.contentOffset.y + scrollView.bounds.height
    /// scrollView.contentOffset.y += list.prepareRows(in: visible)
    /// ```
    ///
    /// The rows are measured on the calling thread and all cores (the viewport needs them now); rows
    /// prefetched before cost a cache look-up. Repeats until every row in the corrected viewport plus
    /// overscan is exact.
    ///
    /// - Parameter range: The viewport: content offsets from its top to its bottom.
    /// - Returns: The correction to add to the content offset: the change in height of the rows above
    ///   the viewport's top row, including the rows whose estimates background refinement changed
    ///   since the view was last told (see "Large lazy lists" in ``ListHeights``).
    /// - Complexity: O(r log n) for r rows in the viewport and overscan, plus their measurements.
    @discardableResult
    public func prepareRows(in range: Range<Double>) -> Double {
        guard case .lazy(let overscan) = measuring, range.lowerBound.isFinite, range.upperBound.isFinite else { return 0 }
        var correction = state.withLock { Self.takePendingCorrection(in: &$0) }
        defer { state.withLock { $0.viewportTop = Self.units(atOffset: range.lowerBound + correction) } }
        while true {
            let found = state.withLock { state -> (version: Int, width: Double, rows: [(index: Int, item: Item)]) in
                let rows = Self.estimatedRows(from: range.lowerBound + correction - overscan,
                                              to: range.upperBound + correction + overscan, in: state)
                return (state.version, state.width, rows)
            }
            if found.rows.isEmpty { return correction }
            let heights = cache.prefetch(found.rows.map(\.item), width: found.width)
            state.withLock { state in
                // An apply or a width change came in between: look again (the heights are cached now).
                guard state.version == found.version, state.tree.count > 0 else { return }
                let y = Self.units(atOffset: range.lowerBound + correction)
                let top = state.tree.index(containing: y) ?? (y < 0 ? 0 : state.tree.count - 1)
                let before = state.tree.offset(of: top)
                for (row, height) in zip(found.rows, heights) {
                    state.tree.setEntry(OffsetTree.Entry(height: OffsetTree.units(height), kind: .item), at: row.index)
                }
                correction += OffsetTree.pixels(state.tree.offset(of: top) - before)
                correction += Self.takePendingCorrection(in: &state)
            }
        }
    }

    /// The rows with an estimated height whose spans meet `lower..<upper`, with their items.
    static func estimatedRows(from lower: Double, to upper: Double, in state: State) -> [(index: Int, item: Item)] {
        let tree = state.tree
        guard tree.count > 0, upper > lower else { return [] }
        let low = units(atOffset: lower), high = units(atOffset: upper)
        guard high >= 0, low < tree.total else { return [] }
        let start = low < 0 ? 0 : tree.index(containing: low)!
        let sections = state.snapshot.sections
        // The section and item index of the entry at `start`, then counted along.
        var section = tree.markCount(before: start) - 1
        var item = section >= 0 ? start - tree.indexOfMark(section) - 1 : 0
        var offset = tree.offset(of: start)
        var rows: [(index: Int, item: Item)] = []
        tree.forEach(from: start) { index, entry in
            guard offset < high || index == start else { return false }
            offset += entry.height
            switch entry.kind {
            case .header:
                section += 1
                item = 0
            case .footer:
                break
            case .item:
                item += 1
            case .estimatedItem:
                rows.append((index, sections[section].items[item]))
                item += 1
            }
            return true
        }
        return rows
    }

    // MARK: Prefetch

    /// Measures rows ahead of need (those about to scroll into view), on background threads; a later
    /// ``prepareRows(in:)``, ``apply(_:reconfiguring:)`` or width change finds their heights in the
    /// cache instead of measuring them.
    ///
    /// ```swift
    /// // UITableViewDataSourcePrefetching
    /// func tableView(_ tableView: UITableView, prefetchRowsAt paths: [IndexPath]) {
    ///     list.prefetch(paths.map { ItemPath(section: $0.section, item: $0.row) })
    /// }
    /// ```
    ///
    /// Returns at once. Offsets do not change (heights turn exact in ``prepareRows(in:)``, which keeps
    /// the viewport steady). Paths out of range, and rows already exact, are skipped; in eager mode
    /// every row is exact already, and this does nothing.
    ///
    /// - Parameter paths: Paths in the current snapshot.
    /// - Complexity: O(p log n) on the calling thread for p paths; the measuring happens elsewhere.
    public func prefetch(_ paths: [ItemPath]) {
        guard case .lazy = measuring, !paths.isEmpty else { return }
        let (items, width) = state.withLock { state -> ([Item], Double) in
            var items: [Item] = []
            for path in paths {
                guard let index = Self.index(of: .item(path), in: state),
                      state.tree.entry(at: index).kind == .estimatedItem else { continue }
                items.append(state.snapshot.item(at: path))
            }
            return (items, state.width)
        }
        guard !items.isEmpty else { return }
        let generation = prefetchGeneration
        let token = generation.withLock { $0 }
        let cache = self.cache
        let group = prefetchGroup
        group.enter()
        DispatchQueue.global(qos: .utility).async {
            defer { group.leave() }
            let blockSize = 4
            let blocks = (items.count + blockSize - 1) / blockSize
            DispatchQueue.concurrentPerform(iterations: blocks) { block in
                for index in block * blockSize..<min(items.count, (block + 1) * blockSize) {
                    guard generation.withLock({ $0 }) == token else { return }
                    _ = cache.height(for: items[index], width: width)
                }
            }
        }
    }

    /// Stops the prefetching under way: rows not measured yet are not measured (a measurement already
    /// started finishes and is cached).
    public func cancelPrefetch() {
        prefetchGeneration.withLock { $0 += 1 }
    }
}
