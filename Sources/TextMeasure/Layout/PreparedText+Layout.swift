extension PreparedText {
    /// Lays the text out at `width` pixels, with the style's line limit.
    ///
    /// Arithmetic only: no shaping, no Unicode analysis.
    ///
    /// - Parameter width: The width to wrap at, in pixels.
    /// - Returns: Lines, height, truncation and the widths over which they hold.
    /// - Throws: ``TextMeasureError/invalidWidth(_:)`` for a width outside ``MeasurementLimits/width``.
    /// - Complexity: O(*n*) in the text's break opportunities; no allocation for up to four lines.
    public func layout(width: Double) throws(TextMeasureError) -> TextMeasurement {
        try layout(width: width, maxLines: style.maxLines)
    }

    /// Lays the text out at `width` pixels with at most `maxLines` lines (0 = unlimited).
    ///
    /// - Parameters:
    ///   - width: The width to wrap at, in pixels.
    ///   - maxLines: The most lines shown, overriding the style's; 0 means unlimited.
    /// - Returns: Lines, height, truncation and the widths over which they hold.
    /// - Throws: ``TextMeasureError/invalidWidth(_:)`` or ``TextMeasureError/invalidMaxLines(_:)`` for a
    ///   value outside ``MeasurementLimits``.
    /// - Complexity: O(*n*) in the text's break opportunities.
    public func layout(width: Double, maxLines: Int) throws(TextMeasureError) -> TextMeasurement {
        let units = try MeasurementLimits.units(width: width)
        guard MeasurementLimits.maxLines.contains(maxLines) else { throw .invalidMaxLines(maxLines) }
        var lines = TextMeasurement.Lines()   // up to four lines inline: no allocation for most texts
        let outcome = LineBreaker.layout(self, width: fillWidth(units), maxLines: maxLines, lines: &lines)
        return measurement(outcome, lines: consume lines)
    }

    /// Lays the text out at `width` with the style's line limit; with `withLines: false` the result's
    /// ``TextMeasurement/lines`` is empty and nothing is allocated (height, line count, truncation and
    /// valid widths only: what a height cache needs).
    ///
    /// - Parameters:
    ///   - width: The width to wrap at, in pixels.
    ///   - withLines: Whether to report each line.
    /// - Returns: Height, line count, truncation and the widths over which they hold; the lines too
    ///   when `withLines` is `true`.
    /// - Throws: ``TextMeasureError/invalidWidth(_:)`` for a width outside ``MeasurementLimits/width``.
    /// - Complexity: O(*n*) in the text's break opportunities; without lines, no allocation.
    public func layout(width: Double, withLines: Bool) throws(TextMeasureError) -> TextMeasurement {
        if withLines { return try layout(width: width) }
        let outcome = LineBreaker.layout(self, width: fillWidth(try MeasurementLimits.units(width: width)),
                                         maxLines: style.maxLines)
        return measurement(outcome, lines: TextMeasurement.Lines())
    }

    /// Layout units per pixel (see `TextStyle.unitsPerPixel`), for turning widths into pixels.
    private var pixelUnits: Double { Double(unitsPerPixel) }

    /// The width lines are filled to, in the text's layout units, for a width of `units` (1/1024 px,
    /// as widths arrive). In ``LineBreaking/pango`` the width itself. In the browser modes, Blink's:
    /// widths are LayoutUnits (1/64 px; a width between two is taken down to the lower), and a line
    /// fits when its content is at most 1/64 px wider than that (its width rounded up to 1/64 px must
    /// not exceed the width plus one unit).
    @inline(__always)
    private func fillWidth(_ units: Int) -> Int {
        guard style.breaking.isBrowser else { return units }
        let unit = LayoutUnit.inUnits(unitsPerPixel: 1024)
        return (units - units % unit + unit) * (unitsPerPixel / 1024)
    }

    /// The widths, in 1/1024 px, at which the lines found at fill widths `minimum`…`change`
    /// (exclusive, in layout units) come out again: the inverse of ``fillWidth(_:)``. Fill widths are
    /// whole 1/1024 px `f` times the units per 1/1024 px `k`, so the bounds become `⌈minimum / k⌉`
    /// and `⌈change / k⌉` in 1/1024 px; a fill width of `f` holds for the widths `u` with
    /// `f − 16 ≤ u − u mod 16 < …`, so the bounds then move down by a LayoutUnit and up to one.
    private func unitBounds(_ outcome: LineBreaker.Outcome) -> (lower: Int, upper: Int) {
        guard style.breaking.isBrowser else { return (outcome.minimumWidth, outcome.changeWidth) }
        let k = unitsPerPixel / 1024
        let unit = LayoutUnit.inUnits(unitsPerPixel: 1024)
        func roundedUp(_ value: Int) -> Int { LayoutUnit.roundedUp(value, toMultipleOf: unit) }
        let minimum = (outcome.minimumWidth + k - 1) / k
        let lower = roundedUp(max(0, minimum - unit))
        guard outcome.changeWidth != Int.max else { return (lower, Int.max) }
        let change = outcome.changeWidth / k + (outcome.changeWidth % k == 0 ? 0 : 1)
        return (lower, roundedUp(change - unit))
    }

    /// The measurement of `outcome`; built in place, as the lines are moved in, not copied.
    @inline(__always)
    private func measurement(_ outcome: LineBreaker.Outcome, lines: consuming TextMeasurement.Lines) -> TextMeasurement {
        // Widths arrive in pixels and are rounded to 1/1024 px; a pixel width w lands on unit u when
        // u − ½ ≤ 1024·w < u + ½, so the unit bounds become these pixel bounds.
        let bounds = unitBounds(outcome)
        let lower = max(0, (Double(bounds.lower) - 0.5) / 1024)
        let upper = bounds.upper == Int.max ? Double.infinity : (Double(bounds.upper) - 0.5) / 1024
        return TextMeasurement(
            height: outcome.height, lineCount: outcome.lineCount,
            isTruncated: outcome.isTruncated, lineHeight: outcome.tallestLine,
            widestLineWidth: Double(outcome.widestLine) / pixelUnits, lines: lines, validWidths: lower..<upper)
    }
}
