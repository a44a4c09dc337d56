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
    func psqlInBackground(_ sql: String, database: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binaries! + "/psql")
        process.arguments = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", Self.role,
                             "-d", database.split(separator: "/").last.map(String.init) ?? database, "-c", sql]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try ProcessRunner.start(process)
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
    /// Not through Foundation's `Process`: it learns that a child ended when a socket the child
    /// inherited is closed by every process holding it, and `pg_ctl start` leaves a server running
    /// that would hold it (the test would wait for its exit forever). Here the child gets only its
    /// standard descriptors (input from /dev/null, output to a log), an empty signal mask (test
    /// threads block every signal) and default signal actions, and is reaped with `waitpid`.
    private static func run(_ tool: String, _ arguments: [String]) throws {
        let path = binaries! + "/" + tool
        // `cd /`: the server's user may not be able to enter the test's working folder.
        let command = ["/bin/sh", "-c", "cd / && exec \"$0\" \"$@\""]
            + (serverUser.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [path] + arguments
        let log = try TemporaryFolders.make(prefix: "postgres-output") + "/output"
        let status = try spawnAndWait(command, output: log)
        guard status == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw Failure("\(tool) failed (status \(status)): \(output)")
        }
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), found at run time: the C header
    /// declares it only for _GNU_SOURCE.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    /// Runs `command` (a path and its arguments) with only descriptors 0 to 2 open, output appended
    /// to `output`; returns its wait status.
    private static func spawnAndWait(_ command: [String], output: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        guard let closeFrom, closeFrom(&actions, 3) == 0 else {
            throw Failure("posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34 or later needed)")
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw Failure("posix_spawn \(command[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure("waitpid: \(String(cString: strerror(errno)))") }
        }
        return status
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
