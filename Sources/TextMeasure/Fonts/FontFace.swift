import CFreeType
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One face of a font file, loaded once and shared by every measurer that names it.
///
/// A face holds no fonts per size: each ``TextMeasurer`` keeps those of the sizes it used most recently
/// (see ``TextMeasurer/fontSizeCapacity``), and a size's fonts are freed when no measurer keeps them.
///
/// Thread safety: a `FontFace` is immutable after loading. Its HarfBuzz face and the per-size HarfBuzz
/// fonts made from it are immutable (`hb_face_make_immutable`, `hb_font_make_immutable`), which
/// HarfBuzz documents as safe to use from many threads at once; the count of live fonts is atomic.
/// FreeType is used only while loading, on a private `FT_Library` that never escapes `load`.
public final class FontFace: @unchecked Sendable {
    // @unchecked: every stored property is a constant, an immutable HarfBuzz object or an atomic.
    /// The file the face was loaded from.
    public let path: String
    /// The face's index in a collection (`.ttc`); 0 for a plain font file.
    public let faceIndex: Int
    /// The family name from the font's `name` table, if it has one (read when asked: loading a face
    /// should not parse tables nothing may need).
    public var familyName: String? {
        FontFace.name(of: face, id: hb_ot_name_id_t(HB_OT_NAME_ID_FONT_FAMILY))
    }
    /// Design units per em.
    public let unitsPerEm: Int32
    /// Whether the face draws color glyphs (CBDT/sbix bitmaps, COLR layers or SVG): an emoji font.
    public let isColor: Bool

    let face: OpaquePointer
    /// Unique in the process (never reused, unlike an address): what caches of shaped text key on.
    let id: UInt32
    /// A font at design scale, used only for cmap look-ups (coverage does not depend on size).
    let coverageFont: HBFont
    /// Per-size fonts of this face now alive (``HBFont/init(face:scale:)`` to their `deinit`).
    let liveScaledFonts = Atomic<Int>(0)
    private static let lastID = Atomic<UInt32>(0)

    private init(path: String, faceIndex: Int, face: OpaquePointer) {
        self.path = path
        self.faceIndex = faceIndex
        self.face = face
        let id = Self.lastID.wrappingAdd(1, ordering: .relaxed).newValue
        precondition(id != 0, "more than 2^32 - 1 font faces loaded in one process")
        self.id = id
        self.unitsPerEm = Int32(hb_face_get_upem(face))
        self.coverageFont = HBFont(hbFace: face, id: HBFont.ID(face: id, scale: Int32(hb_face_get_upem(face))))
        self.isColor = hb_ot_color_has_png(face) != 0 || hb_ot_color_has_layers(face) != 0
            || hb_ot_color_has_svg(face) != 0
    }

    deinit {
        hb_face_destroy(face)
    }

    /// Loads face `faceIndex` of the file at `path`, validating it with FreeType first so that a bad
    /// file gets FreeType's precise reason.
    static func load(path: String, faceIndex: Int) throws(FontError) -> FontFace {
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == ENOENT || errno == ENOTDIR { throw .fileNotFound(path: path) }
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .unreadable(path: path, reason: "is a directory") }
        if access(path, R_OK) != 0 { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard faceIndex >= 0 else { throw .faceIndexOutOfRange(path: path, index: faceIndex, faceCount: 0) }

        try validateWithFreeType(path: path, faceIndex: faceIndex)

        guard let blob = hb_blob_create_from_file_or_fail(path) else {
            throw .unreadable(path: path, reason: "HarfBuzz could not map the file")
        }
        defer { hb_blob_destroy(blob) }
        guard let face = hb_face_create(blob, UInt32(faceIndex)) else {
            throw .corrupt(path: path, reason: "HarfBuzz could not read the face")
        }
        guard hb_face_get_glyph_count(face) > 0 else {
            hb_face_destroy(face)   // a face without glyphs is refused, and not leaked (found by fuzzing)
            throw .corrupt(path: path, reason: "HarfBuzz found no glyphs")
        }
        hb_face_make_immutable(face)
        return FontFace(path: path, faceIndex: faceIndex, face: face)
    }

    private static func validateWithFreeType(path: String, faceIndex: Int) throws(FontError) {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else {
            throw .unreadable(path: path, reason: "FreeType could not start")
        }
        defer { FT_Done_FreeType(library) }
        // Index -1 asks only how many faces the file holds. The index is checked against that count
        // before it is used: FreeType and HarfBuzz read its upper 16 bits as a named instance, so an
        // index of 65,536 or more would silently pick face 0 (and one of 2^32 or more cannot be passed).
        var probe: FT_Face?
        let probed = FT_New_Face(library, path, -1, &probe)
        if probed == 0, let probe {
            let faceCount = Int(probe.pointee.num_faces)
            FT_Done_Face(probe)
            if faceIndex >= faceCount || faceIndex > 0xFFFF {
                throw .faceIndexOutOfRange(path: path, index: faceIndex, faceCount: faceCount)
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

    private static func name(of face: OpaquePointer, id: hb_ot_name_id_t) -> String? {
        var length: UInt32 = 128
        var buffer = [CChar](repeating: 0, count: Int(length))
        let total = hb_ot_name_get_utf8(face, id, hb_language_from_string("en", -1), &length, &buffer)
        guard total > 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// How many fonts of this face at some size are alive now, in every measurer and preparation.
    var liveScaledFontCount: Int { liveScaledFonts.load(ordering: .relaxed) }

    /// Whether the face maps `scalar` to a glyph.
    func covers(_ scalar: UInt32) -> Bool {
        var glyph: hb_codepoint_t = 0
        return hb_font_get_nominal_glyph(coverageFont.pointer, scalar, &glyph) != 0
    }
}
