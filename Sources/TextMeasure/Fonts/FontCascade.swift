
#if canImport(Glibc)
import TextMeasureSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A font file to load, with the face index for collections (`.ttc`).
public struct FontFile: Hashable, Sendable, ExpressibleByStringLiteral {
    /// The font file's path.
    public var path: String
    /// The index of the face inside a collection (`.ttc`); 0 for a single-face file.
    public var faceIndex: Int

    /// Creates a reference to one face of a font file.
    ///
    /// - Parameters:
    ///   - path: The font file's path.
    ///   - faceIndex: The index of the face inside a collection; 0 for a single-face file.
    public init(path: String, faceIndex: Int = 0) {
        self.path = path
        self.faceIndex = faceIndex
    }

    /// Creates a reference to the first face of the font file at `path`.
    ///
    /// - Parameter path: The font file's path.
    public init(stringLiteral path: String) {
        self.init(path: path)
    }
}

/// An ordered list of fonts: the first is the primary font (its metrics give the natural line height),
/// the rest are fallbacks tried in order for characters the earlier ones do not cover.
///
/// Making a cascade validates every file (a bad one is refused at once, naming it) but loads no face:
/// each ``FontFace`` is loaded the first time a text needs it (see ``FontFace``), so a cascade of ten
/// fonts measuring Latin text reads the character map of its primary font only.
///
/// Thread safety: immutable and `Sendable`; its faces load themselves safely from any number of
/// threads at once.
public struct FontCascade: Sendable {
    /// The faces, primary first. Reading them loads nothing; a face loads when it is first needed.
    public let fonts: [FontFace]

    /// The primary font.
    public var primary: FontFace { fonts[0] }

    /// Validates the given files and opens them (each at most once per process, then shared); their
    /// faces are loaded later, each when a text first needs it.
    ///
    /// - Parameter files: The fonts, primary first, then the fallbacks in the order they are tried.
    /// - Throws: ``FontError/emptyCascade`` when `files` is empty; otherwise the ``FontError`` naming
    ///   the first file that is missing, unreadable, corrupt or without a face at its index.
    /// - Complexity: O(*n*) in the number of files. Each file not opened before in this process is
    ///   checked by FreeType (which opens the face and reads the tables it checks) and mapped into
    ///   memory, where HarfBuzz reads its header tables; character maps are read later, on first need.
    public init(files: [FontFile]) throws(FontError) {
        guard !files.isEmpty else { throw .emptyCascade }
        let validator = FontValidator()
        var fonts: [FontFace] = []
        fonts.reserveCapacity(files.count)
        for file in files {
            fonts.append(try FontRegistry.shared.font(for: file, validator: validator))
        }
        self.fonts = fonts
    }

    /// A cascade of faces already loaded (a styled text's every face, for a store's key).
    init(loaded fonts: [FontFace]) {
        self.fonts = fonts
    }

    /// The bundled cascade (see `Fonts/README.md`): Noto Sans, Noto Sans Arabic, Hebrew, Thai,
    /// Devanagari, Droid Sans Fallback (CJK), Nanum Gothic (Hangul), Noto Sans Math, Noto Sans
    /// Symbols 2 and Noto Color Emoji.
    ///
    /// - Returns: The cascade of ``BundledFonts/fileNames``, in that order.
    /// - Throws: ``FontError/bundledFontsNotFound(searched:)`` when no folder of
    ///   ``BundledFonts/searchPath()`` holds all the files; otherwise the ``FontError`` of a file that
    ///   cannot be loaded.
    /// - Complexity: That of ``init(files:)`` for the ten files, plus one `access` per file to find
    ///   the folder; no face is loaded.
    public static func bundled() throws(FontError) -> FontCascade {
        try FontCascade(files: BundledFonts.files())
    }
}

/// Where the bundled `Fonts/` folder is, found the same way wherever the package or binary runs from.
public enum BundledFonts {
    /// File names of the default cascade, in order.
    public static let fileNames = [
        "NotoSans-Regular.ttf",
        "NotoSansArabic-Regular.ttf",
        "NotoSansHebrew-Regular.ttf",
        "NotoSansThai-Regular.ttf",
        "NotoSansDevanagari-Regular.ttf",
        "DroidSansFallbackFull.ttf",
        "NanumGothic.ttf",
        "NotoSansMath-Regular.ttf",
        "NotoSansSymbols2-Regular.ttf",
        "NotoColorEmoji.ttf",
    ]

    /// The bold cascade (see ``FontCascades``): the bold faces of Noto Sans, Arabic, Hebrew, Thai and
    /// Devanagari, then the fonts that have no bold face bundled, regular.
    public static let boldFileNames = [
        "NotoSans-Bold.ttf",
        "NotoSansArabic-Bold.ttf",
        "NotoSansHebrew-Bold.ttf",
        "NotoSansThai-Bold.ttf",
        "NotoSansDevanagari-Bold.ttf",
    ] + fileNames.suffix(5)

    /// The italic cascade: Noto Sans Italic (Latin, Greek, Cyrillic), then the regular fallbacks.
    public static let italicFileNames = ["NotoSans-Italic.ttf"] + fileNames.dropFirst()

    /// The bold italic cascade: Noto Sans Bold Italic, then the bold cascade's fallbacks.
    public static let boldItalicFileNames = ["NotoSans-BoldItalic.ttf"] + boldFileNames.dropFirst()

    /// The monospace cascade: Noto Sans Mono, then the regular fallbacks (not Noto Sans, whose
    /// proportional Latin would stand in for characters Noto Sans Mono lacks).
    public static let monospaceFileNames = ["NotoSansMono-Regular.ttf"] + fileNames.dropFirst()

    /// The bold monospace cascade: Noto Sans Mono Bold, then the bold cascade's fallbacks.
    public static let monospaceBoldFileNames = ["NotoSansMono-Bold.ttf"] + boldFileNames.dropFirst()

    /// The default cascade's files, from the first folder in ``searchPath()`` that holds all of them.
    ///
    /// Only checks that the files are readable; loading them is ``FontCascade/init(files:)``'s job.
    ///
    /// - Returns: The paths of ``fileNames`` in that folder, in order.
    /// - Throws: ``FontError/bundledFontsNotFound(searched:)``, listing the folders searched, when no
    ///   folder holds all of them.
    public static func files() throws(FontError) -> [FontFile] {
        let folder = try folder()
        return fileNames.map { FontFile(path: folder + "/" + $0) }
    }

    /// The first folder in ``searchPath()`` that holds every file of ``fileNames``.
    static func folder() throws(FontError) -> String {
        let folders = searchPath()
        for folder in folders where fileNames.allSatisfy({ access(folder + "/" + $0, R_OK) == 0 }) {
            return folder
        }
        throw .bundledFontsNotFound(searched: folders)
    }

    /// Folders searched for the bundled fonts, in order:
    /// 1. `$TEXTMEASURE_FONTS`, when set;
    /// 2. `Fonts/` and `share/textmeasure/Fonts/` beside the running executable and in each folder
    ///    above it (covers `.build/debug/textmeasure`, test runners, and `bin/` + `share/` installs);
    /// 3. the package's own `Fonts/`, located from this source file at build time (covers a binary
    ///    copied elsewhere while the checkout still exists).
    ///
    /// - Returns: The folders, in that order; some may not exist.
    public static func searchPath() -> [String] {
        var folders: [String] = []
        if let override = getenv("TEXTMEASURE_FONTS") {
            folders.append(String(cString: override))
        }
        if let executable = executableFolder() {
            var folder = Substring(executable)
            while !folder.isEmpty {
                // Joined as Strings: `Substring + String` is generic code that looks its types'
                // conformances up at run time, a scan of every conformance record at start-up.
                let path = String(folder)
                folders.append(path + "/Fonts")
                folders.append(path + "/share/textmeasure/Fonts")
                guard let slash = folder.lastIndex(of: "/") else { break }
                folder = folder[..<slash]
            }
        }
        // #filePath is Sources/TextMeasure/Fonts/FontCascade.swift; the package root is 4 levels up.
        var root = "\(#filePath)"
        for _ in 0..<4 {
            if let slash = root.lastIndex(of: "/") { root = String(root[..<slash]) }
        }
        folders.append(root + "/Fonts")
        return folders
    }

    private static func executableFolder() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }
}

/// Process-wide table of opened faces, so that a file is validated and opened once however many
/// measurers name it, and a face loaded by one measurer is loaded for all. Thread-safe (mutex); a
/// failed file is not remembered and is tried again next time.
final class FontRegistry: Sendable {
    static let shared = FontRegistry()

    private let fonts = Locked<[FontFile: FontFace]>([:])

    /// The face of `file`, validated with `validator` and opened if no measurer has named it before.
    func font(for file: FontFile, validator: FontValidator) throws(FontError) -> FontFace {
        if let font = fonts.withLock({ $0[file] }) { return font }
        // Opening happens outside the lock; if two threads race, the first stored face wins.
        let loaded = try FontFace.load(path: file.path, faceIndex: file.faceIndex, validator: validator)
        return fonts.withLock { fonts in
            if let existing = fonts[file] { return existing }
            fonts[file] = loaded
            return loaded
        }
    }
}
