import TextMeasureSupport
import Dispatch

extension ListHeights {
    // MARK: Provisional estimates, refined in the background

    /// A lazy first apply of at least this many rows, through a cache with an estimator, gives every
    /// row one provisional estimate and refines the rows' own estimates in the background: a row's
    /// own estimate reads its texts (about a microsecond a row for a two-block text row), which for a
    /// million rows would hold up the first frame for seconds.
    static var refinedInBackground: Int { 65_536 }

    /// Rows estimated, and committed, per step of the refinement: the state lock is held for one
    /// step's O(k log n) updates at a time, so readers wait little.
    static var refinementStep: Int { 8_192 }

    /// The refinement of a large first apply's provisional estimates, in list order.
    struct Refinement: Sendable {
        /// Identifies the refinement; another start or a width change replaces or ends it.
        var token: Int
        /// The flat index of the first row not refined yet, in the snapshot of `version`.
        var next: Int
        /// The identifier of that row, to find it again after an apply.
        var nextID: Item.ID?
        var version: Int
    }

    /// One provisional estimate for every row of `items`: the mean of the estimates of 1,024 rows
    /// spread evenly over them, so that the content height is about right from the start.
    func provisionalEstimates(_ items: [Item], width: Double) -> [Int64] {
        let samples = Swift.min(items.count, 1_024)
        let sample = (0..<samples).map { items[$0 * items.count / samples] }
        let heights = cache.estimatedHeights(for: sample, width: width)
        let mean = heights.reduce(0, +) / Double(Swift.max(1, heights.count))
        return Array(repeating: OffsetTree.units(mean), count: items.count)
    }

    /// Starts refining every row of the current snapshot on a background queue, in list order.
    @discardableResult
    func startRefinement() -> Int {
        let token = state.withLock { state -> Int in
            let token = (state.refinement?.token ?? 0) &+ 1
            let snapshot = state.snapshot
            let first = snapshot.numberOfItems > 0 ? snapshot.item(at: snapshot.indexPath(forFlatIndex: 0)).id : nil
            state.refinement = Refinement(token: token, next: 0, nextID: first, version: state.version)
            return token
        }
        if refinesByHand.withLock({ $0 }) { return token }
        let group = refinementGroup
        group.enter()
        // Weakly held: a list dropped by its view stops refining after the step under way.
        DispatchQueue.global(qos: .utility).async { [weak self] in
            defer { group.leave() }
            while let list = self, list.refineStep(token: token) {}
        }
        return token
    }

    /// The token of the refinement under way, if any (tests).
    var refinementToken: Int? { state.withLock { $0.refinement?.token } }

    /// One step of the refinement: the next rows' own estimates, committed where the rows still count
    /// with an estimate. Rows above the viewport's top (as ``prepareRows(in:)`` last saw it) move the
    /// content; how far is kept as a pending correction that the next ``prepareRows(in:)`` (or
    /// anchored apply or width change) hands to the view, so the reader's row stays where it is.
    ///
    /// After an apply, the refinement goes on from the first row not refined, found by identifier; if
    /// that row was deleted it stops, and the rows left keep their provisional estimate until they
    /// come near the viewport or the width changes. Rows moved from the part not refined to the part
    /// refined keep theirs too.
    ///
    /// - Returns: Whether there is more to do.
    func refineStep(token: Int) -> Bool {
        let job = state.withLock { state -> (items: [Item], start: Int, version: Int, width: Double)? in
            guard var refinement = state.refinement, refinement.token == token else { return nil }
            let snapshot = state.snapshot
            if refinement.version != state.version {
                guard let id = refinement.nextID, let path = snapshot.indexPath(of: id) else {
                    state.refinement = nil
                    return nil
                }
                refinement.next = snapshot.flatIndex(of: path)
                refinement.version = state.version
                state.refinement = refinement
            }
            guard refinement.next < snapshot.numberOfItems else {
                state.refinement = nil
                return nil
            }
            var items: [Item] = []
            let count = Swift.min(Self.refinementStep, snapshot.numberOfItems - refinement.next)
            items.reserveCapacity(count)
            var path = snapshot.indexPath(forFlatIndex: refinement.next)
            while items.count < count {
                let section = snapshot.sections[path.section].items
                let take = Swift.min(count - items.count, section.count - path.item)
                items.append(contentsOf: section[path.item..<path.item + take])
                path = ItemPath(section: path.section + 1, item: 0)
            }
            return (items, refinement.next, state.version, state.width)
        }
        guard let job else { return false }
        let heights = cache.estimatedHeights(for: job.items, width: job.width)
        state.withLock { state in
            // An apply came in between: the next step finds the row again.
            guard var refinement = state.refinement, refinement.token == token, state.version == job.version
            else { return }
            let snapshot = state.snapshot
            let top = state.tree.index(containing: state.viewportTop) ?? (state.viewportTop < 0 ? 0 : state.tree.count)
            var path = snapshot.indexPath(forFlatIndex: job.start)
            var base = state.tree.indexOfMark(path.section) + 1
            var moved: Int64 = 0
            for height in heights {
                while path.item >= snapshot.sections[path.section].items.count {
                    path = ItemPath(section: path.section + 1, item: 0)
                    base = state.tree.indexOfMark(path.section) + 1
                }
                let index = base + path.item
                let entry = state.tree.entry(at: index)
                if entry.kind == .estimatedItem {
                    let units = OffsetTree.units(height)
                    if index < top { moved += units - entry.height }
                    state.tree.setEntry(OffsetTree.Entry(unchecked: units, kind: .estimatedItem), at: index)
                }
                path.item += 1
            }
            state.pendingCorrection += moved
            state.viewportTop += moved
            refinement.next = job.start + heights.count
            refinement.nextID = refinement.next < snapshot.numberOfItems
                ? snapshot.item(at: snapshot.indexPath(forFlatIndex: refinement.next)).id : nil
            state.refinement = refinement
        }
        return true
    }

    /// Under the state lock: the correction background refinement left for the view, in pixels, now
    /// handed over.
    static func takePendingCorrection(in state: inout State) -> Double {
        let correction = state.pendingCorrection
        state.pendingCorrection = 0
        return OffsetTree.pixels(correction)
    }

    /// Waits until background refinement has refined every row it will (tests).
    func waitForRefinement() {
        refinementGroup.wait()
    }
}
