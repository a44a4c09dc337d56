import Testing
import TestSupport
@testable import TextMeasure

/// Line heights where Pango moves runs onto the baseline of a line's first run (see `Baselines`): a
/// line that starts in Devanagari aligns its runs on the hanging baseline (0.6 em in every bundled
/// font, so runs of another size move), one that starts in CJK on the ideographic face bottom (which
/// differs from font to font, so runs of another font move even at one size).
@Suite("Line heights with Pango's baseline alignment")
struct PangoBaselineTests {
    /// Words of scripts whose bundled fonts differ in extent, and whose first-run baselines differ:
    /// Han, Kana and Hangul (ideographic), Devanagari (hanging), the rest alphabetic.
    static let words = ["漢字", "中文文本", "ひらがな", "カタカナ", "한국어", "नमस्ते", "हिन्दी", "ไทย", "abc", "word",
                        "مرحبا", "שלום", "12:30", "😀", "Ελλάδα", "∑x"]

    /// Two to six words at one of five sizes, most with one or two spans between spaces (bold, a size
    /// other than the text's, or both): a fixed seed.
    static let cases: [PangoReference.Case] = {
        var random = SplitMix64(seed: 0xBA5E_11E5)
        var cases: [PangoReference.Case] = []
        for _ in 0..<300 {
            let text = (0..<Int.random(in: 2...6, using: &random)).map { _ in words.randomElement(using: &random)! }
                .joined(separator: " ")
            let size = [12.0, 13.0, 16.0, 17.0, 24.0].randomElement(using: &random)!
            let scalars = Array(text.unicodeScalars)
            // Span edges at word edges: an edge inside a grapheme cluster is a difference of its own
            // (`docs/pango-differences.md`, styled text). A span never restates the text's size: Pango
            // splits items where an absolute size meets the same size given in points.
            let edges = Set([0, scalars.count] + scalars.indices.filter { scalars[$0] == " " }.flatMap { [$0, $0 + 1] }).sorted()
            var spans: [TextSpan] = []
            if Int.random(in: 0..<10, using: &random) < 7 {
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    let start = edges.dropLast().randomElement(using: &random)!
                    let end = edges.filter { $0 > start }.randomElement(using: &random)!
                    let spanSize = ([nil, 10.0, 20.0, 28.0] as [Double?]).filter { $0 != size }.randomElement(using: &random)!
                    spans.append(TextSpan(start..<end, bold: Bool.random(using: &random), size: spanSize))
                }
            }
            for width in [60.0, 120.0, 500.0] {
                cases.append(PangoReference.Case(text: text, size: size, width: width, spans: spans))
            }
        }
        return cases
    }()

    /// Mixed scripts and sizes on one line, every line's height exact in Pango units.
    @Test("Lines of mixed scripts and sizes are exactly as tall as Pango's",
          .disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func mixedLinesAreExactlyAsTallAsPangos() throws {
        let comparison = try PangoReference.compare(Self.cases, reportName: "pango-baseline-disagreements.txt")
        let report = "exact heights \(comparison.exactHeightAgreements)/\(comparison.total); \(comparison.summary)\n"
            + comparison.disagreements.prefix(20).joined(separator: "\n")
        print("Pango baselines: exact heights \(comparison.exactHeightAgreements)/\(comparison.total); \(comparison.summary)")
        #expect(comparison.exactHeightAgreements == comparison.total && comparison.agreements == comparison.total,
                "\(report)")
    }

    /// Heights Pango 1.50 gives these one-line texts with the bundled fonts, in Pango units.
    @Test("A line is as tall as its runs moved onto its first run's baseline", arguments: [
        // Devanagari first, "11:00" at 12 px in 13 px text: moved up by 0.6 × (13 − 12) px, 615 units.
        (text: "हरीश नाथ 11:00", size: 13.0, span: 9..<14, spanSize: 12.0, height: 19182),
        (text: "हरीश 11:00", size: 13.0, span: 5..<10, spanSize: 10.0, height: 18221),
        // Larger: it moves down as far as its ascent rises, and alone reaches both ways.
        (text: "हरीश 11:00", size: 13.0, span: 5..<10, spanSize: 20.0, height: 27894),
        // CJK first, Devanagari after it at one size: moved up to the ideographic face bottom.
        (text: "漢字नमस्ते", size: 16.0, span: 0..<0, spanSize: 16.0, height: 21440),
        (text: "한국어 नमस्ते", size: 16.0, span: 0..<0, spanSize: 16.0, height: 21365),
        (text: "漢字 नमस्ते", size: 16.0, span: 0..<2, spanSize: 24.0, height: 32160),
        // Devanagari first: every bundled font's hanging baseline is 0.6 em, so at one size none moves.
        (text: "नमस्ते漢字", size: 16.0, span: 0..<0, spanSize: 16.0, height: 23773),
        // Alphabetic first: nothing moves (Latin's extent reaches furthest both ways).
        (text: "abc 漢字", size: 16.0, span: 0..<3, spanSize: 10.0, height: 22315),
    ])
    func lineHeightsAsPango(text: String, size: Double, span: Range<Int>, spanSize: Double, height: Int) throws {
        let spans = span.isEmpty ? [] : [TextSpan(span, size: spanSize)]
        let measurement = try Fixtures.measurer.measure(StyledText(text, spans: spans), style: TextStyle(size: size),
                                                        width: 1000)
        #expect(measurement.lineCount == 1)
        #expect(measurement.height * 1024 == Double(height))
    }

    /// The glyphs of a moved run are drawn where Pango draws them: up by the same amount.
    @Test func glyphsOfAMovedRunAreRaised() throws {
        let text = StyledText("हरीश 11:00", spans: [TextSpan(5..<10, size: 10)])
        let layout = try Fixtures.measurer.glyphLayout(of: text, style: TextStyle(size: 13), width: 1000)
        let runs = try #require(layout.lines.first?.runs)
        let devanagari = try #require(runs.first { $0.size == 13 })
        let digits = try #require(runs.first { $0.size == 10 })
        #expect(devanagari.glyphs.allSatisfy { $0.y == 0 })
        // 0.6 em at 13 px (7,987 units) minus 0.6 em at 10 px (6,144).
        #expect(digits.glyphs.allSatisfy { $0.y == 1843.0 / 1024 })
    }

    /// In Pango the run a line starts in decides how the others move; the browser modes align every
    /// run on the alphabetic baseline, so there the order of the runs does not matter.
    @Test(arguments: [LineBreaking.pango, .browser])
    func theFirstRunDecidesOnlyInPango(breaking: LineBreaking) throws {
        let style = TextStyle(size: 16, breaking: breaking)
        let cjkFirst = try Fixtures.measurer.measure("漢字नमस्ते", style: style, width: 1000)
        let devanagariFirst = try Fixtures.measurer.measure("नमस्ते漢字", style: style, width: 1000)
        #expect((cjkFirst.height < devanagariFirst.height) == (breaking == .pango))
        #expect(cjkFirst.height <= devanagariFirst.height)
    }

    /// Each line of a wrapped text aligns on its own first run: a text whose lines start in different
    /// scripts gets each line's height as Pango does, and the lines' tops add up.
    @Test func eachLineAlignsOnItsOwnFirstRun() throws {
        let text = "漢字नमस्ते नमस्ते漢字"
        let measurement = try Fixtures.measurer.measure(text, style: TextStyle(size: 16), width: 100)
        let lines = measurement.lines
        try #require(lines.count == 2)
        #expect(lines.map { $0.height * 1024 } == [21440, 23773])
        #expect(lines[1].top == lines[0].height)
        #expect(measurement.height == lines[0].height + lines[1].height)
    }
}
