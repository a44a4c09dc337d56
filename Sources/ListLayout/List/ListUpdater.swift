import TextMeasureSupport
import Dispatch

/// Turns a stream of snapshots, submitted from any thread at any rate, into a calm sequence of batch
/// updates for a view: the latest snapshot wins, at most one delivery per interval, heights measured
/// before each delivery and away from the delivery queue.
///
/// ```swift
/// let list = ListHeights<String, Message>(cache: cache, width: 390)
/// let updater = ListUpdater(list: list, interval: .milliseconds(300), queue: .main) { changes in
///     tableView.performBatchUpdates { /* changes.deletedItems, changes.insertedItems, … */ }
/// }
/// // Anywhere, as often as data arrives:
/// updater.submit(snapshot)
/// ```
///
/// **Coalescing.** Snapshots submitted between two deliveries are not queued: the next delivery goes
/// from the snapshot last delivered (the list's current one; empty for a new list) straight to the
/// latest submitted, never through an intermediate state.
///
/// **Throttling** (leading and trailing, like lodash's `throttle` or swift-async-algorithms'
/// `throttle(for:clock:latest: true)`): a submit after a quiet interval is delivered at once; then
/// deliveries start at least `interval` apart, and the state submitted last is always delivered.
///
/// **Keeping the reader's row in place.** Give the updater the viewport's content offset
/// (``init(list:interval:clock:queue:viewportOffset:deliver:)``): it is read on the delivery queue
/// when a delivery is made, and the delivery gets, with the batch, the content offset that keeps the
/// row at the viewport's top where it is on screen (as ``ListHeights/apply(_:anchor:reconfiguring:)``
/// finds it), however many rows arrived or left above it since the last delivery:
///
/// ```swift
/// let updater = ListUpdater(list: list, queue: .main,
///                           viewportOffset: { MainActor.assumeIsolated { tableView.contentOffset.y } }) {
///     changes, offset in
///     UIView.performWithoutAnimation {
///         tableView.performBatchUpdates { /* changes */ }
///         tableView.contentOffset.y = offset
///     }
/// }
/// ```
///
/// **Where the work happens.** Each delivery diffs and measures (``ListHeights/apply(_:reconfiguring:)``'s
/// expensive half) on a private queue, then, on the delivery queue, updates the list's offsets (O(k log
/// n)) and calls the closure — so the list and the view change together, from the view's point of view.
/// A delivery whose batch is empty (the same snapshot again) does not call the closure.
///
/// **Cancelling.** After ``cancel()`` returns, the closure is never called again: a delivery running on
/// another thread is waited for, and a delivery closure that cancels its own updater returns normally.
///
/// **Time.** Inject a `Clock` (tests use a manual one and never sleep); the convenience initializer
/// uses `ContinuousClock`.
///
/// **Sendable**: mutable state lives in a `Locked`; the closure is `@Sendable`.
public final class ListUpdater<SectionID: Hashable & Sendable, Item: Identifiable & Hashable & Sendable, C: Clock>: Sendable
where Item.ID: Sendable, C.Duration == Duration {
    /// The snapshots submitted to the updater.
    public typealias Snapshot = ListSnapshot<SectionID, Item>

    struct State: Sendable {
        /// The latest snapshot submitted and not yet taken by a delivery.
        var latest: Snapshot?
        /// Items to measure again and report as updated in the next delivery.
        var reconfigured: Set<Item.ID> = []
        /// When the last delivery started.
        var lastStart: C.Instant?
        /// Whether a delivery loop is under way (it ends when nothing is left to deliver).
        var running = false
        var cancelled = false
        var task: Task<Void, Never>?
    }

    /// The list whose snapshot and offsets the deliveries update.
    public let list: ListHeights<SectionID, Item>
    /// The shortest time between the starts of two deliveries.
    public let interval: Duration
    let clock: C
    let deliveryQueue: DispatchQueue
    let workQueue = DispatchQueue(label: "ListUpdater.work")
    let delivery: Delivery

    /// What a delivery hands the view: the batch, or the batch and the content offset that keeps the
    /// viewport's top row in place (with where to read the viewport's offset from).
    enum Delivery: Sendable {
        case changes(@Sendable (ListChanges) -> Void)
        case anchored(viewportOffset: @Sendable () -> Double, deliver: @Sendable (ListChanges, Double) -> Void)
    }
    let state = Locked(State())
    /// Held while a delivery runs, so that `cancel()` can wait for it.
    let gate = RecursiveLock()

    /// An updater for `list`.
    ///
    /// - Parameters:
    ///   - list: The list to update. Change it only through this updater while the updater is in use.
    ///   - interval: The shortest time between the starts of two deliveries; 0.3 s by default.
    ///   - clock: The clock that measures the interval.
    ///   - queue: A serial queue the closure runs on (the main queue for a view); a private serial
    ///     queue by default.
    ///   - deliver: Applies a batch to the view. Each batch goes from the list's previous snapshot to
    ///     its current one, which the list already holds when the closure runs.
    public convenience init(
        list: ListHeights<SectionID, Item>, interval: Duration = .milliseconds(300), clock: C,
        queue: DispatchQueue? = nil, deliver: @escaping @Sendable (_ changes: ListChanges) -> Void
    ) {
        self.init(list: list, interval: interval, clock: clock, queue: queue, delivery: .changes(deliver))
    }

    /// An updater for `list` whose deliveries keep the row at the viewport's top in place.
    ///
    /// - Parameters:
    ///   - list: The list to update. Change it only through this updater while the updater is in use.
    ///   - interval: The shortest time between the starts of two deliveries; 0.3 s by default.
    ///   - clock: The clock that measures the interval.
    ///   - queue: A serial queue the closures run on (the main queue for a view); a private serial
    ///     queue by default.
    ///   - viewportOffset: The content offset of the viewport's top now (the scroll view's
    ///     `contentOffset.y`), called on `queue` just before each delivery, so it sees any scrolling
    ///     since the snapshot was submitted. Must return a finite number.
    ///   - deliver: Applies a batch to the view and sets the content offset to `contentOffset`: where
    ///     the row that was at the viewport's top keeps its place on screen (see
    ///     ``ListHeights/apply(_:anchor:reconfiguring:)``). Not clamped to the content.
    public convenience init(
        list: ListHeights<SectionID, Item>, interval: Duration = .milliseconds(300), clock: C,
        queue: DispatchQueue? = nil, viewportOffset: @escaping @Sendable () -> Double,
        deliver: @escaping @Sendable (_ changes: ListChanges, _ contentOffset: Double) -> Void
    ) {
        self.init(list: list, interval: interval, clock: clock, queue: queue,
                  delivery: .anchored(viewportOffset: viewportOffset, deliver: deliver))
    }

    init(list: ListHeights<SectionID, Item>, interval: Duration, clock: C, queue: DispatchQueue?, delivery: Delivery) {
        precondition(interval >= .zero, "ListUpdater: interval must not be negative")
        self.list = list
        self.interval = interval
        self.clock = clock
        self.deliveryQueue = queue ?? DispatchQueue(label: "ListUpdater.delivery")
        self.delivery = delivery
    }

    /// Hands over the snapshot the list should show. Returns at once; the latest snapshot wins.
    ///
    /// - Parameter snapshot: The new state of the list. Ignored after ``cancel()``.
    /// - Complexity: O(1): one lock.
    public func submit(_ snapshot: Snapshot) {
        var replaced: Snapshot?
        state.withLock { state in
            guard !state.cancelled else { return }
            replaced = state.latest
            state.latest = snapshot
            startIfIdle(&state)
        }
        _ = replaced   // A large snapshot is released here, outside the lock.
    }

    /// Marks items whose contents changed outside the snapshots (an image loaded, a relative date
    /// ticked): the next delivery forgets their cached heights, measures them again, and reports those
    /// in both snapshots in ``ListChanges/updatedItems``, together with whatever else it delivers.
    ///
    /// - Parameter ids: Identifiers of items. Identifiers not in the delivered snapshot are ignored.
    /// - Complexity: O(k) for k identifiers.
    public func reconfigure(_ ids: some Sequence<Item.ID>) {
        state.withLock { state in
            guard !state.cancelled else { return }
            state.reconfigured.formUnion(ids)
            if !state.reconfigured.isEmpty { startIfIdle(&state) }
        }
    }

    /// Stops deliveries. When it returns, the closure is never called again: a delivery running on
    /// another thread is waited for (so do not call this while holding a lock the closure takes).
    /// Calling it from the closure itself is fine.
    public func cancel() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.cancelled = true
            state.latest = nil
            state.reconfigured = []
            return state.task
        }
        task?.cancel()
        gate.withLock {}
    }

    /// Whether no delivery is pending or running (for tests).
    var isIdle: Bool { state.withLock { !$0.running } }

    // MARK: Internals

    private func startIfIdle(_ state: inout State) {
        guard !state.running else { return }
        state.running = true
        state.task = Task.detached { [self] in await run() }
    }

    /// Delivers until nothing is left: waits out the interval since the last delivery, takes the
    /// latest snapshot, prepares it on the work queue, commits and delivers it on the delivery queue.
    private func run() async {
        while true {
            let due = state.withLock { $0.lastStart.map { $0.advanced(by: interval) } }
            if let due, clock.now < due {
                // Cancellation ends the sleep early; the check below then stops the loop.
                try? await clock.sleep(until: due, tolerance: nil)
            }
            let job = state.withLock { state -> (snapshot: Snapshot?, ids: Set<Item.ID>)? in
                guard !state.cancelled, state.latest != nil || !state.reconfigured.isEmpty else {
                    state.running = false
                    state.task = nil
                    return nil
                }
                defer {
                    state.latest = nil
                    state.reconfigured = []
                }
                state.lastStart = clock.now
                return (state.latest, state.reconfigured)
            }
            guard let job else { return }
            let list = self.list
            let prepared = await withCheckedContinuation { continuation in
                workQueue.async {
                    continuation.resume(returning: list.prepare(job.snapshot ?? list.snapshot, reconfiguring: job.ids))
                }
            }
            await withCheckedContinuation { continuation in
                deliveryQueue.async {
                    self.deliver(prepared)
                    continuation.resume()
                }
            }
        }
    }

    private func deliver(_ prepared: ListHeights<SectionID, Item>.Prepared) {
        gate.withLock {
            guard !state.withLock({ $0.cancelled }) else { return }
            switch delivery {
            case .changes(let deliver):
                let changes = list.commit(prepared).changes
                if !changes.isEmpty { deliver(changes) }
            case .anchored(let viewportOffset, let deliver):
                let anchor = viewportOffset()
                precondition(anchor.isFinite, "ListUpdater: the viewport's offset must be finite, got \(anchor)")
                let result = list.commit(prepared, anchor: anchor)
                if !result.changes.isEmpty { deliver(result.changes, result.contentOffset ?? anchor) }
            }
        }
    }
}

extension ListUpdater where C == ContinuousClock {
    /// An updater for `list` that measures its interval with `ContinuousClock` and keeps the row at
    /// the viewport's top in place (see ``init(list:interval:clock:queue:viewportOffset:deliver:)``).
    ///
    /// - Parameters:
    ///   - list: The list to update. Change it only through this updater while the updater is in use.
    ///   - interval: The shortest time between the starts of two deliveries; 0.3 s by default.
    ///   - queue: A serial queue the closures run on; a private serial queue by default.
    ///   - viewportOffset: The content offset of the viewport's top now, read on `queue` at delivery.
    ///   - deliver: Applies a batch to the view and sets the content offset.
    public convenience init(
        list: ListHeights<SectionID, Item>, interval: Duration = .milliseconds(300), queue: DispatchQueue? = nil,
        viewportOffset: @escaping @Sendable () -> Double,
        deliver: @escaping @Sendable (_ changes: ListChanges, _ contentOffset: Double) -> Void
    ) {
        self.init(list: list, interval: interval, clock: ContinuousClock(), queue: queue,
                  viewportOffset: viewportOffset, deliver: deliver)
    }

    /// An updater for `list` that measures its interval with `ContinuousClock`.
    ///
    /// ```swift
    /// let updater = ListUpdater(list: list, interval: .milliseconds(300), queue: .main) { changes in
    ///     tableView.performBatchUpdates { /* … */ }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - list: The list to update. Change it only through this updater while the updater is in use.
    ///   - interval: The shortest time between the starts of two deliveries; 0.3 s by default.
    ///   - queue: A serial queue the closure runs on; a private serial queue by default.
    ///   - deliver: Applies a batch to the view.
    public convenience init(
        list: ListHeights<SectionID, Item>, interval: Duration = .milliseconds(300), queue: DispatchQueue? = nil,
        deliver: @escaping @Sendable (_ changes: ListChanges) -> Void
    ) {
        self.init(list: list, interval: interval, clock: ContinuousClock(), queue: queue, deliver: deliver)
    }
}
