import CHarfBuzzFreeType

/// The glyph advances of a bitmap-only color face (CBDT strikes, no outlines: Noto Color Emoji) as
/// Blink gets them, for the browser modes.
///
/// Skia asks FreeType for such a face's glyphs at one of its strikes and scales what it gets by the
/// size over the strike's size, so a glyph is as wide as its bitmap's advance (136 px at 109 ppem in
/// Noto Color Emoji: 1.2477 em), not as its `hmtx` advance (2,550 / 2,048 = 1.2451 em), which
/// HarfBuzz's own functions and Pango use. Measured in Chromium 156: ten 😀 at 11, 13, 17, 24 and
/// 31 px are the strike's width, rounded up to 1/64 px.
///
/// The advances are read once per face, with FreeType, at the face's largest strike (Skia takes the
/// smallest strike at least as large as the size, else the largest: the same strike for a face with
/// one), in 26.6 fixed point; a glyph without a bitmap has FreeType's advance from `hmtx` at that
/// size, as in Blink.
///
/// Thread safety: immutable after `init`; `fontFunctions` are immutable HarfBuzz objects, safe from
/// any thread.
final class StrikeAdvances: @unchecked Sendable {
    // @unchecked: `table` is written in init only, then read.
    /// The strike's ppem, then the glyph count, then each glyph's advance at the strike in 1/64 px.
    private let table: UnsafeMutablePointer<Int32>

    /// The advances of face `faceIndex` of `path`, or nil when FreeType cannot read them (the face
    /// keeps its `hmtx` advances then).
    ///
    /// - Complexity: O(glyphs): FreeType loads each glyph's bitmap metrics, not its image.
    init?(path: String, faceIndex: Int) {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { return nil }
        defer { FT_Done_FreeType(library) }
        var opened: FT_Face?
        guard FT_New_Face(library, path, FT_Long(faceIndex), &opened) == 0, let face = opened else { return nil }
        defer { FT_Done_Face(face) }
        let strikes = Int(face.pointee.num_fixed_sizes)
        guard strikes > 0, let sizes = face.pointee.available_sizes else { return nil }
        let largest = (0..<strikes).max { sizes[$0].y_ppem < sizes[$1].y_ppem }!
        let ppem = Int32(clamping: (sizes[largest].y_ppem + 32) >> 6)
        let count = Int(face.pointee.num_glyphs)
        guard ppem > 0, count > 0, FT_Select_Size(face, FT_Int(largest)) == 0 else { return nil }
        // FT_LOAD_COLOR (1 << 20): color bitmaps load; FT_LOAD_BITMAP_METRICS_ONLY (1 << 22): their
        // metrics only, no PNG decoded.
        let flags = FT_Int32(1 << 20 | 1 << 22)
        table = .allocate(capacity: count + 2)
        table[0] = ppem
        table[1] = Int32(count)
        for glyph in 0..<count {
            let advance = FT_Load_Glyph(face, FT_UInt(glyph), flags) == 0 ? face.pointee.glyph.pointee.advance.x : 0
            table[glyph + 2] = Int32(clamping: advance)
        }
    }

    deinit {
        table.deallocate()
    }

    /// A font of the same face as `parent` (with its scale) whose horizontal advances are these:
    /// everything else, shaping tables included, is `parent`'s. The caller keeps this object alive for
    /// as long as the font lives, and makes the font immutable.
    func subFont(of parent: OpaquePointer) -> OpaquePointer {
        let font = hb_font_create_sub_font(parent)!
        hb_font_set_funcs(font, Self.fontFunctions, table, nil)
        return font
    }

    /// One `h_advance` function for every such font: its data is the font's table.
    nonisolated(unsafe) private static let fontFunctions: OpaquePointer = {
        let functions = hb_font_funcs_create()!
        hb_font_funcs_set_glyph_h_advance_func(functions, { font, data, glyph, _ in
            guard let font, let table = data?.assumingMemoryBound(to: Int32.self),
                  glyph < UInt32(table[1]) else { return 0 }
            var xScale: Int32 = 0, yScale: Int32 = 0
            hb_font_get_scale(font, &xScale, &yScale)
            // advance × scale / ppem, in 1/64 px: rounded to the nearest unit of the font's scale.
            let product = Int64(table[Int(glyph) + 2]) * Int64(xScale)
            let divisor = 64 * Int64(table[0])
            let rounded = product >= 0 ? (product + divisor / 2) / divisor : -((-product + divisor / 2) / divisor)
            return hb_position_t(clamping: rounded)
        }, nil, nil)
        hb_font_funcs_make_immutable(functions)
        return functions
    }()
}
