#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes text to a file descriptor without Foundation (which would add its start-up cost, and
/// Foundation's own ICU, to every run of the command), and says when it could not.
///
/// A batch whose output cannot be written (a full disk, a closed descriptor, a reader that went
/// away) must not end as if it had succeeded: ``write(_:)`` throws, and the command exits non-zero
/// with the reason.
package struct OutputWriter {
    package let descriptor: Int32

    /// Standard output.
    package static let standardOutput = OutputWriter(descriptor: STDOUT_FILENO)
    /// Standard error.
    package static let standardError = OutputWriter(descriptor: STDERR_FILENO)

    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Writes all of `text`, retrying after interruptions and short writes.
    ///
    /// - Throws: ``IOFailure`` with the system's reason when the descriptor refuses the bytes.
    package func write(_ text: String) throws(IOFailure) {
        var text = text
        if let failure = text.withUTF8({ writeAll(UnsafeRawBufferPointer($0)) }) { throw failure }
    }

    /// Writes all of `blocks`, one after another, in one system call where the descriptor takes them
    /// whole: they are first copied into `buffer`, which keeps its memory from one call to the next (a
    /// copy into memory already touched costs a fraction of the system calls or page faults it saves).
    ///
    /// - Parameters:
    ///   - blocks: The bytes to write, in order; empty blocks are allowed.
    ///   - buffer: Scratch memory owned by the caller; its contents are replaced.
    /// - Throws: ``IOFailure`` with the system's reason when the descriptor refuses the bytes.
    /// - Complexity: Linear in the bytes.
    package func write(_ blocks: [[UInt8]], through buffer: inout [UInt8]) throws(IOFailure) {
        buffer.removeAll(keepingCapacity: true)
        for block in blocks { buffer.append(contentsOf: block) }
        if let failure = buffer.withUnsafeBytes({ writeAll($0) }) { throw failure }
    }

    /// Writes all of `bytes`, retrying after interruptions and short writes; the failure, if any.
    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> IOFailure? {
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return IOFailure(operation: "write", code: errno)
            }
            offset += written
        }
        return nil
    }
}

/// `write(2)`, under a name that ``OutputWriter``'s own `write` methods do not hide.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}

/// A read or write that the system refused, with its reason (`strerror`).
package struct IOFailure: Error, CustomStringConvertible {
    /// "read" or "write".
    package var operation: String
    /// The `errno` value.
    package var code: Int32

    package init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    package var description: String {
        "cannot \(operation) \(operation == "read" ? "standard input" : "standard output"): \(String(cString: strerror(code)))"
    }
}
