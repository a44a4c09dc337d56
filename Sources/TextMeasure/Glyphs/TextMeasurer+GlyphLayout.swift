extension TextMeasurer {
    /// Lays `text` out at `width` down to its glyphs, for drawing (`textmeasure render`).
    ///
    /// The lines are those ``measure(_:style:width:)`` finds; each line's visible text is then shaped
    /// again, piece by piece in visual order (see ``GlyphLayout``). Not for measuring: it itemizes,
    /// resolves bidirectional levels and shapes every call, with no cache.
    ///
    /// - Parameters:
    ///   - text: The text to lay out.
    ///   - style: Size, line height, line limit and break rules.
    ///   - width: The width to wrap at, in pixels.
    /// - Returns: The measurement and each line's glyphs.
    /// - Throws: The errors of ``measure(_:style:width:)``, or
    ///   ``TextMeasureError/unicodeAnalysisFailed(code:)`` when ICU cannot resolve the bidirectional levels.
    /// - Complexity: O(*n*) in the text's length, plus shaping the lines shown.
    package func glyphLayout(of text: String, style: TextStyle, width: Double) throws(TextMeasureError) -> GlyphLayout {
        let measurement = try measure(text, style: style, width: width)
        let fonts = fonts(scale: style.scale)
        // A selector of its own (the measurer's is private to it): built from the same cascade, it
        // chooses the same fonts. Drawing is rare enough that its few milliseconds do not matter.
        let tabs = Preparer.tabSpacing(fonts, style: style)
        let isBrowser = style.breaking.isBrowser
        let itemizer = Itemizer(selector: FontSelector(cascade: cascade, decomposes: isBrowser),
                                choosesFontPerCharacter: isBrowser)
        let shaper = LineShaper(itemizer: itemizer, faces: cascade.fonts,
                                size: style.size, unitsPerPixel: Double(style.unitsPerPixel), tabStop: tabs.stop, tabMinimum: tabs.minimum,
                                breaking: style.breaking)
        let lines = try withExtendedLifetime(fonts) { () throws(TextMeasureError) -> [GlyphLine] in
            try shaper.lines(of: text, measurement.lines, fonts: fonts)
        }
        return GlyphLayout(measurement: measurement, lines: lines)
    }
}
