import Foundation
import TextMeasureCommands
import TextMeasureStore

/// The commands' height store: `HeightStore`, a SQLite file or, for a `postgres://` URL, a PostgreSQL
/// database (the name is the link's first kind; both are the same type).
struct SQLiteHeightStoreLink: HeightStoreLink {
    func open(path: String) -> (any PersistentHeightStore)? {
        HeightStore.openOrWarn(path: path)
    }

    func maintain(_ action: StoreAction, path: String, destination: String?) throws -> [String] {
        let isServer = HeightStoreAccess.isServerLocation(path)
        // Opening a file creates it: none of the actions may make a store where there was none.
        if !isServer, let missing = Self.missingFile(path, action: action) { throw CLIError(message: missing) }
        let store: HeightStore
        do {
            // A server that cannot be reached is the command's error, not a warning: each action below
            // says so when it cannot be done.
            store = try HeightStore(path: path, warn: { _ in })
        } catch {
            throw CLIError(message: error.description)
        }
        defer { store.close() }
        do throws(HeightStoreError) {
            switch action {
            case .stats:
                let s = try store.fileStatistics()
                return ["entries: \(s.entries)", "texts: \(s.keys)",
                        isServer ? "bytes: \(s.bytes) (table and index)" : "bytes: \(s.bytes) (\(s.freeBytes) free)",
                        "layout version: \(s.layoutVersion)"]
            case .vacuum:
                try store.vacuum()
            case .clear:
                try store.clear()
            case .export:
                guard let destination else { throw HeightStoreError.failed(path: path, reason: "no path to export to") }
                try store.export(to: destination)
                return ["exported to \(HeightStoreAccess.isServerLocation(destination) ? "the database" : destination)"]
            }
            return []
        } catch {
            throw CLIError(message: error.description)
        }
    }

    /// Why `textmeasure store ACTION PATH` cannot work on the file at `path`, when nothing is there:
    /// the store's own message for a missing folder, else one saying the file does not exist.
    ///
    /// - Parameters:
    ///   - path: The store file.
    ///   - action: The action asked for, named in the message.
    /// - Returns: The message, or nil when something exists at `path` (opening it says what is wrong
    ///   with it, if anything).
    static func missingFile(_ path: String, action: StoreAction) -> String? {
        var info = stat()
        guard stat(path, &info) != 0, errno == ENOENT || errno == ENOTDIR else { return nil }
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) || !isDirectory.boolValue {
            return HeightStoreError.directoryNotFound(path: path).description
        }
        return "\(path): no such height store (the file does not exist); store \(action.rawValue) creates none"
    }
}

extension HeightStore: PersistentHeightStore {
    package var writtenCount: Int { statistics.written }
}
