import Foundation
import GRDB
import Testing
import TestSupport
import TextMeasure
import TextMeasureSupport
@testable import TextMeasureStore

/// The PostgreSQL height store against a real server (PostgreSQL 15, started by the tests): the same
/// keys and answers as the SQLite store, shared by processes, and every fault measured around with
/// one warning and output byte-identical to a run without a store.
@Suite("HeightStore on PostgreSQL", .enabled(if: PostgresServer.isAvailable, PostgresServer.skipReason))
struct PostgresStoreTests {
    let measurer = StoreFixtures.measurer

    /// Plain and styled queries (styled ones carry spans, which are part of their keys).
    static func queries(_ count: Int) -> [MeasureRequest] {
        StoreFixtures.texts(count).enumerated().map { index, text in
            let spans = index % 3 == 0 ? [TextSpan(start: 0, end: min(3, text.unicodeScalars.count), bold: true)] : []
            return MeasureRequest(text: text, spans: spans, style: TextStyle(size: 15), width: [240.0, 320, 600][index % 3])
        }
    }

    @Test func sameKeysRowsAndAnswersAsSQLite() throws {
        let server = try PostgresFixtures.server()
        let url = try server.makeDatabase()
        let folder = StoreFixtures.folder()
        let queries = Self.queries(90)
        let warnings = StoreFixtures.Warnings()
        let postgres = try HeightStore(path: url, warn: warnings.sink)
        let sqlite = try HeightStore(path: folder + "/heights.sqlite")
        #expect(postgres.keysSpans && postgres.path == url)
        let measured = PreparedTextCache(measurer: measurer, store: postgres).measurements(for: queries)
        _ = PreparedTextCache(measurer: measurer, store: sqlite).measurements(for: queries)
        postgres.flush()
        sqlite.flush()
        #expect(postgres.statistics.written == queries.count)
        // Fresh caches, nothing in memory: every answer comes from each store, and they agree.
        let fromPostgres = PreparedTextCache(measurer: measurer, store: postgres).measurements(for: queries)
        let fromSQLite = PreparedTextCache(measurer: measurer, store: sqlite).measurements(for: queries)
        #expect(postgres.statistics.hits == queries.count)
        for (index, (a, b)) in zip(fromPostgres, fromSQLite).enumerated() {
            let (a, b, m) = (try a.get(), try b.get(), try measured[index].get())
            #expect(a.height == b.height && a.height == m.height && a.lineCount == m.lineCount
                    && a.validWidths == b.validWidths && a.widestLineWidth == b.widestLineWidth, "query \(index)")
        }
        // Row for row the same table: the server's rows exported to a file equal the SQLite store's.
        try postgres.export(to: folder + "/copy.sqlite")
        sqlite.close()
        func rows(_ path: String) throws -> [[DatabaseValue]] {
            try StoreFixtures.openDirectly(path).read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM heights ORDER BY key, low").map { row in (0..<row.count).map { row[$0] } }
            }
        }
        let copied = try rows(folder + "/copy.sqlite")
        #expect(copied.count == queries.count)
        #expect(copied == (try rows(folder + "/heights.sqlite")))
        #expect(warnings.all.isEmpty, "\(warnings.all)")
    }

    @Test func batchTwiceAnswersFromTheServerWithIdenticalBytes() throws {
        let url = try PostgresFixtures.server().makeDatabase()
        let input = StoreFixtures.batchInput(300) + "{\"text\":\"x\",\"width\":-1}\nnot json\n"
            + "{\"text\":\"bold here\",\"width\":90,\"spans\":[{\"start\":0,\"end\":4,\"bold\":true}]}\n"
        let first = try StoreFixtures.run(["batch", "--store", url, "--stats"], input: input)
        let second = try StoreFixtures.run(["batch", "--store", url, "--stats"], input: input)
        #expect(first.status == 0 && second.status == 0)
        #expect(first.stdout == (try StoreFixtures.reference(input)))
        #expect(second.stdout == first.stdout)
        #expect(first.stderr.contains("height store: 0 hits, 301 misses, 301 written"), "\(first.stderr)")
        #expect(second.stderr.contains("height store: 301 hits, 0 misses, 0 written"), "\(second.stderr)")
        // TEXTMEASURE_STORE names the same store when --store is not given; an empty one names none.
        let tool = StoreFixtures.executable.path
        let fromEnvironment = try StoreFixtures.shell("TEXTMEASURE_STORE='\(url)' '\(tool)' batch --stats", input: input)
        #expect(fromEnvironment.stdout == first.stdout)
        #expect(fromEnvironment.stderr.contains("height store: 301 hits, 0 misses, 0 written"), "\(fromEnvironment.stderr)")
        let emptyEnvironment = try StoreFixtures.shell("TEXTMEASURE_STORE= '\(tool)' batch --stats", input: input)
        #expect(emptyEnvironment.stdout == first.stdout && !emptyEnvironment.stderr.contains("height store"))
        // `measure --store URL` prints what it prints without a store, measured or stored.
        let arguments = ["measure", "--width", "120", "--store", url, "Hello, world — 你好，世界 — مرحبا بالعالم"]
        let plain = try StoreFixtures.run(Array(arguments[0...2]) + [arguments[5]])
        #expect(try StoreFixtures.run(arguments).stdout == plain.stdout)
        #expect(try StoreFixtures.run(arguments).stdout == plain.stdout)
    }

    @Test func storeCommandsOnAURL() throws {
        let server = try PostgresFixtures.server()
        let url = try server.makeDatabase()
        let folder = StoreFixtures.folder()
        _ = try StoreFixtures.run(["batch", "--store", url], input: StoreFixtures.batchInput(100, widths: [320]))
        let stats = try StoreFixtures.run(["store", "stats", url])
        #expect(stats.status == 0)
        #expect(stats.stdout.contains("entries: 100\ntexts: 100\n"), "\(stats.stdout)")
        #expect(stats.stdout.contains("layout version: \(TextMeasurer.layoutVersion)"))
        #expect(try StoreFixtures.run(["store", "vacuum", url]).status == 0)
        // Out to a file, and from a file into another database: the same rows.
        #expect(try StoreFixtures.run(["store", "export", url, folder + "/copy.sqlite"]).status == 0)
        #expect(try StoreFixtures.run(["store", "stats", folder + "/copy.sqlite"]).stdout.contains("entries: 100\n"))
        let other = try server.makeDatabase()
        #expect(try StoreFixtures.run(["store", "export", folder + "/copy.sqlite", other]).status == 0)
        #expect(try server.psql("SELECT count(*) FROM textmeasure_heights", database: other) == "100")
        let fromOther = try StoreFixtures.run(["batch", "--store", other, "--stats"], input: StoreFixtures.batchInput(100, widths: [320]))
        #expect(fromOther.stderr.contains("height store: 100 hits, 0 misses"), "\(fromOther.stderr)")
        #expect(try StoreFixtures.run(["store", "clear", url]).status == 0)
        #expect(try StoreFixtures.run(["store", "stats", url]).stdout.contains("entries: 0\n"))
        // A server that cannot be reached is the command's error.
        let down = try StoreFixtures.run(["store", "stats", "postgres://textmeasure@127.0.0.1:\(try PostgresServer.freePort())/x"])
        #expect(down.status != 0)
        #expect(down.stderr.contains("refused") || down.stderr.contains("reached"), "\(down.stderr)")
    }

    /// Two `serve` instances and a `batch` on one database: what one measured, the others find.
    @Test func twoServesAndABatchShareOneDatabase() throws {
        let server = try PostgresFixtures.server()
        let url = try server.makeDatabase()
        let a = try PostgresFixtures.Serve(["--store", url])
        let b = try PostgresFixtures.Serve(["--store", url])
        defer {
            _ = a.stop()
            _ = b.stop()
        }
        #expect(a.port != b.port)
        func array(_ lines: String) -> String { "[" + lines.split(separator: "\n").joined(separator: ",") + "]" }
        func results(_ json: String) throws -> NSArray {
            try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSArray ?? []
        }
        func rows() throws -> Int { Int(try server.psql("SELECT count(*) FROM textmeasure_heights", database: url)) ?? -1 }
        let fromBatch = PostgresFixtures.lines(20, from: 0), fromA = PostgresFixtures.lines(20, from: 20)
        let fromB = PostgresFixtures.lines(20, from: 40)
        // The batch measures, A answers from the store.
        let batch = try StoreFixtures.run(["batch", "--store", url], input: fromBatch)
        #expect(try a.measure(array(fromBatch)).contains("lineCount"))
        #expect(try a.metric("textmeasure_store_hits") == 20)
        #expect(try results(a.measure(array(fromBatch))) == (try results(array(batch.stdout))))
        // A measures, B answers from the store once A's writer has written.
        let measuredByA = try a.measure(array(fromA))
        #expect(try PostgresFixtures.eventually { try rows() == 40 })
        #expect(try b.measure(array(fromA)) == measuredByA)
        #expect(try b.metric("textmeasure_store_hits") == 20)
        #expect(try b.metric("textmeasure_store_misses") == 0)
        // B measures, the batch answers from the store.
        _ = try b.measure(array(fromB))
        #expect(try PostgresFixtures.eventually { try rows() == 60 })
        let last = try StoreFixtures.run(["batch", "--store", url, "--stats"], input: fromB)
        #expect(last.stderr.contains("height store: 20 hits, 0 misses, 0 written"), "\(last.stderr)")
        #expect(last.stdout == (try StoreFixtures.reference(fromB)))
        #expect(PostgresFixtures.warnings(a.stop() + b.stop()).isEmpty)
    }

    /// Processes and threads writing the same keys at once: no error, no warning, one row per key.
    @Test func concurrentWritersOnTheSameKeys() throws {
        let server = try PostgresFixtures.server()
        let url = try server.makeDatabase()
        let queries = Self.queries(400)
        let measured = PreparedTextCache(measurer: measurer).measurements(for: queries).map { StoredMeasurement(try! $0.get()) }
        let warnings = StoreFixtures.Warnings()
        let stores = try (0..<4).map { _ in try HeightStore(path: url, warn: warnings.sink) }
        let plain = queries.indices.filter { queries[$0].spans.isEmpty }
        DispatchQueue.concurrentPerform(iterations: 8) { writer in
            let store = stores[writer % stores.count]
            var generator = SplitMix64(seed: UInt64(writer))
            // Each writer saves every plain row in an order of its own, in batches of 50.
            let order = plain.shuffled(using: &generator)
            for start in stride(from: 0, to: order.count, by: 50) {
                let part = order[start..<min(order.count, start + 50)]
                store.save(part.map { measured[$0] }, for: part.map { queries[$0] }, fonts: measurer.cascade)
            }
            store.flush()
        }
        // Two batch processes with the same lines at the same time.
        let input = StoreFixtures.batchInput(300)
        let outcomes = Locked<[ProcessRunner.Outcome?]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let outcome = try? StoreFixtures.run(["batch", "--store", url], input: input)
            outcomes.withLock { $0.append(outcome) }
        }
        let reference = try StoreFixtures.reference(input)
        for outcome in outcomes.withLock({ $0 }) {
            guard let outcome else {
                Issue.record("a batch could not be run")
                continue
            }
            #expect(outcome.status == 0 && outcome.stdout == reference)
            #expect(PostgresFixtures.warnings(outcome.stderr).isEmpty, "\(outcome.stderr)")
        }
        #expect(warnings.all.isEmpty, "\(warnings.all)")
        #expect(stores.allSatisfy { $0.statistics.dropped == 0 })
        let count = try server.psql("SELECT count(*), count(DISTINCT (key, low)) FROM textmeasure_heights", database: url)
        #expect(count == "\(plain.count + 300)|\(plain.count + 300)", "\(count)")
        // And every row reads back as what was measured.
        let check = try HeightStore(path: url).measurements(for: plain.map { queries[$0] }, fonts: measurer.cascade)
        #expect(check == plain.map { Optional(measured[$0]) })
    }

    /// A row changed behind the store's back reads as a miss (its check value no longer matches).
    @Test func damagedRowReadsAsAMiss() throws {
        let server = try PostgresFixtures.server()
        let url = try server.makeDatabase()
        let queries = Self.queries(10).filter { $0.spans.isEmpty }
        let store = try HeightStore(path: url)
        _ = PreparedTextCache(measurer: measurer, store: store).measurements(for: queries)
        store.flush()
        try server.psql("UPDATE textmeasure_heights SET height = height + 1 WHERE key = (SELECT key FROM textmeasure_heights ORDER BY key LIMIT 1)",
                        database: url)
        let found = store.measurements(for: queries, fonts: measurer.cascade)
        #expect(found.filter { $0 == nil }.count == 1)
        #expect(store.statistics.damaged == 1)
    }
}
