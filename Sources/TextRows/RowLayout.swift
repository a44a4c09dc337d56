import ListLayout
import TextMeasure

/// A declarative description of a list row: insets around a vertical stack of text blocks and
/// fixed-height parts, with spacing between them and a minimum height.
///
/// ```swift
/// struct Message: Hashable, Sendable { var author: String; var body: String; var attachment: Bool }
///
/// let layout = RowLayout<Message>(
///     insets: .init(top: 12, leading: 72, bottom: 12, trailing: 16),   // 72: room for the avatar
///     spacing: 4,
///     minimumHeight: 64,                                             // the avatar's height + insets
///     elements: [
///         .text(\.author, style: TextStyle(size: 15, maxLines: 1)),
///         .text(\.body, style: TextStyle(size: 17)),
///         .fixed(180, collapsesWhen: { !$0.attachment }),              // an image preview
///     ])
/// ```
///
/// A text block whose text is empty collapses, with the spacing before it, unless told otherwise.
/// The row's valid width range is the intersection of its text blocks' ranges.
public struct RowLayout<Model>: Sendable {
    /// Space around the stack, in pixels.
    public typealias Insets = RowInsets

    /// One part of the stack.
    public struct Element: Sendable {
        @usableFromInline
        enum Kind: Sendable {
            case text(@Sendable (Model) -> String, TextStyle, leading: Double, trailing: Double, collapsesWhenEmpty: Bool)
            case styledText(@Sendable (Model) -> StyledText, TextStyle, leading: Double, trailing: Double,
                            collapsesWhenEmpty: Bool)
            case fixed(Double, collapsesWhen: (@Sendable (Model) -> Bool)?)
        }

        @usableFromInline let kind: Kind

        /// A text block: the model's text in `style`, with its own horizontal insets.
        ///
        /// - Parameters:
        ///   - text: Returns the block's text for a model.
        ///   - style: The text's style.
        ///   - leadingInset: Space before the text, in pixels, added to the row's leading inset.
        ///   - trailingInset: Space after the text, in pixels, added to the row's trailing inset.
        ///   - collapsesWhenEmpty: Whether an empty text hides the block and the spacing before it.
        /// - Returns: The element.
        public static func text(
            _ text: @escaping @Sendable (Model) -> String, style: TextStyle,
            leadingInset: Double = 0, trailingInset: Double = 0, collapsesWhenEmpty: Bool = true
        ) -> Element {
            Element(kind: .text(text, style, leading: leadingInset, trailing: trailingInset,
                                collapsesWhenEmpty: collapsesWhenEmpty))
        }

        /// A text block reading a key path of the model.
        ///
        /// - Parameters:
        ///   - keyPath: The model's text.
        ///   - style: The text's style.
        ///   - leadingInset: Space before the text, in pixels, added to the row's leading inset.
        ///   - trailingInset: Space after the text, in pixels, added to the row's trailing inset.
        ///   - collapsesWhenEmpty: Whether an empty text hides the block and the spacing before it.
        /// - Returns: The element.
        @inlinable   // the closure reading the key path is then made, and specialized, where `Model` is known
        public static func text(
            _ keyPath: KeyPath<Model, String> & Sendable, style: TextStyle,
            leadingInset: Double = 0, trailingInset: Double = 0, collapsesWhenEmpty: Bool = true
        ) -> Element {
            text({ $0[keyPath: keyPath] }, style: style, leadingInset: leadingInset, trailingInset: trailingInset,
                 collapsesWhenEmpty: collapsesWhenEmpty)
        }

        /// A styled text block: the model's text with its bold, italic, monospaced and resized
        /// stretches (see `StyledText`), in `style`, with its own horizontal insets.
        ///
        /// Spans that are out of range (a model's bad data) do not stop the row from being measured:
        /// the block is then measured as its plain text.
        ///
        /// - Parameters:
        ///   - text: Returns the block's styled text for a model.
        ///   - style: The text's style (its size is that of the text outside sized spans).
        ///   - leadingInset: Space before the text, in pixels, added to the row's leading inset.
        ///   - trailingInset: Space after the text, in pixels, added to the row's trailing inset.
        ///   - collapsesWhenEmpty: Whether an empty text hides the block and the spacing before it.
        /// - Returns: The element.
        public static func styledText(
            _ text: @escaping @Sendable (Model) -> StyledText, style: TextStyle,
            leadingInset: Double = 0, trailingInset: Double = 0, collapsesWhenEmpty: Bool = true
        ) -> Element {
            Element(kind: .styledText(text, style, leading: leadingInset, trailing: trailingInset,
                                      collapsesWhenEmpty: collapsesWhenEmpty))
        }

        /// A styled text block reading a key path of the model.
        ///
        /// - Parameters:
        ///   - keyPath: The model's styled text.
        ///   - style: The text's style.
        ///   - leadingInset: Space before the text, in pixels, added to the row's leading inset.
        ///   - trailingInset: Space after the text, in pixels, added to the row's trailing inset.
        ///   - collapsesWhenEmpty: Whether an empty text hides the block and the spacing before it.
        /// - Returns: The element.
        @inlinable
        public static func styledText(
            _ keyPath: KeyPath<Model, StyledText> & Sendable, style: TextStyle,
            leadingInset: Double = 0, trailingInset: Double = 0, collapsesWhenEmpty: Bool = true
        ) -> Element {
            styledText({ $0[keyPath: keyPath] }, style: style, leadingInset: leadingInset,
                       trailingInset: trailingInset, collapsesWhenEmpty: collapsesWhenEmpty)
        }

        /// A part of fixed height (an avatar row, a button bar, an image of known size); it collapses
        /// with its spacing when `collapsesWhen` says so.
        ///
        /// - Parameters:
        ///   - height: The part's height in pixels.
        ///   - collapsesWhen: Returns `true` for a model whose row does not show the part; `nil` to
        ///     show it always.
        /// - Returns: The element.
        public static func fixed(_ height: Double, collapsesWhen: (@Sendable (Model) -> Bool)? = nil) -> Element {
            Element(kind: .fixed(height, collapsesWhen: collapsesWhen))
        }
    }

    /// Space around the stack, in pixels.
    public var insets: Insets
    /// Vertical space between two visible elements.
    public var spacing: Double
    /// The row is never shorter than this.
    public var minimumHeight: Double
    /// The parts of the stack, top to bottom.
    public var elements: [Element]

    /// Creates a row layout.
    ///
    /// - Parameters:
    ///   - insets: Space around the stack, in pixels.
    ///   - spacing: Vertical space between two visible elements, in pixels.
    ///   - minimumHeight: The row is never shorter than this, in pixels.
    ///   - elements: The parts of the stack, top to bottom.
    public init(insets: Insets = .zero, spacing: Double = 0, minimumHeight: Double = 0, elements: [Element]) {
        self.insets = insets
        self.spacing = spacing
        self.minimumHeight = minimumHeight
        self.elements = elements
    }

    /// Widths below this (or not a number, from insets that are not) are laid out as this: every line
    /// still holds one cluster.
    @inlinable
    static var narrowest: Double { MeasurementLimits.width.lowerBound }

    /// Checks the text styles once, so that measuring can only fail on a bad width.
    @usableFromInline
    func validate(with measurer: TextMeasurer) throws(TextMeasureError) {
        for element in elements {
            switch element.kind {
            case .text(_, let style, _, _, _), .styledText(_, let style, _, _, _): _ = try measurer.lineHeight(for: style)
            case .fixed: break
            }
        }
    }

    /// Walks the visible elements, giving each text block's text, spans (empty for plain text), style
    /// and horizontal inset.
    @inlinable
    func forEachVisible(_ model: Model, _ body: (_ text: String?, _ spans: [TextSpan], _ style: TextStyle?,
                                                 _ fixed: Double, _ horizontal: Double) throws -> Void) rethrows -> Int {
        var visible = 0
        for element in elements {
            switch element.kind {
            case .text(let text, let style, let leading, let trailing, let collapses):
                let string = text(model)
                if string.isEmpty && collapses { continue }
                try body(string, [], style, 0, insets.leading + insets.trailing + leading + trailing)
            case .styledText(let text, let style, let leading, let trailing, let collapses):
                let styled = text(model)
                if styled.text.isEmpty && collapses { continue }
                try body(styled.text, styled.spans, style, 0, insets.leading + insets.trailing + leading + trailing)
            case .fixed(let height, let collapsesWhen):
                if collapsesWhen?(model) == true { continue }
                try body(nil, [], nil, height, 0)
            }
            visible += 1
        }
        return visible
    }

    @inlinable
    func chrome(visible: Int) -> Double {
        insets.top + insets.bottom + spacing * Double(max(0, visible - 1))
    }

    /// Measures `model`'s row at `width`, laying out each text block from `texts` (prepared once per
    /// text and style).
    ///
    /// A text block left narrower than `MeasurementLimits.width` allows by its insets is laid out at
    /// the narrowest width allowed.
    ///
    /// - Parameters:
    ///   - model: The row's model.
    ///   - width: The row's width in pixels.
    ///   - texts: Prepares the texts and keeps them for other widths.
    /// - Returns: The row's height (at least ``minimumHeight``), its line count, truncation and the
    ///   widths over which it holds.
    /// - Throws: `TextMeasureError.invalidWidth(_:)` for a width outside `MeasurementLimits.width`;
    ///   otherwise the `TextMeasureError` of a text block whose style is invalid.
    /// - Complexity: One layout per visible text block; a text not prepared yet in its style is also
    ///   shaped.
    public func measure(_ model: Model, width: Double, texts: PreparedTextCache) throws(TextMeasureError) -> RowMeasurement {
        try measureWithTextHeight(model, width: width, texts: texts).measurement
    }

    /// The measurement and the part of its height that is text (for the cache's estimate learning).
    /// Inlinable, like the cache initializer that calls it, so that it runs specialized for `Model`.
    @inlinable
    func measureWithTextHeight(_ model: Model, width: Double, texts: PreparedTextCache) throws(TextMeasureError)
        -> (measurement: RowMeasurement, textHeight: Double) {
        try MeasurementLimits.check(width: width)
        var height = 0.0, textHeight = 0.0, lines = 0, truncated = false
        var range = 0.0..<Double.infinity
        var failure: TextMeasureError?
        let visible = forEachVisible(model) { text, spans, style, fixed, horizontal in
            guard failure == nil else { return }
            guard let text, let style else { height += fixed; return }
            let available = width - horizontal
            let clamped = !(available >= Self.narrowest)
            do throws(TextMeasureError) {
                let at = clamped ? Self.narrowest : available
                let m = spans.isEmpty ? try texts.measure(text, style: style, width: at, withLines: false)
                    : try Self.measure(StyledText(text, spans: spans), style: style, width: at, texts: texts)
                height += m.height
                textHeight += m.height
                lines += m.lineCount
                truncated = truncated || m.isTruncated
                let lower = clamped ? 0 : m.validWidths.lowerBound + horizontal
                let upper = m.validWidths.upperBound + horizontal
                range = max(range.lowerBound, lower)..<min(range.upperBound, upper)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        let total = max(minimumHeight, height + chrome(visible: visible))
        return (RowMeasurement(height: total, validWidths: range, lineCount: lines, isTruncated: truncated), textHeight)
    }

    /// A styled block's measurement without lines; its plain text's when its spans are out of range.
    @usableFromInline
    static func measure(_ text: StyledText, style: TextStyle, width: Double,
                        texts: PreparedTextCache) throws(TextMeasureError) -> TextMeasurement {
        do throws(TextMeasureError) {
            return try texts.measure(text, style: style, width: width, withLines: false)
        } catch {
            switch error {
            case .invalidSpanRange, .invalidSpanSize, .tooManySpans:
                return try texts.measure(text.text, style: style, width: width, withLines: false)
            default: throw error
            }
        }
    }

    /// Estimates `model`'s row at `width` without shaping (see `TextMeasurer.estimate(_:style:width:)`);
    /// a styled block is estimated as its plain text.
    ///
    /// A text block that cannot be estimated (an invalid style, or a width beyond
    /// `MeasurementLimits.width`) adds no text height.
    ///
    /// - Parameters:
    ///   - model: The row's model.
    ///   - width: The row's width in pixels.
    ///   - measurer: Estimates the texts.
    /// - Returns: The expected height and a height the row does not exceed, both at least
    ///   ``minimumHeight``.
    /// - Complexity: O(*n*) in the length of the row's texts.
    public func estimate(_ model: Model, width: Double, measurer: TextMeasurer) -> HeightEstimate {
        estimateWithTextHeight(model, width: width, measurer: measurer).estimate
    }

    /// The estimate, with the expected text height multiplied by `textScale`, and the unscaled expected
    /// text height. Inlinable, like ``measureWithTextHeight(_:width:texts:)``.
    @inlinable
    func estimateWithTextHeight(_ model: Model, width: Double, measurer: TextMeasurer, textScale: Double = 1)
        -> (estimate: HeightEstimate, textHeight: Double) {
        var fixed = 0.0, text = 0.0, maximum = 0.0
        let visible = forEachVisible(model) { string, _, style, height, horizontal in
            guard let string, let style else { fixed += height; return }
            let available = width - horizontal >= Self.narrowest ? width - horizontal : Self.narrowest
            if let e = try? measurer.estimate(string, style: style, width: available) {
                text += e.height
                maximum += e.maximumHeight
            }
        }
        let chrome = chrome(visible: visible) + fixed
        let estimate = HeightEstimate(expected: max(minimumHeight, chrome + text * textScale),
                                      maximum: max(minimumHeight, chrome + maximum))
        return (estimate, text)
    }
}

/// Space around a row's stack, in pixels.
public struct RowInsets: Hashable, Sendable {
    /// Space above the stack.
    public var top: Double
    /// Space before the stack's start (left in left-to-right layouts).
    public var leading: Double
    /// Space below the stack.
    public var bottom: Double
    /// Space after the stack's end (right in left-to-right layouts).
    public var trailing: Double

    /// Creates insets.
    ///
    /// - Parameters:
    ///   - top: Space above the stack, in pixels.
    ///   - leading: Space before the stack's start, in pixels.
    ///   - bottom: Space below the stack, in pixels.
    ///   - trailing: Space after the stack's end, in pixels.
    public init(top: Double = 0, leading: Double = 0, bottom: Double = 0, trailing: Double = 0) {
        self.top = top
        self.leading = leading
        self.bottom = bottom
        self.trailing = trailing
    }

    /// The same inset on all four sides.
    ///
    /// - Parameter value: The inset on every side, in pixels.
    public init(all value: Double) {
        self.init(top: value, leading: value, bottom: value, trailing: value)
    }

    /// No insets.
    public static let zero = RowInsets()
}
