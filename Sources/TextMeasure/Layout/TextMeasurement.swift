/// The result of measuring a text at a width.
///
/// ``height`` is the sum of the lines' heights. With a fixed or multiple line height every line is
/// that tall; with ``LineHeight/natural`` each line is as tall as the fonts on it make it, as the
/// engine of the style's ``LineBreaking`` lays it out (see ``Line/height``), so a line of Thai, Arabic
/// or emoji can be taller than a line of Latin. The measurement also says over which widths it holds
/// (``validWidths``): a list whose width changes inside that range can keep the height as it is.
public struct TextMeasurement: Hashable, Sendable {
    /// Total height in pixels: the sum of the lines' heights (of the first `maxLines` when truncated).
    public var height: Double
    /// Lines shown (at most the style's `maxLines` when it is not 0). 0 for empty text.
    public var lineCount: Int
    /// Whether the text needed more lines than `maxLines` allowed.
    public var isTruncated: Bool
    /// The height of the tallest line shown, in pixels: every line's height when all are equally tall
    /// (always so with a fixed or multiple line height), and so `height` = ``lineCount`` × `lineHeight`
    /// exactly then. With no line shown, the height an empty line would have.
    public var lineHeight: Double
    /// Width of the widest line shown, hanging white space excluded.
    public var widestLineWidth: Double
    /// The lines shown, in order (up to four kept inline: see ``Lines``).
    public var lines: Lines
    /// The widths at which exactly these lines come out again (lower bound inclusive, upper exclusive;
    /// the upper bound is `.infinity` when no width would change them). Always contains the width the
    /// text was measured at, and the lines are the same at every width in it. Usually the whole range
    /// of such widths; in the browser modes, where a word holding a soft hyphen is broken between
    /// clusters (Blink fills such a line twice), only the width measured (up to 1/64 px past it).
    public var validWidths: Range<Double>

    /// One laid-out line.
    public struct Line: Hashable, Sendable {
        /// The line's bytes in `text.utf8`, including white space hanging at its end but not the hard
        /// break that ended it.
        public var utf8Range: Range<Int>
        /// Width of the line's content in pixels, hanging white space excluded.
        public var width: Double
        /// Where the line starts, in pixels below the text's top: the heights of the lines before it.
        public var top: Double
        /// The line's height in pixels (see ``LineHeight``).
        public var height: Double
        /// Where the line's baseline lies, in pixels below the text's top: `top` plus the tallest
        /// ascent on the line (with a fixed or multiple line height, the primary font's ascent after
        /// half the leading, as CSS centres a line's content).
        public var baseline: Double

        /// A line, as a layout reports it.
        ///
        /// - Parameters:
        ///   - utf8Range: The line's bytes in the text's UTF-8, hanging white space included.
        ///   - width: The width of its content in pixels.
        ///   - top: Where it starts, below the text's top.
        ///   - height: Its height.
        ///   - baseline: Where its baseline lies, below the text's top.
        public init(utf8Range: Range<Int>, width: Double, top: Double = 0, height: Double = 0, baseline: Double = 0) {
            self.utf8Range = utf8Range
            self.width = width
            self.top = top
            self.height = height
            self.baseline = baseline
        }

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
