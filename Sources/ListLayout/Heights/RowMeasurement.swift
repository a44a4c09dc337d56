/// A row's measured height and the widths over which it holds.
public struct RowMeasurement: Hashable, Sendable {
    /// Height in pixels.
    public var height: Double
    /// Widths at which the same height comes out (lower bound inclusive, upper exclusive). A plain
    /// measuring closure knows nothing about other widths: its range is the measured width alone.
    public var validWidths: Range<Double>
    /// Lines of text in the row (all text blocks together); 0 when unknown.
    public var lineCount: Int
    /// Whether some text block was cut at its line limit.
    public var isTruncated: Bool

    /// Creates a measurement.
    ///
    /// - Parameters:
    ///   - height: Height in pixels.
    ///   - validWidths: Widths at which the same height comes out (lower bound inclusive, upper
    ///     exclusive).
    ///   - lineCount: Lines of text in the row; 0 when unknown.
    ///   - isTruncated: Whether some text block was cut at its line limit.
    public init(height: Double, validWidths: Range<Double>, lineCount: Int = 0, isTruncated: Bool = false) {
        self.height = height
        self.validWidths = validWidths
        self.lineCount = lineCount
        self.isTruncated = isTruncated
    }

    /// A measurement that holds only at `width` itself.
    ///
    /// - Parameters:
    ///   - height: Height in pixels.
    ///   - width: The width measured at, in pixels; ``validWidths`` is `width..<width.nextUp`.
    public init(height: Double, width: Double) {
        self.init(height: height, validWidths: width..<width.nextUp)
    }
}

/// A cheap guess at a row's height: ``expected`` for scroll bars, ``maximum`` for callers that must
/// not clip.
public struct HeightEstimate: Hashable, Sendable {
    /// The height expected.
    public var expected: Double
    /// A height the row will not exceed.
    public var maximum: Double

    /// Creates an estimate.
    ///
    /// - Parameters:
    ///   - expected: The height expected, in pixels.
    ///   - maximum: A height the row will not exceed, in pixels.
    public init(expected: Double, maximum: Double) {
        self.expected = expected
        self.maximum = maximum
    }
}
