import Dispatch
import TextMeasureSupport

/// A text in a style at a width: one item of a batch (``TextMeasurer/measure(_:)``), what a
/// ``MeasurementStore`` is asked, and a line of the batch protocol.
public struct MeasureRequest: Hashable, Sendable {
    /// The text to measure.
    public var text: String
    /// Size, line height and line limit.
    public var style: TextStyle
    /// The width to wrap at, in pixels.
    public var width: Double
    /// The text's styled stretches (see ``StyledText``); empty for plain text.
    public var spans: [TextSpan]

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - text: The text to measure.
    ///   - spans: Its styled stretches (see ``StyledText``); none for plain text.
    ///   - style: Size, line height and line limit.
    ///   - width: The width to wrap at, in pixels.
    public init(text: String, spans: [TextSpan] = [], style: TextStyle, width: Double) {
        self.text = text
        self.spans = spans
        self.style = style
        self.width = width
    }

    /// A request for a styled text.
    ///
    /// - Parameters:
    ///   - text: The text and its spans.
    ///   - style: Size, line height and line limit.
    ///   - width: The width to wrap at, in pixels.
    public init(_ text: StyledText, style: TextStyle, width: Double) {
        self.init(text: text.text, spans: text.spans, style: style, width: width)
    }

    /// The text and its spans.
    public var styledText: StyledText { StyledText(text, spans: spans) }

    /// A request for `text`'s text (a ``MeasurementStore``'s form before ``MeasureRequest`` served it).
    ///
    /// - Parameters:
    ///   - text: The text, as a key.
    ///   - style: Size, line height and line limit.
    ///   - width: The width to wrap at, in pixels.
    @available(*, deprecated, message: "Use init(text:style:width:) with the String")
    public init(text: TextKey, style: TextStyle, width: Double) {
        self.init(text: text.text, style: style, width: width)
    }

    /// The width in layout units (1/1024 px), or nil when it is outside ``MeasurementLimits/width``.
    public var widthUnits: Int? { MeasurementLimits.unitsIfValid(width: width) }
}

extension TextMeasurer {
    /// Measures many texts at once on all cores (for prefetching the rows just below the visible
    /// ones, or a server building a feed). Results come back in the order of `requests`; a request
    /// that cannot be measured gets its error in its slot and the others go on.
    ///
    /// - Parameter requests: The texts to measure, each with its style and width.
    /// - Returns: One result per request, in order: the measurement, or the ``TextMeasureError`` that
    ///   ``measure(_:style:width:)-(String,_,_)`` throws for it.
    /// - Complexity: The requests' measurements, spread over every core a few requests at a time.
    public func measure(_ requests: [MeasureRequest]) -> [Result<TextMeasurement, TextMeasureError>] {
        ConcurrentMap.map(requests) { request in
            Result { () throws(TextMeasureError) -> TextMeasurement in
                request.spans.isEmpty ? try measure(request.text, style: request.style, width: request.width)
                    : try measure(request.styledText, style: request.style, width: request.width)
            }
        }
    }
}
