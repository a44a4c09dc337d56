/// One line of a ``GlyphLayout``: its text, its measured width and its glyphs in visual order.
///
/// The glyphs are the line's visible content: white space hanging at the end of the line and control
/// characters (a tab, the hard break) are not drawn. The runs come left to right as they are to be
/// drawn; inside a right-to-left run HarfBuzz already lists glyphs left to right.
package struct GlyphLine: Sendable {
    /// The line's bytes in the text's UTF-8, as in ``TextMeasurement/Line/utf8Range``.
    package let utf8Range: Range<Int>
    /// The line's width as measured (hanging white space excluded), in pixels.
    package let width: Double
    /// The width of the glyphs as shaped for drawing, in pixels: the sum of their advances. It can
    /// differ from ``width`` by a fraction of a pixel where the measurement split a ligature's advance
    /// or dropped a kerning pair at the break.
    package let drawnWidth: Double
    /// The paragraph is right-to-left (its first strong character is): the line is drawn against the
    /// right edge of the width.
    package let isRightToLeft: Bool
    /// The glyph runs, left to right.
    package let runs: [GlyphRun]
}
