import Testing
import TextMeasure

/// Font files that once broke the library, found by the `FuzzFont` fuzzer (Fuzz/regressions/font/).
@Suite("Font regressions")
struct FontRegressionTests {
    static let folder = Fixtures.root + "/Fuzz/regressions/font/"

    /// `hhea` lineGap −25600: the natural line height, and every height, came out negative.
    @Test func aNegativeLineGapGivesNoNegativeHeight() throws {
        let measurer = try TextMeasurer(fonts: [FontFile(path: Self.folder + "negative-natural-line-height")])
        let m = try measurer.measure("Hello", style: TextStyle(size: 17), width: 100)
        #expect(m.lineHeight >= 0)
        #expect(m.height >= 0)
        #expect(try measurer.lineHeight(for: TextStyle(size: 17)) >= 0)
    }

    /// A file FreeType accepts but in which HarfBuzz finds no glyphs is refused, naming the file (its
    /// face is no longer leaked: `Fuzz/run` checks that under LeakSanitizer).
    @Test func aFaceWithoutGlyphsIsRefused() {
        let path = Self.folder + "leak-hb-face-no-glyphs"
        #expect(throws: FontError.self) { try TextMeasurer(fonts: [FontFile(path: path)]) }
    }
}
