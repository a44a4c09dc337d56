import Testing
@testable import TextMeasure

/// Characters no font of the cascade has, and control characters: Pango draws them as hex boxes
/// (see `HexBoxFont`), with widths and extents of their own, and `.pango` measures them so.
@Suite("Hex boxes as Pango draws them")
struct HexBoxPangoTests {
    /// Scripts the bundled fonts lack (Tibetan, Bengali, Tamil, Ethiopic, Sinhala), private-use and
    /// supplementary characters, and controls inside Latin and Arabic text: line counts and heights
    /// as Pango's at three sizes and five widths. A line of boxes alone is shorter than a line of the
    /// primary font (the box's logical rectangle is smaller than the font's).
    @Test("Lines and heights of text drawn as hex boxes are Pango's")
    func linesAndHeightsArePangos() throws {
        let texts = [
            "aa\u{E000}bb", "aa\u{10330}bb", "aa\u{01}bb", "\u{E000}", "\u{10330}",
            "\u{F56}\u{F7C}\u{F51}\u{F0B}\u{F66}\u{F90}\u{F51}\u{F0B}\u{F62}\u{F72}\u{F42}\u{F0B}\u{F42}\u{F5E}\u{F74}\u{F44}\u{F0B}",
            "\u{986}\u{9AE}\u{9BF} \u{9AC}\u{9BE}\u{982}\u{9B2}\u{9BE}\u{9AF}\u{9BC} \u{997}\u{9BE}\u{9A8} \u{997}\u{9BE}\u{987}",
            "\u{BB5}\u{BA3}\u{B95}\u{BCD}\u{B95}\u{BAE}\u{BCD} \u{B89}\u{BB2}\u{B95}\u{BAE}\u{BCD}",
            "\u{12A0}\u{121B}\u{122D}\u{129B} \u{124B}\u{1295}\u{124B}",
            "\u{645}\u{631}\u{01}\u{62D}\u{628}\u{627}",
            "ab\u{0B}cd ef\u{0C}gh \u{85} ij", "ab\u{0C}cd", "ab\u{85}cd",
            "Hello \u{E000}\u{E001}\u{E002} world \u{E003}",
            "\u{DC3}\u{DD2}\u{D82}\u{DC4}\u{DBD}", "x\u{301}\u{F71}y",
            "\u{600}\u{661}", "\u{200B}\u{E000}\u{200D}\u{E001}",
        ]
        let cases = PangoReference.cases(texts: texts, sizes: [13, 15, 17], widths: [40, 60, 90, 150, 400])
        let comparison = try PangoReference.compare(cases, reportName: "pango-hex-box-disagreements.txt")
        #expect(comparison.agreements == comparison.total,
                "\(comparison.summary)\n\(comparison.disagreements.joined(separator: "\n"))")
    }

    /// In bold, italic and monospaced spans the box's digits are those of the face fontconfig matches
    /// for `monospace` at the span's weight and slant (the monospaced faces upright, the italic faces
    /// slanted), and a span may end inside a stretch of boxes.
    @Test("Hex boxes in bold, italic and monospaced spans are Pango's")
    func styledBoxesArePangos() throws {
        let texts = ["aa\u{E000}bb \u{F56}\u{F7C}\u{F51}\u{F0B}\u{F66}\u{F90}\u{F51} cc\u{01}dd\u{10330}",
                     "\u{E000}\u{E001}\u{E002}\u{E003}"]
        var cases: [PangoReference.Case] = []
        for text in texts {
            let count = text.unicodeScalars.count
            let spans: [[TextSpan]] = [
                [TextSpan(0..<count, bold: true)], [TextSpan(0..<count, italic: true)],
                [TextSpan(0..<count, bold: true, italic: true)], [TextSpan(0..<count, monospace: true)],
                [TextSpan(0..<count, bold: true, monospace: true)], [TextSpan(0..<count / 2, bold: true, size: 20)],
            ]
            for spans in spans {
                for size in [13.0, 17.0] {
                    for width in [30.0, 60.0, 400.0] {
                        cases.append(PangoReference.Case(text: text, size: size, width: width, spans: spans))
                    }
                }
            }
        }
        let comparison = try PangoReference.compare(cases, reportName: "pango-hex-box-styled-disagreements.txt")
        #expect(comparison.agreements == comparison.total,
                "\(comparison.summary)\n\(comparison.disagreements.joined(separator: "\n"))")
    }

    /// A box's width is Pango's exactly: `5 × pad + columns × (digit + pad)` with the monospaced
    /// face's digits (Pango 1.50 with the bundled fonts and the monospaced faces, in Pango units), and
    /// a character beyond plane 0 takes three columns, not two.
    @Test("A hex box is as wide as Pango's")
    func boxWidthIsPangos() throws {
        let style = TextStyle(size: 15)
        let basic = try Fixtures.measurer.measure("\u{E000}", style: style, width: 1000)
        let supplementary = try Fixtures.measurer.measure("\u{10330}", style: style, width: 1000)
        #expect(basic.widestLineWidth == 11225.0 / 1024)
        #expect(supplementary.widestLineWidth == 15621.0 / 1024)
        // The box's logical rectangle, not the font's: 13,655 Pango units tall.
        #expect(basic.height == 13655.0 / 1024)
        // Without monospaced faces the digits are the primary font's (Noto Sans: wider).
        let plain = try TextMeasurer(cascade: Fixtures.measurer.cascade)
        #expect(try plain.measure("\u{E000}", style: style, width: 1000).widestLineWidth == 12314.0 / 1024)
    }

    /// The browser modes keep the font's `.notdef` (Blink draws no hex box), and a character the
    /// font has is never boxed.
    @Test("Only .pango draws boxes, and only for characters the fonts lack")
    func onlyPangoDrawsBoxes() throws {
        let browser = TextStyle(size: 15, breaking: .browser)
        let notdef = try Fixtures.measurer.measure("\u{E000}", style: browser, width: 1000)
        #expect(notdef.widestLineWidth == 9)   // Noto Sans's .notdef: 600 units of 1,000 at 15 px
        let latin = try Fixtures.measurer.measure("aabb", style: TextStyle(size: 15), width: 1000)
        let withBox = try Fixtures.measurer.measure("aa\u{E000}bb", style: TextStyle(size: 15), width: 1000)
        #expect(withBox.widestLineWidth == latin.widestLineWidth + 11225.0 / 1024)
    }

    /// Glyph layouts hand a box out as glyph 0 (`.notdef`) at the box's advance, and the layout's
    /// line is as wide as measured.
    @Test("Glyph layouts draw a box as .notdef at the box's advance")
    func glyphLayoutUsesNotdefAtTheBoxAdvance() throws {
        let layout = try Fixtures.measurer.glyphLayout(of: "a\u{E000}b", style: TextStyle(size: 15), width: 1000)
        let glyphs = layout.lines[0].runs.flatMap(\.glyphs)
        #expect(glyphs.count == 3)
        #expect(glyphs[1].id == 0)
        #expect(glyphs[2].x - glyphs[1].x == 11225.0 / 1024)
        #expect(layout.lines[0].drawnWidth == layout.lines[0].width)
    }
}
