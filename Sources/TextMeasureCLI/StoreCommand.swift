import ArgumentParser
import TextMeasureStore

/// `textmeasure store stats|vacuum|clear PATH`: looks after a height store file.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Look after a height store (the file given to --store).",
        discussion: """
            stats: what the file holds. vacuum: give free pages back and fold the WAL into the file. \
            clear: remove every stored height (after a HarfBuzz or ICU upgrade, say).
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case stats, vacuum, clear
    }

    @Argument(help: "stats, vacuum or clear.")
    var action: Action

    @Argument(help: "The store file.")
    var path: String

    func run() throws {
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
                print("entries: \(s.entries)")
                print("texts: \(s.keys)")
                print("bytes: \(s.bytes) (\(s.freeBytes) free)")
                print("layout version: \(s.layoutVersion)")
            case .vacuum:
                try store.vacuum()
            case .clear:
                try store.clear()
            }
        } catch {
            throw CLIError(message: error.description)
        }
    }
}
