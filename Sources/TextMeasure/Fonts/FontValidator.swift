import CHarfBuzzFreeType

/// Checks font files with FreeType before they are used, so that a bad file is refused when its
/// cascade is made, with FreeType's precise reason. HarfBuzz alone is more lenient: it opens a file
/// cut short inside the tables FreeType reads (`head`, `hhea`, `hmtx`, `cmap`, …) and reads it as a
/// font with tables missing, so checking with HarfBuzz only would accept files refused before.
///
/// One FreeType library serves every file one validator checks, made on the first check: starting
/// FreeType costs about as much as checking a small font, and a cascade checks up to ten files.
///
/// Thread safety: not `Sendable`; one thread at a time, as FreeType requires of an `FT_Library`. Each
/// ``FontCascade/init(files:)`` has its own, which lives for that call only.
final class FontValidator {
    private var library: FT_Library?

    /// A validator; FreeType is started on the first ``validate(path:faceIndex:)``.
    init() {}

    deinit {
        if let library { FT_Done_FreeType(library) }
    }

    /// Checks that face `faceIndex` of the file at `path` opens in FreeType.
    ///
    /// - Parameters:
    ///   - path: The font file, known to exist and be readable.
    ///   - faceIndex: The face's index.
    /// - Throws: ``FontError/faceIndexOutOfRange(path:index:faceCount:)`` when the index is negative
    ///   or the file has fewer faces; ``FontError/corrupt(path:reason:)`` with FreeType's reason when
    ///   the face does not open;
    ///   ``FontError/unreadable(path:reason:)`` when FreeType cannot start.
    /// - Complexity: FreeType's opening of the face: its table directory and the tables it checks.
    func validate(path: String, faceIndex: Int) throws(FontError) {
        let library: FT_Library
        if let started = self.library { library = started } else { library = try start(naming: path) }
        // Index -1 asks only how many faces the file holds. The index is checked against that count
        // before it is used: FreeType and HarfBuzz read its upper 16 bits as a named instance, so an
        // index of 65,536 or more would silently pick face 0 (and one of 2^32 or more cannot be passed).
        // Face 0 needs no such check: a file with no face fails to open it with the same error the
        // count would have given (checked on 12,600 truncated and corrupted files), so the file is
        // opened once, not twice.
        // A negative index is counted too, so that its error names the faces there are.
        var probed: FT_Error = 0
        if faceIndex != 0 {
            var probe: FT_Face?
            probed = FT_New_Face(library, path, -1, &probe)
            if probed == 0, let probe {
                let faceCount = Int(probe.pointee.num_faces)
                FT_Done_Face(probe)
                if faceIndex < 0 || faceIndex >= faceCount || faceIndex > 0xFFFF {
                    throw .faceIndexOutOfRange(path: path, index: faceIndex, faceCount: faceCount)
                }
            }
        }
        var face: FT_Face?
        let error = probed == 0 ? FT_New_Face(library, path, FT_Long(faceIndex), &face) : probed
        if error == 0, let face {
            FT_Done_Face(face)
            return
        }
        let message = cft_error_string(error).map { String(cString: $0) } ?? "FreeType error \(error)"
        throw .corrupt(path: path, reason: message)
    }

    private func start(naming path: String) throws(FontError) -> FT_Library {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else {
            throw .unreadable(path: path, reason: "FreeType could not start")
        }
        self.library = library
        return library
    }
}
