import TextMeasureSupport
import TextMeasure

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the commands reach the persistent height store (`--store PATH` or `--store postgres://…`,
/// `textmeasure store`).
///
/// The store (`TextMeasureStore`: GRDB, SQLite and Foundation) is not linked into `textmeasure`: it
/// tripled the static binary (28 → 90 MB), and every run paid for it at start-up (relocations, page
/// faults, CoreFoundation's initializer and the runtime's conformance scans over Foundation's and
/// GRDB's records): 1.2 ms of a 6 ms empty `batch`. `textmeasure-store` is the same commands with the store linked in: its
/// `main` installs a link (``install(_:)``) before the arguments are parsed. In `textmeasure`, where no
/// link is installed, a command that needs the store hands the process over to `textmeasure-store`
/// (``current(arguments:)``), before it reads any input, with the same arguments.
package protocol HeightStoreLink: Sendable {
    /// Opens or creates the store at `path`, a SQLite file or a `postgres://` URL; nil (after one
    /// warning on standard error) when it cannot be used, in which case everything is measured.
    func open(path: String) -> (any PersistentHeightStore)?

    /// Carries out `textmeasure store ACTION PATH [DESTINATION]`.
    ///
    /// - Parameters:
    ///   - action: What to do.
    ///   - path: The store file or URL.
    ///   - destination: Where ``StoreAction/export`` writes its copy (a new file, or a database's URL
    ///     to add the rows to); nil for the other actions.
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
    /// Write a copy that is one consistent file, even while other processes write to the store (or
    /// add every row to a PostgreSQL store).
    case export
}

/// A ``TextMeasure/MeasurementStore`` backed by a file or a database server, as `--stats` reports it.
package protocol PersistentHeightStore: MeasurementStore {
    /// Measurements written to the file (or the server) so far.
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

extension HeightStoreAccess {
    /// The environment variable naming the store when `--store` is not given (a file or a URL).
    package static let environmentVariable = "TEXTMEASURE_STORE"

    /// The store a command uses: `option` (`--store`'s value) when given, else
    /// ``environmentVariable``'s value when it is set and not empty, else none.
    ///
    /// - Parameters:
    ///   - option: `--store`'s value, if given.
    ///   - environment: Reads a variable (the process's environment by default).
    /// - Returns: A SQLite file's path, a `postgres://` URL, or nil.
    package static func location(option: String?,
                                 environment: (String) -> String? = { getenv($0).map { String(cString: $0) } })
        -> String? {
        if let option { return option }
        guard let value = environment(environmentVariable), !value.isEmpty else { return nil }
        return value
    }

    /// Whether `location` names a PostgreSQL server (`postgres://` or `postgresql://`) rather than a file.
    package static func isServerLocation(_ location: String) -> Bool {
        let scheme = location.prefix(13).lowercased()
        return scheme.hasPrefix("postgres://") || scheme.hasPrefix("postgresql://")
    }
}
