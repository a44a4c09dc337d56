import CHarfBuzzFreeType
import TextMeasure

/// Draws glyphs onto a ``Canvas`` with FreeType: outlines rendered to 8-bit coverage (light hinting,
/// positioned to 1/64 pixel), color bitmap glyphs (Noto Color Emoji's CBDT strikes) scaled from their
/// strike to the size asked.
///
/// Owns a private `FT_Library` and one `FT_Face` per ``FontFace`` it was asked to draw with; all are
/// freed in `deinit`. Thread safety: not `Sendable` — FreeType faces are used by one thread at a time,
/// so each drawing makes its own rasterizer.
package final class GlyphRasterizer {
    private let library: FT_Library
    /// Open faces by font face, with the size each is set to (in 26.6 pixels; 0 for a strike font).
    private var faces: [ObjectIdentifier: (font: FontFace, face: FT_Face, size: FT_F26Dot6)] = [:]

    // FreeType's flags are macros Swift does not import; their values from freetype.h.
    private static let loadRender: Int32 = 1 << 2
    private static let loadNoBitmap: Int32 = 1 << 3
    private static let loadColor: Int32 = 1 << 20
    private static let loadTargetLight: Int32 = 1 << 16   // FT_LOAD_TARGET_(FT_RENDER_MODE_LIGHT)
    private static let faceFlagScalable: FT_Long = 1 << 0

    /// Starts FreeType.
    ///
    /// - Throws: ``RenderError`` when FreeType cannot start.
    package init() throws(RenderError) {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { throw RenderError("FreeType could not start") }
        self.library = library
    }

    deinit {
        for entry in faces.values { FT_Done_Face(entry.face) }
        FT_Done_FreeType(library)
    }

    /// Draws glyph `glyph` of `font` at `size` device pixels with its origin at (`x`, `baseline`) in
    /// device pixels; outline glyphs in `color`, color glyphs in their own colors.
    ///
    /// - Throws: ``RenderError`` when FreeType cannot open the font's file (a glyph it cannot load is
    ///   skipped: nothing is drawn for it).
    package func draw(_ glyph: UInt32, of font: FontFace, size: Double, x: Double, baseline: Double, color: RGBA,
                      on canvas: inout Canvas) throws(RenderError) {
        let face = try face(for: font, size: size)
        let record = face.pointee
        if record.face_flags & Self.faceFlagScalable != 0 {
            // Whole pixels to the bitmap's placement, the fraction to the outline (in 1/64 px).
            let left = x.rounded(.down), top = baseline.rounded(.down)
            var delta = FT_Vector(x: FT_Pos(((x - left) * 64).rounded()), y: -FT_Pos(((baseline - top) * 64).rounded()))
            FT_Set_Transform(face, nil, &delta)
            guard FT_Load_Glyph(face, glyph, Self.loadRender | Self.loadNoBitmap | Self.loadTargetLight) == 0 else { return }
            let slot = face.pointee.glyph.pointee
            drawCoverage(slot.bitmap, left: Int(left) + Int(slot.bitmap_left), top: Int(top) - Int(slot.bitmap_top),
                         color: color, on: &canvas)
        } else {
            guard FT_Load_Glyph(face, glyph, Self.loadRender | Self.loadColor) == 0 else { return }
            let slot = face.pointee.glyph.pointee
            let strike = Double(face.pointee.size.pointee.metrics.y_ppem)
            guard strike > 0 else { return }
            let factor = size / strike
            drawScaled(slot.bitmap, left: x + Double(slot.bitmap_left) * factor,
                       top: baseline - Double(slot.bitmap_top) * factor, factor: factor, color: color, on: &canvas)
        }
    }

    /// The open face for `font`, set to `size` pixels (a strike font: to its strike nearest above).
    private func face(for font: FontFace, size: Double) throws(RenderError) -> FT_Face {
        let key = ObjectIdentifier(font)
        var entry: (font: FontFace, face: FT_Face, size: FT_F26Dot6)
        if let open = faces[key] {
            entry = open
        } else {
            var face: FT_Face?
            let error = FT_New_Face(library, font.path, FT_Long(font.faceIndex), &face)
            guard error == 0, let face else {
                throw RenderError("FreeType cannot open \(font.path): \(cft_error_string(error).map { String(cString: $0) } ?? "error \(error)")")
            }
            entry = (font, face, -1)
        }
        let wanted = FT_F26Dot6((size * 64).rounded())
        if entry.size != wanted {
            if entry.face.pointee.face_flags & Self.faceFlagScalable != 0 {
                FT_Set_Char_Size(entry.face, 0, wanted, 72, 72)
            } else if entry.face.pointee.num_fixed_sizes > 0 {
                // The smallest strike at least as large as asked, else the largest.
                let sizes = UnsafeBufferPointer(start: entry.face.pointee.available_sizes,
                                                count: Int(entry.face.pointee.num_fixed_sizes))
                let best = sizes.indices.filter { sizes[$0].y_ppem >= wanted }.min { sizes[$0].y_ppem < sizes[$1].y_ppem }
                    ?? sizes.indices.max { sizes[$0].y_ppem < sizes[$1].y_ppem }!
                FT_Select_Size(entry.face, Int32(best))
            }
            entry.size = wanted
        }
        faces[key] = entry
        return entry.face
    }

    /// Blends an 8-bit coverage bitmap in `color` with its top-left pixel at (`left`, `top`).
    private func drawCoverage(_ bitmap: FT_Bitmap, left: Int, top: Int, color: RGBA, on canvas: inout Canvas) {
        guard bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue), bitmap.pitch > 0, let buffer = bitmap.buffer else {
            return
        }
        for row in 0..<Int(bitmap.rows) {
            let line = buffer + row * Int(bitmap.pitch)
            for column in 0..<Int(bitmap.width) where line[column] > 0 {
                canvas.blend(x: left + column, y: top + row, color: color, coverage: Double(line[column]) / 255)
            }
        }
    }

    /// Blends a bitmap scaled by `factor` with its top-left corner at (`left`, `top`): a BGRA bitmap
    /// (premultiplied, as FreeType gives color glyphs) in its colors, an 8-bit one in `color`. Each
    /// device pixel takes the area-weighted mean of the bitmap pixels it covers.
    private func drawScaled(_ bitmap: FT_Bitmap, left: Double, top: Double, factor: Double, color: RGBA,
                            on canvas: inout Canvas) {
        let isColor = bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_BGRA.rawValue)
        guard isColor || bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue),
              bitmap.pitch > 0, let buffer = bitmap.buffer, factor > 0 else { return }
        let columns = Int(bitmap.width), rows = Int(bitmap.rows)
        let x0 = Int(left.rounded(.down)), x1 = Int((left + Double(columns) * factor).rounded(.up))
        let y0 = Int(top.rounded(.down)), y1 = Int((top + Double(rows) * factor).rounded(.up))
        let ink = (Double(color.red) / 255, Double(color.green) / 255, Double(color.blue) / 255)
        for y in max(0, y0)..<max(max(0, y0), min(canvas.height, y1)) {
            let sy0 = (Double(y) - top) / factor, sy1 = (Double(y + 1) - top) / factor
            for x in max(0, x0)..<max(max(0, x0), min(canvas.width, x1)) {
                let sx0 = (Double(x) - left) / factor, sx1 = (Double(x + 1) - left) / factor
                var b = 0.0, g = 0.0, r = 0.0, a = 0.0
                for sy in max(0, Int(sy0.rounded(.down)))..<min(rows, Int(sy1.rounded(.up))) {
                    let wy = min(sy1, Double(sy + 1)) - max(sy0, Double(sy))
                    guard wy > 0 else { continue }
                    let line = buffer + sy * Int(bitmap.pitch)
                    for sx in max(0, Int(sx0.rounded(.down)))..<min(columns, Int(sx1.rounded(.up))) {
                        let w = wy * (min(sx1, Double(sx + 1)) - max(sx0, Double(sx)))
                        guard w > 0 else { continue }
                        if isColor {
                            b += w * Double(line[sx * 4]); g += w * Double(line[sx * 4 + 1])
                            r += w * Double(line[sx * 4 + 2]); a += w * Double(line[sx * 4 + 3])
                        } else {
                            a += w * Double(line[sx])
                        }
                    }
                }
                let area = (sx1 - sx0) * (sy1 - sy0) * 255
                if isColor {
                    canvas.blend(x: x, y: y, premultipliedRed: r / area, green: g / area, blue: b / area, alpha: a / area)
                } else {
                    let alpha = a / area
                    canvas.blend(x: x, y: y, premultipliedRed: ink.0 * alpha, green: ink.1 * alpha, blue: ink.2 * alpha,
                                 alpha: alpha)
                }
            }
        }
    }
}
