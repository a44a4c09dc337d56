/// A stretch of a ``StyledText`` drawn bold, italic, monospaced or at another size.
///
/// The stretch is given in Unicode scalar values (code points) of the text, `start` inclusive and
/// `end` exclusive, as JSON clients count them: `"héllo"` has 5, `"👍🏽"` 2.
///
/// ```swift
/// TextSpan(0..<5, bold: true)             // the first five characters bold
/// TextSpan(start: 6, end: 14, monospace: true, size: 15)
/// ```
public struct TextSpan: Hashable, Sendable {
    /// The first scalar of the span (counted from 0).
    public var start: Int
    /// The scalar after the span's last: `start == end` is an empty span, which styles nothing.
    public var end: Int
    /// Bold: the bold face of each font that has one (others draw regular: nothing is emboldened).
    public var bold: Bool
    /// Italic: the italic face of each font that has one (others draw upright: nothing is slanted).
    public var italic: Bool
    /// Monospaced: the monospace cascade (see ``FontCascades/monospace``).
    public var monospace: Bool
    /// The size in pixels, replacing the style's; nil keeps the size of the text around it.
    public var size: Double?

    /// A span over the scalars `start..<end`.
    ///
    /// The values are checked when the text is measured (see ``StyledText``), so that a span read
    /// from input can be made whatever it holds: a `start` after `end`, or an `end` past the text,
    /// is ``TextMeasureError/invalidSpanRange(span:start:end:scalarCount:)`` then.
    ///
    /// - Parameters:
    ///   - start: The first scalar.
    ///   - end: The scalar after the last.
    ///   - bold: Whether the span is bold.
    ///   - italic: Whether the span is italic.
    ///   - monospace: Whether the span is monospaced.
    ///   - size: The span's size in pixels, or nil for the size around it.
    public init(start: Int, end: Int, bold: Bool = false, italic: Bool = false, monospace: Bool = false,
                size: Double? = nil) {
        self.start = start
        self.end = end
        self.bold = bold
        self.italic = italic
        self.monospace = monospace
        self.size = size
    }

    /// A span over the scalars in `scalars`.
    ///
    /// - Parameters:
    ///   - scalars: The scalars covered, counted from 0.
    ///   - bold: Whether the span is bold.
    ///   - italic: Whether the span is italic.
    ///   - monospace: Whether the span is monospaced.
    ///   - size: The span's size in pixels, or nil for the size around it.
    public init(_ scalars: Range<Int>, bold: Bool = false, italic: Bool = false, monospace: Bool = false,
                size: Double? = nil) {
        self.init(start: scalars.lowerBound, end: scalars.upperBound, bold: bold, italic: italic,
                  monospace: monospace, size: size)
    }

    /// Whether the span changes anything where it lies (it may still be empty).
    var hasAttributes: Bool { bold || italic || monospace || size != nil }
}
