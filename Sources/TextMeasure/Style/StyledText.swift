/// Text with bold, italic, monospaced and resized stretches inside its paragraphs: a chat message with
/// a bold sender name and `inline code`, a card with a bold title run into its body, search results
/// with the matched words bold.
///
/// ```swift
/// let message = StyledText("Anna: see parse_header() in main.c",
///                          spans: [TextSpan(0..<5, bold: true), TextSpan(10..<24, monospace: true)])
/// let m = try measurer.measure(message, style: TextStyle(size: 15), width: 280)
/// ```
///
/// Spans may overlap. A character is bold, italic or monospaced when any span covering it says so;
/// its size is that of the last span in ``spans`` that covers it and has one, else the style's. A
/// grapheme cluster is drawn in one style, that of its first scalar (a span edge inside "👍🏽" or
/// between a letter and its accent styles the whole cluster as its start).
///
/// What each attribute draws with is the measurer's ``FontCascades``; with the bundled fonts, bold
/// and italic take the faces that exist (Noto Sans has bold, italic and bold italic; Arabic, Hebrew,
/// Thai and Devanagari bold; the CJK, Hangul, math, symbol and emoji fonts only their regular face)
/// and nothing is emboldened or slanted, as in Chromium with `font-synthesis: none` and in Pango.
/// Monospaced text takes Noto Sans Mono, then the regular cascade's fallbacks; monospaced italic is
/// upright.
///
/// A styled text with no span, or with spans that style nothing, measures exactly as its plain text.
public struct StyledText: Hashable, Sendable {
    /// The text.
    public var text: String
    /// The styled stretches, in the order that decides sizes (the last covering a character wins).
    public var spans: [TextSpan]

    /// A styled text.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - spans: Its styled stretches; checked when the text is measured.
    public init(_ text: String, spans: [TextSpan] = []) {
        self.text = text
        self.spans = spans
    }

    /// Whether some span styles something: a span with an attribute that covers a character.
    var isStyled: Bool { spans.contains { $0.hasAttributes && $0.start < $0.end } }
}

extension StyledText: ExpressibleByStringLiteral {
    /// Plain text, with no span.
    ///
    /// - Parameter text: The text.
    public init(stringLiteral text: String) {
        self.init(text)
    }
}
