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

/// What text is measured with: size, line height, a line limit and the line-breaking rules. The fonts
/// come from the ``TextMeasurer``.
///
/// ```swift
/// let body = TextStyle(size: 17)                          // unlimited lines, natural line height
/// let title = TextStyle(size: 20, lineHeight: .fixed(24), maxLines: 2)
/// let web = TextStyle(size: 16, breaking: .browser)      // wraps as Chromium does
/// ```
public struct TextStyle: Hashable, Sendable {
    /// Font size in pixels (points at 72 dpi).
    public var size: Double
    /// Line height; ``LineHeight/natural`` by default.
    public var lineHeight: LineHeight
    /// The most lines shown; 0 means unlimited. Text needing more is truncated
    /// (``TextMeasurement/isTruncated``) and measures `maxLines` lines tall.
    public var maxLines: Int
    /// Whose line-breaking rules apply; ``LineBreaking/pango`` by default. Part of what a text is
    /// prepared with: a ``PreparedText`` keeps the rules of its style.
    public var breaking: LineBreaking

    /// Creates a style. Its values are checked against ``MeasurementLimits`` when it is used.
    ///
    /// - Parameters:
    ///   - size: Font size in pixels.
    ///   - lineHeight: How tall each line is.
    ///   - maxLines: The most lines shown; 0 means unlimited.
    ///   - breaking: Whose line-breaking rules apply (see ``LineBreaking``).
    public init(size: Double = 17, lineHeight: LineHeight = .natural, maxLines: Int = 0,
                breaking: LineBreaking = .pango) {
        self.size = size
        self.lineHeight = lineHeight
        self.maxLines = maxLines
        self.breaking = breaking
    }

    /// The HarfBuzz scale for this size: 1/1024 px units, as Pango uses.
    var scale: Int32 { Int32((size * 1024).rounded()) }

    /// Checks the values a measurement cannot work with (see ``MeasurementLimits``).
    func validate() throws(TextMeasureError) {
        try MeasurementLimits.check(self)
    }
}
