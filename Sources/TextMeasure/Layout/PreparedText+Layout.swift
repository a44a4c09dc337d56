extension PreparedText {
    /// Lays the text out at `width` pixels, with the style's line limit.
    ///
    /// Arithmetic only: no shaping, no Unicode analysis.
    ///
    /// - Parameter width: The width to wrap at, in pixels.
    /// - Returns: Lines, height, truncation and the widths over which they hold.
    /// - Throws: ``TextMeasureError/invalidWidth(_:)`` for a width outside ``MeasurementLimits/width``.
    /// - Complexity: O(*n*) in the text's break opportunities; no allocation beyond the lines.
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
        var lines: [TextMeasurement.Line] = []
        let outcome = LineBreaker.layout(self, width: units, maxLines: maxLines) { line in
            lines.append(TextMeasurement.Line(utf8Range: Int(line.byteStart)..<Int(line.byteEnd),
                                              width: Double(line.width) / 1024))
        }
        return measurement(outcome, lines: lines)
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
        let outcome = LineBreaker.layout(self, width: try MeasurementLimits.units(width: width), maxLines: style.maxLines)
        return measurement(outcome, lines: [])
    }

    private func measurement(_ outcome: LineBreaker.Outcome, lines: [TextMeasurement.Line]) -> TextMeasurement {
        // Widths arrive in pixels and are rounded to 1/1024 px; a pixel width w lands on unit u when
        // u − ½ ≤ 1024·w < u + ½, so the unit bounds become these pixel bounds.
        let lower = max(0, (Double(outcome.minimumWidth) - 0.5) / 1024)
        let upper = outcome.changeWidth == Int.max ? Double.infinity : (Double(outcome.changeWidth) - 0.5) / 1024
        return TextMeasurement(
            height: Double(outcome.lineCount) * lineHeight, lineCount: outcome.lineCount,
            isTruncated: outcome.isTruncated, lineHeight: lineHeight,
            widestLineWidth: Double(outcome.widestLine) / 1024, lines: lines, validWidths: lower..<upper)
    }
}
