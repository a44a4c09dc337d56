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
    /// The lines shown, in order (up to four kept inline: see ``Lines``).
    public var lines: Lines
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
        ///
        /// - Parameter text: The string that was measured; a shorter one traps.
        /// - Returns: The line's range, white space hanging at its end included.
        public func range(in text: String) -> Range<String.Index> {
            let utf8 = text.utf8
            let start = utf8.index(utf8.startIndex, offsetBy: utf8Range.lowerBound)
            let end = utf8.index(start, offsetBy: utf8Range.count)
            return start..<end
        }
    }

    /// Whether this measurement (its lines, and so its height) holds at `width`.
    ///
    /// - Parameter width: A width in pixels.
    /// - Returns: `true` when `width` is in ``validWidths``.
    public func isValid(atWidth width: Double) -> Bool {
        validWidths.contains(width)
    }
}
