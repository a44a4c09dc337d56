extension ListHeights {
    // MARK: Applying snapshots

    /// Makes `snapshot` the list's current one: diffs it against the current snapshot, measures the
    /// rows that are new or changed (and only those the cache does not already hold), and updates the
    /// offsets.
    ///
    /// ```swift
    /// let changes = list.apply(snapshot)
    /// tableView.performBatchUpdates { /* changes.deletedItems, changes.insertedItems, … */ }
    /// ```
    ///
    /// - Parameters:
    ///   - snapshot: The new snapshot.
    ///   - ids: Items whose contents changed outside the snapshots (an image loaded, say): their
    ///     heights are forgotten by the cache and measured again, and those present in both snapshots
    ///     are reported in ``ListChanges/updatedItems``.
    /// - Returns: The batch update from the previous snapshot to `snapshot`, in UIKit's terms (for the
    ///   first apply: every section inserted).
    /// - Complexity: O(n) for the diff, plus the measurements of new and changed rows (on all cores in
    ///   eager mode), plus O(k log n) for k changed rows, or one pass over the offset tree's leaves
    ///   when the changes are many against them (``OffsetTree`` leaves hold about a hundred rows).
    @discardableResult
    public func apply(_ snapshot: Snapshot, reconfiguring ids: Set<Item.ID> = []) -> ListChanges {
        edits.withLock { _ in
            let prepared = prepare(snapshot, reconfiguring: ids)
            let changes = state.withLock { replay(prepared, anchor: nil, in: &$0).changes }
            if prepared.provisional { startRefinement() }
            return changes
        }
    }

    /// Makes `snapshot` the list's current one, like ``apply(_:reconfiguring:)``, and returns the
    /// content offset that keeps the row at the top of the viewport where it is on screen.
    ///
    /// ```swift
    /// // A chat prepends 50 older messages while the user reads: the message read stays put.
    /// let (changes, offset) = list.apply(withOlder, anchor: scrollView.contentOffset.y)
    /// UIView.performWithoutAnimation {
    ///     tableView.performBatchUpdates { /* changes */ }
    ///     scrollView.contentOffset.y = offset
    /// }
    /// ```
    ///
    /// The anchor row is the one whose span holds `anchor` (the first or last row when `anchor` is
    /// above or below the content). It keeps its distance from the top of the viewport, wherever it
    /// moves and whatever happens above it. When it is deleted, the nearest item row after it that
    /// stays (neither deleted nor moved, nor in a section deleted or moved) keeps its distance instead;
    /// when none does, the nearest before. (A header or footer anchors only when the viewport's top is
    /// on it.)
    ///
    /// - Parameters:
    ///   - snapshot: The new snapshot.
    ///   - anchor: The content offset now: the y of the viewport's top. Must be finite.
    ///   - ids: Items whose contents changed outside the snapshots (see ``apply(_:reconfiguring:)``).
    /// - Returns: The batch update, and the new content offset: `anchor` itself when the list was
    ///   empty, 0 when no row of the old list stays. It is not clamped to the content: the scroll view
    ///   does that.
    /// - Complexity: As ``apply(_:reconfiguring:)``, plus O(log n) and the deleted rows skipped.
    public func apply(_ snapshot: Snapshot, anchor: Double, reconfiguring ids: Set<Item.ID> = [])
        -> (changes: ListChanges, contentOffset: Double) {
        precondition(anchor.isFinite, "ListHeights.apply: anchor must be finite, got \(anchor)")
        return edits.withLock { _ in
            let prepared = prepare(snapshot, reconfiguring: ids)
            let result = state.withLock { replay(prepared, anchor: anchor, in: &$0) }
            if prepared.provisional { startRefinement() }
            return (result.changes, result.contentOffset ?? anchor)
        }
    }

    // MARK: Prepare, then commit

    /// Where a new row's height comes from.
    struct Prepared: Sendable {
        var version: Int
        var width: Double
        var old: Snapshot
        var new: Snapshot
        var changes: ListChanges
        var reconfigured: Set<Item.ID>
        /// Heights of the rows measured (or estimated), in units, in the order the replay consumes
        /// them: the items of the inserted sections, then the inserted items, then the updated items,
        /// each skipping the rows in `carried`. Their kind is ``rowKind``.
        var measured: [Int64]
        /// New rows that are old rows with unchanged contents (an item that changed section): new path
        /// to old path. Their entries are read from the tree before it changes.
        var carried: [ItemPath: ItemPath]
        /// Header and footer of each inserted section, in order.
        var supplements: [OffsetTree.Entry]
        /// Whether `measured` holds one provisional estimate for every row (a large first apply in
        /// lazy mode), to be refined in the background once committed.
        var provisional = false
    }

    /// The expensive half of an apply, done without the state lock: the diff and the measurements.
    func prepare(_ new: Snapshot, reconfiguring ids: Set<Item.ID>) -> Prepared {
        let (old, version, width) = state.withLock { ($0.snapshot, $0.version, $0.width) }
        var changes = diff(new, old)
        if !ids.isEmpty { changes.updatedItems = reconfigure(ids, in: new, changes: changes) }

        var toMeasure: [Item] = []
        var carried: [ItemPath: ItemPath] = [:]
        var supplements: [OffsetTree.Entry] = []
        /// Queues a new row for measuring unless it is an old row whose contents did not change.
        func need(_ path: ItemPath, _ item: Item) {
            if !ids.contains(item.id), let oldPath = old.indexPath(of: item.id), old.item(at: oldPath) == item {
                carried[path] = oldPath
            } else {
                toMeasure.append(item)
            }
        }
        if old.numberOfSections == 0 {
            // The first apply (or one after an empty list): every section is inserted and no row
            // carried, so the rows are measured in list order, with no per-row look-up in `old`.
            let sections = new.sections
            for section in sections {
                let ends = self.supplements(of: section.id, width: width)
                supplements.append(ends.header)
                supplements.append(ends.footer)
            }
            if sections.count == 1 {
                toMeasure = sections[0].items   // shares the snapshot's storage
            } else {
                toMeasure.reserveCapacity(new.numberOfItems)
                for section in sections { toMeasure.append(contentsOf: section.items) }
            }
            if case .lazy = measuring, toMeasure.count >= Self.refinedInBackground, cache.hasEstimator {
                return Prepared(version: version, width: width, old: old, new: new, changes: changes,
                                reconfigured: ids, measured: provisionalEstimates(toMeasure, width: width),
                                carried: [:], supplements: supplements, provisional: true)
            }
            return Prepared(version: version, width: width, old: old, new: new, changes: changes, reconfigured: ids,
                            measured: measure(toMeasure, width: width), carried: [:], supplements: supplements)
        }
        toMeasure.reserveCapacity(changes.insertedItems.count + changes.updatedItems.count)
        for s in changes.insertedSections {
            let section = new.sections[s]
            let ends = self.supplements(of: section.id, width: width)
            supplements.append(ends.header)
            supplements.append(ends.footer)
            for (i, item) in section.items.enumerated() { need(ItemPath(section: s, item: i), item) }
        }
        if changes.deletedSections.isEmpty {
            // The diff matches every new item whose identifier the old snapshot holds, except those of
            // deleted sections: with none, an inserted item is new, and there is nothing to look up.
            toMeasure.append(contentsOf: items(new, changes.insertedItems))
        } else {
            let newSections = new.sections
            for path in changes.insertedItems { need(path, newSections[path.section].items[path.item]) }
        }
        toMeasure.append(contentsOf: items(new, changes.updatedItems))

        return Prepared(version: version, width: width, old: old, new: new, changes: changes, reconfigured: ids,
                        measured: measure(toMeasure, width: width), carried: carried, supplements: supplements)
    }

    /// Forgets the cached heights of the items with these identifiers, and returns the updated items
    /// with those present in both snapshots added.
    private func reconfigure(_ ids: Set<Item.ID>, in new: Snapshot, changes: ListChanges) -> [ItemPath] {
        let insertedSections = Set(changes.insertedSections)
        let inserted = Set(changes.insertedItems)
        var updated = Set(changes.updatedItems)
        var extra: [ItemPath] = []
        for id in ids {
            guard let path = new.indexPath(of: id) else { continue }
            cache.invalidate(new.item(at: path))
            if !insertedSections.contains(path.section) && !inserted.contains(path) && updated.insert(path).inserted {
                extra.append(path)
            }
        }
        return extra.isEmpty ? changes.updatedItems : (changes.updatedItems + extra).sorted()
    }

    /// The kind of the rows ``measure(_:width:)`` gives: exact (eager) or estimated (lazy).
    var rowKind: OffsetTree.Kind { measuring == .eager ? .item : .estimatedItem }

    /// Heights for rows, in units: measured on all cores (eager), or estimated (lazy).
    ///
    /// A lazy row counts as estimated even when the estimate is a cached exact height (a prefetched
    /// row): ``prepareRows(in:)`` turns it exact with a cache hit. Both paths take the cache's lock
    /// once for all the rows (``HeightCache/prefetch(_:width:)``,
    /// ``HeightCache/estimatedHeights(for:width:conservative:)``).
    func measure(_ items: [Item], width: Double) -> [Int64] {
        switch measuring {
        case .eager: cache.prefetch(items, width: width).map(OffsetTree.units)
        case .lazy: cache.estimatedHeights(for: items, width: width).map(OffsetTree.units)
        }
    }

    /// The cheap half of an apply for a ``ListUpdater``: prepared elsewhere, committed on the delivery
    /// queue, with the content offset that keeps the row at `anchor` in place when an anchor is given
    /// (see ``apply(_:anchor:reconfiguring:)``). Prepares again when another edit came in between.
    func commit(_ prepared: Prepared, anchor: Double? = nil) -> (changes: ListChanges, contentOffset: Double?) {
        edits.withLock { _ in
            var prepared = prepared
            if state.withLock({ $0.version }) != prepared.version {
                prepared = prepare(prepared.new, reconfiguring: prepared.reconfigured)
            }
            let result = state.withLock { replay(prepared, anchor: anchor, in: &$0) }
            if prepared.provisional { startRefinement() }
            return (result.changes, anchor.map { result.contentOffset ?? $0 })
        }
    }

    // MARK: Replay

    /// Applies a prepared batch to the offsets, as UIKit replays it: removals at old indexes (a moved
    /// section's or item's entries are kept aside), insertions at new indexes, then updated heights.
    /// The batch goes to the tree as one change (``OffsetTreeBatch``). Called under the state lock,
    /// with `prepared` made against the current version.
    func replay(_ prepared: Prepared, anchor: Double?, in state: inout State)
        -> (changes: ListChanges, contentOffset: Double?) {
        precondition(state.version == prepared.version, "ListHeights: a batch prepared against another version")
        // The view's offset does not yet know how far background refinement moved the rows above it.
        let anchor = anchor.map { $0 + Self.takePendingCorrection(in: &state) }
        let changes = prepared.changes
        let old = prepared.old, new = prepared.new

        let anchored = anchor.flatMap { anchor in
            // What leaves its place: old section → new index of a moved section, or -1 when deleted.
            var sectionFate: [Int: Int] = [:]
            for s in changes.deletedSections { sectionFate[s] = -1 }
            for move in changes.movedSections { sectionFate[move.from] = move.to }
            var removals: [Int: [(item: Int, movedTo: ItemPath?)]] = [:]
            for path in changes.deletedItems { removals[path.section, default: []].append((path.item, nil)) }
            for move in changes.movedItems { removals[move.from.section, default: []].append((move.from.item, move.to)) }
            return anchorRow(at: anchor, old: old, new: new, sectionFate: sectionFate, removals: removals,
                             tree: state.tree)
        }
        var carried: [ItemPath: OffsetTree.Entry] = [:]
        for (newPath, oldPath) in prepared.carried {
            carried[newPath] = state.tree.entry(at: state.tree.indexOfMark(oldPath.section) + 1 + oldPath.item)
        }
        var measured = prepared.measured.makeIterator()
        var supplements = prepared.supplements.makeIterator()
        let kind = rowKind
        func newRow(_ path: ItemPath) -> OffsetTree.Entry {
            (carried.isEmpty ? nil : carried[path]) ?? OffsetTree.Entry(unchecked: measured.next()!, kind: kind)
        }

        if state.tree.count == 0 {
            // The first apply (or one after an empty list): every section is inserted and no row is
            // carried (`prepare` measured the rows in list order); build in O(n), straight from the
            // measurements, with no per-row look-up.
            precondition(prepared.carried.isEmpty, "ListHeights: rows carried into an empty list")
            var entries: [OffsetTree.Entry] = []
            entries.reserveCapacity(new.numberOfItems + 2 * new.numberOfSections)
            var next = 0
            let heights = prepared.measured
            for section in new.sections {
                entries.append(supplements.next()!)
                let count = section.items.count
                for index in next..<next + count { entries.append(OffsetTree.Entry(unchecked: heights[index], kind: kind)) }
                next += count
                entries.append(supplements.next()!)
            }
            state.tree = OffsetTree(entries)
            for path in changes.updatedItems {
                state.tree.setEntry(OffsetTree.Entry(unchecked: measured.next()!, kind: kind),
                                    at: state.tree.indexOfMark(path.section) + 1 + path.item)
            }
        } else {
            var batch = OffsetTreeBatch()
            batch.reserveCapacity(
                removals: changes.deletedSections.count + changes.movedSections.count + changes.deletedItems.count
                    + changes.movedItems.count,
                placements: changes.insertedItems.count + changes.movedItems.count + changes.updatedItems.count)
            let newStarts = new.sectionStarts
            // The new rows, in the order `prepare` measured them: inserted sections, inserted items,
            // then updated items.
            for s in changes.insertedSections {
                let header = Self.entryIndex(ofSection: s, sectionStarts: newStarts)
                batch.insert(supplements.next()!, at: header)
                for i in new.sections[s].items.indices {
                    batch.insert(newRow(ItemPath(section: s, item: i)), at: header + 1 + i)
                }
                batch.insert(supplements.next()!, at: header + 1 + new.sections[s].items.count)
            }
            for path in changes.insertedItems { batch.insert(newRow(path), at: Self.entryIndex(of: path, sectionStarts: newStarts)) }
            for path in changes.updatedItems {
                batch.set(OffsetTree.Entry(unchecked: measured.next()!, kind: kind), at: Self.entryIndex(of: path, sectionStarts: newStarts))
            }
            addMoves(changes, old: old, new: new, tree: state.tree, to: &batch)
            let (edits, entries) = batch.edits()
            state.tree.apply(edits, entries: entries)
        }
        assert(state.tree.marks == new.numberOfSections
               && state.tree.count == new.numberOfItems + 2 * new.numberOfSections,
               "ListHeights: the replayed offsets do not match the new snapshot")
        state.snapshot = new
        state.version += 1

        guard let anchor else { return (changes, nil) }
        guard let anchored else { return (changes, old.numberOfSections == 0 ? anchor : 0) }
        let index = Self.index(of: anchored.row, in: new, tree: state.tree)
        let distance = anchor - OffsetTree.pixels(anchored.oldOffset)
        let contentOffset = OffsetTree.pixels(state.tree.offset(of: index)) + distance
        state.viewportTop = Self.units(atOffset: contentOffset)
        return (changes, contentOffset)
    }

    /// Adds the removals and the moves of `changes` to `batch`: deleted sections and items leave; a
    /// moved item's entry, read from the tree before the batch, goes to its new index; a moved
    /// section's entries that stay (header, items neither deleted nor moved out, footer) go, in order,
    /// to its new place, around the items inserted or moved into it.
    private func addMoves(_ changes: ListChanges, old: Snapshot, new: Snapshot, tree: OffsetTree,
                          to batch: inout OffsetTreeBatch) {
        let oldStarts = old.sectionStarts, newStarts = new.sectionStarts
        var sectionsLeaving = Set(changes.deletedSections)
        for move in changes.movedSections { sectionsLeaving.insert(move.from) }
        for s in sectionsLeaving {
            let header = Self.entryIndex(ofSection: s, sectionStarts: oldStarts)
            batch.remove(header..<header + old.sections[s].items.count + 2)
        }
        // Items of a section that leaves go with it.
        func leavesAlone(_ path: ItemPath) -> Bool { sectionsLeaving.isEmpty || !sectionsLeaving.contains(path.section) }
        for path in changes.deletedItems where leavesAlone(path) {
            let index = Self.entryIndex(of: path, sectionStarts: oldStarts)
            batch.remove(index..<index + 1)
        }
        for move in changes.movedItems {
            let index = Self.entryIndex(of: move.from, sectionStarts: oldStarts)
            if leavesAlone(move.from) { batch.remove(index..<index + 1) }
            batch.insert(tree.entry(at: index), at: Self.entryIndex(of: move.to, sectionStarts: newStarts))
        }
        guard !changes.movedSections.isEmpty else { return }
        var itemsLeaving: [Int: Set<Int>] = [:], itemsArriving: [Int: Set<Int>] = [:]
        for path in changes.deletedItems { itemsLeaving[path.section, default: []].insert(path.item) }
        for move in changes.movedItems {
            itemsLeaving[move.from.section, default: []].insert(move.from.item)
            itemsArriving[move.to.section, default: []].insert(move.to.item)
        }
        for path in changes.insertedItems { itemsArriving[path.section, default: []].insert(path.item) }
        for move in changes.movedSections {
            let oldHeader = Self.entryIndex(ofSection: move.from, sectionStarts: oldStarts)
            let newHeader = Self.entryIndex(ofSection: move.to, sectionStarts: newStarts)
            let leaving = itemsLeaving[move.from] ?? [], arriving = itemsArriving[move.to] ?? []
            var staying = (0..<old.sections[move.from].items.count).lazy.filter { !leaving.contains($0) }.makeIterator()
            batch.insert(tree.entry(at: oldHeader), at: newHeader)
            let count = new.sections[move.to].items.count
            for item in 0..<count where !arriving.contains(item) {
                batch.insert(tree.entry(at: oldHeader + 1 + staying.next()!), at: newHeader + 1 + item)
            }
            batch.insert(tree.entry(at: oldHeader + 1 + old.sections[move.from].items.count), at: newHeader + 1 + count)
        }
    }

    /// The entry index of a section's header in a snapshot's entries (header, items, footer per
    /// section), from the snapshot's `sectionStarts` (read once: a generic snapshot's own look-up costs
    /// a metadata search per call).
    static func entryIndex(ofSection s: Int, sectionStarts: [Int]) -> Int {
        sectionStarts[s] + 2 * s
    }

    /// The entry index of an item in a snapshot's entries.
    static func entryIndex(of path: ItemPath, sectionStarts: [Int]) -> Int {
        sectionStarts[path.section] + path.item + 2 * path.section + 1
    }

    // MARK: Anchoring

    /// A row (or header, or footer) by identity, so that it can be found again in the new snapshot.
    enum AnchorRow {
        case header(SectionID)
        case item(Item.ID)
        case footer(SectionID)
    }

    /// The row to keep in place and its offset before the change: the row (or header, or footer) at
    /// `anchor` when it lives on, else the nearest item row after it that stays (else before it).
    /// `nil` when no row stays.
    func anchorRow(at anchor: Double, old: Snapshot, new: Snapshot, sectionFate: [Int: Int],
                   removals: [Int: [(item: Int, movedTo: ItemPath?)]], tree: OffsetTree)
        -> (row: AnchorRow, oldOffset: Int64)? {
        guard tree.count > 0 else { return nil }
        let y = Self.units(atOffset: anchor)
        let index = tree.index(containing: y) ?? (y < 0 ? 0 : tree.count - 1)
        let start = Self.element(at: index, tree: tree, snapshot: old)
        let sections = old.sections
        func identity(_ element: ListElement) -> AnchorRow {
            switch element {
            case .header(let s): .header(sections[s].id)
            case .footer(let s): .footer(sections[s].id)
            case .item(let path): .item(old.item(at: path).id)
            }
        }
        let row = identity(start)
        let lives: Bool = switch row {
        case .header(let id), .footer(let id): new.sectionIndex(of: id) != nil
        case .item(let id): new.contains(id)
        }
        if lives { return (row, tree.offset(of: index)) }

        // Rows that stay: in a section neither deleted nor moved, and not deleted or moved themselves.
        var removed = Set<ItemPath>()
        for (s, items) in removals { for (item, _) in items { removed.insert(ItemPath(section: s, item: item)) } }
        func stays(_ element: ListElement) -> Bool {
            switch element {
            case .header(let s), .footer(let s): sectionFate[s] == nil
            case .item(let path): sectionFate[path.section] == nil && !removed.contains(path)
            }
        }
        func next(_ element: ListElement) -> ListElement? {
            switch element {
            case .header(let s):
                return sections[s].items.isEmpty ? .footer(section: s) : .item(ItemPath(section: s, item: 0))
            case .item(let path):
                return path.item + 1 < sections[path.section].items.count
                    ? .item(ItemPath(section: path.section, item: path.item + 1)) : .footer(section: path.section)
            case .footer(let s):
                // Skip whole sections that leave.
                var t = s + 1
                while t < sections.count && sectionFate[t] != nil { t += 1 }
                return t < sections.count ? .header(section: t) : nil
            }
        }
        func previous(_ element: ListElement) -> ListElement? {
            switch element {
            case .footer(let s):
                let count = sections[s].items.count
                return count == 0 ? .header(section: s) : .item(ItemPath(section: s, item: count - 1))
            case .item(let path):
                return path.item > 0 ? .item(ItemPath(section: path.section, item: path.item - 1)) : .header(section: path.section)
            case .header(let s):
                var t = s - 1
                while t >= 0 && sectionFate[t] != nil { t -= 1 }
                return t >= 0 ? .footer(section: t) : nil
            }
        }
        // Only rows take over: a header or footer is kept in place only when it is the anchor itself.
        func takesOver(_ element: ListElement) -> Bool {
            if case .item = element { return stays(element) }
            return false
        }
        var candidate = next(start)
        while let element = candidate, !takesOver(element) { candidate = next(element) }
        if candidate == nil {
            candidate = previous(start)
            while let element = candidate, !takesOver(element) { candidate = previous(element) }
        }
        guard let found = candidate, let oldIndex = Self.index(of: found, tree: tree, snapshot: old) else { return nil }
        return (identity(found), tree.offset(of: oldIndex))
    }

    /// The entry index of an anchor row in the new snapshot (it is there: it lives or stays).
    static func index(of row: AnchorRow, in new: Snapshot, tree: OffsetTree) -> Int {
        switch row {
        case .header(let id): return tree.indexOfMark(new.sectionIndex(of: id)!)
        case .footer(let id): return tree.indexOfMark(new.sectionIndex(of: id)! + 1) - 1
        case .item(let id):
            let path = new.indexPath(of: id)!
            return tree.indexOfMark(path.section) + 1 + path.item
        }
    }
}
