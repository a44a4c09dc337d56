import CHarfBuzzFreeType
import CUnicodeBreak

/// A font that shapes as Pango 1.50 does where the font lacks a character: the character becomes a
/// hex box (a box showing its code point's hex digits) as wide as Pango's cairo font map draws it,
/// instead of the font's `.notdef` glyph. Used in ``LineBreaking/pango`` for runs holding a character
/// their font lacks (a character no font of the cascade covers takes the primary font, and a control
/// character the font of the text around it); every other run shapes with the plain ``HBFont``.
///
/// Pango asks HarfBuzz for glyphs through its own callbacks (`pango_hb_font_get_nominal_glyph`): a
/// character the font lacks gets an "unknown" glyph, `PANGO_GLYPH_UNKNOWN_FLAG | code point`, except a
/// space separator (HarfBuzz then makes a space of the font's U+0020) and a newline, carriage return or
/// U+2028 (an empty glyph). Its advance is the hex box's logical width
/// (`_pango_cairo_font_private_get_glyph_extents_missing`). This font is a HarfBuzz sub-font with the
/// same callbacks, so HarfBuzz's normalization and shaping see what they see in Pango (a precomposed
/// character the font lacks is not decomposed, a mark the font lacks keeps its box's advance).
///
/// The box, unhinted as the reference set-up lays text out (`CAIRO_HINT_METRICS_OFF`): two rows of
/// hex digits in a "mini font" at `size / 2.2` (rounded to Pango units), each digit cell as wide as the
/// widest of the sixteen digits' ink; a pad of the font's ascent plus descent over 43 (at most the mini
/// size) around and between the cells: `5 × pad + columns × (digit width + pad)` wide, with two
/// columns for a character of the Basic Multilingual Plane and three beyond it. Pango draws the
/// digits in its `monospace` family with the run font's weight and slant; the caller gives the face
/// that stands for it (see `HexBoxDigitFaces`).
///
/// Glyph ids are Pango's: an unknown glyph is `unknownFlag | code point`, not a glyph of the face.
/// Whoever hands glyphs out (see `LineShaper`) maps them to `.notdef`.
///
/// Thread safety: immutable after `init` (`hb_font_make_immutable`); the callbacks only read the
/// metrics and the parent font, itself immutable. Safe from any number of threads at once.
final class HexBoxFont: @unchecked Sendable {
    // @unchecked: `pointer` is an immutable hb_font_t; `metrics` is written once, in init.

    /// Pango's `PANGO_GLYPH_UNKNOWN_FLAG`: the glyph of a character the font lacks.
    static let unknownFlag: UInt32 = 0x1000_0000
    /// Pango's `PANGO_GLYPH_EMPTY`: a glyph that draws nothing and advances nothing.
    static let emptyGlyph: UInt32 = 0x0FFF_FFFF

    /// The box's advances and extent, in the font's scale units (Pango units: 1,024 a pixel).
    struct Metrics {
        /// The logical width of the box of a character of plane 0 (two columns of two digits).
        var basicAdvance: Int32
        /// ... of a character beyond plane 0 (three columns).
        var supplementaryAdvance: Int32
        /// ... of a value past U+10FFFF (one column; not reachable from valid UTF-8).
        var invalidAdvance: Int32
        /// How far the box's logical rectangle reaches above and below the baseline.
        var extent: LineExtent
    }

    /// The sub-font, shaped with as an `hb_font_t`.
    let pointer: OpaquePointer
    /// Unique in the process: caches of broken ligatures key on it, never on ``parent``'s id.
    let id: HBFont.ID
    /// The box's metrics at this font's size.
    let metrics: Metrics
    /// The font it draws with where it has a glyph; held for as long as the sub-font refers to it.
    let parent: HBFont
    /// The metrics as the callbacks read them (the sub-font's `font_data`), freed in `deinit`.
    private let callbackMetrics: UnsafeMutablePointer<Metrics>

    /// The hex-box font over `parent`, its digits drawn as `digits` draws them.
    ///
    /// - Parameters:
    ///   - parent: The run's font, at a scale of 1,024 units a pixel (``LineBreaking/pango``'s).
    ///   - digits: The face standing for Pango's `monospace` family at the run's weight and slant.
    /// - Complexity: O(1): sixteen glyph extents of `digits`, and one `hb_font_t`.
    init(parent: HBFont, digits: FontFace) {
        self.parent = parent
        metrics = Self.metrics(of: parent, digits: digits)
        callbackMetrics = .allocate(capacity: 1)
        callbackMetrics.initialize(to: metrics)
        id = HBFont.ID(face: FontFace.makeID(), scale: parent.id.scale)
        pointer = hb_font_create_sub_font(parent.pointer)
        hb_font_set_funcs(pointer, Self.funcs, callbackMetrics, nil)
        hb_font_make_immutable(pointer)
    }

    deinit {
        hb_font_destroy(pointer)   // before the metrics its callbacks read
        callbackMetrics.deallocate()
    }

    /// The pointer and identity, as ``HBFont/handle``.
    var handle: HBFont.Handle { HBFont.Handle(pointer: pointer, id: id) }

    /// Whether Pango draws `scalar` without a box where the font lacks it: white space (HarfBuzz makes
    /// a space of U+0020; a tab is laid out apart), a hard break (the empty glyph), or a default
    /// ignorable character (HarfBuzz hides it).
    ///
    /// - Parameters:
    ///   - scalar: The character.
    ///   - properties: Its `cub_scalar_properties`.
    static func drawsNoBox(_ scalar: UInt32, properties: Int) -> Bool {
        properties & (CUB_HANGING_SPACE | CUB_DEFAULT_IGNORABLE) != 0 || scalar == 0x0A || scalar == 0x0D
            || scalar == 0x2028
    }

    /// Whether `glyph` is an unknown glyph (a hex box) or the empty glyph, neither of them the face's.
    static func isPangoGlyph(_ glyph: UInt32) -> Bool {
        glyph & unknownFlag != 0 || glyph == emptyGlyph
    }

    /// The box's metrics for a run in `parent` (see the type's discussion), in Pango units.
    static func metrics(of parent: HBFont, digits: FontFace) -> Metrics {
        let unitsPerPixel = 1024.0
        let size = Double(parent.id.scale) / unitsPerPixel
        // `pango_units_from_double(size / 2.2)`: the mini font's size, rounded to Pango units.
        let miniSize = ((size / 2.2) * unitsPerPixel + 0.5).rounded(.down) / unitsPerPixel
        // The widest and tallest ink of the sixteen digits (cairo's text extents, unhinted: exact).
        let design = digits.coverageFont
        let perEm = Double(digits.unitsPerEm)
        var digitWidth = 0.0, digitHeight = 0.0
        for scalar in Array("0123456789ABCDEF".unicodeScalars) {
            var glyph: hb_codepoint_t = 0
            guard hb_font_get_nominal_glyph(design.pointer, scalar.value, &glyph) != 0 else { continue }
            var extents = hb_glyph_extents_t()
            guard hb_font_get_glyph_extents(design.pointer, glyph, &extents) != 0 else { continue }
            digitWidth = max(digitWidth, Double(extents.width) * miniSize / perEm)
            digitHeight = max(digitHeight, Double(-extents.height) * miniSize / perEm)
        }
        var ascent = Double(parent.ascender) / unitsPerPixel
        var descent = Double(-Int(parent.descender)) / unitsPerPixel
        if ascent + descent <= 0 {
            (ascent, descent) = (14, 0)   // PANGO_UNKNOWN_GLYPH_HEIGHT
        }
        let pad = min((ascent + descent) / 43, miniSize)
        let rows = 2.0
        let boxHeight = 3 * pad + rows * (pad + digitHeight)
        let boxDescent: Double
        if boxHeight <= ascent {
            boxDescent = 2 * pad
        } else if boxHeight <= ascent + descent - 2 * pad {
            boxDescent = 2 * pad + boxHeight - ascent
        } else {
            boxDescent = descent * boxHeight / (ascent + descent)
        }
        // Pango stores the rectangle in integers: each value truncated toward zero, as C converts.
        func units(_ pixels: Double) -> Int32 { Int32(clamping: Int((pixels * unitsPerPixel).rounded(.towardZero))) }
        func advance(columns: Double) -> Int32 { units(5 * pad + columns * (digitWidth + pad)) }
        let top = units(boxDescent - (boxHeight + pad))   // y of the logical rectangle: negative, up
        let height = units(boxHeight + 2 * pad)
        return Metrics(basicAdvance: advance(columns: 4 / rows), supplementaryAdvance: advance(columns: 6 / rows),
                       invalidAdvance: advance(columns: 1),
                       extent: LineExtent(above: -top, below: top + height))
    }

    /// One set of callbacks for every hex-box font (their `font_data` is their ``Metrics``).
    nonisolated(unsafe) private static let funcs: OpaquePointer = {
        let funcs = hb_font_funcs_create()!
        hb_font_funcs_set_nominal_glyph_func(funcs, { font, _, unicode, glyph, _ in
            guard let font, let glyph else { return 0 }
            if hb_font_get_nominal_glyph(hb_font_get_parent(font), unicode, glyph) != 0 { return 1 }
            // HarfBuzz makes other spaces from U+0020; a tab (white space here too) is Pango's to lay
            // out, not a box.
            if Int(cub_scalar_properties(unicode)) & CUB_HANGING_SPACE != 0 { return 0 }
            if unicode == 0x0A || unicode == 0x0D || unicode == 0x2028 {
                glyph.pointee = HexBoxFont.emptyGlyph
                return 1
            }
            glyph.pointee = HexBoxFont.unknownFlag | (unicode > 0x10FFFF ? 0xFFFD : unicode)
            return 1
        }, nil, nil)
        hb_font_funcs_set_glyph_h_advance_func(funcs, { font, data, glyph, _ in
            guard let font, let data else { return 0 }
            if glyph == HexBoxFont.emptyGlyph { return 0 }
            guard glyph & HexBoxFont.unknownFlag != 0 else {
                return hb_font_get_glyph_h_advance(hb_font_get_parent(font), glyph)
            }
            let metrics = data.assumingMemoryBound(to: Metrics.self).pointee
            let scalar = glyph & ~HexBoxFont.unknownFlag
            return scalar > 0x10FFFF ? metrics.invalidAdvance
                : scalar > 0xFFFF ? metrics.supplementaryAdvance : metrics.basicAdvance
        }, nil, nil)
        hb_font_funcs_make_immutable(funcs)
        return funcs
    }()
}
