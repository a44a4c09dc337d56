/// Glyphs of one font, one script and one bidirectional level, placed on a line.
package struct GlyphRun: Sendable {
    /// One glyph: its id in the face and where its origin lies.
    package struct Glyph: Hashable, Sendable {
        /// The glyph id in ``GlyphRun/face``.
        package var id: UInt32
        /// The glyph origin's distance from the left edge of the line's content, in pixels.
        package var x: Double
        /// The glyph origin's height above the baseline, in pixels (a mark's offset, usually 0).
        package var y: Double
    }

    /// The face to draw the glyphs with (its ``FontFace/path`` and ``FontFace/faceIndex`` name the file).
    package let face: FontFace
    /// The font size in pixels.
    package let size: Double
    /// The run's resolved bidirectional level (UAX #9): even is left-to-right, odd right-to-left.
    package let level: UInt8
    /// The glyphs, left to right.
    package let glyphs: [Glyph]

    /// Whether the run is right-to-left (an odd level).
    package var isRightToLeft: Bool { level & 1 == 1 }
}
