import Dispatch

/// Reads the input one chunk ahead: while the caller measures a chunk, the next one is read on another
/// thread.
///
/// Reading and splitting lines is serial work (about 0.6 ms per 4,096 multi-width lines); read between
/// chunks, it left every core but the reading one idle, once per chunk. Read ahead, it overlaps the
/// measuring, and the workers' shared block counter lets the core that also reads take fewer blocks.
/// At most two chunks are held at once: the one being measured and the one read ahead.
///
/// Thread safety: `next(readingAhead:)` and ``readAhead()`` are called from one thread at a time. The
/// reading thread uses the ``LineReader`` only between a read starting and the next
/// `next(readingAhead:)` waiting for it, and keeps the reader alive meanwhile (a caller that stops
/// early, on a write failure, never waits for a read that may block on its input).
package final class ChunkReader: @unchecked Sendable {
    private var reader: LineReader
    private let maxLines: Int
    /// The most lines of the next chunk read: `firstLines` for the first, then `maxLines`.
    private var nextLines: Int
    private let maxBytes: Int
    /// The chunk read ahead; written by the reading thread before it signals `ready`.
    private var ahead: Result<Lines?, IOFailure>?
    private let ready = DispatchSemaphore(value: 0)
    private var isReading = false
    /// Whether the input may hold another chunk: true until a read returns nil or fails.
    private var hasMore = true
    /// The thread that reads ahead, on a CPU other than the caller's, started for the first read ahead
    /// and kept (nil if it could not be started: Dispatch's threads read then). A thread of its own: a
    /// read may wait for its input as long as the input's writer likes.
    private lazy var thread = WorkerThread(cpu: CPUSpread.cpuElsewhere())

    /// Chunks of at most `maxLines` lines and `maxBytes` bytes (see ``LineReader/next(maxLines:maxBytes:)``).
    ///
    /// - Parameters:
    ///   - reader: Where the lines come from.
    ///   - maxLines: The most lines in a chunk.
    ///   - maxBytes: No line of a chunk starts after this many bytes of it (a longer line is still
    ///     returned whole).
    ///   - firstLines: The most lines in the first chunk, if fewer (a caller that waits for other work
    ///     before measuring the first chunk reads less of it first; the next chunk is read ahead).
    package init(_ reader: LineReader, maxLines: Int, maxBytes: Int, firstLines: Int = .max) {
        self.reader = reader
        self.maxLines = maxLines
        nextLines = min(maxLines, max(1, firstLines))
        self.maxBytes = maxBytes
    }

    /// The next chunk, or nil at the end of the input; unless `readingAhead` is false, the chunk after
    /// it is then read on another thread (see ``readAhead()``).
    ///
    /// - Parameter readingAhead: Whether to start reading the next chunk now. A caller that first has
    ///   other work for the other cores (the batch's first chunk waits for the fonts, which load on
    ///   the CPU a read would take) passes false and calls ``readAhead()`` when that work is done.
    /// - Throws: ``IOFailure`` as ``LineReader/next(maxLines:maxBytes:)`` throws it, once every line
    ///   before the failure has been returned.
    /// - Complexity: Waits for the read started before, if it has not finished; reads the chunk on
    ///   this thread if none was started.
    package func next(readingAhead: Bool = true) throws(IOFailure) -> Lines? {
        let chunk: Result<Lines?, IOFailure>
        if isReading {
            ready.wait()
            isReading = false
            chunk = ahead!
            ahead = nil
        } else {
            chunk = read()
        }
        // After the end of the input or a failure, nothing more is read.
        hasMore = if case .success(.some) = chunk { true } else { false }
        if readingAhead { readAhead() }
        return try chunk.get()
    }

    /// Starts reading the next chunk on another thread, for the next call of ``next(readingAhead:)``;
    /// does nothing when a read is already under way or the input has ended.
    package func readAhead() {
        guard hasMore, !isReading else { return }
        isReading = true
        let job: @Sendable () -> Void = { [self] in
            ahead = read()
            ready.signal()
        }
        WorkerThread.run(job, on: thread)
    }

    private func read() -> Result<Lines?, IOFailure> {
        defer { nextLines = maxLines }
        return Result { () throws(IOFailure) -> Lines? in try reader.next(maxLines: nextLines, maxBytes: maxBytes) }
    }
}
