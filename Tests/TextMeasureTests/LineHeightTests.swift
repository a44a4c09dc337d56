import Testing
@testable import TextMeasure

/// Natural line heights: each line as tall as the fonts on it make it, as Pango (exact, no strut) and
/// Blink (`line-height: normal`: rounded metrics, the primary font's strut on every line) lay it out.
/// The differential tests check the heights against both engines over whole corpora; these pin the
/// rules down one by one.
@Suite("Line heights")
struct LineHeightTests {
    let measurer = Fixtures.measurer

    /// A line of the bundled font `file` alone, in `breaking`'s engine, in pixels: Pango's ascender
    /// plus descender at 1,024 units a pixel, or in Blink the larger rounded ascent plus the larger
    /// rounded descent of the font and the strut (Noto Sans).
    func fontLine(_ file: String, size: Double, breaking: LineBreaking) throws -> Double {
        let index = try #require(BundledFonts.fileNames.firstIndex(of: file))
        let face = measurer.cascade.fonts[index]
        if breaking.isBrowser {
            let strut = LineExtent.blink(measurer.cascade.fonts[0], size: size)
            return Double(LineExtent.blink(face, size: size).union(strut).height) / 64
        }
        return Double(LineExtent.pango(HBFont(face: face, scale: Int32(size * 1024))).height) / 1024
    }

    /// Texts drawn with one fallback font each, taller than Noto Sans (ascent + descent in em: Thai
    /// 1.511, Arabic 2.112, Symbols 2 1.699, Noto Sans 1.362).
    static let tallerFallbacks: [(text: String, font: String)] = [
        ("สวัสดีครับ", "NotoSansThai-Regular.ttf"),
        ("مرحبا بالعالم", "NotoSansArabic-Regular.ttf"),
        ("⬀⬁⬂", "NotoSansSymbols2-Regular.ttf"),
    ]

    /// The regression this feature exists against: a line drawn with a taller fallback font is as
    /// tall as that font makes it, never the primary font's line height, in both engines, at whole
    /// and fractional sizes.
    @Test(arguments: LineBreaking.allCases)
    func aLineDrawnWithATallerFallbackIsTaller(breaking: LineBreaking) throws {
        for size in [11, 11.5, 13, 17, 24.0] {
            let primary = try fontLine("NotoSans-Regular.ttf", size: size, breaking: breaking)
            #expect(try measurer.lineHeight(for: TextStyle(size: size, breaking: breaking)) == primary)
            for (text, font) in Self.tallerFallbacks {
                let m = try measurer.measure(text, style: TextStyle(size: size, breaking: breaking), width: 1000)
                let expected = try fontLine(font, size: size, breaking: breaking)
                #expect(expected > primary)
                #expect(m.lineCount == 1)
                #expect(m.height == expected, "\(text) at \(size) px (\(breaking)): \(m.height), font line \(expected)")
                #expect(m.lines[0].height == expected)
            }
        }
    }

    /// Pango has no strut: a line of CJK alone (Droid Sans Fallback) is shorter than a Noto Sans line,
    /// 31.406 against 32.688 px at 24 px (Pango 1.50: 32,160 and 33,472 Pango units). Blink's strut
    /// keeps it at the primary font's height.
    @Test func aShorterFontMakesAShorterLineInPangoOnly() throws {
        let pango = try measurer.measure("你好世界", style: TextStyle(size: 24), width: 1000)
        #expect(pango.height * 1024 == 32_160)
        #expect(pango.height < (try measurer.lineHeight(for: TextStyle(size: 24))))
        let browser = try measurer.measure("你好世界", style: TextStyle(size: 24, breaking: .browser), width: 1000)
        #expect(browser.height == 33)   // Noto Sans: 26 + 7 px, rounded as Blink does
    }

    /// A line holding several fonts reaches as high as the tallest ascent and as low as the deepest
    /// descent: Latin's ascent (1.069 em) with Thai's descent (0.450 em) in Pango, 24,887 Pango units
    /// as Pango 1.50 makes it (HarfBuzz rounds each: 17,514 + 7,373).
    @Test func aMixedLineUnitesItsFontsExtents() throws {
        let m = try measurer.measure("abc ไทย", style: TextStyle(size: 16), width: 1000)
        #expect(m.height * 1024 == 24_887)
        // Blink: max(17, 17) + max(5, 7) px, the strut and Noto Sans Thai rounded.
        let browser = try measurer.measure("abc ไทย", style: TextStyle(size: 16, breaking: .browser), width: 1000)
        #expect(browser.height == 24)
    }

    /// Each line counts only the fonts on it: a Thai line and a Latin line below it keep their own
    /// heights, tops add up, and a line limit caps the height at the first lines'.
    @Test(arguments: LineBreaking.allCases)
    func eachLineCountsItsOwnFonts(breaking: LineBreaking) throws {
        let style = TextStyle(size: 16, breaking: breaking)
        let m = try measurer.measure("ไทย\nabc\nไทย", style: style, width: 1000)
        let thai = try fontLine("NotoSansThai-Regular.ttf", size: 16, breaking: breaking)
        let latin = try fontLine("NotoSans-Regular.ttf", size: 16, breaking: breaking)
        let expectedThai = breaking.isBrowser ? 24.0 : thai   // Blink: the strut's 17 px ascent, Thai's 7 px descent
        #expect(m.lines.map(\.height) == [expectedThai, latin, expectedThai])
        #expect(m.lines.map(\.top) == [0, expectedThai, expectedThai + latin])
        #expect(m.height == 2 * expectedThai + latin)
        #expect(m.lineHeight == expectedThai)
        let capped = try measurer.measure("ไทย\nabc\nไทย", style: TextStyle(size: 16, maxLines: 2, breaking: breaking),
                                          width: 1000)
        #expect(capped.isTruncated)
        #expect(capped.height == expectedThai + latin)
        let prepared = try measurer.prepare("ไทย\nabc\nไทย", style: TextStyle(size: 16, breaking: breaking))
        #expect(try prepared.layout(width: 1000, maxLines: 1).height == expectedThai)
        #expect(try prepared.layout(width: 1000, withLines: false).height == m.height)
    }

    /// An empty paragraph's line is the primary font's height, whatever the text around it; a line of
    /// spaces is as tall as the font the spaces take (Pango: the text's after them at a paragraph's
    /// start).
    @Test func emptyLinesAndLinesOfSpaces() throws {
        let latin = try fontLine("NotoSans-Regular.ttf", size: 16, breaking: .pango)
        let thai = try fontLine("NotoSansThai-Regular.ttf", size: 16, breaking: .pango)
        let empty = try measurer.measure("ไทย\n\nไทย", style: TextStyle(size: 16), width: 1000)
        #expect(empty.lines.map(\.height) == [thai, latin, thai])
        // "   ไทย" at 10 px: Pango puts the spaces on a line of their own, in Noto Sans Thai.
        let spaces = try measurer.measure("   ไทย", style: TextStyle(size: 16), width: 10)
        #expect(spaces.lines.first.map { String("   ไทย"[$0.range(in: "   ไทย")]) } == "   ")
        #expect(spaces.lines.allSatisfy { $0.height == thai })
    }

    /// Browser-mode lines are whole LayoutUnits (1/64 px), never shorter than the strut.
    @Test func browserLinesAreLayoutUnitsAtLeastTheStrut() throws {
        for text in Fixtures.corpus.prefix(80) {
            for size in [11.5, 15.5, 17] {
                let style = TextStyle(size: size, breaking: .browser)
                let strut = try measurer.lineHeight(for: style)
                let m = try measurer.measure(text, style: style, width: 180)
                for line in m.lines {
                    #expect(line.height >= strut)
                    #expect((line.height * 64).rounded() == line.height * 64)
                }
            }
        }
    }

    /// Fixed and multiple line heights keep their meaning: every line exactly that tall, whatever
    /// its fonts; the baseline sits half the leading below the primary font's ascent.
    @Test func fixedHeightsIgnoreTheFonts() throws {
        let style = TextStyle(size: 16, lineHeight: .fixed(30))
        let m = try measurer.measure("ไทย\nabc\nمرحبا", style: style, width: 1000)
        #expect(m.lines.map(\.height) == [30, 30, 30])
        #expect(m.height == 90 && m.lineHeight == 30)
        let ascent = 16 * 1.069, descent = 16 * 0.293
        #expect(abs(m.lines[1].baseline - (30 + (30 - ascent - descent) / 2 + ascent)) < 0.001)
        let multiple = try measurer.measure("مرحبا\nabc", style: TextStyle(size: 10, lineHeight: .multiple(1.5)), width: 100)
        #expect(multiple.height == 30 && multiple.lines.map(\.height) == [15, 15])
    }

    /// Laying out again inside the valid widths gives the same lines and the same heights; a prepared
    /// text with mixed fonts lays out at many widths with heights that always add up.
    @Test func heightsHoldAcrossValidWidths() throws {
        let text = "Thai ไทย then Arabic مرحبا and Devanagari नमस्ते with emoji 👋 and CJK 你好 at the end."
        for breaking in LineBreaking.allCases {
            let prepared = try measurer.prepare(text, style: TextStyle(size: 15, breaking: breaking))
            var width = 20.0
            while width < 700 {
                let m = try prepared.layout(width: width)
                #expect(abs(m.height - m.lines.map(\.height).reduce(0, +)) < 1e-9)
                let inside = (m.validWidths.lowerBound + min(m.validWidths.upperBound, 10_000)) / 2
                #expect(try prepared.layout(width: inside) == m)
                width += 7.5
            }
        }
    }
}
