import Foundation
import Testing
import TestSupport
import TextMeasureSupport

/// A private PostgreSQL server for the tests: `initdb` into a temporary folder, `postgres` on a free
/// loopback port with its socket in that folder, run as an unprivileged user (`postgres`, through
/// `runuser`, when the tests run as root, as CI does), stopped when the test process exits.
///
/// The binaries are Debian's (`apt-get install postgresql`, which `scripts/bootstrap` does), in
/// `/usr/lib/postgresql/15/bin`, or wherever `TEXTMEASURE_POSTGRES_BIN` says. Without them the tests
/// that need a server are skipped, saying why (``skipReason``).
///
/// One cluster is made per test process (``pristine``, 1 to 3 s) and copied for each server, so a
/// test that kills its server pays only for a copy and a start. Each test takes a database of its own
/// (``makeDatabase()``) on the shared server (``shared``) unless it kills or restarts the server.
///
/// Thread safety: `@unchecked Sendable`; a server's mutable state (its process id) is behind a lock.
final class PostgresServer: @unchecked Sendable {
    /// The folder of `initdb`, `pg_ctl`, `postgres` and `psql`, if there is one.
    static let binaries: String? = {
        let candidates = [ProcessInfo.processInfo.environment["TEXTMEASURE_POSTGRES_BIN"], "/usr/lib/postgresql/15/bin"]
        return candidates.compactMap { $0 }.first { folder in
            ["initdb", "pg_ctl", "postgres", "psql"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: folder + "/" + $0)
            }
        }
    }()

    /// Whether the tests can start a server.
    static var isAvailable: Bool { binaries != nil }

    /// Why PostgreSQL tests are skipped.
    static let skipReason: Comment = """
        PostgreSQL 15 binaries not found in /usr/lib/postgresql/15/bin (or TEXTMEASURE_POSTGRES_BIN): \
        install Debian's postgresql package (scripts/bootstrap does) to run the PostgreSQL store tests
        """

    /// The user the server runs as, when the tests run as root (PostgreSQL refuses to run as root).
    private static let serverUser: String? = {
        guard geteuid() == 0 else { return nil }
        return getpwnam("postgres") != nil ? "postgres" : "nobody"
    }()

    /// The role every test connects as (the cluster's superuser, trusted on loopback).
    static let role = "textmeasure"

    /// A cluster made once, copied by each server.
    private static let pristine: Result<String, any Error> = Result {
        let folder = try makeFolder()
        try run("initdb", ["-D", folder + "/data", "-A", "trust", "-U", role, "--no-sync", "--no-instructions",
                           "-E", "UTF8", "--locale", "C"])
        return folder + "/data"
    }

    /// The server most tests share (each in a database of its own).
    static let shared: Result<PostgresServer, any Error> = Result { try PostgresServer() }

    /// The servers started by this process, stopped at its exit.
    private static let started = Locked<[PostgresServer]>([])
    private static let stopAtExit: Void = {
        atexit {
            for server in PostgresServer.started.withLock({ $0 }) { server.kill() }
        }
    }()

    let folder: String
    let port: Int
    private let pid = Locked<Int32?>(nil)
    private let databases = Locked(0)

    /// Copies the pristine cluster and starts a server on a free port.
    init() throws {
        folder = try Self.makeFolder()
        _ = Self.stopAtExit   // registered after the temporary folders' removal: runs before it
        let data = try Self.pristine.get()
        try Self.shell("cp -a '\(data)' '\(folder)/data'")
        port = try Self.freePort()
        try start()
        Self.started.withLock { $0.append(self) }
    }

    /// The URL of `database` on this server.
    func url(_ database: String = "postgres") -> String {
        "postgres://\(Self.role)@127.0.0.1:\(port)/\(database)"
    }

    /// A new empty database; returns its URL.
    func makeDatabase() throws -> String {
        let name = "test_\(getpid())_\(databases.withLock { $0 += 1; return $0 })"
        _ = try psql("CREATE DATABASE \(name)")
        return url(name)
    }

    /// Runs `sql` with psql in `database` (given by name or URL); returns what it printed (unaligned, tuples only).
    @discardableResult
    func psql(_ sql: String, database: String = "postgres") throws -> String {
        let name = database.split(separator: "/").last.map(String.init) ?? database
        let outcome = try ProcessRunner.run(URL(fileURLWithPath: Self.binaries! + "/psql"),
                                            ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                                             "-p", "\(port)", "-U", Self.role, "-d", name, "-c", sql])
        guard outcome.status == 0 else { throw Failure("psql \(sql): \(outcome.stderr)") }
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts psql running `sql` and keeps it running (a session holding a lock, say) until the
    /// returned process is terminated.
    func psqlInBackground(_ sql: String, database: String) throws -> ChildProcess {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: Self.binaries! + "/psql")
        process.arguments = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", Self.role,
                             "-d", database.split(separator: "/").last.map(String.init) ?? database, "-c", sql]
        process.standardOutput = .null
        process.standardError = .null
        try process.run()
        return process
    }

    /// Starts the server (again) and waits until it accepts connections.
    func start() throws {
        // A server killed a moment ago may still hold its shared memory while its children exit.
        var attempts = 0
        while true {
            do {
                // fsync off: a killed server loses nothing the kernel has (only a machine's crash
                // would). synchronous_commit stays on: with it off, a commit the store was told of
                // could be lost with the server's memory, and the kill tests count on what they saw.
                try Self.run("pg_ctl", ["start", "-D", folder + "/data", "-w", "-t", "30", "-l", folder + "/log", "-o",
                                        "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off "
                                        + "-c full_page_writes=off -c max_connections=200"])
                break
            } catch {
                attempts += 1
                if attempts >= 50 { throw error }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        let text = try String(contentsOfFile: folder + "/data/postmaster.pid", encoding: .utf8)
        pid.withLock { $0 = text.split(separator: "\n").first.flatMap { Int32($0) } }
    }

    /// Kills the server (SIGKILL to the postmaster and its children: no shutdown, as a crash would).
    func kill() {
        guard let pid = pid.withLock({ value -> Int32? in defer { value = nil }; return value }) else { return }
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        Glibc.kill(pid, SIGKILL)
        for child in children.split(separator: " ").compactMap({ Int32($0) }) { Glibc.kill(child, SIGKILL) }
        // Until the postmaster is gone (its port free for the next start).
        for _ in 0..<200 where Glibc.kill(pid, 0) == 0 { Thread.sleep(forTimeInterval: 0.01) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: Processes

    /// A new folder the server's user may own.
    private static func makeFolder() throws -> String {
        let folder = try TemporaryFolders.make(prefix: "postgres", permissions: 0o755)
        if let user = serverUser { try shell("chown \(user) '\(folder)'") }
        return folder
    }

    /// Runs one of the PostgreSQL binaries as the server's user, to its end.
    ///
    /// Its output goes to a file, not a pipe: `pg_ctl start` leaves a server running that would hold
    /// a pipe open, and reading to its end would wait for the server's exit.
    private static func run(_ tool: String, _ arguments: [String]) throws {
        let path = binaries! + "/" + tool
        // `cd /`: the server's user may not be able to enter the test's working folder.
        let command = ["/bin/sh", "-c", "cd / && exec \"$0\" \"$@\""]
            + (serverUser.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [path] + arguments
        let log = try TemporaryFolders.make(prefix: "postgres-output") + "/output"
        let descriptor = open(log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard descriptor >= 0 else { throw Failure("\(log): \(String(cString: strerror(errno)))") }
        let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardInput = .null
        process.standardOutput = .handle(output)
        process.standardError = .handle(output)
        try process.run()
        process.waitUntilExit()
        let status = process.terminationStatus
        guard status == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw Failure("\(tool) failed (status \(status)): \(output)")
        }
    }

    private static func shell(_ command: String) throws {
        let outcome = try ProcessRunner.shell(command)
        guard outcome.status == 0 else { throw Failure("\(command): \(outcome.stderr)") }
    }

    /// A loopback port nothing listens on now.
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure("socket: \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw Failure("bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
