/// A text laid out at a width down to its glyphs: what drawing it needs, line by line.
///
/// Made by ``TextMeasurer/glyphLayout(of:style:width:)`` for `textmeasure render`; measuring never
/// makes one. The lines are exactly those of the ``measurement`` (same breaks, same count, same
/// truncation); the glyphs are the lines' text shaped again as drawn — run by run, each run cut where
/// its bidirectional level changes, in visual order — as Pango draws a line it has broken.
///
/// Coordinates are pixels at the style's size: `x` from the left edge of the line's drawn content,
/// `y` up from the baseline.
///
/// Thread safety: an immutable value (the faces it names are immutable and `Sendable`).
package struct GlyphLayout: Sendable {
    /// The measurement the lines come from: height, line count, truncation, line widths.
    package let measurement: TextMeasurement
    /// The lines shown, top to bottom (as many as `measurement.lineCount`).
    package let lines: [GlyphLine]
    /// The primary font's ascender at this size, in pixels (above the baseline, positive).
    package let ascender: Double
    /// The primary font's descender at this size, in pixels (below the baseline, positive).
    package let descender: Double

    /// Where the baseline of every line lies below the line's top, in pixels: the primary font's
    /// ascender and descender centred in the line height (the leading split evenly above and below,
    /// as CSS and UIKit do; with the natural line height, the font's line gap is that leading).
    package var baselineOffset: Double {
        (measurement.lineHeight - (ascender + descender)) / 2 + ascender
    }
}
