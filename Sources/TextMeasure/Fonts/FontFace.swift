import TextMeasureSupport
import CHarfBuzzFreeType
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One face of a font file, loaded once per process and shared by every measurer that names it.
///
/// A face is ready in two steps, so that a cascade of ten fonts costs little until its text needs them:
/// - **Validated** when its cascade is made (``FontCascade/init(files:)``): the file is checked by
///   FreeType, which opens the face (so that a missing, unreadable or corrupt file, or a face index the
///   file does not have, is refused at once, naming the file: see `FontValidator`), then mapped
///   into memory and opened by HarfBuzz, which reads only its header tables (glyph count, units per
///   em, color tables).
/// - **Loaded** when it is first needed: its character map is read and a font at design scale made
///   the first time the cascade asks whether it covers a character (which happens only for characters
///   the fonts before it do not cover, or for emoji when it is a color font), and a font at a size is
///   made the first time a run is shaped with it or its metrics are asked for. A Latin text loads the
///   primary font only; the CJK fallback stays unread until a CJK character comes. The tables
///   HarfBuzz shapes with (GSUB, GPOS, …) are read by HarfBuzz itself on first use.
///
/// The lazy parts are kept in a `LazyReference`: once loaded, a coverage check is an atomic load and
/// a `cmap` look-up, with no lock. The public properties (``path``, ``faceIndex``, ``unitsPerEm``,
/// ``isColor``, ``familyName``) never load the face.
///
/// A face holds no fonts per size: each ``TextMeasurer`` keeps those of the sizes it used most recently
/// (see ``TextMeasurer/fontSizeCapacity``), and a size's fonts are freed when no measurer keeps them.
///
/// Thread safety: `Sendable`; any number of threads may use a face at once, including its first
/// loading (threads that load it at the same moment each make the design-scale font and one is kept,
/// see `LazyReference`). Its HarfBuzz face and the fonts made from it are immutable
/// (`hb_face_make_immutable`, `hb_font_make_immutable`), which HarfBuzz documents as safe to use from
/// many threads at once; the count of live fonts is atomic. FreeType is used only while validating, on
/// a library that never leaves `FontValidator`, and once per bitmap emoji face to read its strike's
/// advances (`StrikeAdvances`), on a library of its own, inside the face's `LazyReference`.
public final class FontFace: @unchecked Sendable {
    // @unchecked: every stored property is a constant, an immutable HarfBuzz object, an atomic or a
    // LazyReference (atomic, holding an immutable HBFont).
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
    /// A font at design scale, for cmap look-ups (coverage does not depend on size) and unscaled
    /// advances; made when the face is first needed (see the type's discussion).
    private let designFont = LazyReference<HBFont>()
    /// For a face of bitmap strikes without outlines (a CBDT emoji font): the identity of its fonts
    /// with ``StrikeAdvances``, as the browser modes shape with them; nil for every other face.
    let strikeID: UInt32?
    /// The face's ``StrikeAdvances``, read the first time a browser-mode font of it is made.
    private let strikeTable = LazyReference<StrikeTable>()
    /// Per-size fonts of this face now alive (``HBFont/init(face:scale:)`` to their `deinit`).
    let liveScaledFonts = Atomic<Int>(0)
    private static let lastID = Atomic<UInt32>(0)

    private init(path: String, faceIndex: Int, face: OpaquePointer) {
        self.path = path
        self.faceIndex = faceIndex
        self.face = face
        self.id = Self.makeID()
        self.unitsPerEm = Int32(hb_face_get_upem(face))
        self.isColor = hb_ot_color_has_png(face) != 0 || hb_ot_color_has_layers(face) != 0
            || hb_ot_color_has_svg(face) != 0
        let outlines = ["glyf", "CFF ", "CFF2"].contains { tag in
            let blob = hb_face_reference_table(face, hb_tag_from_string(tag, 4))
            defer { hb_blob_destroy(blob) }
            return hb_blob_get_length(blob) > 0
        }
        self.strikeID = hb_ot_color_has_png(face) != 0 && !outlines ? Self.makeID() : nil
    }

    /// What ``strikeTable`` holds: the advances, or nil when they could not be read.
    private final class StrikeTable: Sendable {
        let advances: StrikeAdvances?
        init(_ advances: StrikeAdvances?) { self.advances = advances }
    }

    /// The face's advances at its bitmap strike (see ``StrikeAdvances``), for a face with a
    /// ``strikeID``: read on first use; nil for other faces, or when FreeType could not read them.
    ///
    /// - Complexity: O(1) once read (an atomic load); the first use loads every glyph's metrics.
    var strikeAdvances: StrikeAdvances? {
        guard strikeID != nil else { return nil }
        return strikeTable.withObject(orMake: { StrikeTable(StrikeAdvances(path: path, faceIndex: faceIndex)) }) {
            $0.advances
        }
    }

    deinit {
        hb_face_destroy(face)
    }

    /// A new identity from the sequence faces take theirs from: no face or other font (see
    /// ``HexBoxFont``) in the process has it.
    static func makeID() -> UInt32 {
        let id = lastID.wrappingAdd(1, ordering: .relaxed).newValue
        precondition(id != 0, "more than 2^32 - 1 font identities made in one process")
        return id
    }

    /// Validates face `faceIndex` of the file at `path` and opens it (the first of the two steps in
    /// the type's discussion): FreeType checks the file first, through `validator`, so that a bad file
    /// gets FreeType's precise reason; then HarfBuzz maps it and must find glyphs in the face.
    ///
    /// - Complexity: FreeType's opening of the face (its table directory and the tables it checks:
    ///   `head`, `maxp`, `cmap`, `hhea`, `hmtx`, `name`, `kern`, …), then a few HarfBuzz header reads.
    ///   The file is mapped, not read: only the pages these touch are paged in.
    static func load(path: String, faceIndex: Int, validator: FontValidator) throws(FontError) -> FontFace {
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == ENOENT || errno == ENOTDIR { throw .fileNotFound(path: path) }
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .unreadable(path: path, reason: "is a directory") }
        if access(path, R_OK) != 0 { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        // A negative index is refused there, with the file's count of faces.
        try validator.validate(path: path, faceIndex: faceIndex)
        guard faceIndex >= 0 else { throw .faceIndexOutOfRange(path: path, index: faceIndex, faceCount: 0) }

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

    private static func name(of face: OpaquePointer, id: hb_ot_name_id_t) -> String? {
        var length: UInt32 = 128
        var buffer = [CChar](repeating: 0, count: Int(length))
        let total = hb_ot_name_get_utf8(face, id, hb_language_from_string("en", -1), &length, &buffer)
        guard total > 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// How many fonts of this face at some size are alive now, in every measurer and preparation.
    var liveScaledFontCount: Int { liveScaledFonts.load(ordering: .relaxed) }

    /// Whether the face has been loaded: its character map read and its design-scale font made (see
    /// the type's discussion). Fonts of it at a size may be made without this, and are counted by
    /// ``liveScaledFontCount``.
    var isLoaded: Bool { designFont.madeObject != nil }

    /// The font at design scale (units per em), for cmap look-ups and advances in font units; loads
    /// the face on first use.
    ///
    /// - Complexity: O(1) once loaded (one atomic load); the first use makes an `hb_font_t`.
    var coverageFont: HBFont {
        designFont.withObject(orMake: makeDesignFont) { $0 }
    }

    /// Whether the face maps `scalar` to a glyph; loads the face on first use.
    ///
    /// - Complexity: one `cmap` look-up (a binary search in the subtable HarfBuzz chose), plus an
    ///   atomic load; the first call on a face also makes its design-scale font.
    func covers(_ scalar: UInt32) -> Bool {
        designFont.withObject(orMake: makeDesignFont) { font in
            var glyph: hb_codepoint_t = 0
            return hb_font_get_nominal_glyph(font.pointer, scalar, &glyph) != 0
        }
    }

    /// Whether HarfBuzz draws `scalar` with this face without a missing glyph: the face maps it, or
    /// maps the parts of its canonical decomposition (HarfBuzz's normalizer decomposes a character
    /// the font lacks when the font has its parts: the second part mapped, the first drawn the same
    /// way). Loads the face on first use.
    ///
    /// - Complexity: a `cmap` look-up, and for a character the face lacks one per part of its
    ///   decomposition.
    func draws(_ scalar: UInt32) -> Bool {
        if covers(scalar) { return true }
        var first: hb_codepoint_t = 0, second: hb_codepoint_t = 0
        guard hb_unicode_decompose(Self.unicode, scalar, &first, &second) != 0, first != scalar else { return false }
        return (second == 0 || covers(second)) && draws(first)
    }

    // HarfBuzz's default Unicode functions are an immutable, process-wide object: safe from any thread.
    nonisolated(unsafe) private static let unicode = hb_unicode_funcs_get_default()

    private func makeDesignFont() -> HBFont {
        HBFont(hbFace: face, id: HBFont.ID(face: id, scale: unitsPerEm))
    }
}
