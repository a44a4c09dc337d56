import TextMeasureCommands
import TextMeasureStore

/// The commands' height store: `HeightStore`, a SQLite file or, for a `postgres://` URL, a PostgreSQL
/// database (the name is the link's first kind; both are the same type).
struct SQLiteHeightStoreLink: HeightStoreLink {
    func open(path: String) -> (any PersistentHeightStore)? {
        HeightStore.openOrWarn(path: path)
    }

    func maintain(_ action: StoreAction, path: String, destination: String?) throws -> [String] {
        let store: HeightStore
        do {
            // A server that cannot be reached is the command's error, not a warning: each action below
            // says so when it cannot be done.
            store = try HeightStore(path: path, warn: { _ in })
        } catch {
            throw CLIError(message: error.description)
        }
        defer { store.close() }
        let isServer = HeightStoreAccess.isServerLocation(path)
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
}

extension HeightStore: PersistentHeightStore {
    package var writtenCount: Int { statistics.written }
}
