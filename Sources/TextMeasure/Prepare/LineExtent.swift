/// How far a line box reaches above and below its baseline, in line units: 1/1024 px in
/// ``LineBreaking/pango`` (Pango units), Blink's LayoutUnits (1/64 px) in the browser modes (see
/// ``LineHeights/unitsPerPixel(for:)``).
///
/// A font's extent is what one line of it alone needs; a line holding several fonts reaches as far up
/// as the tallest ascent and as far down as the deepest descent: the ``union(_:)`` of their extents.
struct LineExtent: Hashable, Sendable {
    /// From the line's top to its baseline.
    var above: Int32
    /// From the baseline to the line's bottom.
    var below: Int32

    /// Nothing above or below the baseline.
    static let zero = LineExtent(above: 0, below: 0)

    /// The line's height: `above + below`, never below 0.
    var height: Int { max(0, Int(above) + Int(below)) }

    /// The extent of a line holding both: the larger reach on each side.
    @inline(__always)
    func union(_ other: LineExtent) -> LineExtent {
        LineExtent(above: max(above, other.above), below: max(below, other.below))
    }

    /// Whether `other` reaches no further than this on either side (their union is this).
    func contains(_ other: LineExtent) -> Bool {
        other.above <= above && other.below <= below
    }

    /// A font's extent as Pango 1.50 gives each of its glyphs (`pango_font_get_glyph_extents` with the
    /// cairo font map, which `pango_layout_line_get_extents` unites over a line's runs): the font's
    /// HarfBuzz ascender and descender at the layout's scale, exact, without the line gap. Spaces
    /// and empty glyphs report the same extent, so a line of spaces is as tall as their font.
    ///
    /// - Parameter font: The font at the style's scale (1,024 units a pixel, Pango's).
    static func pango(_ font: HBFont) -> LineExtent {
        LineExtent(above: font.ascender, below: Int32(clamping: -Int(font.descender)))
    }

    /// A font's extent as Blink lays out a line with `line-height: normal`, in LayoutUnits: Skia's
    /// ascent and descent at `size` (the font's design metrics scaled in single precision: OS/2 typo
    /// metrics when USE_TYPO_METRICS is set, else `hhea`, as HarfBuzz reads them), each rounded to a
    /// whole pixel (`SkScalarRoundToScalar`, as `FontMetrics::AscentDescentWithHacks`), and half the
    /// rounded line gap added on each side (the leading of `InlineBoxState::ComputeTextMetrics`, the
    /// odd LayoutUnit below).
    ///
    /// Blink's other adjustments do not apply to the bundled fonts: VDMX needs full hinting (Debian's
    /// default is slight), and sub-pixel ascents are for canvas text only; the borrowing of a pixel
    /// from the ascent when the descent was rounded down was measured not to happen in Chromium 156
    /// on Debian (0 of 1,233 mixed-font heights).
    ///
    /// - Parameters:
    ///   - face: The font.
    ///   - size: The font size in pixels.
    static func blink(_ face: FontFace, size: Double) -> LineExtent {
        let design = face.coverageFont   // scaled to units per em: the design metrics, exact
        let perEm = Float(face.unitsPerEm)
        let pixels = Float(size)
        func rounded(_ designUnits: Int32) -> Int32 {
            let value = (Float(designUnits) / perEm * pixels + 0.5).rounded(.down)
            return Int32(clamping: Int(exactly: value) ?? 0)
        }
        let ascent = rounded(design.ascender), descent = rounded(-design.descender)
        let gap = Int(rounded(design.lineGap)) * LayoutUnit.perPixel
        let halfGap = gap / 2   // a LayoutUnit divided by 2, truncated as Blink's `operator/`
        return LineExtent(above: Int32(clamping: Int(ascent) * LayoutUnit.perPixel + halfGap),
                          below: Int32(clamping: Int(descent) * LayoutUnit.perPixel + gap - halfGap))
    }
}
