#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to standard output or error without Foundation (which would add its start-up cost, and
/// Foundation's own ICU, to every run of the command).
package enum StandardStream {
    package static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return   // a closed pipe: nothing more can be delivered
                }
                offset += written
            }
        }
    }
}
