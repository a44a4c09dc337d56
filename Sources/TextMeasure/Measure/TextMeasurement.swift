/// The result of measuring a text at a width.
///
/// `height` is `lineCount × lineHeight`. The measurement also says over which widths it holds
/// (``validWidths``): a list whose width changes inside that range can keep the height as it is.
public struct TextMeasurement: Hashable, Sendable {
    /// Total height in pixels: ``lineCount`` × ``lineHeight``.
    public var height: Double
    /// Lines shown (at most the style's `maxLines` when it is not 0). 0 for empty text.
    public var lineCount: Int
    /// Whether the text needed more lines than `maxLines` allowed.
    public var isTruncated: Bool
    /// Height of one line in pixels.
    public var lineHeight: Double
    /// Width of the widest line shown, hanging white space excluded.
    public var widestLineWidth: Double
    /// The lines shown, in order.
    public var lines: [Line]
    /// The widths at which exactly these lines come out again (lower bound inclusive, upper exclusive;
    /// the upper bound is `.infinity` when no width would change them). Always contains the width the
    /// text was measured at.
    public var validWidths: Range<Double>

    /// One laid-out line.
    public struct Line: Hashable, Sendable {
        /// The line's bytes in `text.utf8`, including white space hanging at its end but not the hard
        /// break that ended it.
        public var utf8Range: Range<Int>
        /// Width of the line's content in pixels, hanging white space excluded.
        public var width: Double

        /// The line's range in `text` (the string that was measured).
        public func range(in text: String) -> Range<String.Index> {
            let utf8 = text.utf8
            let start = utf8.index(utf8.startIndex, offsetBy: utf8Range.lowerBound)
            let end = utf8.index(start, offsetBy: utf8Range.count)
            return start..<end
        }
    }

    /// Whether this measurement (its lines, and so its height) holds at `width`.
    public func isValid(atWidth width: Double) -> Bool {
        validWidths.contains(width)
    }
}

extension PreparedText {
    /// Lays the text out at `width` pixels, with the style's line limit.
    ///
    /// Arithmetic only: no shaping, no Unicode analysis. Throws ``TextMeasureError/invalidWidth(_:)``
    /// when `width` is not a finite number greater than 0.
    public func layout(width: Double) throws(TextMeasureError) -> TextMeasurement {
        try layout(width: width, maxLines: style.maxLines)
    }

    /// Lays the text out at `width` pixels with at most `maxLines` lines (0 = unlimited).
    public func layout(width: Double, maxLines: Int) throws(TextMeasureError) -> TextMeasurement {
        let units = try Self.units(width: width)
        guard maxLines >= 0 else { throw .invalidMaxLines(maxLines) }
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
    public func layout(width: Double, withLines: Bool) throws(TextMeasureError) -> TextMeasurement {
        if withLines { return try layout(width: width) }
        let outcome = LineBreaker.layout(self, width: try Self.units(width: width), maxLines: style.maxLines)
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

    static func units(width: Double) throws(TextMeasureError) -> Int {
        guard width.isFinite, width > 0, width < 1e12 else { throw .invalidWidth(width) }
        return Int((width * 1024).rounded())
    }
}
