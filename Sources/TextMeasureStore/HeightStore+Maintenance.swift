import Foundation
internal import GRDB
internal import PostgresNIO
import TextMeasure

extension HeightStore {
    /// What a store file holds.
    public struct FileStatistics: Hashable, Sendable {
        /// Stored results (rows).
        public var entries: Int
        /// Distinct (fonts, style, text) keys among them.
        public var keys: Int
        /// The file's size in bytes, free pages included (not counting the WAL); for PostgreSQL, the
        /// table's with its index and TOAST data.
        public var bytes: Int
        /// Bytes in free pages, which ``vacuum()`` gives back; 0 for PostgreSQL, whose (auto)vacuum
        /// keeps dead rows' space for new ones.
        public var freeBytes: Int
        /// The layout version its rows were measured with.
        public var layoutVersion: Int
    }

    /// Counts what the file holds.
    ///
    /// - Returns: Entries, keys, sizes and layout version.
    /// - Throws: ``HeightStoreError/failed(path:reason:)`` when the file cannot be read.
    /// - Complexity: O(*n*) in the rows (two index scans).
    public func fileStatistics() throws(HeightStoreError) -> FileStatistics {
        guard case .sqlite(let pool) = backend else {
            let table = PostgresHeights.heightsTable
            let rows = try postgres.maintenance("""
                SELECT (SELECT count(*) FROM \(table)), (SELECT count(DISTINCT key) FROM \(table)),
                    pg_total_relation_size('\(table)'),
                    (SELECT value FROM \(PostgresHeights.infoTable) WHERE name = 'layout_version')
                """)
            guard let (entries, keys, bytes, version) = try? rows.first?.decode((Int64, Int64, Int64, Int64).self) else {
                throw .failed(path: path, reason: "unexpected answer to the statistics query")
            }
            return FileStatistics(entries: Int(entries), keys: Int(keys), bytes: Int(bytes), freeBytes: 0,
                                  layoutVersion: Int(version))
        }
        do {
            return try pool.read { db in
                let entries = try Int.fetchOne(db, sql: "SELECT count(*) FROM heights") ?? 0
                let keys = try Int.fetchOne(db, sql: "SELECT count(DISTINCT key) FROM heights") ?? 0
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
                let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
                let version = try Int.fetchOne(db, sql: "SELECT value FROM store_info WHERE name = 'layout_version'") ?? 0
                return FileStatistics(entries: entries, keys: keys, bytes: pages * pageSize, freeBytes: free * pageSize,
                                      layoutVersion: version)
            }
        } catch {
            throw .failed(path: path, reason: "\(error)")
        }
    }

    /// Rewrites the file without free pages and folds the WAL back into it.
    ///
    /// - Throws: ``HeightStoreError/failed(path:reason:)`` when SQLite cannot (a full disk: VACUUM
    ///   needs room for a copy; another process in a transaction past the busy timeout).
    /// - Complexity: O(*n*) in the file's size.
    public func vacuum() throws(HeightStoreError) {
        flush()
        guard case .sqlite(let pool) = backend else {
            _ = try postgres.maintenance("VACUUM \(PostgresHeights.heightsTable)")
            return
        }
        do {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        } catch {
            throw .failed(path: path, reason: "\(error)")
        }
    }

    /// Writes a copy of the store to `destination`: one file, without a write-ahead log, holding every
    /// row committed when the copy began (SQLite's `VACUUM INTO`, a snapshot read in one transaction).
    /// Safe while other processes write to the store, unlike copying the `.sqlite` file, whose latest
    /// rows may be in its `-wal` still.
    ///
    /// From a PostgreSQL store, the copy is a new SQLite store holding the table's rows (read in key
    /// order, a page at a time: rows written meanwhile may or may not be in it). To a `postgres://`
    /// URL, every row is added to that database's table (upserts: rows it has already stay), which
    /// warms a fleet's database from a file.
    ///
    /// - Parameter destination: The copy's path (its folder must exist and the file must not), or a
    ///   `postgres://` URL.
    /// - Throws: ``HeightStoreError/failed(path:reason:)`` when the copy cannot be written (the file
    ///   exists, a full disk, a server that cannot be reached) or the store cannot be read.
    /// - Complexity: O(*n*) in the store's size.
    public func export(to destination: String) throws(HeightStoreError) {
        flush()
        if PostgresLocation.isURL(destination) {
            try copyRows(toServer: destination)
            return
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw .failed(path: destination, reason: "already exists: the copy goes to a new file")
        }
        guard case .sqlite(let pool) = backend else {
            try copyRows(toFile: destination)
            return
        }
        do {
            // Not in a transaction (VACUUM refuses one); the copy is a snapshot all the same.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [destination]) }
        } catch {
            throw .failed(path: path, reason: "cannot copy to \(destination): \(error)")
        }
    }

    /// Rows copied per page.
    private static let exportPage = 5_000

    /// Every row of this store, a page at a time, in key order.
    private func forEachPage(_ body: ([StoreWriter.Row]) throws(HeightStoreError) -> Void) throws(HeightStoreError) {
        switch backend {
        case .postgres(let heights):
            var after: (key: [UInt8], low: Int64)?
            repeat {
                let page = try heights.page(after: after, limit: Self.exportPage)
                if !page.rows.isEmpty { try body(page.rows) }
                after = page.next
            } while after != nil
        case .sqlite(let pool):
            do {
                try pool.read { db in
                    let cursor = try Row.fetchCursor(db, sql: """
                        SELECT key, low, high, height, line_count, truncated, line_height, widest, check_value
                        FROM heights ORDER BY key, low
                        """)
                    var page: [StoreWriter.Row] = []
                    while let row = try cursor.next() {
                        let values = (0..<9).map { row[$0] as DatabaseValue }
                        guard case .blob(let data) = values[0].storage,
                              let measurement = ReadRow(values).decode(key: [UInt8](data)) else { continue }
                        let key = [UInt8](data)
                        page.append(StoreWriter.Row(key: key, measurement: measurement))
                        if page.count == Self.exportPage {
                            try body(page)
                            page.removeAll(keepingCapacity: true)
                        }
                    }
                    if !page.isEmpty { try body(page) }
                }
            } catch let error as HeightStoreError {
                throw error
            } catch {
                throw .failed(path: path, reason: "\(error)")
            }
        }
    }

    /// Copies every row into a new SQLite store at `destination`.
    private func copyRows(toFile destination: String) throws(HeightStoreError) {
        let copy = try HeightStore(path: destination, warn: warn)
        defer { copy.close() }
        guard case .sqlite(let pool) = copy.backend else { return }
        try forEachPage { rows throws(HeightStoreError) in
            do {
                try pool.write { db in try Self.insert(rows, into: db) }
            } catch {
                throw .failed(path: destination, reason: "cannot write the copy: \(error)")
            }
        }
    }

    /// Adds every row to the PostgreSQL store at `url`.
    private func copyRows(toServer url: String) throws(HeightStoreError) {
        let location = try PostgresLocation(url: url)
        let heights = try PostgresHeights(location: location, warn: { _ in })
        defer { heights.close() }
        guard heights.isUp else { throw .failed(path: location.display, reason: "the server cannot be reached") }
        try forEachPage { rows throws(HeightStoreError) in
            guard heights.write(rows) == rows.count else {
                throw .failed(path: location.display, reason: "the server did not take every row")
            }
        }
    }

    /// The PostgreSQL rows (a store of the other kind has none).
    private var postgres: PostgresHeights {
        get throws(HeightStoreError) {
            guard case .postgres(let heights) = backend else { throw .failed(path: path, reason: "not a PostgreSQL store") }
            return heights
        }
    }

    /// Removes every stored result (the file stays a store, now empty), then vacuums it.
    ///
    /// - Throws: ``HeightStoreError/failed(path:reason:)`` when SQLite cannot write.
    /// - Complexity: O(*n*) in the rows.
    public func clear() throws(HeightStoreError) {
        flush()
        guard case .sqlite(let pool) = backend else {
            _ = try postgres.maintenance("TRUNCATE \(PostgresHeights.heightsTable)")
            return
        }
        do {
            try pool.write { db in try db.execute(sql: "DELETE FROM heights") }
        } catch {
            throw .failed(path: path, reason: "\(error)")
        }
        try vacuum()
    }
}
