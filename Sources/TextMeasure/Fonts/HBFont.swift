import CHarfBuzzFreeType

/// An immutable `hb_font_t`: one ``FontFace`` at one scale (pixels × the layout units per pixel, see
/// `TextStyle.unitsPerPixel`: 1,024 as Pango, 65,536 in the browser modes as Blink).
///
/// Lifetime: the `hb_font_t` is destroyed when the last reference to its `HBFont` goes. Code that
/// passes ``pointer`` on (the shaper does, to spare two threads contending on a reference count) must
/// hold the `HBFont` itself for as long as it uses the pointer; ``TextMeasurer`` holds the cascade's
/// fonts for the whole of each preparation, whatever its bounded cache of sizes evicts meanwhile.
/// Caches never key on ``pointer``: a freed font's address may be reused by a font at another size.
/// They key on ``id``, which no other font in the process ever has.
///
/// Thread safety: immutable after `init` (`hb_font_make_immutable`), which HarfBuzz documents as safe
/// to use from many threads at once; the stored metrics are constants.
final class HBFont: @unchecked Sendable {
    // @unchecked: `pointer` is an immutable hb_font_t (see above); everything else is `let` values.

    /// What a font is, stable for the life of the process: its face's ``FontFace/id`` and its scale.
    /// Two fonts with equal ids shape identically, so shaped text is cached under this, never under the
    /// `hb_font_t`'s address.
    struct ID: Hashable, Sendable {
        var face: UInt32
        var scale: Int32

        /// Both fields in one integer, for hashing.
        var packed: UInt64 { UInt64(face) << 32 | UInt64(UInt32(bitPattern: scale)) }
    }

    /// A font's pointer and identity, copied without touching a reference count. Valid only while the
    /// ``HBFont`` it came from is held.
    struct Handle {
        let pointer: OpaquePointer
        let id: ID
    }

    let pointer: OpaquePointer
    let id: ID
    /// Ascender, descender (negative) and line gap, in scale units.
    let ascender: Int32
    let descender: Int32
    let lineGap: Int32
    /// The baselines Pango aligns runs on (see ``Baselines``), for a run of any script unless
    /// ``hasBaselineTable``.
    private let baselines: Baselines
    /// The face has a `BASE` table, whose baselines may differ from script to script.
    let hasBaselineTable: Bool
    /// The face whose ``FontFace/liveScaledFontCount`` counts this font; nil for the face's own
    /// coverage font (which the face holds, and which would otherwise hold the face).
    private let countedIn: FontFace?
    /// The strike advances the font's functions read, held for as long as the font.
    private let advances: StrikeAdvances?

    /// A font of `face` at `scale`, counted in the face's live fonts until it is freed. With
    /// `strikeAdvances`, a face of bitmap strikes without outlines advances as its strike does (see
    /// ``StrikeAdvances``: the browser modes), under an identity of its own (``FontFace/strikeID``).
    convenience init(face: FontFace, scale: Int32, strikeAdvances: Bool = false) {
        if strikeAdvances, let strikeID = face.strikeID, let advances = face.strikeAdvances {
            self.init(hbFace: face.face, id: ID(face: strikeID, scale: scale), countedIn: face, advances: advances)
        } else {
            self.init(hbFace: face.face, id: ID(face: face.id, scale: scale), countedIn: face, advances: nil)
        }
    }

    /// A font of the HarfBuzz face `hbFace` (which it references until freed), not counted.
    convenience init(hbFace: OpaquePointer, id: ID) {
        self.init(hbFace: hbFace, id: id, countedIn: nil, advances: nil)
    }

    private init(hbFace: OpaquePointer, id: ID, countedIn: FontFace?, advances: StrikeAdvances?) {
        let font = hb_font_create(hbFace)!
        hb_font_set_scale(font, id.scale, id.scale)
        if let advances {
            hb_font_make_immutable(font)
            pointer = advances.subFont(of: font)   // references `font`
            hb_font_destroy(font)
        } else {
            pointer = font
        }
        self.advances = advances
        self.id = id
        hb_font_make_immutable(pointer)
        var extents = hb_font_extents_t()
        hb_font_get_h_extents(pointer, &extents)
        ascender = extents.ascender
        descender = extents.descender
        lineGap = extents.line_gap
        let table = hb_face_reference_table(hbFace, Baselines.baseTableTag)
        hasBaselineTable = hb_blob_get_length(table) > 0
        hb_blob_destroy(table)
        baselines = Baselines(font: pointer, script: HB_SCRIPT_COMMON)
        self.countedIn = countedIn
        countedIn?.liveScaledFonts.add(1, ordering: .relaxed)
    }

    deinit {
        hb_font_destroy(pointer)
        countedIn?.liveScaledFonts.subtract(1, ordering: .relaxed)
    }

    /// The baselines of a run of `script` in this font (see ``Baselines``).
    ///
    /// - Complexity: O(1) without a `BASE` table; else a look-up in it.
    func baselines(for script: hb_script_t) -> Baselines {
        hasBaselineTable ? Baselines(font: pointer, script: script) : baselines
    }

    /// The pointer and identity, for code that must not retain and release the font per use.
    var handle: Handle { Handle(pointer: pointer, id: id) }
}
