import TextMeasureSupport

extension TextMeasurer {
    /// Estimates the height of `text` at `width` without shaping or break analysis: a pass over the
    /// text's scalars adding each script's typical advance.
    ///
    /// Two answers: ``TextEstimate/height``, the expected height (assuming lines are filled to 93 % on
    /// average), and ``TextEstimate/maximumHeight``, an upper bound for callers that must not clip. The
    /// bound comes from greedy line filling itself: two consecutive lines of a paragraph always hold
    /// more than the width (otherwise the second line's first piece would have joined the first), so a
    /// paragraph of total advance A has at most ⌊2A / width⌋ + 1 lines, and never more than two per
    /// character. A is bounded using the widest glyph of each script in the cascade, padded by 15 % for
    /// shaping.
    ///
    /// With a natural line height, lines are as tall as their fonts make them (see
    /// ``TextMeasurement/Line/height``): the expected height gives each paragraph's lines the height
    /// of a line holding the fonts its scripts' everyday text is drawn with (a Thai paragraph, Noto Sans
    /// Thai's), and the bound the height of a line holding every font that draws some character of
    /// its scripts.
    ///
    /// - Parameters:
    ///   - text: The text to estimate.
    ///   - style: Size, line height, line limit, and the line breaking whose hard breaks apply.
    ///   - width: The width to wrap at, in pixels.
    /// - Returns: The expected and the maximum line count and height, both within the style's line
    ///   limit; all 0 for empty text.
    /// - Throws: A ``TextMeasureError`` for a value of `style` outside ``MeasurementLimits``, or
    ///   ``TextMeasureError/invalidWidth(_:)`` for a width outside ``MeasurementLimits/width``.
    /// - Complexity: O(*n*) in the text's Unicode scalars. A measurer's first estimate also builds its
    ///   per-script advance profile, measuring a sample text per script (once per measurer).
    public func estimate(_ text: String, style: TextStyle, width: Double) throws(TextMeasureError) -> TextEstimate {
        try style.validate()
        try MeasurementLimits.check(width: width)
        let profile = advanceProfile
        let fonts = fonts(for: style)
        var heights = EstimatedLineHeights(Preparer.lineHeights(style, fonts: fonts), fonts: fonts, style: style)
        return profile.typical.withUnsafeBufferPointer { typical in
            profile.maximum.withUnsafeBufferPointer { maximum in
                estimate(text, style: style, width: width, advances: (typical, maximum), profile: profile,
                         heights: &heights)
            }
        }
    }

    /// The estimate, with the profile's typical and maximum advances per script class borrowed for
    /// the pass over the scalars (no bounds check or reference count per scalar).
    private func estimate(_ text: String, style: TextStyle, width: Double,
                          advances: (typical: UnsafeBufferPointer<Double>, maximum: UnsafeBufferPointer<Double>),
                          profile: borrowing AdvanceProfile, heights: inout EstimatedLineHeights) -> TextEstimate {
        if text.isEmpty { return TextEstimate(lineCount: 0, height: 0, maximumLineCount: 0, maximumHeight: 0) }
        var lines = 0, maximumLines = 0
        let limit = style.maxLines > 0 ? style.maxLines : Int.max
        // The paragraphs are the layout's (`Paragraphs`), so that hard breaks count as the style's
        // line breaking makes them: in `.pango` a U+2028 just before the text's end or another hard
        // break starts no line; in the browser modes a line feed ending the text starts none.
        var text = text
        text.withUTF8 { bytes in
            Paragraphs.forEach(in: bytes, breaking: style.breaking) { start, end in
                let paragraph = Self.advances(of: UnsafeBufferPointer(rebasing: bytes[start..<end]), advances)
                let typicalWidth = paragraph.typical * style.size, maximumWidth = paragraph.maximum * 1.15 * style.size
                // Both counts are capped at two lines per character (the bound's own ceiling) while
                // still Doubles, so that no width or size converts out of Int's range, and the expected
                // count never exceeds the bound.
                let ceiling = Double(max(1, 2 * paragraph.scalars))
                let bound = max(1, Int(min((2 * maximumWidth / width).rounded(.down) + 1, ceiling)))
                let expected = min(bound, max(1, Int(min((typicalWidth / (width * 0.93)).rounded(.up), ceiling))))
                // Within the line limit, the paragraphs' lines in order.
                let shown = min(expected, limit - lines), shownMaximum = min(bound, limit - maximumLines)
                heights.add(lines: shown, maximumLines: shownMaximum, classes: paragraph.classes, profile: profile)
                lines += shown
                maximumLines += shownMaximum
            }
        }
        return TextEstimate(lineCount: lines, height: heights.height, maximumLineCount: maximumLines,
                            maximumHeight: heights.maximumHeight)
    }
}

extension TextMeasurer {
    /// A paragraph's typical and maximum advances in ems (the sums of its scalars' script classes'),
    /// the script classes it holds (one bit each) and its scalars.
    @inline(__always)
    fileprivate static func advances(of paragraph: UnsafeBufferPointer<UInt8>,
                                     _ advances: (typical: UnsafeBufferPointer<Double>, maximum: UnsafeBufferPointer<Double>))
        -> (typical: Double, maximum: Double, classes: UInt32, scalars: Int) {
        var typical = 0.0, maximum = 0.0, classes: UInt32 = 0, scalars = 0
        var offset = 0
        while offset < paragraph.count {
            let (value, length) = UTF8Decoding.scalar(in: paragraph, at: offset)
            offset += length
            let scriptClass = ScriptClass.of(value).rawValue
            typical += advances.typical[scriptClass]
            maximum += advances.maximum[scriptClass]
            classes |= 1 &<< UInt32(truncatingIfNeeded: scriptClass)
            scalars += 1
        }
        return (typical, maximum, classes, scalars)
    }
}

/// Adds up an estimate's line heights paragraph by paragraph: with a natural line height, a
/// paragraph's lines are as tall as a line holding the fonts of its script classes (see
/// ``TextMeasurer/estimate(_:style:width:)``); otherwise each is the fixed height.
private struct EstimatedLineHeights {
    private let heights: LineHeights
    /// The cascade's fonts at the estimate's style, for the fonts' extents.
    private let fonts: ScaledFonts
    private let style: TextStyle
    /// Natural heights so far, in line units; fixed heights count lines.
    private var units = 0, maximumUnits = 0
    private var lines = 0, maximumLines = 0

    init(_ heights: LineHeights, fonts: ScaledFonts, style: TextStyle) {
        self.heights = heights
        self.fonts = fonts
        self.style = style
    }

    /// Counts a paragraph of `lines` expected and `maximumLines` at most, holding the script classes
    /// whose bits `classes` sets (none: an empty paragraph), whose fonts `profile` names.
    mutating func add(lines: Int, maximumLines: Int, classes: UInt32, profile: borrowing AdvanceProfile) {
        self.lines += lines
        self.maximumLines += maximumLines
        guard heights.kind != .fixed, lines > 0 || maximumLines > 0 else { return }
        guard classes != 0 else {
            units += lines * heights.empty.height
            maximumUnits += maximumLines * heights.empty.height
            return
        }
        var typical = heights.floor, most = heights.floor
        var drawn = false
        var remaining = classes
        while remaining != 0 {
            let scriptClass = remaining.trailingZeroBitCount
            remaining &= remaining &- 1
            if let font = profile.typicalFont[scriptClass] {
                typical = typical.union(Preparer.extent(ofFont: font, fonts, style: style))
                drawn = true
            }
            for font in profile.drawingFonts[scriptClass] {
                most = most.union(Preparer.extent(ofFont: font, fonts, style: style))
            }
        }
        // Only spaces, tabs or marks: they take the primary font's extent, or their neighbours'.
        if !drawn { typical = typical.union(heights.empty) }
        units += lines * typical.height
        maximumUnits += maximumLines * most.union(heights.empty).height
    }

    /// The expected lines' height in pixels.
    var height: Double { total(units, lines) }
    /// The maximum lines' height in pixels.
    var maximumHeight: Double { total(maximumUnits, maximumLines) }

    private func total(_ units: Int, _ lines: Int) -> Double {
        heights.kind == .fixed ? Double(lines) * heights.evenHeight : Double(units) * heights.pixelsPerUnit
    }
}
