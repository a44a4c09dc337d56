/// Why a ``HeightStore`` cannot be used. None of these is fatal to measuring: the store is skipped
/// (with one warning) and every height is measured.
public enum HeightStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The folder the file should be in does not exist (the store never creates folders).
    case directoryNotFound(path: String)
    /// SQLite could not open or create the file (permissions, a read-only file system, a full disk); or
    /// a PostgreSQL URL cannot be used (not understood, or the server refused us for good).
    case cannotOpen(path: String, reason: String)
    /// The file is not a SQLite database (random bytes, a truncated header) or is damaged.
    case corrupt(path: String, reason: String)
    /// A SQLite database (or PostgreSQL tables of the store's names), but not a height store: it is
    /// left untouched.
    case foreign(path: String)
    /// A height store of a newer schema than this program understands: it is left untouched.
    case newerSchema(path: String, version: Int)
    /// A font file of the cascade could not be read to digest it.
    case unreadableFont(path: String, reason: String)
    /// A read or write failed after opening (a disk that filled up, a file damaged meanwhile).
    case failed(path: String, reason: String)

    public var description: String {
        switch self {
        case .directoryNotFound(let path): "\(path): its folder does not exist"
        case .cannotOpen(let path, let reason): "\(path): cannot open: \(reason)"
        case .corrupt(let path, let reason): "\(path): not a usable height store: \(reason)"
        case .foreign(let path) where path.hasPrefix("postgres"): "\(path): tables of another program (left untouched)"
        case .foreign(let path): "\(path): a SQLite file of another program (left untouched)"
        case .newerSchema(let path, let version): "\(path): written by a newer textmeasure (schema \(version))"
        case .unreadableFont(let path, let reason): "font \(path) cannot be read to digest it: \(reason)"
        case .failed(let path, let reason): "\(path): \(reason)"
        }
    }
}
