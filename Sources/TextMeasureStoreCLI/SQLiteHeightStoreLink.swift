import TextMeasureCommands
import TextMeasureStore

/// The commands' height store: a SQLite file through `HeightStore`.
struct SQLiteHeightStoreLink: HeightStoreLink {
    func open(path: String) -> (any PersistentHeightStore)? {
        HeightStore.openOrWarn(path: path)
    }

    func maintain(_ action: StoreAction, path: String, destination: String?) throws -> [String] {
        let store: HeightStore
        do {
            store = try HeightStore(path: path)
        } catch {
            throw CLIError(message: error.description)
        }
        do throws(HeightStoreError) {
            switch action {
            case .stats:
                let s = try store.fileStatistics()
                return ["entries: \(s.entries)", "texts: \(s.keys)", "bytes: \(s.bytes) (\(s.freeBytes) free)",
                        "layout version: \(s.layoutVersion)"]
            case .vacuum:
                try store.vacuum()
            case .clear:
                try store.clear()
            case .export:
                guard let destination else { throw HeightStoreError.failed(path: path, reason: "no path to export to") }
                try store.export(to: destination)
                return ["exported to \(destination)"]
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
