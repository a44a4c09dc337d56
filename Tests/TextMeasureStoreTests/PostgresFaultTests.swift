import Foundation
import Testing
import TestSupport
import TextMeasure
import TextMeasureSupport
@testable import TextMeasureStore

/// A PostgreSQL store that cannot be reached, answers too slowly, refuses us, cannot write or holds
/// tables of another version never gives a wrong height and never stops the measuring: one warning,
/// everything measured meanwhile, output byte-identical to a run without a store.
@Suite("HeightStore on PostgreSQL: faults", .enabled(if: PostgresServer.isAvailable, PostgresServer.skipReason))
struct PostgresFaultTests {
    let measurer = StoreFixtures.measurer
    static let input = StoreFixtures.batchInput(60)

    /// Runs a batch with `--store url` and checks it printed what a run without a store prints, with
    /// `warnings` warning lines; returns its standard error.
    @discardableResult
    private func expectSameAsWithoutStore(_ url: String, warnings expected: Int = 1, input: String = Self.input,
                                          sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try StoreFixtures.run(["batch", "--store", url, "--stats"], input: input)
        #expect(result.status == 0, sourceLocation: sourceLocation)
        #expect(result.stdout == (try StoreFixtures.reference(input)), sourceLocation: sourceLocation)
        #expect(PostgresFixtures.warnings(result.stderr).count == expected, "\(result.stderr)", sourceLocation: sourceLocation)
        return result.stderr
    }

    @Test func serverDownAtStart() throws {
        let url = "postgres://textmeasure@127.0.0.1:\(try PostgresServer.freePort())/heights"
        let stderr = try expectSameAsWithoutStore(url)
        #expect(stderr.contains("cannot be reached"), "\(stderr)")
        // In the library: a store all the same (it connects when the server comes), one warning.
        let warnings = StoreFixtures.Warnings()
        let store = try #require(HeightStore.openOrWarn(path: url, warn: warnings.sink))
        #expect(!store.isDisabled && warnings.all.count == 1)
        #expect(store.measurements(for: PostgresStoreTests.queries(5), fonts: measurer.cascade).allSatisfy { $0 == nil })
    }

    /// A server that accepts the connection and never answers: connecting gives up at its timeout.
    @Test func silentServer() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && listen(socket, 16) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        try #require(listening)
        let port = Int(UInt16(bigEndian: address.sin_port))
        // The batch ends although the server never will answer: connecting gave up.
        let stderr = try expectSameAsWithoutStore("postgres://textmeasure@127.0.0.1:\(port)/heights?connect_timeout=1")
        #expect(stderr.contains("cannot be reached"), "\(stderr)")
    }

    /// A look-up that gets no answer (the table locked by another session) gives up after
    /// `PostgresHeights.lookUpTimeout`: the caller measures.
    @Test func slowLookUp() throws {
        let server = try PostgresFixtures.server()
        let url = try server.makeDatabase()
        let warnings = StoreFixtures.Warnings()
        let store = try HeightStore(path: url, warn: warnings.sink)
        let queries = PostgresStoreTests.queries(30)
        _ = PreparedTextCache(measurer: measurer, store: store).measurements(for: queries)
        store.flush()
        let locker = try server.psqlInBackground(
            "BEGIN; LOCK TABLE textmeasure_heights IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(30); COMMIT;", database: url)
        defer {
            locker.terminate()
            _ = try? server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' "
                                 + "AND pid <> pg_backend_pid()", database: url)
        }
        #expect(try PostgresFixtures.eventually {
            try server.psql("SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND granted "
                            + "AND relation = 'textmeasure_heights'::regclass", database: url) == "1"
        })
        let plain = queries.filter { $0.spans.isEmpty }
        let found = store.measurements(for: plain, fonts: measurer.cascade)
        // It gave up by itself: the lock it would have waited for is still held.
        #expect(found.allSatisfy { $0 == nil })
        #expect(try server.psql("SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND granted "
                                + "AND relation = 'textmeasure_heights'::regclass", database: url) == "1")
        #expect(warnings.all.count == 1 && warnings.all[0].contains("lost"), "\(warnings.all)")
        // Measured meanwhile: the same results as without a store.
        let measured = PreparedTextCache(measurer: measurer, store: store).measurements(for: queries).map { try? $0.get() }
        #expect(measured == PreparedTextCache(measurer: measurer).measurements(for: queries).map { try? $0.get() })
        // Locked at start: connecting gives up at its timeout, and the batch goes on without the store.
        try expectSameAsWithoutStore(url + "?connect_timeout=1")
    }

    @Test func refusedConnections() throws {
        let server = try PostgresFixtures.server()
        for url in ["postgres://nobody_here@127.0.0.1:\(server.port)/postgres",       // no such role
                    "postgres://\(PostgresServer.role)@127.0.0.1:\(server.port)/no_such_database",
                    "postgres://\(PostgresServer.role)@127.0.0.1:\(server.port)/postgres?sslmode=require",   // no TLS there
                    "postgres://\(PostgresServer.role)@127.0.0.1:\(server.port)/postgres?no_such_option=1"] {
            let warnings = StoreFixtures.Warnings()
            #expect(HeightStore.openOrWarn(path: url, warn: warnings.sink) == nil, "\(url)")
            #expect(warnings.all.count == 1, "\(url): \(warnings.all)")
            try expectSameAsWithoutStore(url)
        }
    }

    /// The server refusing to write (here a trigger raising `disk_full`, as a full disk does): the
    /// rows are dropped with one warning, and look-ups go on.
    @Test func fullDisk() throws {
        let server = try PostgresFixtures.server()
        let url = try server.makeDatabase()
        let stored = StoreFixtures.batchInput(30)
        _ = try StoreFixtures.run(["batch", "--store", url], input: stored)
        try server.psql("""
            CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full';
            END $$;
            CREATE TRIGGER full_disk BEFORE INSERT OR UPDATE ON textmeasure_heights FOR EACH ROW EXECUTE FUNCTION full_disk();
            """, database: url)
        let stderr = try expectSameAsWithoutStore(url, input: Self.input)
        #expect(stderr.contains("No space left on device"), "\(stderr)")
        #expect(stderr.contains("height store: 30 hits, 30 misses, 0 written"), "\(stderr)")
        #expect(try server.psql("SELECT count(*) FROM textmeasure_heights", database: url) == "30")
    }

    @Test func tablesOfAnotherLayoutOrSchemaVersion() throws {
        let server = try PostgresFixtures.server()
        let version = Int(TextMeasurer.layoutVersion)
        func count(_ url: String) throws -> String { try server.psql("SELECT count(*) FROM textmeasure_heights", database: url) }
        func layout(_ url: String) throws -> String {
            try server.psql("SELECT value FROM textmeasure_store WHERE name = 'layout_version'", database: url)
        }
        // An older layout version: emptied (its keys can never match) with one warning, then used.
        let older = try server.makeDatabase()
        _ = try StoreFixtures.run(["batch", "--store", older], input: Self.input)
        try server.psql("UPDATE textmeasure_store SET value = \(version - 1) WHERE name = 'layout_version'", database: older)
        let olderRun = try StoreFixtures.run(["batch", "--store", older, "--stats"], input: Self.input)
        #expect(olderRun.stdout == (try StoreFixtures.reference(Self.input)))
        #expect(olderRun.stderr.contains("0 hits, 60 misses, 60 written"), "\(olderRun.stderr)")
        #expect(PostgresFixtures.warnings(olderRun.stderr).count == 1, "\(olderRun.stderr)")
        #expect(try layout(older) == "\(version)")
        // A newer layout version (a rolling upgrade's other half): its rows stay, ours go beside them.
        let newer = try server.makeDatabase()
        _ = try StoreFixtures.run(["batch", "--store", newer], input: Self.input)
        try server.psql("UPDATE textmeasure_store SET value = \(version + 1) WHERE name = 'layout_version'", database: newer)
        let newerRun = try StoreFixtures.run(["batch", "--store", newer, "--stats"], input: Self.input)
        #expect(newerRun.stderr.contains("60 hits, 0 misses"), "\(newerRun.stderr)")
        #expect(PostgresFixtures.warnings(newerRun.stderr).isEmpty)
        #expect(try layout(newer) == "\(version + 1)" && count(newer) == "60")
        // A newer schema: left untouched, skipped with one warning.
        let schema = try server.makeDatabase()
        _ = try StoreFixtures.run(["batch", "--store", schema], input: Self.input)
        try server.psql("UPDATE textmeasure_store SET value = 99 WHERE name = 'schema_version'", database: schema)
        #expect(try expectSameAsWithoutStore(schema).contains("newer textmeasure"))
        #expect(try count(schema) == "60")
        // Tables of another program: left untouched, skipped with one warning.
        let foreign = try server.makeDatabase()
        try server.psql("CREATE TABLE textmeasure_heights (key bytea, low int); INSERT INTO textmeasure_heights VALUES ('\\x00', 1)",
                        database: foreign)
        #expect(try expectSameAsWithoutStore(foreign).contains("another program"))
        #expect(try count(foreign) == "1")
        let foreignInfo = try server.makeDatabase()
        try server.psql("CREATE TABLE textmeasure_store (name text, value bigint); INSERT INTO textmeasure_store VALUES ('x', 1)",
                        database: foreignInfo)
        try expectSameAsWithoutStore(foreignInfo)
    }
}

/// Faults that take the server away: each test has a server of its own to kill and restart.
@Suite("HeightStore on PostgreSQL: a server killed and restarted",
       .enabled(if: PostgresServer.isAvailable, PostgresServer.skipReason))
struct PostgresRestartTests {
    let measurer = StoreFixtures.measurer

    /// PostgreSQL killed in the middle of a batch and brought back: no line lost, no wrong height, one
    /// warning; the batch goes on, connects again and answers from the server once it is back.
    @Test func killedMidBatchAndBroughtBack() throws {
        let server = try PostgresServer()
        defer { server.kill() }
        let url = server.url()
        let part = 400
        func piece(_ index: Int) -> String { PostgresFixtures.lines(part, from: index * part) }
        // Pieces 0 and 1 before the kill, 2 while the server is down, 3 to 5 after it is back, then
        // pieces 0 and 1 again (not held in memory: --cached-texts 1), which the server answers.
        let pieces = (0..<6).map(piece) + [piece(0), piece(1)]
        let batch = try PostgresFixtures.FedBatch(["batch", "--store", url, "--stats", "--chunk", "200", "--cached-texts", "1"])
        try batch.feed(pieces[0] + pieces[1])
        #expect(batch.waitForOutput(lines: 2 * part))
        #expect(try PostgresFixtures.eventually {
            (try? server.psql("SELECT count(*) FROM textmeasure_heights")) == "\(2 * part)"
        })
        server.kill()
        try batch.feed(pieces[2])
        #expect(batch.waitForOutput(lines: 3 * part))
        try server.start()
        // Connecting again waits for a delay that doubled while the server was down (at most 10 s);
        // each piece after it gives the store a chance to connect.
        var written = 0
        for (index, text) in pieces[3...5].enumerated() {
            Thread.sleep(forTimeInterval: 1.5)
            try batch.feed(text)
            #expect(batch.waitForOutput(lines: (4 + index) * part))
        }
        #expect(try PostgresFixtures.eventually {
            written = Int((try? server.psql("SELECT count(*) FROM textmeasure_heights")) ?? "") ?? 0
            return written > 2 * part
        }, "nothing written since the server came back")
        try batch.feed(pieces[6] + pieces[7])
        let outcome = try batch.finish()
        #expect(outcome.status == 0)
        #expect(outcome.stdout == (try StoreFixtures.reference(pieces.joined())), "a line lost or a height wrong")
        let warnings = PostgresFixtures.warnings(outcome.stderr)
        #expect(warnings.count == 1 && warnings[0].contains("lost"), "\(outcome.stderr)")
        #expect(PostgresFixtures.count("hits", in: outcome.stderr) == 2 * part, "\(outcome.stderr)")
    }

    /// A server restarted under a live store: one warning, then answers again once it is back.
    @Test func restartedUnderALiveStore() throws {
        let server = try PostgresServer()
        defer { server.kill() }
        let warnings = StoreFixtures.Warnings()
        let store = try HeightStore(path: server.url(), warn: warnings.sink)
        let queries = PostgresStoreTests.queries(40).filter { $0.spans.isEmpty }
        _ = PreparedTextCache(measurer: measurer, store: store).measurements(for: queries)
        store.flush()
        server.kill()
        try server.start()
        #expect(store.measurements(for: queries, fonts: measurer.cascade).allSatisfy { $0 == nil })
        #expect(try PostgresFixtures.eventually {
            store.measurements(for: queries, fonts: measurer.cascade).allSatisfy { $0 != nil }
        }, "the store did not connect again")
        #expect(warnings.all.count == 1, "\(warnings.all)")
        #expect(!store.isDisabled)
    }
}
