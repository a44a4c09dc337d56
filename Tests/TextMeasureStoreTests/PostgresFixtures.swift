import Foundation
import Testing
import TestSupport
import TextMeasure
import TextMeasureSupport

/// Processes for the PostgreSQL store's tests: `batch` with input fed piece by piece, `serve`
/// instances and a minimal HTTP client for them.
enum PostgresFixtures {
    /// The shared server, or the test fails saying why it could not start.
    static func server() throws -> PostgresServer {
        try PostgresServer.shared.get()
    }

    /// The warning lines of a run's standard error.
    static func warnings(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { $0.contains("warning") }
    }

    /// Batch lines of `count` texts numbered from `first` (distinct from any other numbers'), at 320 px.
    static func lines(_ count: Int, from first: Int = 0, tag: String = "") -> String {
        StoreFixtures.texts(first + count).dropFirst(first).enumerated().map { index, text in
            let escaped = (tag + text).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\t", with: "\\t").replacingOccurrences(of: "\r", with: "\\r")
            return "{\"text\":\"\(escaped)\",\"width\":320,\"id\":\(first + index)}\n"
        }.joined()
    }

    /// The number after `label` in a `--stats` line ("height store: 12 hits, 3 misses, 3 written").
    static func count(_ label: String, in stderr: String) -> Int? {
        guard let line = stderr.split(separator: "\n").first(where: { $0.hasPrefix("height store:") }) else { return nil }
        let words = line.split(separator: " ")
        guard let at = words.firstIndex(where: { $0.hasPrefix(label) }), at > words.startIndex else { return nil }
        return Int(words[words.index(before: at)])
    }

    /// Waits until `condition` holds, checking every 50 ms for at most `seconds`.
    static func eventually(within seconds: Double = 15, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }

    /// A `textmeasure batch` whose input the test writes piece by piece, reading its output as it comes.
    final class FedBatch: @unchecked Sendable {
        // @unchecked: `output` and `errors` are only touched under `lock`.
        private let process = ChildProcess()
        private let input = Pipe()
        private let lock = NSCondition()
        private var output = Data()
        private var errors = Data()
        private var readers: [Thread] = []

        init(_ arguments: [String]) throws {
            process.executableURL = StoreFixtures.executable
            process.arguments = arguments
            let stdout = Pipe(), stderr = Pipe()
            process.standardInput = .pipe(input)
            process.standardOutput = .pipe(stdout)
            process.standardError = .pipe(stderr)
            try process.run()
            for (pipe, isOutput) in [(stdout, true), (stderr, false)] {
                let thread = Thread { [self] in
                    while true {
                        let chunk = pipe.fileHandleForReading.availableData
                        lock.lock()
                        if isOutput { output += chunk } else { errors += chunk }
                        lock.broadcast()
                        lock.unlock()
                        if chunk.isEmpty { return }
                    }
                }
                thread.start()
                readers.append(thread)
            }
        }

        /// Writes `text` to the batch's input.
        func feed(_ text: String) throws {
            try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        }

        /// Waits until the batch has written at least `lines` lines (at most `seconds`); returns whether it did.
        @discardableResult
        func waitForOutput(lines: Int, seconds: Double = 60) -> Bool {
            let deadline = Date(timeIntervalSinceNow: seconds)
            lock.lock()
            defer { lock.unlock() }
            while output.reduce(0, { $0 + ($1 == 10 ? 1 : 0) }) < lines {
                if !lock.wait(until: deadline) { return false }
            }
            return true
        }

        /// Closes the input and waits for the batch to exit; returns its status, output and errors.
        func finish() throws -> (status: Int32, stdout: String, stderr: String) {
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
            lock.lock()
            defer { lock.unlock() }
            // Both pipes reach their end after the process exits.
            while readers.contains(where: { !$0.isFinished }) { _ = lock.wait(until: Date(timeIntervalSinceNow: 0.05)) }
            return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
        }
    }

    /// A `textmeasure serve --port 0` process.
    final class Serve: @unchecked Sendable {
        // @unchecked: set once in `init`, then only read.
        let process = ChildProcess()
        let port: Int
        private let errors = Pipe()

        init(_ arguments: [String]) throws {
            process.executableURL = StoreFixtures.executable
            process.arguments = ["serve", "--port", "0"] + arguments
            let output = Pipe()
            process.standardOutput = .pipe(output)
            process.standardError = .pipe(errors)
            try process.run()
            let (port, line) = ProcessRunner.listeningPort(output)
            guard let port else {
                process.terminate()
                throw PostgresServer.Failure("serve did not start: \(line)")
            }
            self.port = port
        }

        /// Stops the server (SIGTERM: it writes what it measured first); returns its standard error.
        func stop() -> String {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            return String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }

        /// POSTs `body` to /v1/measure; returns the response body.
        func measure(_ body: String) throws -> String {
            try request("POST", "/v1/measure", body: body)
        }

        /// The value of a metric without labels in /metrics.
        func metric(_ name: String) throws -> Double? {
            try request("GET", "/metrics").split(separator: "\n").first { $0.hasPrefix(name + " ") }
                .flatMap { Double($0.split(separator: " ").last ?? "") }
        }

        /// One HTTP/1.1 request on a connection of its own; the response body.
        func request(_ method: String, _ path: String, body: String = "") throws -> String {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { throw PostgresServer.Failure("socket: \(errno)") }
            defer { close(socket) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else { throw PostgresServer.Failure("connect: \(errno)") }
            let bytes = Array(body.utf8)
            let head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
            let request = Array(head.utf8) + bytes
            var sent = 0
            while sent < request.count {
                let n = request[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { throw PostgresServer.Failure("send: \(errno)") }
                sent += n
            }
            var response: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                response += buffer[0..<n]
            }
            let text = String(decoding: response, as: UTF8.self)
            guard let split = text.range(of: "\r\n\r\n") else { throw PostgresServer.Failure("no response: \(text)") }
            return String(text[split.upperBound...])
        }
    }
}
