import Foundation
import TextMeasure

/// Writes rows to the store on a thread of its own, in one transaction per batch of whatever has
/// queued up meanwhile, so that callers never wait for the disk.
///
/// The queue is bounded: at most ``capacity`` `enqueue` calls may be waiting to be written; the next
/// caller blocks until the writer has taken some (back-pressure, not unbounded memory).
///
/// The writer is a thread, not a Dispatch queue: callers block (in `flush`, or on a full queue) from
/// inside `DispatchQueue.concurrentPerform` workers, and a writer waiting for a Dispatch worker of
/// its own could then wait for ever on a machine with few cores.
///
/// Thread safety: `enqueue`, `flush` and `close` may be called from any thread. Everything shared
/// lives behind one `NSCondition`; `write` runs on the writer thread only.
final class StoreWriter: @unchecked Sendable {
    /// One row to write.
    struct Row: Sendable {
        var key: [UInt8]
        var measurement: StoredMeasurement
    }

    /// The most `enqueue` calls queued and not yet taken by the writer.
    let capacity: Int
    /// Writes one batch in one transaction.
    private let write: @Sendable ([Row]) -> Void

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var pending: [Row] = []
    /// `enqueue` calls waiting in `pending`.
    private var pendingCalls = 0
    /// `enqueue` calls accepted, and of those, written (or dropped) so far: `flush` waits for the first
    /// count it saw to be reached by the second.
    private var accepted: UInt64 = 0
    private var completed: UInt64 = 0
    /// `flush` calls waiting: the writer then does not wait for more rows to gather.
    private var flushing = 0
    private var isClosed = false
    private var isThreadRunning = false

    /// A writer calling `write` with each batch, on a thread of its own (started by the first rows).
    init(capacity: Int = 256, write: @escaping @Sendable ([Row]) -> Void) {
        self.capacity = max(1, capacity)
        self.write = write
    }

    /// Queues `rows`; returns at once unless ``capacity`` calls are already queued. Rows queued after
    /// ``close()`` are dropped.
    ///
    /// - Complexity: O(*n*) in the rows, amortized.
    func enqueue(_ rows: [Row]) {
        guard !rows.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        while pendingCalls >= capacity && !isClosed { condition.wait() }
        guard !isClosed else { return }
        pending.append(contentsOf: rows)
        pendingCalls += 1
        accepted += 1
        if !isThreadRunning {
            isThreadRunning = true
            let thread = Thread { [self] in run() }
            thread.name = "textmeasure.height-store.writer"
            thread.start()
        }
        condition.broadcast()
    }

    /// Waits until every row queued before this call is written (or dropped).
    func flush() {
        condition.lock()
        defer { condition.unlock() }
        let target = accepted
        flushing += 1
        condition.broadcast()
        while completed < target { condition.wait() }
        flushing -= 1
    }

    /// Writes what is queued, then stops the thread; later rows are dropped.
    func close() {
        flush()
        condition.lock()
        isClosed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Rows worth a transaction of their own; fewer are given ``gatherDelay`` to be joined by more.
    private static let fullTransaction = 2_048
    /// How long a small batch waits for more rows (a transaction per handful of rows costs more in
    /// page writes than the rows themselves).
    private static let gatherDelay: TimeInterval = 0.02

    private func run() {
        condition.lock()
        while true {
            while pending.isEmpty && !isClosed { condition.wait() }
            if pending.isEmpty {   // closed and drained
                isThreadRunning = false
                condition.unlock()
                return
            }
            let deadline = Date(timeIntervalSinceNow: Self.gatherDelay)
            while pending.count < Self.fullTransaction && flushing == 0 && !isClosed
                    && pendingCalls < capacity {
                if !condition.wait(until: deadline) { break }
            }
            let rows = pending
            let upTo = accepted
            pending = []
            pendingCalls = 0
            condition.broadcast()   // room for blocked `enqueue` calls
            condition.unlock()
            write(rows)
            condition.lock()
            completed = upTo
            condition.broadcast()   // `flush` calls waiting for these rows
        }
    }
}
