/// Why a measurement was refused. Each case carries the value refused; ``description`` names the
/// value and the range allowed (from ``MeasurementLimits``).
public enum TextMeasureError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The width is outside ``MeasurementLimits/width`` (or not a number).
    case invalidWidth(Double)
    /// The size is outside ``MeasurementLimits/size`` (or not a number).
    case invalidSize(Double)
    /// `maxLines` is outside ``MeasurementLimits/maxLines``.
    case invalidMaxLines(Int)
    /// A fixed line height is outside ``MeasurementLimits/lineHeight`` (or not a number).
    case invalidLineHeight(Double)
    /// A line-height multiple is outside ``MeasurementLimits/lineHeightMultiple`` (or not a number).
    case invalidLineHeightMultiple(Double)
    /// The text is longer than ``MeasurementLimits/textBytes``.
    case textTooLong(byteCount: Int)
    /// ICU could not analyze the text for breaks (ICU error code).
    case unicodeAnalysisFailed(code: Int32)

    /// The message, naming the value as `width`, `size`, `maxLines`, `lineHeight` or
    /// `lineHeightMultiple`.
    public var description: String {
        message { $0 }
    }

    /// The message with the field named the caller's way: `"\"width\""` in a JSON line, `--width` on a
    /// command line.
    ///
    /// - Parameter name: Turns the library's field name (`width`, `size`, `maxLines`, `lineHeight`,
    ///   `lineHeightMultiple`) into the caller's.
    /// - Returns: "<field> <value> is out of range: must be a finite number from <low> to <high>", or
    ///   the ICU failure.
    public func message(naming name: (String) -> String) -> String {
        switch self {
        case .invalidWidth(let value): Self.outOfRange(name("width"), value, MeasurementLimits.width)
        case .invalidSize(let value): Self.outOfRange(name("size"), value, MeasurementLimits.size)
        case .invalidLineHeight(let value): Self.outOfRange(name("lineHeight"), value, MeasurementLimits.lineHeight)
        case .invalidLineHeightMultiple(let value):
            Self.outOfRange(name("lineHeightMultiple"), value, MeasurementLimits.lineHeightMultiple)
        case .invalidMaxLines(let value):
            "\(name("maxLines")) \(value) is out of range: must be an integer from "
                + "\(MeasurementLimits.maxLines.lowerBound) (unlimited) to \(MeasurementLimits.maxLines.upperBound)"
        case .textTooLong(let count):
            "\(name("text")) of \(count) bytes is too long: at most \(MeasurementLimits.textBytes.upperBound) bytes of UTF-8"
        case .unicodeAnalysisFailed(let code): "ICU could not analyze the text (error \(code))"
        }
    }

    private static func outOfRange(_ field: String, _ value: Double, _ range: ClosedRange<Double>) -> String {
        "\(field) \(MeasurementLimits.format(value)) is out of range: must be a finite number "
            + MeasurementLimits.describe(range)
    }
}
