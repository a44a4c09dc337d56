#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An executable installed beside the running one (`textmeasure-serve`, `textmeasure-store`), which a
/// command hands over to by replacing the process with it.
///
/// The parts that pull in heavy dependencies are executables of their own: the HTTP server (Hummingbird,
/// SwiftNIO) and the height store (GRDB, SQLite, Foundation). `textmeasure` stays small and starts fast,
/// and runs them when a command needs them.
struct SiblingExecutable {
    /// Its file name, e.g. `textmeasure-serve`.
    var name: String
    /// The SwiftPM product that builds it.
    var product: String
    /// What it brings, for the error message (e.g. "the HTTP server").
    var purpose: String

    /// Its path: the running executable's folder and ``name``; nil if `/proc/self/exe` cannot be read.
    var path: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let own = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = own.lastIndex(of: "/") else { return nil }
        return String(own[...slash]) + name
    }

    /// Replaces this process with the executable, given `arguments` after its name. Signals, standard
    /// input and output and the exit status are then the executable's.
    ///
    /// - Throws: `CLIError` naming the path looked at and how to build the executable, when it is not
    ///   there or cannot be run. Never returns otherwise.
    func exec(arguments: [String]) throws -> Never {
        guard let path, access(path, X_OK) == 0 else {
            throw CLIError(message: """
                \(purpose) is in \(name), which is not installed beside this executable (looked for \
                \(path ?? name)); build it with `swift build -c release --product \(product)` (or run it \
                with `swift run -c release \(product)`)
                """)
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        // Only reached when exec failed.
        throw CLIError(message: "cannot run \(path): \(String(cString: strerror(errno)))")
    }
}
