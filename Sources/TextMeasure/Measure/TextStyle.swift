/// How tall each line is.
public enum LineHeight: Hashable, Sendable {
    /// The primary font's own line spacing: ascender − descender + line gap, from its OS/2 typo
    /// metrics when USE_TYPO_METRICS is set, else from `hhea` (the same source Pango uses).
    case natural
    /// A fixed height in pixels.
    case fixed(Double)
    /// A multiple of the font size (1.2 = 120 % of `size`).
    case multiple(Double)
}

/// What text is measured with: size, line height and a line limit. The fonts come from the
/// ``TextMeasurer``.
///
/// ```swift
/// let body = TextStyle(size: 17)                          // unlimited lines, natural line height
/// let title = TextStyle(size: 20, lineHeight: .fixed(24), maxLines: 2)
/// ```
public struct TextStyle: Hashable, Sendable {
    /// Font size in pixels (points at 72 dpi).
    public var size: Double
    /// Line height; ``LineHeight/natural`` by default.
    public var lineHeight: LineHeight
    /// The most lines shown; 0 means unlimited. Text needing more is truncated
    /// (``TextMeasurement/isTruncated``) and measures `maxLines` lines tall.
    public var maxLines: Int

    /// Creates a style. Its values are checked against ``MeasurementLimits`` when it is used.
    ///
    /// - Parameters:
    ///   - size: Font size in pixels.
    ///   - lineHeight: How tall each line is.
    ///   - maxLines: The most lines shown; 0 means unlimited.
    public init(size: Double = 17, lineHeight: LineHeight = .natural, maxLines: Int = 0) {
        self.size = size
        self.lineHeight = lineHeight
        self.maxLines = maxLines
    }

    /// The HarfBuzz scale for this size: 1/1024 px units, as Pango uses.
    var scale: Int32 { Int32((size * 1024).rounded()) }

    /// Checks the values a measurement cannot work with (see ``MeasurementLimits``).
    func validate() throws(TextMeasureError) {
        try MeasurementLimits.check(self)
    }
}
