import TextMeasureSupport
import TextMeasure

/// How the commands reach the persistent height store (`--store PATH`, `textmeasure store`).
///
/// The store (`TextMeasureStore`: GRDB, SQLite and Foundation) is not linked into `textmeasure`: it
/// tripled the static binary (28 → 90 MB), and every run paid for it at start-up (relocations, page
/// faults, CoreFoundation's initializer and the runtime's conformance scans over Foundation's and
/// GRDB's records): 1.2 ms of a 6 ms empty `batch`. `textmeasure-store` is the same commands with the store linked in: its
/// `main` installs a link (``install(_:)``) before the arguments are parsed. In `textmeasure`, where no
/// link is installed, a command that needs the store hands the process over to `textmeasure-store`
/// (``current(arguments:)``), before it reads any input, with the same arguments.
package protocol HeightStoreLink: Sendable {
    /// Opens or creates the store at `path`; nil (after one warning on standard error) when the file
    /// cannot be used, in which case everything is measured.
    func open(path: String) -> (any PersistentHeightStore)?

    /// Carries out `textmeasure store ACTION PATH [DESTINATION]`.
    ///
    /// - Parameters:
    ///   - action: What to do.
    ///   - path: The store file.
    ///   - destination: Where ``StoreAction/export`` writes its copy; nil for the other actions.
    /// - Returns: The lines to print.
    /// - Throws: `CLIError` with the store's message.
    func maintain(_ action: StoreAction, path: String, destination: String?) throws -> [String]
}

/// What `textmeasure store ACTION PATH` does to the file.
package enum StoreAction: String, CaseIterable, Sendable {
    /// Print what the file holds.
    case stats
    /// Give free pages back and fold the write-ahead log into the file.
    case vacuum
    /// Remove every stored height.
    case clear
    /// Write a copy that is one consistent file, even while other processes write to the store.
    case export
}

/// A ``TextMeasure/MeasurementStore`` backed by a file, as `--stats` reports it.
package protocol PersistentHeightStore: MeasurementStore {
    /// Measurements written to the file so far.
    var writtenCount: Int { get }
}

/// The installed ``HeightStoreLink``, if any.
package enum HeightStoreAccess {
    private static let link = Locked<(any HeightStoreLink)?>(nil)

    /// The executable with the store linked in, beside `textmeasure`.
    static let executable = SiblingExecutable(name: "textmeasure-store", product: "textmeasure-store",
                                              purpose: "The height store (--store, textmeasure store)")

    /// Makes `link` the store every command uses. Called once, by `textmeasure-store`'s `main`.
    package static func install(_ link: any HeightStoreLink) {
        self.link.withLock { $0 = link }
    }

    /// The installed link; without one, replaces the process with `textmeasure-store` given
    /// `arguments` (by default this process's own), so the command runs again there.
    ///
    /// - Throws: `CLIError` when `textmeasure-store` is not beside this executable or cannot be run.
    static func current(arguments: [String] = Array(CommandLine.arguments.dropFirst())) throws -> any HeightStoreLink {
        if let link = link.withLock({ $0 }) { return link }
        try executable.exec(arguments: arguments)
    }
}
