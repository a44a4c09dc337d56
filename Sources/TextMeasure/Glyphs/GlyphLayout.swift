/// A text laid out at a width down to its glyphs: what drawing it needs, line by line.
///
/// Made by ``TextMeasurer/glyphLayout(of:style:width:)`` for `textmeasure render`; measuring never
/// makes one. The lines are exactly those of the ``measurement`` (same breaks, same count, same
/// truncation); the glyphs are the lines' text shaped again as drawn — run by run, each run cut where
/// its bidirectional level changes, in visual order — as Pango draws a line it has broken.
///
/// Coordinates are pixels at the style's size: `x` from the left edge of the line's drawn content,
/// `y` up from the baseline; each line's top, height and baseline are the measurement's (see
/// ``TextMeasurement/Line``).
///
/// Thread safety: an immutable value (the faces it names are immutable and `Sendable`).
package struct GlyphLayout: Sendable {
    /// The measurement the lines come from: height, line count, truncation, line widths.
    package let measurement: TextMeasurement
    /// The lines shown, top to bottom (as many as `measurement.lineCount`).
    package let lines: [GlyphLine]
}
