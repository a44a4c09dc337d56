import Dispatch
import TextMeasure

/// Writes rows to the store on a thread of its own, in one transaction per batch of whatever has
/// queued up meanwhile, so that callers never wait for the disk.
///
/// The queue is bounded: at most ``capacity`` `enqueue` calls may be waiting to be written; the next
/// caller blocks until the writer has taken some (back-pressure, not unbounded memory).
///
/// Thread safety: `enqueue` and `flush` may be called from any thread. The pending rows live behind a
/// lock; the writing happens on one serial Dispatch queue.
final class StoreWriter: Sendable {
    /// One row to write.
    struct Row: Sendable {
        var key: [UInt8]
        var measurement: StoredMeasurement
    }

    private struct State: Sendable {
        var pending: [[Row]] = []
        var draining = false
    }

    /// The most `enqueue` calls queued and not yet taken by the writer.
    let capacity: Int
    private let state = Locked(State())
    private let slots: DispatchSemaphore
    private let queue = DispatchQueue(label: "textmeasure.height-store.writer")
    /// Writes one batch in one transaction; returns whether it was written.
    private let write: @Sendable ([Row]) -> Void

    /// A writer calling `write` with each batch, on its own queue.
    init(capacity: Int = 256, write: @escaping @Sendable ([Row]) -> Void) {
        self.capacity = max(1, capacity)
        slots = DispatchSemaphore(value: self.capacity)
        self.write = write
    }

    /// Queues `rows`; returns at once unless ``capacity`` calls are already queued.
    ///
    /// - Complexity: O(1) amortized.
    func enqueue(_ rows: [Row]) {
        guard !rows.isEmpty else { return }
        slots.wait()
        let start = state.withLock { state -> Bool in
            state.pending.append(rows)
            defer { state.draining = true }
            return !state.draining
        }
        if start { queue.async { self.drain() } }
    }

    /// Waits until every row queued before this call is written (or dropped).
    func flush() {
        queue.sync {}
    }

    /// Rows worth a transaction of their own; fewer are given ``gatherDelay`` to be joined by more.
    private static let fullTransaction = 2_048
    /// How long a small batch waits for more rows (a transaction per handful of rows costs more in
    /// page writes than the rows themselves).
    private static let gatherDelay = DispatchTimeInterval.milliseconds(20)

    private func drain() {
        while true {
            let queued = state.withLock { $0.pending.reduce(0) { $0 + $1.count } }
            if queued > 0 && queued < Self.fullTransaction {
                // Block on a semaphore nobody signals: a sleep that Dispatch and TSan both understand.
                _ = DispatchSemaphore(value: 0).wait(timeout: .now() + Self.gatherDelay)
            }
            let batches = state.withLock { state -> [[Row]] in
                let taken = state.pending
                state.pending = []
                if taken.isEmpty { state.draining = false }
                return taken
            }
            if batches.isEmpty { return }
            for _ in batches { slots.signal() }
            write(batches.flatMap { $0 })
        }
    }
}
