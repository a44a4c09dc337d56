import Dispatch
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import TestSupport
import TextMeasureHTTP
import UnixSignals

/// ``BoundedShutdown`` with services that do or do not heed graceful shutdown, signals fed by the test.
@Suite("bounded shutdown", .timeLimit(.minutes(5)))   // a signal not heeded would wait out an hour
struct BoundedShutdownTests {
    /// What a ``TestService`` went through.
    final class Log: Sendable {
        private let events = Mutex<[String]>([])
        let (stream, continuation) = AsyncStream<String>.makeStream()

        func record(_ event: String) {
            events.withLock { $0.append(event) }
            continuation.yield(event)
        }

        var recorded: [String] { events.withLock { $0 } }

        /// Waits until `event` is recorded (an event, not a length of time).
        func waitFor(_ event: String) async {
            for await next in stream where next == event { return }
        }
    }

    /// Runs until graceful shutdown (when it heeds it) or cancellation.
    struct TestService: Service {
        let heedsGracefulShutdown: Bool
        let log: Log

        func run() async throws {
            log.record("started")
            await withGracefulShutdownHandler {
                if heedsGracefulShutdown {
                    try? await gracefulShutdown()
                } else {
                    try? await Task.sleep(for: .seconds(3_600))
                }
            } onGracefulShutdown: {
                log.record("graceful shutdown")
            }
            log.record(Task.isCancelled ? "cancelled" : "returned")
        }
    }

    static var logger: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .error
        return logger
    }

    /// Runs a ``TestService`` under a ``BoundedShutdown`` of `gracePeriod`, sending each signal once
    /// the service has recorded the event paired with it, and returns what the service went through.
    static func shutdown(gracePeriod: Duration, heedsGracefulShutdown: Bool,
                         sending signals: [(signal: UnixSignal, after: String)]) async throws -> [String] {
        let log = Log()
        let (stream, sender) = AsyncStream<UnixSignal>.makeStream()
        async let run: Void = BoundedShutdown(gracePeriod: gracePeriod)
            .run(TestService(heedsGracefulShutdown: heedsGracefulShutdown, log: log), signals: stream, logger: logger)
        for (signal, event) in signals {
            await log.waitFor(event)
            sender.yield(signal)
        }
        try await run
        return log.recorded
    }

    @Test func theFirstSignalShutsDownGracefully() async throws {
        let recorded = try await Self.shutdown(gracePeriod: .seconds(3_600), heedsGracefulShutdown: true,
                                               sending: [(.sigterm, after: "started")])
        #expect(recorded == ["started", "graceful shutdown", "returned"])
    }

    /// A service still running when the grace period ends is cancelled.
    @Test func theEndOfTheGracePeriodCancels() async throws {
        let recorded = try await Self.shutdown(gracePeriod: .milliseconds(100), heedsGracefulShutdown: false,
                                               sending: [(.sigint, after: "started")])
        #expect(recorded == ["started", "graceful shutdown", "cancelled"])
    }

    /// A second signal cancels at once, however long the grace period.
    @Test func aSecondSignalCancels() async throws {
        let recorded = try await Self.shutdown(gracePeriod: .seconds(3_600), heedsGracefulShutdown: false,
                                               sending: [(.sigterm, after: "started"), (.sigterm, after: "graceful shutdown")])
        #expect(recorded == ["started", "graceful shutdown", "cancelled"])
    }

    /// A service that fails ends the run with its error, before any signal.
    @Test func aServiceThatFailsEndsTheRun() async throws {
        struct Failure: Error {}
        struct Failing: Service { func run() async throws { throw Failure() } }
        let (signals, _) = AsyncStream<UnixSignal>.makeStream()
        await #expect(throws: Failure.self) {
            try await BoundedShutdown(gracePeriod: .seconds(3_600)).run(Failing(), signals: signals, logger: Self.logger)
        }
    }
}

/// `textmeasure-serve` stopped by SIGTERM with clients that do not read their answers: it exits within
/// `--shutdown-timeout` and a margin, with every row measured in its store file; a client that reads
/// gets its whole answer; a second SIGTERM cuts the grace period short.
@Suite("textmeasure serve shutdown", .serialized, .timeLimit(.minutes(10)))
struct ServeShutdownTests {
    /// The built executables sit beside the test bundle.
    static let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    /// The longest a stop may take, from SIGTERM to the exit, in these tests: the grace period (five
    /// seconds at most) and a generous margin for a busy machine and the thread sanitizer. Without a bound
    /// on the grace period, a client that does not read holds the server until its idle timeout
    /// (120 s here).
    static let stopLimit = 30.0

    /// A running `textmeasure-serve`, its port and its standard error.
    struct Server {
        var process: ChildProcess
        var port: Int
        var errors: Pipe
    }

    /// Starts `textmeasure-serve --port 0 arguments…`.
    static func start(_ arguments: [String]) async throws -> Server {
        let process = ChildProcess()
        process.executableURL = products.appendingPathComponent("textmeasure-serve")
        process.arguments = ["--port", "0", "--no-demo"] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = .pipe(output)
        process.standardError = .pipe(errors)
        try process.run()
        let (port, _) = await HTTPTestClient.offPool { ProcessRunner.listeningPort(output) }
        guard let port else {
            process.terminate()
            throw HTTPTestClient.Failure(description: "no port")
        }
        return Server(process: process, port: port, errors: errors)
    }

    /// Sends `signal` to `process`; returns when it was sent.
    static func send(_ signal: Int32, to process: ChildProcess) -> DispatchTime {
        let now = DispatchTime.now()
        kill(process.processIdentifier, signal)
        return now
    }

    /// Waits for `process` to exit, until `limit` seconds after `start` (killing it then).
    ///
    /// - Returns: its exit status and the seconds from `start` to its exit, or nil if it had to be killed.
    static func exit(of process: ChildProcess, since start: DispatchTime, within limit: Double) async
        -> (status: Int32, seconds: Double)? {
        await HTTPTestClient.offPool {
            func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 }
            while process.isRunning {
                if elapsed() > limit {
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    return nil
                }
                usleep(20_000)
            }
            process.waitUntilExit()
            return (process.terminationStatus, elapsed())
        }
    }

    /// The value of the metric `name` (a line `name value`) in the server's `/metrics`.
    static func metric(_ name: String, port: Int) async throws -> Double? {
        let reply = try await HTTPTestClient.request(port: port, "GET", "/metrics")
        let line = reply.body.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ")[1]) }
    }

    /// Asks for `/metrics` until `condition` holds for the value of `name` (or the test's time limit).
    static func waitForMetric(_ name: String, port: Int, _ condition: (Double) -> Bool) async throws {
        while true {
            if let value = try await metric(name, port: port), condition(value) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits until the server's listening socket refuses connections: its shutdown has begun.
    static func waitUntilRefused(port: Int) async throws {
        while (try? HTTPTestClient(port: port)) != nil {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The rows in the store file at `path`, read from a copy of the file alone (as
    /// `sigtermLeavesEveryRowInTheStoreFile` does): the write-ahead log must have been folded in.
    static func storedRows(_ path: String) throws -> Int? {
        let copy = path + ".copy"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let stats = try ProcessRunner.run(products.appendingPathComponent("textmeasure"), ["store", "stats", copy])
        let line = stats.stdout.split(separator: "\n").first { $0.hasPrefix("entries: ") }
        return line.flatMap { Int($0.dropFirst("entries: ".count)) }
    }

    /// A measure request of `items` texts, `prefix` and a number, each with a `"pad"` of `padBytes`
    /// bytes the answer echoes (so that the answer is about as large as the request).
    static func measureBody(_ prefix: String, items: Int, padBytes: Int = 0) -> String {
        let pad = String(repeating: "x", count: padBytes)
        return "[" + (0..<items).map { #"{"text":"\#(prefix) \#($0): measured once, stored once","width":300,"pad":"\#(pad)"}"# }
            .joined(separator: ",") + "]"
    }

    static func head(bodyBytes: Int, close: Bool = false) -> String {
        "POST /v1/measure HTTP/1.1\r\nHost: x\r\n" + (close ? "Connection: close\r\n" : "")
            + "Content-Type: application/json\r\nContent-Length: \(bodyBytes)\r\n\r\n"
    }

    /// Measures `rows` rows with a client that reads, then has a client pipeline two measure requests,
    /// the first with a large answer, and read nothing: the server writes the first answer, which waits
    /// unread, and holds the second. Returns when every item is measured, with the connection.
    static func measureRowsAndLeaveAnswersUnread(port: Int, rows: Int) async throws -> (client: HTTPTestClient, rows: Int) {
        let measured = try await HTTPTestClient.request(port: port, "POST", "/v1/measure",
                                                        body: measureBody("Read", items: rows), timeout: 600)
        #expect(measured.status == 200)
        // 6 MB of answer: more than the sockets' buffers hold.
        let first = measureBody("Unread", items: 150, padBytes: 40_000)
        let second = measureBody("Held", items: 8)
        let client = try HTTPTestClient(port: port, timeout: 600, socketBuffers: 4_096)
        try await client.send(head(bodyBytes: first.utf8.count) + first + head(bodyBytes: second.utf8.count) + second)
        let all = Double(rows + 150 + 8)
        try await waitForMetric("textmeasure_items_measured_total", port: port) { $0 >= all }
        return (client, rows + 150 + 8)
    }

    /// A server with a store file (`path`) and room for large request bodies, started with
    /// `--shutdown-timeout` and `--idle-timeout` as given, that has measured `rows` rows answered and
    /// the rows of a connection whose answers wait unread (``measureRowsAndLeaveAnswersUnread(port:rows:)``).
    static func startWithUnreadAnswers(shutdownTimeout: Int, idleTimeout: Int, rows: Int) async throws
        -> (server: Server, path: String, unread: HTTPTestClient, rowsBefore: Int) {
        let path = try TemporaryFolders.make(prefix: "serve-shutdown") + "/heights.sqlite"
        let server = try await start(["--store", path, "--shutdown-timeout", "\(shutdownTimeout)",
                                      "--idle-timeout", "\(idleTimeout)", "--max-body-bytes", "16777216"])
        do {
            let (unread, rowsBefore) = try await measureRowsAndLeaveAnswersUnread(port: server.port, rows: rows)
            return (server, path, unread, rowsBefore)
        } catch {
            kill(server.process.processIdentifier, SIGKILL)
            throw error
        }
    }

    /// Sends SIGTERM with a request in flight on `client`: its head and the first bytes of `body`, then,
    /// once the server counts it in flight (with the metrics request) and its listening socket refuses
    /// connections, the rest of the body, which fails if the server has closed the connection already.
    ///
    /// - Returns: When the signal was sent.
    static func signalWithRequestInFlight(_ server: Server, client: HTTPTestClient, body: String) async throws
        -> DispatchTime {
        try await client.send(head(bodyBytes: body.utf8.count, close: true) + body.prefix(20))
        try await waitForMetric("textmeasure_http_requests_in_flight", port: server.port) { $0 >= 2 }
        let signalled = send(SIGTERM, to: server.process)
        try await waitUntilRefused(port: server.port)
        try? await client.send(String(body.dropFirst(20)))
        return signalled
    }

    /// SIGTERM with a connection whose answers wait unread and another whose request is in flight,
    /// with `Connection: close` and a large answer its client never reads: the server closes both once
    /// the grace period is over and exits 0, within the grace period and a margin, with every row
    /// measured before the signal in its store file.
    @Test func clientsThatDoNotReadDoNotHoldTheShutdown() async throws {
        let (server, path, unread, rowsBefore) = try await Self.startWithUnreadAnswers(shutdownTimeout: 5, idleTimeout: 120,
                                                                                       rows: 600)
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }

        // In flight at the signal: the head and a piece of the body; the rest is sent once the
        // shutdown has begun, and the answer (12 MB, more than the sockets' buffers can grow to) is
        // never read. Answered with `Connection: close`, the connection only waits to close once its
        // answer has gone out, which cancelling Hummingbird's handling alone does not cut short.
        let last = Self.measureBody("Last", items: 4, padBytes: 3_000_000)
        let closing = try HTTPTestClient(port: server.port, timeout: 600)
        let signalled = try await Self.signalWithRequestInFlight(server, client: closing, body: last)
        let stop = await Self.exit(of: server.process, since: signalled, within: 120)
        let stopped = try #require(stop, "still running 120 s after SIGTERM")
        #expect(stopped.seconds < Self.stopLimit, "\(stopped.seconds) s from SIGTERM to the exit")
        #expect(stopped.status == 0)
        withExtendedLifetime((unread, closing)) {}

        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
        #expect(log == 0, "\(log) bytes left in the log")
        let stored = try #require(try Self.storedRows(path))
        // The last request's rows are measured if its body arrived before the grace period ended.
        #expect(stored == rowsBefore || stored == rowsBefore + 4, "\(stored) rows stored, \(rowsBefore) measured before SIGTERM")
    }

    /// A second SIGTERM ends the grace period at once: with an hour's grace, the server exits soon
    /// after it, with its rows stored.
    @Test func aSecondSIGTERMEndsTheGracePeriod() async throws {
        let (server, path, unread, rowsBefore) = try await Self.startWithUnreadAnswers(shutdownTimeout: 3_600,
                                                                                       idleTimeout: 3_600, rows: 100)
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }

        _ = Self.send(SIGTERM, to: server.process)
        try await Self.waitUntilRefused(port: server.port)   // the first signal was taken
        let signalled = Self.send(SIGTERM, to: server.process)
        let stop = await Self.exit(of: server.process, since: signalled, within: 120)
        let stopped = try #require(stop, "still running 120 s after the second SIGTERM")
        #expect(stopped.seconds < Self.stopLimit, "\(stopped.seconds) s from the second SIGTERM to the exit")
        #expect(stopped.status == 0)
        withExtendedLifetime(unread) {}
        let errors = String(decoding: server.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(errors.contains("SIGTERM during shutdown"), "\(errors)")
        #expect(try Self.storedRows(path) == rowsBefore)
    }

    /// A request in flight at SIGTERM, from a client that reads, is answered whole before the exit.
    @Test func aRequestInFlightIsAnsweredWhole() async throws {
        let server = try await Self.start(["--shutdown-timeout", "60"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let body = Self.measureBody("Answered", items: 300, padBytes: 100)
        let client = try HTTPTestClient(port: server.port, timeout: 600)
        let signalled = try await Self.signalWithRequestInFlight(server, client: client, body: body)
        let reply = try await client.readReply()
        #expect(reply.status == 200)
        let items = try #require(try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [[String: Any]])
        #expect(items.count == 300)
        #expect(items.allSatisfy { $0["height"] is Double && ($0["pad"] as? String)?.utf8.count == 100 })
        let stop = await Self.exit(of: server.process, since: signalled, within: 120)
        #expect(stop?.status == 0)
    }

    /// `--shutdown-timeout` and `--idle-timeout` out of range are refused before the server starts,
    /// naming the option, the value and the range.
    @Test(arguments: [
        ("--shutdown-timeout", "-1", "must be from 0 to 3600 seconds"),
        ("--shutdown-timeout", "3601", "must be from 0 to 3600 seconds"),
        ("--shutdown-timeout", "nan", "must be from 0 to 3600 seconds"),
        ("--idle-timeout", "0", "must be more than 0 and at most 86400 seconds"),
        ("--idle-timeout", "86401", "must be more than 0 and at most 86400 seconds"),
    ])
    func timeoutsOutOfRange(_ option: String, _ value: String, _ range: String) throws {
        let refused = try ProcessRunner.run(Self.products.appendingPathComponent("textmeasure-serve"),
                                            ["--port", "0", "\(option)=\(value)"])
        #expect(refused.status != 0)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("\(option) \(Double(value)!) is out of range: \(range)"), "\(refused.stderr)")
    }
}
