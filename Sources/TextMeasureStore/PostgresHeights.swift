import Foundation
internal import Logging
internal import PostgresNIO
import TextMeasure
import TextMeasureSupport

/// The rows of a ``HeightStore`` kept in a PostgreSQL database, shared by every process and machine
/// that names the same database: the same keys (``StoreKey``), width ranges and check values as the
/// SQLite store, so an answer is the same whichever store gives it.
///
/// Reads: one statement per call (`WHERE key = ANY($1)`), on one of ``readerCount`` connections used
/// in turn. Writes: from the store's writer thread, on a connection of their own, as upserts of up
/// to ``rowsPerStatement`` rows sorted by key (`ON CONFLICT (key, low) DO UPDATE … WHERE` the check
/// value differs), so that two writers racing on the same keys neither fail nor deadlock.
///
/// Faults: every wait is bounded (``lookUpTimeout``, ``writeTimeoutSeconds``, the location's connect
/// timeout, 2 s unless `connect_timeout` says otherwise). A connection that fails or times out takes
/// the store *down*: one warning, the connections are closed, look-ups answer nil at once (the caller
/// measures) and rows to write are dropped, while a thread of its own connects again after a delay
/// that doubles from ``firstRetryDelay`` up to ``longestRetryDelay`` and starts again from the first
/// after a look-up succeeds. What cannot be fixed by waiting (a password refused, no such database, a
/// table of another program or of a newer schema) turns the store *off* for the process instead. A
/// write the server refuses while the connection stays up (a full disk, a read-only server) drops
/// those rows, with one warning per process.
///
/// Thread safety: `Sendable`. The connection state lives behind one lock; the connections are
/// postgres-nio's (`Sendable`, their queries queued and run in turn); callers block only on a future,
/// never on an event loop of their own.
final class PostgresHeights: Sendable {
    /// The longest a look-up waits for its answer before the caller measures instead.
    static let lookUpTimeout: TimeAmount = .seconds(1)
    /// The longest a write statement may take (client and server side), and a write waits for a lock.
    static let writeTimeoutSeconds = 10
    /// Connections for look-ups.
    static let readerCount = 2
    /// Rows written per statement.
    static let rowsPerStatement = 5_000
    /// The first wait before connecting again; it doubles after each failed attempt.
    static let firstRetryDelay: TimeAmount = .milliseconds(250)
    /// The longest wait between attempts to connect again.
    static let longestRetryDelay: TimeAmount = .seconds(10)
    /// The layout of the tables this program writes (`schema_version` in `textmeasure_store`).
    static let schemaVersion: Int64 = 1
    /// `application_id` in `textmeasure_store`, as `PRAGMA application_id` in a SQLite store: "TMHS".
    static let applicationID = Int64(HeightStore.applicationID)

    /// The table of measurements, and the table of facts about the store (application, schema and layout versions).
    static let heightsTable = "textmeasure_heights"
    static let infoTable = "textmeasure_store"

    let location: PostgresLocation
    private let configuration: PostgresConnection.Configuration
    private let warn: @Sendable (String) -> Void
    private let logger = Logger(label: "textmeasure.height-store.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    private let state = Locked(State())

    /// A set of open connections, numbered so that a failure seen on an older set does not take a
    /// newer one down.
    private struct Connections: Sendable {
        var readers: [PostgresConnection]
        var writer: PostgresConnection
        var generation: Int

        var all: [PostgresConnection] { readers + [writer] }
    }

    private enum Link: Sendable {
        /// Connected.
        case up(Connections)
        /// Not connected; look-ups answer nil. A new attempt starts on the first call after `retryAt`.
        case down(retryAt: NIODeadline, reconnecting: Bool)
        /// Closed, or a fault that waiting cannot fix: nothing more is tried.
        case off
    }

    private struct State: Sendable {
        var link = Link.off
        var generation = 0
        var retryDelay = PostgresHeights.firstRetryDelay
        var nextReader = 0
        var hasWarnedAboutWrites = false
    }

    /// Why connecting or a statement failed, and whether waiting could fix it.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// A password refused, no such database, a table not ours or of a newer schema.
        var isPermanent: Bool
        /// The store error `init` throws for a permanent failure.
        var storeError: HeightStoreError?
    }

    /// Connects to `location` and checks (or creates) the tables.
    ///
    /// - Parameters:
    ///   - location: The server and database.
    ///   - warn: Where the one warning of each outage goes.
    /// - Throws: ``HeightStoreError`` when the URL cannot be used or the server says something that
    ///   waiting cannot fix (see ``Failure/isPermanent``). A server that cannot be reached now is not
    ///   thrown: one warning, and the store connects again in the background.
    init(location: PostgresLocation, warn: @escaping @Sendable (String) -> Void) throws(HeightStoreError) {
        self.location = location
        self.warn = warn
        configuration = try location.configuration()
        do {
            let connections = try connect(generation: 1)
            state.withLock { state in
                state.generation = 1
                state.link = .up(connections)
            }
        } catch let failure {
            if failure.isPermanent {
                throw failure.storeError ?? .cannotOpen(path: location.display, reason: failure.description)
            }
            state.withLock { state in
                state.generation = 1
                state.link = .down(retryAt: .now() + state.retryDelay, reconnecting: false)
                state.retryDelay = min(state.retryDelay * 2, Self.longestRetryDelay)
            }
            warn("height store \(location.display) cannot be reached, measuring until it can "
                 + "(trying again in the background): \(failure)")
        }
    }

    deinit {
        close()
    }

    /// Whether the store is connected now.
    var isUp: Bool {
        state.withLock { if case .up = $0.link { true } else { false } }
    }

    /// Whether the store is off for good (closed, or a fault that waiting cannot fix).
    var isOff: Bool {
        state.withLock { if case .off = $0.link { true } else { false } }
    }

    /// Closes the connections; later calls answer nil and write nothing.
    func close() {
        let connections = state.withLock { state -> Connections? in
            defer { state.link = .off }
            if case .up(let connections) = state.link { return connections }
            return nil
        }
        connections?.all.forEach(Self.close)
    }

    // MARK: Reading

    /// One stored row of a key, as read: its lower width bound and its measurement, nil when a column
    /// has another type or value than this program writes or the check value differs (damaged).
    struct Row: Sendable {
        var low: Int64
        var measurement: StoredMeasurement?
    }

    /// Every row stored under `keys`, by key, in one statement; nil when the store is down or off (or
    /// goes down now: the look-up failed or timed out).
    ///
    /// - Returns: The rows of each key found, or nil.
    /// - Complexity: One round trip, waiting at most ``lookUpTimeout``.
    func rows(forKeys keys: [[UInt8]]) -> [[UInt8]: [Row]]? {
        guard let (connection, generation) = reader() else { return nil }
        var binds = PostgresBindings(capacity: 1)
        binds.append(keys.map { ByteBuffer(bytes: $0) })
        let query = PostgresQuery(unsafeSQL: """
            SELECT key, low, high, height, line_count, truncated, line_height, widest, check_value
            FROM \(Self.heightsTable) WHERE key = ANY($1)
            """, binds: binds)
        let result: PostgresQueryResult
        do {
            result = try Self.wait(for: connection.query(query, logger: logger), until: .now() + Self.lookUpTimeout)
        } catch {
            goDown(generation: generation, because: Self.failure(error))
            return nil
        }
        state.withLock { $0.retryDelay = Self.firstRetryDelay }
        var found: [[UInt8]: [Row]] = [:]
        for row in result.rows {
            guard let (key, row) = Self.decode(row) else { continue }
            found[key, default: []].append(row)
        }
        return found
    }

    /// The key and contents of a row of the table (columns as selected by ``rows(forKeys:)``); nil
    /// when its key or lower bound cannot be read.
    private static func decode(_ row: PostgresRow) -> ([UInt8], Row)? {
        guard let (keyBytes, low, high, height, lineCount, truncated, lineHeight, widest, check) = try? row.decode(
            (ByteBuffer, Int64, Int64, Double, Int64, Bool, Double, Double, Int64).self) else {
            // A column of another type, or null: damaged, if its key and lower bound can be read.
            guard let (keyBytes, low) = try? row.decode((ByteBuffer, Int64).self) else { return nil }
            return (Array(keyBytes.readableBytesView), Row(low: low, measurement: nil))
        }
        let key = Array(keyBytes.readableBytesView)
        // Checked as the SQLite store checks its rows: ranges, counts and the check value.
        let read = HeightStore.ReadRow(low: low, high: high, height: height, lineCount: lineCount, truncated: truncated ? 1 : 0,
                                       lineHeight: lineHeight, widest: widest, check: check)
        return (key, Row(low: low, measurement: read.decode(key: key)))
    }

    // MARK: Writing

    /// Upserts `rows` (on the calling thread: the store's writer), ``rowsPerStatement`` at a time.
    ///
    /// - Returns: How many rows reached the server; the rest were dropped (the store is down, or the
    ///   server refused them: a full disk, a read-only server).
    func write(_ rows: [StoreWriter.Row]) -> Int {
        guard let (connection, generation) = writer() else { return 0 }
        // Sorted by (key, low) and without repeats: writers that lock the same rows in the same order
        // cannot deadlock, and one statement must not update a row twice.
        var unique: [RowKey: StoreWriter.Row] = [:]
        for row in rows { unique[RowKey(key: row.key, low: row.measurement.validWidthUnits.lowerBound)] = row }
        let sorted = unique.sorted { $0.key < $1.key }.map(\.value)
        var written = 0
        var start = 0
        while start < sorted.count {
            let chunk = sorted[start..<min(sorted.count, start + Self.rowsPerStatement)]
            start += chunk.count
            do {
                try upsert(chunk, on: connection)
                written += chunk.count
            } catch {
                let failure = Self.failure(error)
                if Self.isConnectionFailure(error) {
                    goDown(generation: generation, because: failure)
                    return written
                }
                let first = state.withLock { state -> Bool in
                    defer { state.hasWarnedAboutWrites = true }
                    return !state.hasWarnedAboutWrites
                }
                if first {
                    warn("height store \(location.display) refused to save heights (they are measured again when "
                         + "asked; look-ups go on): \(failure)")
                }
            }
        }
        return written
    }

    private func upsert(_ rows: ArraySlice<StoreWriter.Row>, on connection: PostgresConnection) throws {
        var binds = PostgresBindings(capacity: 9)
        binds.append(rows.map { ByteBuffer(bytes: $0.key) })
        binds.append(rows.map { Int64($0.measurement.validWidthUnits.lowerBound) })
        binds.append(rows.map { Int64($0.measurement.validWidthUnits.upperBound) })
        binds.append(rows.map(\.measurement.height))
        binds.append(rows.map { Int64($0.measurement.lineCount) })
        binds.append(rows.map(\.measurement.isTruncated))
        binds.append(rows.map(\.measurement.lineHeight))
        binds.append(rows.map(\.measurement.widestLineWidth))
        binds.append(rows.map { StoreKey.check(key: $0.key, $0.measurement) })
        let query = PostgresQuery(unsafeSQL: """
            INSERT INTO \(Self.heightsTable) AS h
                (key, low, high, height, line_count, truncated, line_height, widest, check_value)
            SELECT * FROM unnest($1::bytea[], $2::int8[], $3::int8[], $4::float8[], $5::int8[], $6::bool[],
                                 $7::float8[], $8::float8[], $9::int8[])
            ON CONFLICT (key, low) DO UPDATE SET high = EXCLUDED.high, height = EXCLUDED.height,
                line_count = EXCLUDED.line_count, truncated = EXCLUDED.truncated, line_height = EXCLUDED.line_height,
                widest = EXCLUDED.widest, check_value = EXCLUDED.check_value
            WHERE h.check_value IS DISTINCT FROM EXCLUDED.check_value
            """, binds: binds)
        let deadline = NIODeadline.now() + .seconds(Int64(Self.writeTimeoutSeconds))
        do {
            _ = try Self.wait(for: connection.query(query, logger: logger), until: deadline)
        } catch let error as PSQLError where Self.sqlState(error) == "40P01" {
            // A deadlock with a writer that sorts otherwise (another program): once more.
            _ = try Self.wait(for: connection.query(query, logger: logger), until: deadline)
        }
    }

    /// A row's identity in the table, ordered as the primary key's index orders it.
    private struct RowKey: Hashable, Comparable {
        var key: [UInt8]
        var low: Int

        static func < (a: RowKey, b: RowKey) -> Bool {
            a.key == b.key ? a.low < b.low : a.key.lexicographicallyPrecedes(b.key)
        }
    }

    // MARK: Maintenance

    /// Runs `sql` on the writer connection (connecting now, once, if the store is down) and returns its rows.
    ///
    /// - Throws: ``HeightStoreError/failed(path:reason:)``.
    func maintenance(_ sql: String, timeout: TimeAmount = .seconds(600)) throws(HeightStoreError) -> [PostgresRow] {
        var reason = "the server cannot be reached"
        if !isUp, let failure = reconnectNow() { reason = failure.description }
        guard let (connection, generation) = writer() else {
            throw .failed(path: location.display, reason: reason)
        }
        do {
            return try Self.wait(for: connection.query(PostgresQuery(unsafeSQL: sql), logger: logger),
                                 until: .now() + timeout).rows
        } catch {
            if Self.isConnectionFailure(error) { goDown(generation: generation, because: Self.failure(error)) }
            throw .failed(path: location.display, reason: Self.failure(error).description)
        }
    }

    /// Up to `limit` rows of the table in key order after `after` (exclusive), for an export; damaged
    /// rows are skipped.
    ///
    /// - Returns: The rows, and where the next page starts (nil after the last page).
    func page(after: (key: [UInt8], low: Int64)?, limit: Int) throws(HeightStoreError)
        -> (rows: [StoreWriter.Row], next: (key: [UInt8], low: Int64)?) {
        guard let (connection, _) = writer() else {
            throw .failed(path: location.display, reason: "the server cannot be reached")
        }
        var binds = PostgresBindings(capacity: 2)
        var condition = ""
        if let after {
            binds.append(ByteBuffer(bytes: after.key))
            binds.append(after.low)
            condition = "WHERE (key, low) > ($1, $2)"
        }
        let query = PostgresQuery(unsafeSQL: """
            SELECT key, low, high, height, line_count, truncated, line_height, widest, check_value
            FROM \(Self.heightsTable) \(condition) ORDER BY key, low LIMIT \(limit)
            """, binds: binds)
        let rows: [PostgresRow]
        do {
            rows = try Self.wait(for: connection.query(query, logger: logger), until: .now() + .seconds(600)).rows
        } catch {
            throw .failed(path: location.display, reason: Self.failure(error).description)
        }
        var result: [StoreWriter.Row] = []
        var last: (key: [UInt8], low: Int64)?
        for row in rows {
            guard let (key, row) = Self.decode(row) else { continue }
            last = (key, row.low)
            if let measurement = row.measurement { result.append(StoreWriter.Row(key: key, measurement: measurement)) }
        }
        return (result, rows.count < limit ? nil : last)
    }

    // MARK: Connections

    /// A reader connection (the readers in turn) and its generation, or nil when the store is down
    /// (starting an attempt to connect again when one is due) or off.
    private func reader() -> (PostgresConnection, Int)? {
        connection { state, connections in
            state.nextReader = (state.nextReader + 1) % connections.readers.count
            return connections.readers[state.nextReader]
        }
    }

    /// The writer connection and its generation, as ``reader()``.
    private func writer() -> (PostgresConnection, Int)? {
        connection { _, connections in connections.writer }
    }

    /// The connection `pick` chooses while the store is up, and its generation; nil when the store is
    /// down (starting an attempt to connect again when one is due) or off.
    private func connection(_ pick: (inout State, Connections) -> PostgresConnection) -> (PostgresConnection, Int)? {
        let (chosen, reconnect) = state.withLock { state -> ((PostgresConnection, Int)?, Bool) in
            switch state.link {
            case .up(let connections):
                return ((pick(&state, connections), connections.generation), false)
            case .down(let retryAt, let reconnecting):
                guard !reconnecting, NIODeadline.now() >= retryAt else { return (nil, false) }
                state.link = .down(retryAt: retryAt, reconnecting: true)
                return (nil, true)
            case .off:
                return (nil, false)
            }
        }
        if reconnect { reconnectInBackground() }
        return chosen
    }

    /// Takes the store down after a failure on connections of `generation` (one warning), unless
    /// that set is gone already.
    private func goDown(generation: Int, because failure: Failure) {
        let closing = state.withLock { state -> Connections? in
            guard case .up(let connections) = state.link, connections.generation == generation else { return nil }
            state.link = .down(retryAt: .now() + state.retryDelay, reconnecting: false)
            state.retryDelay = min(state.retryDelay * 2, Self.longestRetryDelay)
            return connections
        }
        guard let closing else { return }
        closing.all.forEach(Self.close)
        warn("height store \(location.display) lost, measuring until it is back (reconnecting in the background): "
             + "\(failure)")
    }

    private func reconnectInBackground() {
        let thread = Thread { [self] in _ = reconnectNow() }
        thread.name = "textmeasure.height-store.connect"
        thread.start()
    }

    /// One attempt to connect, on this thread; the store is up, down (retrying later) or off after it.
    ///
    /// - Returns: Why connecting failed, if it did.
    @discardableResult
    private func reconnectNow() -> Failure? {
        let generation = state.withLock { state -> Int? in
            if case .off = state.link { return nil }
            state.generation += 1
            return state.generation
        }
        guard let generation else { return Failure(description: "the store is closed", isPermanent: true) }
        let outcome = Result { () throws(Failure) in try connect(generation: generation) }
        var permanent: Failure?
        let unused = state.withLock { state -> Connections? in
            switch (state.link, outcome) {
            case (.off, .success(let connections)):
                return connections   // closed meanwhile
            case (.up, .success(let connections)):
                return connections   // another attempt got there first
            case (_, .success(let connections)):
                state.link = .up(connections)
                return nil
            case (.off, .failure), (.up, .failure):
                return nil
            case (_, .failure(let failure)):
                if failure.isPermanent {
                    state.link = .off
                    permanent = failure
                } else {
                    state.link = .down(retryAt: .now() + state.retryDelay, reconnecting: false)
                    state.retryDelay = min(state.retryDelay * 2, Self.longestRetryDelay)
                }
                return nil
            }
        }
        unused?.all.forEach(Self.close)
        if let permanent {
            warn("height store \(location.display) turned off, measuring everything: \(permanent)")
        }
        if case .failure(let failure) = outcome { return failure }
        return nil
    }

    /// Opens the connections and checks (or creates) the tables, within the connect timeout.
    private func connect(generation: Int) throws(Failure) -> Connections {
        let deadline = NIODeadline.now() + location.connectTimeout
        let group = MultiThreadedEventLoopGroup.singleton
        let futures = (0...Self.readerCount).map { index in
            PostgresConnection.connect(on: group.next(), configuration: configuration, id: generation * 16 + index,
                                       logger: logger)
        }
        var opened: [PostgresConnection] = []
        var failure: Failure?
        for future in futures {
            do {
                opened.append(try Self.wait(for: future, until: deadline))
            } catch {
                if failure == nil { failure = Self.failure(error) }
                // The others are still connecting: each one that succeeds is closed.
                future.whenSuccess(Self.close)
            }
        }
        if let failure {
            opened.forEach(Self.close)
            throw failure
        }
        let connections = Connections(readers: Array(opened.dropFirst()), writer: opened[0], generation: generation)
        do {
            try prepareSchema(on: connections.writer, deadline: deadline)
        } catch {
            connections.all.forEach(Self.close)
            throw error
        }
        return connections
    }

    /// Creates the tables in a database without them, checks them where they exist, and empties a
    /// table of an older layout version (its keys can never match; one warning): in one transaction,
    /// under an advisory lock, so that processes starting together create them once.
    private func prepareSchema(on connection: PostgresConnection, deadline: NIODeadline) throws(Failure) {
        func run(_ sql: String) throws(Failure) -> [PostgresRow] {
            do {
                return try Self.wait(for: connection.query(PostgresQuery(unsafeSQL: sql), logger: logger),
                                     until: deadline).rows
            } catch {
                throw Self.failure(error)
            }
        }
        func reject(_ error: HeightStoreError) throws(Failure) -> Never {
            _ = try? run("ROLLBACK")
            throw Failure(description: error.description, isPermanent: true, storeError: error)
        }
        let display = location.display
        var emptiedLayout: Int64?
        _ = try run("BEGIN")
        _ = try run("SELECT pg_advisory_xact_lock(\(Self.applicationID))")
        let present = try run("SELECT to_regclass('\(Self.infoTable)') IS NOT NULL, to_regclass('\(Self.heightsTable)') IS NOT NULL")
        guard let (hasInfo, hasHeights) = try? present.first?.decode((Bool, Bool).self) else {
            try reject(.cannotOpen(path: display, reason: "the server did not say which tables exist"))
        }
        if !hasInfo && hasHeights {
            try reject(.foreign(path: display + " (table \(Self.heightsTable))"))
        }
        if !hasInfo {
            _ = try run("CREATE TABLE \(Self.infoTable) (name text PRIMARY KEY, value bigint NOT NULL)")
            _ = try run("""
                INSERT INTO \(Self.infoTable) VALUES ('application_id', \(Self.applicationID)),
                    ('schema_version', \(Self.schemaVersion)), ('layout_version', \(TextMeasurer.layoutVersion))
                """)
        } else {
            var info: [String: Int64] = [:]
            for row in try run("SELECT name, value FROM \(Self.infoTable)") {
                guard let (name, value) = try? row.decode((String, Int64).self) else {
                    try reject(.foreign(path: display + " (table \(Self.infoTable))"))
                }
                info[name] = value
            }
            guard info["application_id"] == Self.applicationID else {
                try reject(.foreign(path: display + " (table \(Self.infoTable))"))
            }
            let schema = info["schema_version"] ?? 0
            guard schema <= Self.schemaVersion else { try reject(.newerSchema(path: display, version: Int(schema))) }
            let layout = info["layout_version"] ?? 0
            if layout < Int64(TextMeasurer.layoutVersion) && hasHeights {
                // Written by an older layout: its keys can never match, so its rows are only dead weight.
                // A newer layout's rows are left alone: during a rolling upgrade both write to the table,
                // each under keys of its own version.
                _ = try run("TRUNCATE \(Self.heightsTable)")
                emptiedLayout = layout
            }
            if layout < Int64(TextMeasurer.layoutVersion) {
                _ = try run("UPDATE \(Self.infoTable) SET value = \(TextMeasurer.layoutVersion) WHERE name = 'layout_version'")
            }
        }
        if !hasHeights {
            _ = try run("""
                CREATE TABLE \(Self.heightsTable) (
                    key bytea NOT NULL, low bigint NOT NULL, high bigint NOT NULL,
                    height double precision NOT NULL, line_count bigint NOT NULL, truncated boolean NOT NULL,
                    line_height double precision NOT NULL, widest double precision NOT NULL, check_value bigint NOT NULL,
                    PRIMARY KEY (key, low)
                )
                """)
        } else {
            do {
                _ = try run("""
                    SELECT key, low, high, height, line_count, truncated, line_height, widest, check_value
                    FROM \(Self.heightsTable) LIMIT 0
                    """)
            } catch let error where !error.isPermanent {
                throw error
            } catch {
                try reject(.foreign(path: display + " (table \(Self.heightsTable): \(error))"))
            }
        }
        _ = try run("COMMIT")
        if let emptiedLayout {
            // Every machine sharing the database measures again: worth one line, unlike a file's.
            warn("height store \(display) held heights of layout version \(emptiedLayout), which this "
                 + "textmeasure (layout version \(TextMeasurer.layoutVersion)) cannot use: emptied, measuring them again")
        }
    }

    // MARK: Errors and waiting

    /// Closes `connection` without waiting (a query still running on it fails). The connection is
    /// kept until it is closed: postgres-nio wants none to go away open.
    private static func close(_ connection: PostgresConnection) {
        let closed: EventLoopFuture<Void> = connection.close()
        closed.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// A timeout of ours.
    private struct TimedOut: Error, CustomStringConvertible {
        var description: String { "no answer in time" }
    }

    /// Waits on this (non-event-loop) thread for `future`, at most until `deadline`.
    private static func wait<Value: Sendable>(for future: EventLoopFuture<Value>, until deadline: NIODeadline) throws -> Value {
        let promise = future.eventLoop.makePromise(of: Value.self)
        let timer = future.eventLoop.scheduleTask(deadline: deadline) { promise.fail(TimedOut()) }
        future.whenComplete { result in
            timer.cancel()
            promise.completeWith(result)
        }
        return try promise.futureResult.wait()
    }

    /// The SQLSTATE of a server's error, if it is one.
    private static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// Whether `error` means the connection cannot be used any more (or did not answer in time), as
    /// opposed to one statement refused.
    private static func isConnectionFailure(_ error: any Error) -> Bool {
        if error is TimedOut { return true }
        guard let error = error as? PSQLError else { return true }
        guard error.code == .server, let state = sqlState(error) else { return true }
        // 08: connection exception; 57P01-57P03: the server shutting down or starting; 58: system error.
        return state.hasPrefix("08") || state.hasPrefix("57P") || state.hasPrefix("58")
    }

    /// `error` as a ``Failure``: permanent when the server refused who we are or what we asked for in
    /// a way waiting cannot fix.
    static func failure(_ error: any Error) -> Failure {
        guard let psql = error as? PSQLError else {
            return Failure(description: "\(error)", isPermanent: false)
        }
        let description: String
        if let info = psql.serverInfo, let message = info[.message] {
            description = message + (info[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
        } else if let underlying = psql.underlying {
            description = "\(underlying)"
        } else {
            description = "\(psql.code)"
        }
        switch psql.code {
        case .server:
            let state = sqlState(psql) ?? ""
            // 28: authorization refused; 3D: no such database; 42: a statement refused (privileges, a
            // table not as expected). Everything else (shutting down, starting up, too many
            // connections, a full disk) may pass.
            let permanent = state.hasPrefix("28") || state.hasPrefix("3D") || state.hasPrefix("42")
            return Failure(description: description, isPermanent: permanent)
        case .sslUnsupported, .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
            return Failure(description: description, isPermanent: true)
        default:
            return Failure(description: description, isPermanent: false)
        }
    }
}
