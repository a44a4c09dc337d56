import Foundation

/// Runs a program to completion, feeding its standard input and collecting both outputs; shared by
/// the test targets (the Pango harness, the `textmeasure` executable).
public enum ProcessRunner {
    public struct Outcome: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String

        /// Standard output split into lines (the last, empty piece after a final newline dropped).
        public var lines: [String] {
            stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
    }

    /// Runs `executable` with `arguments`, writing `input` to its standard input. Input and both
    /// outputs are pumped on separate threads so that no pipe fills up and blocks the child.
    public static func run(_ executable: URL, _ arguments: [String], input: String = "",
                           directory: URL? = nil) throws -> Outcome {
        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = .pipe(stdin)
        process.standardOutput = .pipe(stdout)
        process.standardError = .pipe(stderr)
        try process.run()
        _ = brokenPipesIgnored
        let writer = Thread {
            // A child may exit before it reads all its input (or be stopped by a sanitizer): the write
            // then fails with EPIPE, which the outcome's status explains, instead of killing the tests.
            try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let errors = DataBox()
        let reader = Thread { errors.set(stderr.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
                       stderr: String(decoding: errors.wait(), as: UTF8.self))
    }

    /// SIGPIPE ignored in this process, once: a write to a child that has gone returns EPIPE.
    private static let brokenPipesIgnored: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()

    /// Runs a shell command line.
    public static func shell(_ command: String, input: String = "") throws -> Outcome {
        try run(URL(fileURLWithPath: "/bin/sh"), ["-c", command], input: input)
    }

    /// The port `textmeasure serve --port 0` says it listens on, from the first line of its standard
    /// output ("textmeasure-serve: listening on http://127.0.0.1:PORT"; the line naming the web demo
    /// may follow in the same read). Blocks until that line or the end of the output.
    ///
    /// - Parameter output: The server's standard output.
    /// - Returns: The port, or nil, and the first line as read.
    public static func listeningPort(_ output: Pipe) -> (port: Int?, line: String) {
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data += chunk
        }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        return (line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }, line)
    }
}

/// The package's root folder: two levels above the test target folder holding the calling file
/// (`Tests/<Target>/<File>.swift`).
public func packageRoot(calledFrom file: String = #filePath) -> String {
    var url = URL(fileURLWithPath: file)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}

/// Data handed from a reader thread to the waiting test.
private final class DataBox: @unchecked Sendable {
    // @unchecked: `data` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var data: Data?

    func set(_ value: Data) {
        condition.lock()
        data = value
        condition.signal()
        condition.unlock()
    }

    func wait() -> Data {
        condition.lock()
        defer { condition.unlock() }
        while data == nil { condition.wait() }
        return data!
    }
}
