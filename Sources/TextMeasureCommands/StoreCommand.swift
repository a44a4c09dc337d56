import ArgumentParser
import TextMeasureBatch

/// `textmeasure store stats|vacuum|clear PATH`: looks after a height store file (in
/// `textmeasure-store`, see ``HeightStoreLink``).
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Look after a height store (the file given to --store).",
        discussion: """
            stats: what the file holds. vacuum: give free pages back and fold the WAL into the file. \
            clear: remove every stored height (after a HarfBuzz or ICU upgrade, say). Runs \
            textmeasure-store (`swift build -c release --product textmeasure-store`).
            """)

    @Argument(help: "stats, vacuum or clear.")
    var action: StoreAction

    @Argument(help: "The store file.")
    var path: String

    func run() throws {
        let lines = try HeightStoreAccess.current().maintain(action, path: path)
        try OutputWriter.standardOutput.writeResult(lines.map { $0 + "\n" }.joined())
    }
}

extension StoreAction: ExpressibleByArgument {}
