import TextMeasureSupport
import Foundation
internal import GRDB
internal import GRDBSQLite
import TextMeasure

/// Heights that outlive the process: a ``MeasurementStore`` in a SQLite file (WAL mode, through GRDB),
/// or in a PostgreSQL database that many machines share (through postgres-nio).
///
/// ```swift
/// import TextMeasureStore
///
/// let store = HeightStore.openOrWarn(path: "heights.sqlite")          // nil (and one warning) if unusable
/// // or: HeightStore.openOrWarn(path: "postgres://textmeasure@db.internal:5432/heights")
/// let texts = PreparedTextCache(measurer: measurer, store: store)
/// let m = try texts.measure(body, style: style, width: 343, withLines: false)   // memory, store, measure
/// store?.close()                                                        // or let it go: deinit closes
/// ```
///
/// A stored result is keyed by the fonts' content digests, the style, ``TextMeasurer/layoutVersion``
/// and the text's SHA-256 (see `StoreKey`); beside the key it keeps height, line count, truncation,
/// line height, widest line and the layout widths over which they hold, so one row answers every
/// width inside its range and none outside.
///
/// Faults never give a wrong height and never stop the caller: a missing folder, an unreadable,
/// read-only, foreign or corrupt file makes ``init(path:warn:)`` throw (``openOrWarn(path:warn:)``
/// turns that into one warning and nil); a read or write that fails later (a full disk, a file
/// damaged meanwhile) gives one warning and turns the store off for this process, so everything is
/// measured. A row whose check value does not match its contents reads as a miss. A file written by
/// another layout version is emptied when opened (its keys could never match anyway). A process
/// killed while writing leaves the last committed transaction (SQLite's WAL recovery).
///
/// Closing (``close()``, or the last reference going away) writes what is queued, folds the
/// write-ahead log into the file (`wal_checkpoint(TRUNCATE)`) and closes the connections, so that the
/// `.sqlite` file alone holds every row: copying it without its `-wal` loses nothing. A file another
/// process is writing is copied safely with ``export(to:)``.
///
/// Thread safety: every method may be called from any thread. Reads run on GRDB's pool of reader
/// connections (concurrently with each other and with the writer); writes are queued to one
/// background writer thread (``StoreWriter``) that commits a transaction per batch. Several processes may
/// share one file: WAL lets readers and one writer work at once, and a writer waits up to
/// ``busyTimeout`` seconds for another process's transaction.
///
/// ## PostgreSQL
///
/// Given a `postgres://` or `postgresql://` URL (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`,
/// with `sslmode`, `connect_timeout` and `host=/socket/folder` as in libpq), the same rows (the same
/// keys, width ranges and check values) live in two tables of that database, `textmeasure_heights`
/// and `textmeasure_store`, created on first use: every process and machine naming it shares them,
/// and an answer is the same whichever store gives it. A look-up of many queries is one statement
/// (`WHERE key = ANY($1)`); writes are batched on the writer thread as upserts that any number of
/// writers may race on. Every wait is bounded: connecting 2 s (or `connect_timeout`), a look-up
/// 1 s, a write 10 s. A server that cannot be reached (down at start, killed, restarting, too slow)
/// gives one warning per outage: meanwhile everything is measured, and the store connects again in
/// the background. What waiting cannot fix (a password refused, no such database, tables of another
/// program or a newer schema) turns it off, as an unusable file does. Tables of an older layout
/// version are emptied, as a file's are, but with one warning (every machine measures again); a
/// newer one's rows are left alone (its keys differ). The fonts' digests are kept in the process
/// only (a path and inode say nothing on another machine).
public final class HeightStore: MeasurementStore {
    /// Counters of one store object, in this process.
    public struct Statistics: Hashable, Sendable {
        /// Look-ups answered.
        public var hits = 0
        /// Look-ups not answered (nothing stored, or nothing stored for that width).
        public var misses = 0
        /// Rows written.
        public var written = 0
        /// Rows that could not be written (the store was turned off by a failure).
        public var dropped = 0
        /// Rows found damaged (their check value did not match), read as misses.
        public var damaged = 0
    }

    /// The file, or the PostgreSQL URL without its password.
    public let path: String
    /// Seconds a write waits for another process's transaction before giving up.
    public static let busyTimeout: Double = 10
    /// The schema this program writes (`PRAGMA user_version`).
    static let schemaVersion = 1
    /// `PRAGMA application_id` of a height store: "TMHS".
    static let applicationID: Int32 = 0x544D_4853

    /// Where the rows are.
    enum Backend: Sendable {
        case sqlite(DatabasePool)
        case postgres(PostgresHeights)
    }

    let backend: Backend
    private let writer: StoreWriter
    let warn: @Sendable (String) -> Void

    private struct State: Sendable {
        var statistics = Statistics()
        var isDisabled = false
        var isClosed = false
        var hasWarned = false
        /// Digests of the cascades seen, by their faces (held, so identifiers are never reused).
        var fontDigests: [[ObjectIdentifier]: (faces: [FontFace], digest: [UInt8])] = [:]
    }

    private let state: Locked<State>

    /// Opens (or creates) the store at `path`.
    ///
    /// - Parameters:
    ///   - path: The SQLite file (its folder must exist; the file is created if missing), or a
    ///     `postgres://` URL (the tables are created if missing).
    ///   - warn: Where the one warning about a failure after opening goes (standard error by default).
    /// - Throws: ``HeightStoreError`` when the file cannot be used: its folder is missing, it cannot be
    ///   opened for writing, it is not a SQLite database or is damaged, it belongs to another program,
    ///   or it has a newer schema; for a URL, when it cannot be parsed or the server refuses what
    ///   waiting cannot fix (see the type's discussion). A server that cannot be reached now is not
    ///   an error: one warning, everything is measured, and the store connects again in the background.
    /// - Complexity: Opens the file and checks its header; a file of another layout version is emptied.
    ///   For a URL: connects (at most the connect timeout) and checks the tables.
    public init(path: String, warn: @escaping @Sendable (String) -> Void = HeightStore.standardError)
        throws(HeightStoreError) {
        self.warn = warn
        state = Locked(State())
        if PostgresLocation.isURL(path) {
            let location = try PostgresLocation(url: path)
            self.path = location.display
            let heights = try PostgresHeights(location: location, warn: warn)
            backend = .postgres(heights)
            let state = self.state
            writer = StoreWriter { rows in
                if state.withLock({ $0.isDisabled }) {
                    state.withLock { $0.statistics.dropped += rows.count }
                    return
                }
                let written = heights.write(rows)
                state.withLock { state in
                    state.statistics.written += written
                    state.statistics.dropped += rows.count - written
                }
            }
            return
        }
        self.path = path
        try Self.checkFolder(of: path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.maximumReaderCount = 4
        configuration.label = "textmeasure.height-store"
        configuration.prepareDatabase { db in
            // WAL + NORMAL: a committed transaction survives a killed process (not a power cut, which
            // only loses the last transactions: still never a wrong height).
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // 32 MiB of pages per connection (the default is 2 MiB): look-ups of a warm batch are
            // spread over the whole file.
            try db.execute(sql: "PRAGMA cache_size = -32768")
        }
        let pool = try Self.openPool(path: path, configuration: configuration)
        backend = .sqlite(pool)
        let state = self.state
        writer = StoreWriter { [path, warn] rows in
            Self.write(rows, to: pool, path: path, state: state, warn: warn)
        }
    }

    deinit {
        close()
    }

    /// Writes what is queued, folds the write-ahead log into the file and closes it: afterwards the
    /// `.sqlite` file alone holds every row (its `-wal` is empty, or gone once no other process has the
    /// file open). Later look-ups miss and later saves are dropped; closing again does nothing.
    ///
    /// A checkpoint that cannot finish (another process reading the file past ``busyTimeout``)
    /// leaves the log to that process or the next one to fold in, without a warning: nothing is lost,
    /// only not yet in the main file. Other failures of the checkpoint are warned about.
    ///
    /// - Complexity: O(*n*) in the pages the log holds.
    public func close() {
        let first = state.withLock { state -> Bool in
            defer { state.isClosed = true }
            return !state.isClosed
        }
        guard first else { return }
        writer.close()
        state.withLock { $0.isDisabled = true }   // quietly: nothing failed
        guard case .sqlite(let pool) = backend else {
            if case .postgres(let heights) = backend { heights.close() }
            return
        }
        do {
            try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            // Another process has the file open: sharing it is what the store is for, and that process
            // (or the next to open the file) folds the log in. Nothing to tell the user.
        } catch {
            warn("height store \(path): its log stays beside it, to be folded in when next opened: \(error)")
        }
        try? pool.close()
        Self.removeEmptyLog(path: path)
    }

    /// Opens and closes the file once more, so that the `-wal` and `-shm` files go when no other
    /// process has it open: SQLite removes them when the last connection closes, unless that one is
    /// read-only, and GRDB closes its read-only connections after its writer.
    private static func removeEmptyLog(path: String) {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { return }
        sqlite3_busy_timeout(db, 100)   // a process writing now keeps its log; it is not waited for
        sqlite3_exec(db, "PRAGMA schema_version", nil, nil, nil)   // reads the header: the log is opened
    }

    /// Opens the store at `path`, or prints one warning and returns nil when it cannot be used (the
    /// caller then measures everything).
    ///
    /// - Parameters:
    ///   - path: The SQLite file (created if missing; its folder must exist), or a `postgres://` URL.
    ///   - warn: Where warnings go (standard error by default).
    /// - Returns: The store, or nil.
    public static func openOrWarn(path: String, warn: @escaping @Sendable (String) -> Void = HeightStore.standardError)
        -> HeightStore? {
        do {
            return try HeightStore(path: path, warn: warn)
        } catch {
            warn("height store skipped, measuring everything: \(error)")
            return nil
        }
    }

    /// Writes a warning line to standard error.
    public static let standardError: @Sendable (String) -> Void = { message in
        // write(2) on descriptor 2: one call per line, no shared `FILE *`.
        let line = Array("textmeasure: warning: \(message)\n".utf8)
        #if canImport(Glibc)
        _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
        #else
        _ = line.withUnsafeBytes { Darwin.write(2, $0.baseAddress, $0.count) }
        #endif
    }

    /// Counters so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Whether a failure, or ``close()``, turned the store off (everything is measured from then on).
    /// A PostgreSQL store that lost its server is not off: it connects again by itself.
    public var isDisabled: Bool {
        if state.withLock({ $0.isDisabled }) { return true }
        if case .postgres(let heights) = backend { return heights.isOff }
        return false
    }

    /// Whether it is a PostgreSQL store.
    var isPostgres: Bool {
        if case .postgres = backend { true } else { false }
    }

    // MARK: MeasurementStore

    /// The stored measurements for `queries` (see ``MeasurementStore/measurements(for:fonts:)``).
    ///
    /// - Parameters:
    ///   - queries: Texts, styles and widths.
    ///   - fonts: The cascade; its files are digested the first time this store sees it.
    /// - Returns: One element per query; nil where nothing stored covers the width, and for every
    ///   query once the store is turned off.
    /// - Complexity: One indexed look-up per query, in one read transaction (SQLite); one statement
    ///   for all the queries, waiting at most 1 s for its answer (PostgreSQL).
    public func measurements(for queries: [MeasureRequest], fonts: FontCascade) -> [StoredMeasurement?] {
        guard !queries.isEmpty, let digest = fontDigest(fonts) else { return Array(repeating: nil, count: queries.count) }
        let keys = StoreKey.keys(for: queries, fonts: digest)
        let units = queries.map(\.widthUnits)
        let found: [StoredMeasurement?]
        var damaged = 0
        switch backend {
        case .sqlite(let pool):
            do {
                (found, damaged) = try Self.lookUp(keys: keys, units: units, in: pool)
            } catch {
                fail("reading failed: \(error)")
                return Array(repeating: nil, count: queries.count)
            }
        case .postgres(let heights):
            let asked = Array(Set(zip(keys, units).compactMap { $1 == nil ? nil : $0 }))
            guard !asked.isEmpty, let rows = heights.rows(forKeys: asked) else {
                // Down (or nothing to ask): every query is measured.
                state.withLock { $0.statistics.misses += queries.count }
                return Array(repeating: nil, count: queries.count)
            }
            (found, damaged) = Self.match(keys: keys, units: units, rows: rows)
        }
        let hits = found.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        state.withLock { state in
            state.statistics.hits += hits
            state.statistics.misses += found.count - hits
            state.statistics.damaged += damaged
        }
        return found
    }

    /// Queues measurements to be written by the background writer (see
    /// ``MeasurementStore/save(_:for:fonts:)``). Returns at once unless the writer's queue is full.
    ///
    /// - Parameters:
    ///   - measurements: What `queries` measured.
    ///   - queries: The texts, styles and widths.
    ///   - fonts: The cascade.
    /// - Complexity: A SHA-256 per query on the caller's thread; the writing elsewhere.
    public func save(_ measurements: [StoredMeasurement], for queries: [MeasureRequest], fonts: FontCascade) {
        guard !isDisabled, let digest = fontDigest(fonts) else { return }
        if case .postgres(let heights) = backend, !heights.isUp {
            state.withLock { $0.statistics.dropped += measurements.count }   // measured again when asked
            return
        }
        let rows = zip(measurements, StoreKey.keys(for: queries, fonts: digest)).map { measurement, key in
            StoreWriter.Row(key: key, measurement: measurement)
        }
        writer.enqueue(rows)
    }

    /// Waits until every measurement saved before this call is written (or dropped).
    public func flush() {
        writer.flush()
    }

    /// `true`: a styled text's spans are part of its key (see `StoreKey`), and its fonts are every
    /// face styled text is drawn with.
    public var keysSpans: Bool { true }

    // MARK: Internals

    /// The SQLite look-up: for each key, the row with the greatest lower bound at or below its width.
    private static func lookUp(keys: [[UInt8]], units: [Int?], in pool: DatabasePool) throws
        -> ([StoredMeasurement?], Int) {
        try pool.read { db -> ([StoredMeasurement?], Int) in
            let statement = try db.cachedStatement(sql: """
                SELECT low, high, height, line_count, truncated, line_height, widest, check_value
                FROM heights WHERE key = ? AND low <= ? ORDER BY low DESC LIMIT 1
                """)
            // The hot loop of a warm batch: the prepared statement stepped through SQLite's C API
            // (GRDB's `Row` costs more than the look-up itself).
            let raw = statement.sqliteStatement
            defer {
                sqlite3_reset(raw)
                sqlite3_clear_bindings(raw)
            }
            var results: [StoredMeasurement?] = []
            results.reserveCapacity(keys.count)
            var damaged = 0
            for (key, units) in zip(keys, units) {
                guard let units else {
                    results.append(nil)
                    continue
                }
                let row = try key.withUnsafeBytes { key -> ReadRow? in
                    sqlite3_reset(raw)
                    sqlite3_bind_blob(raw, 1, key.baseAddress, Int32(key.count), nil)   // SQLITE_STATIC
                    sqlite3_bind_int64(raw, 2, Int64(units))
                    switch sqlite3_step(raw) {
                    case SQLITE_DONE: return nil
                    case SQLITE_ROW: return ReadRow(raw)
                    case let code:
                        throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                            message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                    }
                }
                guard let row else {
                    results.append(nil)
                    continue
                }
                guard let stored = row.decode(key: key) else {
                    damaged += 1
                    results.append(nil)
                    continue
                }
                results.append(stored.validWidthUnits.contains(units) ? stored : nil)
            }
            return (results, damaged)
        }
    }

    /// The PostgreSQL answer: for each key, as SQLite's look-up picks it, the row with the greatest
    /// lower bound at or below its width among the rows read, if it covers the width.
    private static func match(keys: [[UInt8]], units: [Int?], rows: [[UInt8]: [PostgresHeights.Row]])
        -> ([StoredMeasurement?], Int) {
        var damaged = 0
        let found = zip(keys, units).map { key, units -> StoredMeasurement? in
            guard let units, let candidates = rows[key] else { return nil }
            var best: PostgresHeights.Row?
            for row in candidates where row.low <= Int64(units) && row.low > (best?.low ?? Int64.min) {
                best = row
            }
            guard let best else { return nil }
            guard let stored = best.measurement else {
                damaged += 1
                return nil
            }
            return stored.validWidthUnits.contains(units) ? stored : nil
        }
        return (found, damaged)
    }


    private func fontDigest(_ fonts: FontCascade) -> [UInt8]? {
        let identity = fonts.fonts.map(ObjectIdentifier.init)
        let known = state.withLock { state -> [UInt8]?? in
            state.isDisabled ? .some(nil) : state.fontDigests[identity].map { .some($0.digest) }
        }
        if let known { return known }
        do {
            let digest = try cascadeDigest(fonts)
            state.withLock { $0.fontDigests[identity] = (fonts.fonts, digest) }
            return digest
        } catch {
            fail("\(error)")
            return nil
        }
    }

    /// The cascade's digest: each file's digest from this process, else from the file's `font_files`
    /// table (same path, device, inode, size and modification time), else read and digested now and
    /// remembered in both.
    private func cascadeDigest(_ fonts: FontCascade) throws -> [UInt8] {
        // A database on a server is shared by machines whose paths and inodes say nothing about each
        // other's files: the digests stay in the process.
        guard case .sqlite(let pool) = backend else { return try FontDigests.digest(of: fonts) }
        let states = try fonts.fonts.map { face throws(HeightStoreError) in try FontDigests.state(ofFile: face.path) }
        var digests = states.map(FontDigests.known)
        let unknown = digests.indices.filter { digests[$0] == nil }
        if !unknown.isEmpty {
            let stored = try pool.read { db in
                try unknown.map { index -> [UInt8]? in
                    let s = states[index]
                    let data = try Data.fetchOne(db, sql: """
                        SELECT digest FROM font_files WHERE path = ? AND device = ? AND inode = ? AND size = ?
                            AND modified = ? AND modified_ns = ?
                        """, arguments: [s.path, s.device, s.inode, s.size, s.modified, s.modifiedNanoseconds])
                    return data.flatMap { $0.count == 32 ? [UInt8]($0) : nil }
                }
            }
            var computed: [FontDigests.FileState: [UInt8]] = [:]
            for (index, stored) in zip(unknown, stored) {
                if let stored {
                    FontDigests.remember(stored, for: states[index])
                    digests[index] = stored
                } else {
                    let digest = try FontDigests.digest(ofFile: states[index])
                    computed[states[index]] = digest
                    digests[index] = digest
                }
            }
            if !computed.isEmpty {
                try pool.write { db in
                    for (s, digest) in computed {
                        try db.execute(sql: "INSERT OR REPLACE INTO font_files VALUES (?, ?, ?, ?, ?, ?, ?)",
                                       arguments: [s.path, s.device, s.inode, s.size, s.modified, s.modifiedNanoseconds,
                                                   Data(digest)])
                    }
                }
            }
        }
        return FontDigests.digest(ofCascade: zip(digests, fonts.fonts).map { ($0 ?? [], $1.faceIndex) })
    }

    /// Turns the store off, with one warning.
    private func fail(_ reason: String) {
        Self.fail(reason, path: path, state: state, warn: warn)
    }

    private static func fail(_ reason: String, path: String, state: Locked<State>, warn: (String) -> Void) {
        let first = state.withLock { state -> Bool in
            state.isDisabled = true
            defer { state.hasWarned = true }
            return !state.hasWarned
        }
        if first { warn("height store \(path) turned off, measuring everything: \(reason)") }
    }

    private static func write(_ rows: [StoreWriter.Row], to pool: DatabasePool, path: String, state: Locked<State>,
                              warn: (String) -> Void) {
        if state.withLock({ $0.isDisabled }) {
            state.withLock { $0.statistics.dropped += rows.count }
            return
        }
        do {
            try pool.write { db in try insert(rows, into: db) }
            state.withLock { $0.statistics.written += rows.count }
        } catch {
            state.withLock { $0.statistics.dropped += rows.count }
            fail("writing failed: \(error)", path: path, state: state, warn: warn)
        }
    }

    /// Writes `rows` into a SQLite store's table (a row of the same key and lower bound is replaced).
    static func insert(_ rows: [StoreWriter.Row], into db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO heights
                (key, low, high, height, line_count, truncated, line_height, widest, check_value)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for row in rows {
            let m = row.measurement
            try statement.execute(arguments: [
                Data(row.key), Int64(m.validWidthUnits.lowerBound), Int64(m.validWidthUnits.upperBound),
                m.height, Int64(m.lineCount), m.isTruncated ? 1 : 0, m.lineHeight, m.widestLineWidth,
                StoreKey.check(key: row.key, m),
            ])
        }
    }

    /// The columns of one row of `heights` as SQLite returned them: nil where a column has an
    /// unexpected type (a damaged or foreign row).
    struct ReadRow {
        var low, high, lineCount, truncated, check: Int64?
        var height, lineHeight, widest: Double?

        /// The current row of `statement` (columns as selected by ``measurements(for:fonts:)``).
        init(_ statement: OpaquePointer) {
            self.init { column in
                sqlite3_column_type(statement, Int32(column)) == SQLITE_INTEGER ? sqlite3_column_int64(statement, Int32(column)) : nil
            } real: { column in
                sqlite3_column_type(statement, Int32(column)) == SQLITE_FLOAT ? sqlite3_column_double(statement, Int32(column)) : nil
            }
        }

        /// The row from GRDB's values of the columns key, low, high, height, line_count, truncated,
        /// line_height, widest, check_value (an export's).
        init(_ values: [DatabaseValue]) {
            self.init { column in
                if case .int64(let value) = values[column + 1].storage { value } else { nil }
            } real: { column in
                if case .double(let value) = values[column + 1].storage { value } else { nil }
            }
        }

        /// The row from its columns low, high, height, line_count, truncated, line_height, widest,
        /// check_value, numbered from 0, read as an integer or a real (nil for another type).
        private init(integer: (Int) -> Int64?, real: (Int) -> Double?) {
            self.init(low: integer(0), high: integer(1), height: real(2), lineCount: integer(3), truncated: integer(4),
                      lineHeight: real(5), widest: real(6), check: integer(7))
        }

        /// The row from its columns' values (a PostgreSQL store's), nil for one that could not be read.
        init(low: Int64?, high: Int64?, height: Double?, lineCount: Int64?, truncated: Int64?, lineHeight: Double?,
             widest: Double?, check: Int64?) {
            (self.low, self.high, self.height, self.lineCount) = (low, high, height, lineCount)
            (self.truncated, self.lineHeight, self.widest, self.check) = (truncated, lineHeight, widest, check)
        }

        /// The measurement, or nil when a column is missing or out of range or the check value differs.
        func decode(key: [UInt8]) -> StoredMeasurement? {
            guard let low, let high, low >= 0, high >= low, let height, let lineCount, lineCount >= 0,
                  let truncated, let lineHeight, let widest, let check,
                  let lower = Int(exactly: low), let upper = Int(exactly: high), let lines = Int(exactly: lineCount)
            else { return nil }
            let stored = StoredMeasurement(height: height, lineCount: lines, isTruncated: truncated != 0,
                                           lineHeight: lineHeight, widestLineWidth: widest,
                                           validWidthUnits: lower..<upper)
            return StoreKey.check(key: key, stored) == check ? stored : nil
        }
    }

    private static func checkFolder(of path: String) throws(HeightStoreError) {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .directoryNotFound(path: path)
        }
    }

    /// Creates the schema in an empty file, checks a file of ours, empties one of another layout version.
    static func prepareSchema(_ db: Database, path: String) throws {
        let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        let schema = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        let objects = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
        if applicationID == 0 && objects == 0 {
            try db.execute(sql: """
                CREATE TABLE heights (
                    key BLOB NOT NULL, low INTEGER NOT NULL, high INTEGER NOT NULL,
                    height REAL NOT NULL, line_count INTEGER NOT NULL, truncated INTEGER NOT NULL,
                    line_height REAL NOT NULL, widest REAL NOT NULL, check_value INTEGER NOT NULL,
                    PRIMARY KEY (key, low)
                ) WITHOUT ROWID;
                CREATE TABLE store_info (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID;
                PRAGMA application_id = \(applicationID == 0 ? Self.applicationID : applicationID);
                PRAGMA user_version = \(Self.schemaVersion);
                """)
            try db.execute(sql: "INSERT INTO store_info VALUES ('layout_version', ?)",
                           arguments: [Int64(TextMeasurer.layoutVersion)])
            try createFontFiles(db)
            return
        }
        guard applicationID == Self.applicationID else { throw HeightStoreError.foreign(path: path) }
        guard schema <= Self.schemaVersion else { throw HeightStoreError.newerSchema(path: path, version: schema) }
        try createFontFiles(db)
        let version = try Int64.fetchOne(db, sql: "SELECT value FROM store_info WHERE name = 'layout_version'")
        if version != Int64(TextMeasurer.layoutVersion) {
            // Written by another layout: its keys can never match, so its rows are only dead weight.
            try db.execute(sql: "DELETE FROM heights")
            try db.execute(sql: "INSERT OR REPLACE INTO store_info VALUES ('layout_version', ?)",
                           arguments: [Int64(TextMeasurer.layoutVersion)])
        }
    }

    /// The digests of font files seen, by path and `stat` identity (see ``FontDigests``).
    private static func createFontFiles(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS font_files (
                path TEXT PRIMARY KEY NOT NULL, device INTEGER NOT NULL, inode INTEGER NOT NULL,
                size INTEGER NOT NULL, modified INTEGER NOT NULL, modified_ns INTEGER NOT NULL, digest BLOB NOT NULL
            ) WITHOUT ROWID
            """)
    }

    /// Opens the pool and prepares the schema, trying again for up to ``busyTimeout`` seconds while
    /// another process holds the file: switching a new file to WAL, or creating its tables, can fail
    /// at once with `SQLITE_BUSY` when two processes open it together (SQLite does not wait on a lock
    /// it might deadlock on), which the busy timeout does not cover.
    private static func openPool(path: String, configuration: Configuration) throws(HeightStoreError) -> DatabasePool {
        let deadline = Date().addingTimeInterval(busyTimeout)
        while true {
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try pool.write { db in try Self.prepareSchema(db, path: path) }
                return pool
            } catch let error as HeightStoreError {
                throw error
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            } catch {
                throw Self.openingError(error, path: path)
            }
        }
    }

    static func openingError(_ error: any Error, path: String) -> HeightStoreError {
        guard let error = error as? DatabaseError else { return .cannotOpen(path: path, reason: "\(error)") }
        let reason = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: return .corrupt(path: path, reason: reason)
        default: return .cannotOpen(path: path, reason: reason)
        }
    }
}
