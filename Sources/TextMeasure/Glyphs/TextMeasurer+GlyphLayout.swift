extension TextMeasurer {
    /// Lays `text` out at `width` down to its glyphs, for drawing (`textmeasure render`).
    ///
    /// The lines are those ``measure(_:style:width:)-(String,_,_)`` finds; each line's visible text is then shaped
    /// again, piece by piece in visual order (see ``GlyphLayout``). Not for measuring: it itemizes,
    /// resolves bidirectional levels and shapes every call, with no cache.
    ///
    /// - Parameters:
    ///   - text: The text to lay out.
    ///   - style: Size, line height, line limit and break rules.
    ///   - width: The width to wrap at, in pixels.
    /// - Returns: The measurement and each line's glyphs.
    /// - Throws: The errors of ``measure(_:style:width:)-(String,_,_)``, or
    ///   ``TextMeasureError/unicodeAnalysisFailed(code:)`` when ICU cannot resolve the bidirectional levels.
    /// - Complexity: O(*n*) in the text's length, plus shaping the lines shown.
    package func glyphLayout(of text: String, style: TextStyle, width: Double) throws(TextMeasureError) -> GlyphLayout {
        let measurement = try measure(text, style: style, width: width)
        let fonts = fonts(for: style)
        // A selector of its own (the measurer's is private to it): built from the same cascade, it
        // chooses the same fonts. Drawing is rare enough that its few milliseconds do not matter.
        let tabs = Preparer.tabSpacing(fonts, style: style, unitsPerPixel: style.unitsPerPixel)
        let isBrowser = style.breaking.isBrowser
        let itemizer = Itemizer(selector: FontSelector(cascade: cascade, decomposes: isBrowser),
                                choosesFontPerCharacter: isBrowser, drawsHexBoxes: !isBrowser)
        var shaper = LineShaper(itemizer: itemizer, faces: cascade.fonts,
                                size: style.size, unitsPerPixel: Double(style.unitsPerPixel), tabStop: tabs.stop, tabMinimum: tabs.minimum,
                                breaking: style.breaking)
        shaper.hexBoxDigits = hexBoxDigits
        let lines = try withExtendedLifetime(fonts) { () throws(TextMeasureError) -> [GlyphLine] in
            try shaper.lines(of: text, measurement.lines, fonts: fonts)
        }
        return GlyphLayout(measurement: measurement, lines: lines)
    }

    /// Lays a styled text out at `width` down to its glyphs, each run in its face and size.
    ///
    /// - Parameters:
    ///   - text: The text and its spans.
    ///   - style: Size, line height, line limit and break rules.
    ///   - width: The width to wrap at, in pixels.
    /// - Returns: The measurement and each line's glyphs.
    /// - Throws: The errors of ``measure(_:style:width:)-(StyledText,_,_)``, or
    ///   ``TextMeasureError/unicodeAnalysisFailed(code:)``.
    /// - Complexity: As for plain text.
    package func glyphLayout(of text: StyledText, style: TextStyle, width: Double) throws(TextMeasureError) -> GlyphLayout {
        let measurement = try measure(text, style: style, width: width)
        var string = text.text
        let resolved: Result<StyleRuns?, TextMeasureError> = string.withUTF8 { bytes in
            Result { () throws(TextMeasureError) in try StyleRuns.resolve(text.spans, utf8: bytes, size: style.size) }
        }
        guard let runs = try resolved.get() else { return try glyphLayout(of: text.text, style: style, width: width) }
        let table = try styledFonts()
        let styled = StyledPreparation(runs: runs, table: table, breaking: style.breaking)
        let fonts = styled.plainFonts
        let tabs = Preparer.tabSpacing(fonts, style: style, unitsPerPixel: styled.unitsPerPixel)
        let isBrowser = style.breaking.isBrowser
        var itemizer = Itemizer(selector: (isBrowser ? table.browserSelectors : table.selectors)[0],
                                choosesFontPerCharacter: isBrowser, drawsHexBoxes: !isBrowser)
        itemizer.styles = styled.styles
        var shaper = LineShaper(itemizer: itemizer, faces: table.faces, size: style.size,
                                unitsPerPixel: Double(styled.unitsPerPixel), tabStop: tabs.stop, tabMinimum: tabs.minimum,
                                breaking: style.breaking)
        shaper.styled = styled
        shaper.hexBoxDigits = hexBoxDigits
        let lines = try withExtendedLifetime(styled.styles) { () throws(TextMeasureError) -> [GlyphLine] in
            try shaper.lines(of: text.text, measurement.lines, fonts: fonts)
        }
        return GlyphLayout(measurement: measurement, lines: lines)
    }
}
