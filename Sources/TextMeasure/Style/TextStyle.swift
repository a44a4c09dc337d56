/// How tall each line is.
public enum LineHeight: Hashable, Sendable {
    /// Each line as tall as the fonts drawing it make it, as the style's engine lays it out (see
    /// ``LineBreaking``): in ``LineBreaking/pango`` the largest ascent plus the largest descent of its
    /// runs' fonts (HarfBuzz's ascender and descender, without the line gap), each run moved onto the
    /// baseline of the line's first run as Pango aligns them; in the browser modes Chromium's
    /// `line-height: normal`, the primary font's rounded extent united with those of the fonts used.
    /// A line holding no text takes the primary font's extent.
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

    /// Layout units per pixel, the unit of every advance and width of a ``PreparedText``: 1/1024 px as
    /// Pango's; in the browser modes 1/65536 px, as Blink gives HarfBuzz a 16.16 scale and sums exact
    /// advances (1,024 units a pixel from sizes past 1,024 px on, where a cluster of 32 em would no
    /// longer fit the 32 bits of an advance).
    var unitsPerPixel: Int { breaking.isBrowser && size <= Self.largestFineSize ? 65536 : 1024 }

    /// The largest size whose browser-mode layout units are 1/65536 px (see ``unitsPerPixel``).
    static let largestFineSize = 1024.0

    /// The HarfBuzz scale for this size: size × ``unitsPerPixel``.
    var scale: Int32 { Int32((size * Double(unitsPerPixel)).rounded()) }

    /// Checks the values a measurement cannot work with (see ``MeasurementLimits``).
    func validate() throws(TextMeasureError) {
        try MeasurementLimits.check(self)
    }
}
