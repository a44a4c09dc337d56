import Foundation
import GRDB
import Testing
import TestSupport
import TextMeasure
import TextMeasureStore

/// A store that cannot be used never gives a wrong height and never stops the measuring: it is skipped
/// with one warning (or rebuilt), and results equal those measured without a store.
@Suite("HeightStore faults")
struct StoreFaultTests {
    let measurer = StoreFixtures.measurer
    static let input = StoreFixtures.batchInput(60)

    /// Runs a batch with `--store path` and checks it printed what a run without a store prints.
    private func expectSameAsWithoutStore(_ path: String, warnings expected: Int = 1,
                                          sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try StoreFixtures.run(["batch", "--store", path], input: Self.input)
        #expect(result.status == 0, sourceLocation: sourceLocation)
        #expect(result.stdout == (try StoreFixtures.reference(Self.input)), sourceLocation: sourceLocation)
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == expected, "\(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test func missingDirectory() throws {
        let path = StoreFixtures.folder() + "/no/such/folder/heights.sqlite"
        let warnings = StoreFixtures.Warnings()
        #expect(HeightStore.openOrWarn(path: path, warn: warnings.sink) == nil)
        #expect(warnings.all.count == 1)
        try expectSameAsWithoutStore(path)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func randomBytes() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try #require(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)")
        #expect(throws: HeightStoreError.self) { try HeightStore(path: path) }
        try expectSameAsWithoutStore(path)
        #expect(FileManager.default.contents(atPath: path) == Data(bytes))   // not ours: untouched
    }

    @Test func foreignSQLiteFile() throws {
        let path = StoreFixtures.folder() + "/other.sqlite"
        let queue = try StoreFixtures.openDirectly(path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE heights (key BLOB, low INTEGER, high INTEGER)")
            try db.execute(sql: "INSERT INTO heights VALUES (x'00', 1, 2)")
        }
        try queue.close()
        #expect(throws: HeightStoreError.foreign(path: path)) { try HeightStore(path: path) }
        try expectSameAsWithoutStore(path)
        let check = try StoreFixtures.openDirectly(path)
        #expect(try check.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM heights") } == 1)
    }

    @Test func truncatedFile() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        try StoreFixtures.fill(path, count: 400)
        do {   // fold the WAL into the file, then cut the file in half
            let store = try HeightStore(path: path)
            try store.vacuum()
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(truncate(path, off_t(size / 2)) == 0)
        // Either the file is refused when opened, or reading fails and the store turns itself off:
        // both with one warning, never a height that was not measured.
        let result = try StoreFixtures.run(["batch", "--store", path], input: StoreFixtures.batchInput(400, widths: [320]))
        #expect(result.status == 0)
        #expect(result.stdout == (try StoreFixtures.reference(StoreFixtures.batchInput(400, widths: [320]))))
        #expect(result.stderr.split(separator: "\n").filter { $0.contains("warning") }.count <= 1)
    }

    @Test func anotherLayoutVersion() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        _ = try StoreFixtures.run(["batch", "--store", path], input: Self.input)
        let queue = try StoreFixtures.openDirectly(path)
        // Rows of "another version" with wrong heights: they must never be answered.
        try queue.write { db in
            try db.execute(sql: "UPDATE heights SET height = 1")
            try db.execute(sql: "UPDATE store_info SET value = 12345 WHERE name = 'layout_version'")
        }
        try queue.close()
        try expectSameAsWithoutStore(path, warnings: 0)
    }

    @Test(.enabled(if: getuid() == 0, "runs the tool as nobody, which needs root"))
    func readOnlyFile() throws {
        let folder = StoreFixtures.folder()
        let path = folder + "/heights.sqlite"
        _ = try StoreFixtures.run(["batch", "--store", path], input: Self.input)
        do {   // fold the WAL in: a read-only file should be all there is
            let store = try HeightStore(path: path)
            try store.vacuum()
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        #expect(chmod(path, 0o444) == 0)
        let before = FileManager.default.contents(atPath: path)
        let tool = StoreFixtures.executable.path
        let result = try StoreFixtures.shell("setpriv --reuid=65534 --regid=65534 --clear-groups '\(tool)' batch --store '\(path)'",
                                                input: Self.input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == (try StoreFixtures.reference(Self.input)))
        #expect(result.stderr.split(separator: "\n").filter { $0.contains("warning") }.count == 1)
        #expect(FileManager.default.contents(atPath: path) == before)
    }

    /// Not in the ThreadSanitizer run (``ThreadSanitizerRun``): the sanitized executable faults (SIGBUS
    /// in TSan's runtime) under a file size limit before SQLite sees EFBIG. The same test passes on the
    /// plain build, which the suite runs first.
    @Test(.disabled(if: ThreadSanitizerRun.isActive, "the sanitized executable faults under RLIMIT_FSIZE"))
    func fullDisk() throws {
        // A file size limit makes every write past 24 KiB fail with EFBIG, as a full disk fails with
        // ENOSPC: the store turns itself off with one warning and the batch goes on.
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let input = StoreFixtures.batchInput(2_000, widths: [320])
        let tool = StoreFixtures.executable.path
        let result = try StoreFixtures.shell("trap '' XFSZ; ulimit -f 48; exec '\(tool)' batch --store '\(path)'",
                                                input: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == (try StoreFixtures.reference(input)))
        #expect(result.stderr.split(separator: "\n").filter { $0.contains("warning") }.count == 1, "\(result.stderr)")
        // What was committed before the disk filled up still answers correctly.
        let again = try StoreFixtures.run(["batch", "--store", path], input: input)
        #expect(again.stdout == (try StoreFixtures.reference(input)))
    }

    @Test func killedWriterThenReader() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        // Enough lines that the writer is still measuring when it is killed, a fraction of a second
        // after its store file appears: the reader and the reference then measure them all again.
        let input = StoreFixtures.batchInput(6_000, widths: [320, 600])
        let inputPath = path + ".jsonl"
        try #require(FileManager.default.createFile(atPath: inputPath, contents: Data(input.utf8)), "cannot write \(inputPath)")
        let tool = StoreFixtures.executable.path
        // Start a writer, wait until it has committed something, kill it with SIGKILL mid-run.
        let killed = try StoreFixtures.shell("""
            '\(tool)' batch --chunk 256 --store '\(path)' < '\(inputPath)' > /dev/null & pid=$!
            for i in $(seq 1 600); do
                if [ -s '\(path)-wal' ] || [ -s '\(path)' ]; then sleep 0.2; break; fi
                sleep 0.05
            done
            kill -9 $pid; wait $pid; echo "status $?"
            """)
        #expect(killed.stdout.contains("status 137"), "the writer was not killed mid-run: \(killed.stdout)")
        let reader = try StoreFixtures.run(["batch", "--store", path, "--stats"], input: input)
        #expect(reader.status == 0)
        #expect(reader.stdout == (try StoreFixtures.reference(input)))
        #expect(!reader.stderr.contains("warning"), "\(reader.stderr)")
    }
}
