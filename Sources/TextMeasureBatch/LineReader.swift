#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads lines from a file descriptor in 64 KiB blocks, many at a time, without decoding them (the
/// cores that process the lines do that). Lines end as `readLine` ends them: "\n" or "\r\n"; a last
/// line without one still counts.
package struct LineReader {
    private let descriptor: Int32
    /// Bytes read but not yet handed out (the start of an unfinished line).
    private var pending: [UInt8] = []
    /// Where each read lands before it is appended.
    private var block = [UInt8](repeating: 0, count: 1 << 16)
    private var atEnd = false
    /// Why reading stopped early, reported once the lines read before it have been handed out.
    private var failure: IOFailure?

    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next lines, at most `maxLines` of them (fewer at the end of the input), or nil at its end.
    ///
    /// - Parameters:
    ///   - maxLines: The most lines returned.
    ///   - maxBytes: No line starts after this many bytes of lines have been returned (so a chunk of
    ///     long lines does not hold the whole input in memory); a longer line is still returned whole.
    /// - Throws: ``IOFailure`` when the descriptor cannot be read (a directory, say), once every line
    ///   read before the failure has been returned.
    package mutating func next(maxLines: Int, maxBytes: Int = .max) throws(IOFailure) -> Lines? {
        var bytes = pending
        pending = []
        var ranges: [Range<Int>] = []
        var start = 0, scanned = 0
        while ranges.count < maxLines && start < maxBytes {
            if let newline = Self.newline(in: bytes, from: scanned) {
                var end = newline
                if end > start && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                ranges.append(start..<end)
                start = newline + 1
                scanned = start
            } else if atEnd {
                if start < bytes.count { ranges.append(start..<bytes.count) }
                start = bytes.count
                break
            } else {
                scanned = bytes.count
                fill(&bytes)
            }
        }
        pending = Array(bytes[start...])
        bytes.removeSubrange(start...)
        if ranges.isEmpty, let failure {
            self.failure = nil
            throw failure
        }
        return ranges.isEmpty ? nil : Lines(bytes: bytes, ranges: ranges)
    }

    /// The index of the first "\n" at or after `start` (`memchr`: vectorized, unlike a loop over bytes).
    private static func newline(in bytes: [UInt8], from start: Int) -> Int? {
        bytes.withUnsafeBytes { raw -> Int? in
            guard start < raw.count, let base = raw.baseAddress,
                  let found = memchr(base + start, 0x0A, raw.count - start) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    /// Appends the next block read; at the end of the input, or on a failure, sets `atEnd`.
    private mutating func fill(_ bytes: inout [UInt8]) {
        // From a file, room for the rest of it (up to 16 MiB) at once; from a pipe, room that doubles.
        // Growing by small steps would copy the input several times over, into fresh memory each time.
        let spare = bytes.capacity - bytes.count
        var info = stat()
        let position = lseek(descriptor, 0, SEEK_CUR)
        if fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && position >= 0 {
            let needed = min(max(Int(info.st_size) - Int(position), 0) + 1, 1 << 24)
            if spare < needed { bytes.reserveCapacity(bytes.count + needed) }
        } else if spare < 1 << 16 {
            bytes.reserveCapacity(max(2 * bytes.capacity, bytes.count + (1 << 16)))
        }
        let (count, code) = block.withUnsafeMutableBytes { raw -> (Int, Int32) in
            while true {
                let count = read(descriptor, raw.baseAddress!, raw.count)
                if count < 0 && errno == EINTR { continue }
                return (count, count < 0 ? errno : 0)
            }
        }
        if count > 0 {
            bytes.append(contentsOf: block[..<count])
        } else {
            atEnd = true
            if count < 0 { failure = IOFailure(operation: "read", code: code) }
        }
    }
}
