import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `textmeasure serve`: runs the `textmeasure-serve` executable found beside this one, with the same
/// arguments.
///
/// The HTTP server is a product of its own (`swift build -c release --product textmeasure-serve`)
/// so that building `textmeasure` never builds Hummingbird and SwiftNIO; this command only hands
/// over to it (the process is replaced: signals and the exit status are the server's).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Measure over HTTP (runs textmeasure-serve; `textmeasure serve --help` lists its options).",
        discussion: """
            Options: --host (127.0.0.1), --port (8080), --font, --size, --max-lines, --line-height, \
            --line-height-multiple, --cached-texts, --cached-megabytes, --store, --max-body-bytes, --max-items, \
            --max-text-bytes. Build the server with `swift build -c release --product textmeasure-serve`.
            """)

    @Argument(parsing: .captureForPassthrough, help: "Options for textmeasure-serve.")
    var arguments: [String] = []

    /// The server's executable: beside this one.
    static func serverPath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let own = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = own.lastIndex(of: "/") else { return nil }
        return String(own[...slash]) + "textmeasure-serve"
    }

    func run() throws {
        guard let path = Self.serverPath(), access(path, X_OK) == 0 else {
            throw CLIError(message: """
                textmeasure-serve is not installed beside textmeasure (looked for \(Self.serverPath() ?? "it")); \
                build it with `swift build -c release --product textmeasure-serve` (or run it with \
                `swift run -c release textmeasure-serve`)
                """)
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        // Only reached when exec failed.
        throw CLIError(message: "cannot run \(path): \(String(cString: strerror(errno)))")
    }
}
