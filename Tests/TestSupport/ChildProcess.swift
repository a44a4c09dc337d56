import Foundation

/// A child process started with `posix_spawn`, for tests that run the package's executables, psql or
/// a shell.
///
/// Foundation's `Process` is not used: on Linux its `run()` copies each `/proc/self/fd` entry as a
/// whole `dirent`, reading past the end of glibc's directory buffer. With a thousand descriptors
/// open (server tests running beside it), that read crossed into an unmapped page and the test
/// process died of SIGSEGV. Here the child closes every descriptor above 2 itself
/// (`posix_spawn_file_actions_addclosefrom_np`), so nothing needs listing.
///
/// The child starts as it would from a shell: no signal blocked (test threads block them all, and a
/// shell started with SIGCHLD blocked would wait for its background jobs forever) and every signal
/// at its default action (the test process ignores SIGPIPE).
///
/// Configure the properties, then call ``run()`` once. After that, ``processIdentifier``,
/// ``isRunning``, ``waitUntilExit()``, ``terminationStatus`` and ``terminate()`` may be called from
/// any thread. A child is reaped only by ``isRunning`` or ``waitUntilExit()``: one that is terminated
/// and never waited for stays a zombie until the tests end, holding nothing but its process ID.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: the configuration is only written before `run()`, on one thread; `state` is only
    // touched while `lock` is held.

    /// Where one of the child's standard streams goes.
    public enum Stream {
        /// One end of a pipe: the reading end for standard input, the writing end for the outputs.
        /// The parent's copy of that end is closed once the child has started, so that the parent
        /// sees the end of the output when the child exits.
        case pipe(Pipe)
        /// An open file; the parent keeps it open.
        case handle(FileHandle)
        /// `/dev/null`.
        case null
    }

    public var executableURL: URL?
    public var arguments: [String] = []
    /// The child's working directory; nil keeps the parent's.
    public var currentDirectoryURL: URL?
    /// nil: the stream is the parent's.
    public var standardInput: Stream?
    public var standardOutput: Stream?
    public var standardError: Stream?

    private enum State {
        case notStarted
        case running(pid_t)
        /// The wait status `waitpid` gave.
        case exited(pid_t, Int32)
    }

    private let lock = NSLock()
    private var state = State.notStarted

    public init() {}

    /// Starts the child.
    ///
    /// - Throws: `ChildProcess.Failure` when no executable is set, the process was started before,
    ///   or `posix_spawn` fails (a missing executable, say).
    public func run() throws {
        guard let executableURL else { throw Failure("no executable set") }
        lock.lock()
        defer { lock.unlock() }
        guard case .notStarted = state else { throw Failure("\(executableURL.path) was started before") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let streams = [(STDIN_FILENO, standardInput), (STDOUT_FILENO, standardOutput), (STDERR_FILENO, standardError)]
        for (descriptor, stream) in streams {
            switch stream {
            case nil:
                break
            case .pipe(let pipe)?:
                let end = descriptor == STDIN_FILENO ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, descriptor)
            case .handle(let handle)?:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, descriptor)
            case .null?:
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null",
                                                 descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
            }
        }
        guard let closeFrom = Self.closeFrom, closeFrom(&actions, 3) == 0 else {
            throw Failure("posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34 or later needed)")
        }
        if let directory = currentDirectoryURL {
            guard let changeDirectory = Self.changeDirectory, changeDirectory(&actions, directory.path) == 0 else {
                throw Failure("posix_spawn_file_actions_addchdir_np is missing (glibc 2.29 or later needed)")
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        // Its own process group, as with Foundation's `Process`, which the tests were written for:
        // a signal to the tests' group (a ^C) does not reach the child; the tests stop it themselves.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
                                                    | POSIX_SPAWN_SETPGROUP))
        let argv = ([executableURL.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executableURL.path, &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            throw Failure("posix_spawn \(executableURL.path): \(String(cString: strerror(spawned)))")
        }
        state = .running(pid)
        for (descriptor, stream) in streams {
            guard case .pipe(let pipe)? = stream else { continue }
            try? (descriptor == STDIN_FILENO ? pipe.fileHandleForReading : pipe.fileHandleForWriting).close()
        }
    }

    /// The child's process ID; 0 before ``run()``.
    public var processIdentifier: pid_t {
        lock.lock()
        defer { lock.unlock() }
        switch state {
        case .notStarted: return 0
        case .running(let pid), .exited(let pid, _): return pid
        }
    }

    /// Whether the child has started and not yet exited (it is reaped here if it has).
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return reapIfExited()
    }

    /// Blocks until the child has exited; returns at once if it never started.
    public func waitUntilExit() {
        guard case .running(let pid) = currentState else { return }
        // Waits without reaping, so that a concurrent `isRunning` never loses the status to this
        // call or finds the pid reaped behind its back.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        lock.lock()
        defer { lock.unlock() }
        _ = reapIfExited()
    }

    /// The exit code, or the number of the signal that ended the child (as Foundation's `Process`
    /// reports it); 0 while it runs.
    public var terminationStatus: Int32 {
        guard case .exited(_, let status) = currentState else { return 0 }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }

    /// Sends SIGTERM to a child that has not been reaped.
    public func terminate() {
        lock.lock()
        defer { lock.unlock() }
        if case .running(let pid) = state { kill(pid, SIGTERM) }
    }

    private var currentState: State {
        lock.lock()
        defer { lock.unlock() }
        return state
    }

    /// Reaps the child if it has exited; returns whether it still runs. Called with `lock` held.
    private func reapIfExited() -> Bool {
        guard case .running(let pid) = state else { return false }
        var status: Int32 = 0
        var reaped = waitpid(pid, &status, WNOHANG)
        while reaped < 0 && errno == EINTR { reaped = waitpid(pid, &status, WNOHANG) }
        guard reaped == pid else { return true }
        state = .exited(pid, status)
        return false
    }

    /// Why a child could not be started.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    // glibc's headers declare these two only for _GNU_SOURCE, so they are looked up at run time.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>,
                                                        UnsafePointer<CChar>) -> Int32
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }
    private static let changeDirectory: ChangeDirectory? = dlsym(nil, "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: ChangeDirectory.self) }
}
