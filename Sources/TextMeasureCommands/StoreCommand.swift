import ArgumentParser
import TextMeasureBatch

/// `textmeasure store stats|vacuum|clear PATH` and `textmeasure store export PATH COPY`: looks after a
/// height store file (in `textmeasure-store`, see ``HeightStoreLink``).
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Look after a height store (the file given to --store).",
        discussion: """
            stats: what the file holds. vacuum: give free pages back and fold the WAL into the file. \
            clear: remove every stored height (after a HarfBuzz or ICU upgrade, say). export: write a \
            copy to COPY (a new file) that holds every row on its own, safe while other processes write \
            (copying the .sqlite file is not: its latest rows may be in its -wal). Runs textmeasure-store \
            (`swift build -c release --product textmeasure-store`).
            """)

    @Argument(help: "stats, vacuum, clear or export.")
    var action: StoreAction

    @Argument(help: "The store file.")
    var path: String

    @Argument(help: ArgumentHelp("export only: the copy to write (a new file).", valueName: "copy"))
    var destination: String?

    func validate() throws {
        switch (action, destination) {
        case (.export, nil): throw ValidationError("store export needs the path of the copy to write")
        case (.export, _), (_, nil): break
        case (_, _?): throw ValidationError("only store export takes a second path")
        }
    }

    func run() throws {
        let lines = try HeightStoreAccess.current().maintain(action, path: path, destination: destination)
        try OutputWriter.standardOutput.writeResult(lines.map { $0 + "\n" }.joined())
    }
}

extension StoreAction: ExpressibleByArgument {}
