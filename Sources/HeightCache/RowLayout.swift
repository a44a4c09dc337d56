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
        enum Kind: Sendable {
            case text(@Sendable (Model) -> String, TextStyle, leading: Double, trailing: Double, collapsesWhenEmpty: Bool)
            case fixed(Double, collapsesWhen: (@Sendable (Model) -> Bool)?)
        }

        let kind: Kind

        /// A text block: the model's text in `style`, with its own horizontal insets.
        public static func text(
            _ text: @escaping @Sendable (Model) -> String, style: TextStyle,
            leadingInset: Double = 0, trailingInset: Double = 0, collapsesWhenEmpty: Bool = true
        ) -> Element {
            Element(kind: .text(text, style, leading: leadingInset, trailing: trailingInset,
                                collapsesWhenEmpty: collapsesWhenEmpty))
        }

        /// A text block reading a key path of the model.
        public static func text(
            _ keyPath: KeyPath<Model, String> & Sendable, style: TextStyle,
            leadingInset: Double = 0, trailingInset: Double = 0, collapsesWhenEmpty: Bool = true
        ) -> Element {
            text({ $0[keyPath: keyPath] }, style: style, leadingInset: leadingInset, trailingInset: trailingInset,
                 collapsesWhenEmpty: collapsesWhenEmpty)
        }

        /// A part of fixed height (an avatar row, a button bar, an image of known size); it collapses
        /// with its spacing when `collapsesWhen` says so.
        public static func fixed(_ height: Double, collapsesWhen: (@Sendable (Model) -> Bool)? = nil) -> Element {
            Element(kind: .fixed(height, collapsesWhen: collapsesWhen))
        }
    }

    public var insets: Insets
    /// Vertical space between two visible elements.
    public var spacing: Double
    /// The row is never shorter than this.
    public var minimumHeight: Double
    public var elements: [Element]

    public init(insets: Insets = .zero, spacing: Double = 0, minimumHeight: Double = 0, elements: [Element]) {
        self.insets = insets
        self.spacing = spacing
        self.minimumHeight = minimumHeight
        self.elements = elements
    }

    /// Widths below this (or not a number, from insets that are not) are laid out as this: every line
    /// still holds one cluster.
    static var narrowest: Double { MeasurementLimits.width.lowerBound }

    /// Checks the text styles once, so that measuring can only fail on a bad width.
    func validate(with measurer: TextMeasurer) throws(TextMeasureError) {
        for element in elements {
            if case .text(_, let style, _, _, _) = element.kind { _ = try measurer.lineHeight(for: style) }
        }
    }

    /// Walks the visible elements, giving each text block's text, style and horizontal inset.
    private func forEachVisible(_ model: Model, _ body: (_ text: String?, _ style: TextStyle?, _ fixed: Double, _ horizontal: Double) throws -> Void) rethrows -> Int {
        var visible = 0
        for element in elements {
            switch element.kind {
            case .text(let text, let style, let leading, let trailing, let collapses):
                let string = text(model)
                if string.isEmpty && collapses { continue }
                try body(string, style, 0, insets.leading + insets.trailing + leading + trailing)
            case .fixed(let height, let collapsesWhen):
                if collapsesWhen?(model) == true { continue }
                try body(nil, nil, height, 0)
            }
            visible += 1
        }
        return visible
    }

    private func chrome(visible: Int) -> Double {
        insets.top + insets.bottom + spacing * Double(max(0, visible - 1))
    }

    /// Measures `model`'s row at `width`, laying out each text block from `texts` (prepared once per
    /// text and style).
    public func measure(_ model: Model, width: Double, texts: PreparedTextCache) throws(TextMeasureError) -> RowMeasurement {
        try measureWithTextHeight(model, width: width, texts: texts).measurement
    }

    /// The measurement and the part of its height that is text (for the cache's estimate learning).
    func measureWithTextHeight(_ model: Model, width: Double, texts: PreparedTextCache) throws(TextMeasureError)
        -> (measurement: RowMeasurement, textHeight: Double) {
        try MeasurementLimits.check(width: width)
        var height = 0.0, textHeight = 0.0, lines = 0, truncated = false
        var range = 0.0..<Double.infinity
        var failure: TextMeasureError?
        let visible = forEachVisible(model) { text, style, fixed, horizontal in
            guard failure == nil else { return }
            guard let text, let style else { height += fixed; return }
            let available = width - horizontal
            let clamped = !(available >= Self.narrowest)
            do throws(TextMeasureError) {
                let m = try texts.measure(text, style: style, width: clamped ? Self.narrowest : available, withLines: false)
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

    /// Estimates `model`'s row at `width` without shaping (see `TextMeasurer.estimate(_:style:width:)`).
    public func estimate(_ model: Model, width: Double, measurer: TextMeasurer) -> HeightEstimate {
        estimateWithTextHeight(model, width: width, measurer: measurer).estimate
    }

    /// The estimate, with the expected text height multiplied by `textScale`, and the unscaled expected
    /// text height.
    func estimateWithTextHeight(_ model: Model, width: Double, measurer: TextMeasurer, textScale: Double = 1)
        -> (estimate: HeightEstimate, textHeight: Double) {
        var fixed = 0.0, text = 0.0, maximum = 0.0
        let visible = forEachVisible(model) { string, style, height, horizontal in
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
    public var top: Double
    public var leading: Double
    public var bottom: Double
    public var trailing: Double

    public init(top: Double = 0, leading: Double = 0, bottom: Double = 0, trailing: Double = 0) {
        self.top = top
        self.leading = leading
        self.bottom = bottom
        self.trailing = trailing
    }

    public init(all value: Double) {
        self.init(top: value, leading: value, bottom: value, trailing: value)
    }

    public static let zero = RowInsets()
}
