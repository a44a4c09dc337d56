import Dispatch
import Foundation
import GRDB
import Testing
import TestSupport
import TextMeasureSupport
import TextMeasure
import TextMeasureStore

/// A store file can be copied: a store closed cleanly leaves every row in its `.sqlite` file (its
/// write-ahead log folded in), and `textmeasure store export` writes a consistent single-file copy
/// while another process writes.
@Suite("Store file copies")
struct StoreFileCopyTests {
    /// Copies the `.sqlite` file alone (not its `-wal` or `-shm`) to a new folder, and returns the
    /// copy's row count and `PRAGMA integrity_check`.
    static func copyAlone(_ path: String) throws -> (rows: Int, integrity: String) {
        let copy = StoreFixtures.folder() + "/copy.sqlite"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        return try inspect(copy)
    }

    /// The row count and `PRAGMA integrity_check` of the store file at `path`.
    static func inspect(_ path: String) throws -> (rows: Int, integrity: String) {
        let db = try StoreFixtures.openDirectly(path)
        return try db.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM heights") ?? -1,
             try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; "))
        }
    }

    /// The bytes of the store's write-ahead log still to fold in (0 when it is gone or empty).
    static func logBytes(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
    }

    @Test func closingFoldsTheLogIntoTheFile() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let store = try HeightStore(path: path)
        let cache = PreparedTextCache(measurer: StoreFixtures.measurer, store: store)
        _ = cache.measurements(for: StoreFixtures.texts(300).map {
            MeasureRequest(text: $0, style: TextStyle(size: 15), width: 320)
        })
        store.flush()
        #expect(Self.logBytes(path) > 0, "the rows should be in the log before closing")
        store.close()
        #expect(Self.logBytes(path) == 0)
        let copy = try Self.copyAlone(path)
        #expect(copy.rows == 300 && copy.integrity == "ok")
        // Closed: it answers nothing and drops what it is given, quietly.
        #expect(store.isDisabled)
        #expect(store.measurements(for: [MeasureRequest(text: "x", style: TextStyle(size: 15), width: 10)],
                                   fonts: StoreFixtures.measurer.cascade) == [nil])
        store.close()
    }

    /// Another process reading the file past the busy timeout keeps the log from being folded in at
    /// close: that is the sharing the store is for, so it warns about nothing and loses nothing.
    @Test func closingBesideAReaderKeepsTheLogQuietly() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let warnings = Locked<[String]>([])
        let store = try HeightStore(path: path, warn: { message in warnings.withLock { $0.append(message) } })
        let cache = PreparedTextCache(measurer: StoreFixtures.measurer, store: store)
        let queries = StoreFixtures.texts(100).map { MeasureRequest(text: $0, style: TextStyle(size: 15), width: 320) }
        _ = cache.measurements(for: queries)
        store.flush()
        // A reader in the middle of a transaction, as another process's look-ups are: a truncating
        // checkpoint waits for it, then gives up.
        let reader = try StoreFixtures.openDirectly(path)
        let readerStarted = DispatchSemaphore(value: 0)
        let closed = DispatchSemaphore(value: 0)
        let readerDone = DispatchSemaphore(value: 0)
        // A thread of its own: it blocks for the busy timeout, which a pool's worker should not.
        Thread.detachNewThread {
            try? reader.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM heights")
                readerStarted.signal()
                closed.wait()
            }
            readerDone.signal()
        }
        readerStarted.wait()
        store.close()
        closed.signal()
        readerDone.wait()
        #expect(warnings.withLock { $0 } == [])
        #expect(Self.logBytes(path) > 0, "the reader should have kept the log")
        let reopened = try HeightStore(path: path)
        #expect(reopened.measurements(for: queries, fonts: StoreFixtures.measurer.cascade).allSatisfy { $0 != nil })
        reopened.close()
    }

    /// `batch` and `measure` close their store at their end: the file alone holds every row.
    @Test func batchAndMeasureLeaveEveryRowInTheFile() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let batch = try StoreFixtures.run(["batch", "--store", path], input: StoreFixtures.batchInput(1_000, widths: [320]))
        #expect(batch.status == 0)
        #expect(Self.logBytes(path) == 0)
        let afterBatch = try Self.copyAlone(path)
        #expect(afterBatch.rows == 1_000 && afterBatch.integrity == "ok")

        let measure = try StoreFixtures.run(["measure", "--width", "120", "--store", path, "one more text"])
        #expect(measure.status == 0)
        #expect(Self.logBytes(path) == 0)
        #expect(try Self.copyAlone(path).rows == 1_001)
    }

    /// An export taken while another process writes is one consistent file holding at least every row
    /// committed before it began; the writer's rows all reach the store.
    @Test func exportWhileAnotherProcessWrites() async throws {
        let folder = StoreFixtures.folder()
        let path = folder + "/heights.sqlite"
        let first = 500, more = ThreadSanitizerRun.size(6_000, sanitized: 1_500)   // still writing at the first export
        #expect(try StoreFixtures.run(["batch", "--store", path], input: StoreFixtures.batchInput(first, widths: [320])).status == 0)

        // A second process measures new texts (the first ones at another width, then new ones) and
        // writes them as it goes, a chunk of 64 lines at a time.
        let input = StoreFixtures.batchInput(first + more, widths: [200])
        let inputPath = folder + "/input.jsonl"
        try #require(FileManager.default.createFile(atPath: inputPath, contents: Data(input.utf8)))
        let writer = ChildProcess()
        writer.executableURL = StoreFixtures.executable
        writer.arguments = ["batch", "--store", path, "--chunk", "64"]
        writer.standardInput = .handle(try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath)))
        let output = Pipe()
        writer.standardOutput = .pipe(output)
        try writer.run()
        // An event, not a length of time: its first results are out, so it has begun writing rows.
        let firstOutput = output.fileHandleForReading.availableData
        #expect(!firstOutput.isEmpty)
        let drained = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = output.fileHandleForReading.readDataToEndOfFile()
            drained.signal()
        }

        // Exports until the writer is done: at least the first is taken while it writes.
        var exports: [(path: String, duringWrites: Bool)] = []
        repeat {
            let copy = folder + "/export-\(exports.count).sqlite"
            let wasRunning = writer.isRunning
            let export = try StoreFixtures.run(["store", "export", path, copy])
            #expect(export.status == 0, "\(export.stderr)")
            exports.append((copy, wasRunning && writer.isRunning))
        } while writer.isRunning && exports.count < 50
        drained.wait()
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
        #expect(exports.contains { $0.duringWrites }, "no export overlapped the writer")

        let all = try Self.inspect(path).rows
        #expect(all >= first + more)   // the new texts, and the first ones where 200 px changes their lines
        for export in exports {
            #expect(!FileManager.default.fileExists(atPath: export.path + "-wal"))
            let copy = try Self.inspect(export.path)
            #expect(copy.integrity == "ok")
            #expect(copy.rows >= first && copy.rows <= all, "\(copy.rows) rows of \(all)")
        }
        let last = try StoreFixtures.run(["store", "export", path, folder + "/final.sqlite"])
        #expect(last.status == 0)
        #expect(try Self.inspect(folder + "/final.sqlite").rows == all)
        // An existing file is never overwritten.
        let again = try StoreFixtures.run(["store", "export", path, folder + "/final.sqlite"])
        #expect(again.status != 0 && again.stderr.contains("already exists"))
    }
}
