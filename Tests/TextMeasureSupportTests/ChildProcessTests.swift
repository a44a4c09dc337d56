import Foundation
import Testing
import TestSupport
import TextMeasureSupport

/// The tests' own way of starting child processes: what the child inherits, and how its end is
/// reported.
@Suite("Child processes of the tests")
struct ChildProcessTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")

    /// Runs `command` in a shell and returns what it printed and its status.
    static func run(_ command: String, directory: URL? = nil) throws -> (output: String, status: Int32) {
        let outcome = try ProcessRunner.run(shell, ["-c", command], directory: directory)
        return (outcome.stdout, outcome.status)
    }

    /// Many descriptors open in the parent (as while server tests run beside it), children started
    /// from several threads at once: each holds only its standard descriptors.
    @Test func childrenInheritOnlyTheStandardDescriptors() throws {
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<300 {
            let descriptor = open("/dev/null", O_RDONLY)
            try #require(descriptor >= 0)
            held.append(descriptor)
        }
        let answers = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            // `cat` waits for its input to end; meanwhile its descriptors are listed from here. Not at
            // once: while it starts, the loader and `setlocale` hold a file open for a moment. A line
            // echoed back says that it has started and is waiting to read again.
            let child = ChildProcess()
            child.executableURL = URL(fileURLWithPath: "/bin/cat")
            let input = Pipe(), output = Pipe()
            child.standardInput = .pipe(input)
            child.standardOutput = .pipe(output)
            do {
                try child.run()
                try input.fileHandleForWriting.write(contentsOf: Data("started\n".utf8))
                var echoed = Data()
                while !echoed.contains(UInt8(ascii: "\n")) {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    echoed += chunk
                }
                let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.processIdentifier)/fd")
                let listed = String(decoding: echoed, as: UTF8.self) + open.sorted().joined(separator: " ")
                answers.withLock { $0.append(listed) }
            } catch {
                answers.withLock { $0.append("\(error)") }
            }
            try? input.fileHandleForWriting.close()
            child.waitUntilExit()
        }
        #expect(answers.withLock { $0 } == Array(repeating: "started\n0 1 2", count: 16))
    }

    @Test func childrenGetTheParentsEnvironment() throws {
        let path = try #require(ProcessInfo.processInfo.environment["PATH"])
        #expect(try Self.run(#"printf %s "$PATH""#).output == path)
    }

    /// A child starts as from a shell, though test threads block every signal and the tests ignore
    /// SIGPIPE: nothing blocked, nothing ignored. Signals 32 and 33 are glibc's own (thread
    /// cancellation, set*id): its `posix_spawn` leaves them ignored where the parent handles them,
    /// and no program can use them.
    @Test func childrenStartWithNoSignalBlockedOrIgnored() throws {
        let outcome = try ProcessRunner.run(URL(fileURLWithPath: "/bin/grep"),
                                            ["-E", "^Sig(Blk|Ign):", "/proc/self/status"])
        #expect(outcome.status == 0)
        var masks: [String: UInt64] = [:]
        for line in outcome.lines {
            let fields = line.split(separator: ":")
            masks[String(fields[0])] = UInt64(fields[1].trimmingCharacters(in: .whitespaces), radix: 16)
        }
        let glibcsOwn: UInt64 = 1 << (32 - 1) | 1 << (33 - 1)
        #expect(masks["SigBlk"] == 0)
        #expect(masks["SigIgn"].map { $0 & ~glibcsOwn } == 0, "\(outcome.stdout)")
    }

    @Test func exitCodesAndSignalsAreReportedAsTheStatus() throws {
        #expect(try Self.run("exit 3").status == 3)
        #expect(try Self.run("kill -KILL $$").status == SIGKILL)
        #expect(try Self.run("true").status == 0)
    }

    @Test func theWorkingDirectoryIsTheOneGiven() throws {
        let folder = try TemporaryFolders.make(prefix: "child-directory")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let resolved = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        #expect(try Self.run("pwd -P", directory: URL(fileURLWithPath: folder)).output == resolved + "\n")
    }

    /// One thread waits for the child while another polls it: both see it end, and the status is kept.
    @Test func waitingAndPollingFromTwoThreadsAgree() throws {
        let child = ChildProcess()
        child.executableURL = Self.shell
        child.arguments = ["-c", "sleep 0.2; exit 7"]
        child.standardOutput = .null
        #expect(!child.isRunning)
        try child.run()
        #expect(child.processIdentifier > 0)
        let polled = Locked<[String]>([])
        let poller = Thread {
            while child.isRunning { usleep(1_000) }
            polled.withLock { $0.append("ended \(child.terminationStatus)") }
        }
        poller.start()
        child.waitUntilExit()
        #expect(!child.isRunning)
        #expect(child.terminationStatus == 7)
        while polled.withLock({ $0.isEmpty }) { usleep(1_000) }
        #expect(polled.withLock { $0 } == ["ended 7"])
        #expect(throws: ChildProcess.Failure.self) { try child.run() }
    }

    @Test func aMissingExecutableIsAnError() {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/nonexistent/textmeasure")
        #expect(throws: ChildProcess.Failure.self) { try child.run() }
        #expect(!child.isRunning)
    }

    /// `terminate` sends SIGTERM.
    @Test func terminateEndsTheChild() throws {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["30"]
        try child.run()
        child.terminate()
        child.waitUntilExit()
        #expect(child.terminationStatus == SIGTERM)
    }
}
