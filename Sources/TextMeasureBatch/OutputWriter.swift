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
        let failure: IOFailure? = text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return IOFailure(operation: "write", code: errno)
                }
                offset += written
            }
            return nil
        }
        if let failure { throw failure }
    }
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
