import ArgumentParser
import TextMeasureBatch

/// `textmeasure store stats|vacuum|clear PATH|URL` and `textmeasure store export PATH|URL COPY`: looks
/// after a height store, a SQLite file or a PostgreSQL database (in `textmeasure-store`, see
/// ``HeightStoreLink``).
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Look after a height store (the file or postgres:// URL given to --store).",
        discussion: """
            stats: what the store holds. vacuum: give free pages back and fold the WAL into the file \
            (PostgreSQL: VACUUM the table). clear: remove every stored height (after a HarfBuzz or ICU \
            upgrade, say). export: write a copy to COPY (a new file) that holds every row on its own, safe \
            while other processes write (copying the .sqlite file is not: its latest rows may be in its \
            -wal); from a postgres:// store the copy is a SQLite file too, and a postgres:// COPY gets every \
            row added to its table (warming a shared database from a file). A store file must exist: \
            none of these creates one (a missing file is an error). Runs textmeasure-store \
            (`swift build -c release --product textmeasure-store`).
            """)

    @Argument(help: "stats, vacuum, clear or export.")
    var action: StoreAction

    @Argument(help: ArgumentHelp("The store: a SQLite file or postgres://USER@HOST:PORT/DATABASE.", valueName: "store"))
    var path: String

    @Argument(help: ArgumentHelp("export only: the copy to write (a new file), or a postgres:// URL to add the rows to.",
                                 valueName: "copy"))
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
