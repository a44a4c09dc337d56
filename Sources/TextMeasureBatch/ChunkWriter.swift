import Dispatch

/// Writes the output one chunk behind: while the caller measures a chunk, the output of the one
/// before it is written on another thread (the counterpart of ``ChunkReader``).
///
/// Copying a chunk's blocks together and writing them is serial work (0.15 to 0.45 ms per 4,096
/// multi-width lines, more when a pipe's reader is slow to take them); done between chunks, it left
/// every core but the writing one idle, once per chunk. At most one write is under way at a time, so
/// chunks are written in the order they are given.
///
/// A write that fails is reported by the next ``write(_:)`` or ``finish()`` and by every call after
/// it, and nothing is written after it.
///
/// Thread safety: `write(_:)` and `finish()` are called from one thread at a time. The writing thread
/// uses `buffer` and `failure` only between a write starting and the next call waiting for it.
package final class ChunkWriter: @unchecked Sendable {
    private let output: OutputWriter
    /// The writing thread's copy of a chunk's blocks, kept from chunk to chunk (see
    /// ``OutputWriter/write(_:through:)``).
    private var buffer: [UInt8] = []
    /// Why the last write failed; written by the writing thread before it signals `written`.
    private var failure: IOFailure?
    private let written = DispatchSemaphore(value: 0)
    private var isWriting = false
    /// The thread that writes, on a CPU other than the caller's, started for the first write and kept
    /// (nil if it could not be started: Dispatch's threads write then). A thread of its own: a write
    /// may wait for the output's reader as long as it likes.
    private lazy var thread = WorkerThread(cpu: CPUSpread.cpuElsewhere())

    /// Writes to `output`.
    package init(_ output: OutputWriter) {
        self.output = output
    }

    /// Starts writing `blocks`, one after another, on another thread, once the write before has
    /// finished.
    ///
    /// - Parameter blocks: A chunk's output (see ``BatchProcessor/outputBlocks(_:)``).
    /// - Throws: ``IOFailure`` when a write before failed; `blocks` are not written then.
    /// - Complexity: Waits for the write before, if it has not finished.
    package func write(_ blocks: [[UInt8]]) throws(IOFailure) {
        try finish()
        isWriting = true
        let job: @Sendable () -> Void = { [self] in
            do throws(IOFailure) {
                try output.write(blocks, through: &buffer)
            } catch {
                failure = error
            }
            written.signal()
        }
        WorkerThread.run(job, on: thread)
    }

    /// Waits for the write under way, if any: after this, everything given to ``write(_:)`` is written.
    ///
    /// - Throws: ``IOFailure`` when that write, or one before it, failed.
    /// - Complexity: Waits for the write under way.
    package func finish() throws(IOFailure) {
        if isWriting {
            written.wait()
            isWriting = false
        }
        if let failure { throw failure }
    }
}
