/// Why a font file could not be used. Every case about one file names it.
public enum FontError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing exists at the path.
    case fileNotFound(path: String)
    /// The path exists but cannot be read (permissions, or it is a directory).
    case unreadable(path: String, reason: String)
    /// The file is not a font FreeType and HarfBuzz can use (truncated, corrupt, wrong format).
    case corrupt(path: String, reason: String)
    /// The index names no face of the file: it is negative, or the file has `faceCount` faces, not
    /// more than the index.
    case faceIndexOutOfRange(path: String, index: Int, faceCount: Int)
    /// A cascade needs at least one font.
    case emptyCascade
    /// The bundled fonts were not found; `searched` lists the folders looked in.
    case bundledFontsNotFound(searched: [String])

    /// A one-line message saying what is wrong, naming the file for a file's error and the folders
    /// searched for the bundled fonts.
    public var description: String {
        switch self {
        case .fileNotFound(let path):
            return "font file not found: \(path)"
        case .unreadable(let path, let reason):
            return "font file unreadable: \(path) (\(reason))"
        case .corrupt(let path, let reason):
            return "not a usable font file: \(path) (\(reason))"
        case .faceIndexOutOfRange(let path, let index, let count):
            let faces = count == 1 ? "1 face" : "\(count) faces"
            switch count {
            case ...0: return "font file \(path): face index \(index) is out of range: the file has no faces"
            case 1: return "font file \(path): face index \(index) is out of range: must be 0 (the file has \(faces))"
            default:
                return "font file \(path): face index \(index) is out of range: must be from 0 to \(count - 1) (the file has \(faces))"
            }
        case .emptyCascade:
            return "a font cascade needs at least one font file"
        case .bundledFontsNotFound(let searched):
            return "bundled fonts not found; set TEXTMEASURE_FONTS to the Fonts folder (searched: \(searched.joined(separator: ", ")))"
        }
    }
}
