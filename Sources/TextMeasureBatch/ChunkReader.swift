import Dispatch

/// Reads the input one chunk ahead: while the caller measures a chunk, the next one is read on another
/// thread.
///
/// Reading and splitting lines is serial work (about 0.6 ms per 4,096 multi-width lines); read between
/// chunks, it left every core but the reading one idle, once per chunk. Read ahead, it overlaps the
/// measuring, and the workers' shared block counter lets the core that also reads take fewer blocks.
/// At most two chunks are held at once: the one being measured and the one read ahead.
///
/// Thread safety: `next()` is called from one thread at a time. The reading thread uses the
/// ``LineReader`` only between `next()` starting a read and the next `next()` waiting for it, and keeps
/// the reader alive meanwhile (a caller that stops early, on a write failure, never waits for a read
/// that may block on its input).
package final class ChunkReader: @unchecked Sendable {
    private var reader: LineReader
    private let maxLines: Int
    private let maxBytes: Int
    /// The chunk read ahead; written by the reading thread before it signals `ready`.
    private var ahead: Result<Lines?, IOFailure>?
    private let ready = DispatchSemaphore(value: 0)
    private var isReading = false

    /// Chunks of at most `maxLines` lines and `maxBytes` bytes (see ``LineReader/next(maxLines:maxBytes:)``).
    package init(_ reader: LineReader, maxLines: Int, maxBytes: Int) {
        self.reader = reader
        self.maxLines = maxLines
        self.maxBytes = maxBytes
    }

    /// The next chunk, or nil at the end of the input; a chunk is followed by reading the next one on
    /// another thread.
    ///
    /// - Throws: ``IOFailure`` as ``LineReader/next(maxLines:maxBytes:)`` throws it, once every line
    ///   before the failure has been returned.
    /// - Complexity: Waits for the read started by the previous call, if it has not finished.
    package func next() throws(IOFailure) -> Lines? {
        let chunk: Result<Lines?, IOFailure>
        if isReading {
            ready.wait()
            isReading = false
            chunk = ahead!
            ahead = nil
        } else {
            chunk = read()
        }
        if case .success(.some) = chunk { readAhead() }
        return try chunk.get()
    }

    private func read() -> Result<Lines?, IOFailure> {
        Result { () throws(IOFailure) -> Lines? in try reader.next(maxLines: maxLines, maxBytes: maxBytes) }
    }

    private func readAhead() {
        isReading = true
        CPUSpread.runElsewhere { [self] in
            ahead = read()
            ready.signal()
        }
    }
}
