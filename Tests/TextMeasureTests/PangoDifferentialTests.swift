import Testing
import TextMeasure

/// Line counts against Pango, the independent reference: same font files, WORD_CHAR wrapping,
/// unrounded positions (see Tools/pango-reference/pango_lines.c). Needs `libpango1.0-dev`
/// (`scripts/bootstrap` installs it); the test fails, never skips, when it is missing.
@Suite("Pango differential")
struct PangoDifferentialTests {
    static let sizes: [Double] = [11, 13, 15.5, 17, 24]
    static let widths: [Double] = [12, 37, 64, 100, 150, 180, 213.5, 240, 320, 375, 480, 1000]

    @Test("≥ 99 % identical line counts on the multilingual corpus")
    func lineCountsAgreeWithPango() throws {
        let cases = PangoReference.cases(texts: Fixtures.corpus, sizes: Self.sizes, widths: Self.widths)
        let comparison = try PangoReference.compare(cases, reportName: "pango-disagreements.txt")
        print("Pango agreement: \(comparison.summary)")
        for line in comparison.disagreements.prefix(15) { print("  " + line) }
        #expect(comparison.agreement >= 0.99,
                "\(comparison.summary); all disagreements in .build/pango-disagreements.txt")
    }
}
