import Foundation
internal import GRDB
import TextMeasure

extension HeightStore {
    /// What a store file holds.
    public struct FileStatistics: Hashable, Sendable {
        /// Stored results (rows).
        public var entries: Int
        /// Distinct (fonts, style, text) keys among them.
        public var keys: Int
        /// The file's size in bytes, free pages included (not counting the WAL).
        public var bytes: Int
        /// Bytes in free pages, which ``vacuum()`` gives back.
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
    /// - Parameter destination: The copy's path: its folder must exist and the file must not.
    /// - Throws: ``HeightStoreError/failed(path:reason:)`` when the copy cannot be written (the file
    ///   exists, a full disk) or the store cannot be read.
    /// - Complexity: O(*n*) in the file's size.
    public func export(to destination: String) throws(HeightStoreError) {
        flush()
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw .failed(path: destination, reason: "already exists: the copy goes to a new file")
        }
        do {
            // Not in a transaction (VACUUM refuses one); the copy is a snapshot all the same.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [destination]) }
        } catch {
            throw .failed(path: path, reason: "cannot copy to \(destination): \(error)")
        }
    }

    /// Removes every stored result (the file stays a store, now empty), then vacuums it.
    ///
    /// - Throws: ``HeightStoreError/failed(path:reason:)`` when SQLite cannot write.
    /// - Complexity: O(*n*) in the rows.
    public func clear() throws(HeightStoreError) {
        flush()
        do {
            try pool.write { db in try db.execute(sql: "DELETE FROM heights") }
        } catch {
            throw .failed(path: path, reason: "\(error)")
        }
        try vacuum()
    }
}
