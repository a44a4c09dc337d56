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
    /// Span number `span` (from 0) of a ``StyledText`` does not lie in its text: a negative `start`,
    /// a `start` after `end`, or an `end` past the text's `scalarCount` Unicode scalars.
    case invalidSpanRange(span: Int, start: Int, end: Int, scalarCount: Int)
    /// Span number `span` (from 0) of a ``StyledText`` has a size outside ``MeasurementLimits/size``
    /// (or not a number).
    case invalidSpanSize(span: Int, size: Double)
    /// A ``StyledText`` has more spans than ``MeasurementLimits/spans`` allows.
    case tooManySpans(count: Int)
    /// The fonts of a styled face (bold, italic, monospace) could not be loaded.
    case fontsUnavailable(FontError)

    /// The message, naming the value as `width`, `size`, `maxLines`, `lineHeight`,
    /// `lineHeightMultiple` or a span's field (`spans[2].end`).
    public var description: String {
        message { $0 }
    }

    /// The message with the field named the caller's way: `"\"width\""` in a JSON line, `--width` on a
    /// command line.
    ///
    /// - Parameter name: Turns the library's field name (`width`, `size`, `maxLines`, `lineHeight`,
    ///   `lineHeightMultiple`, `text`, or a span's field as `spans[2].end`) into the caller's.
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
        case .invalidSpanRange(let span, let start, let end, let count):
            if start < 0 {
                "\(name("spans[\(span)].start")) \(start) is out of range: must be an integer from 0"
            } else if start > end {
                "\(name("spans[\(span)].start")) \(start) is after \(name("spans[\(span)].end")) \(end)"
            } else {
                "\(name("spans[\(span)].end")) \(end) is past the end of the text: it has \(count) Unicode scalars"
            }
        case .invalidSpanSize(let span, let size): Self.outOfRange(name("spans[\(span)].size"), size, MeasurementLimits.size)
        case .fontsUnavailable(let error): "the fonts for styled text cannot be loaded: \(error)"
        case .tooManySpans(let count):
            "\(name("spans")) has \(count) spans: at most \(MeasurementLimits.spans.upperBound) are allowed"
        }
    }

    private static func outOfRange(_ field: String, _ value: Double, _ range: ClosedRange<Double>) -> String {
        "\(field) \(MeasurementLimits.format(value)) is out of range: must be a finite number "
            + MeasurementLimits.describe(range)
    }
}
