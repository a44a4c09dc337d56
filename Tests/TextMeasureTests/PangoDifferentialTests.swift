import Testing
import TestSupport
import TextMeasure

/// Line counts and heights against Pango, the independent reference: same font files, WORD_CHAR
/// wrapping, unrounded positions (see Tools/pango-reference/pango_lines.c), natural line heights (each
/// line as tall as its fonts' logical extents). Needs `libpango1.0-dev` (`scripts/bootstrap` installs
/// it); the test fails, never skips, when it is missing. What differs, and why:
/// `docs/pango-differences.md`.
@Suite("Pango differential")
struct PangoDifferentialTests {
    static let sizes: [Double] = [11, 11.5, 13, 15.5, 17, 24]
    static let widths: [Double] = [12, 37, 64, 100, 150, 180, 213.5, 240, 320, 375, 480, 1000]

    /// The held-out corpus (texts made from Faker's word lists, which the code was never tuned on):
    /// its grid, as `Tools/chromium-reference/chromium_lines.py` measures it.
    static let heldOutSizes: [Double] = [11.5, 13, 17, 24]
    static let heldOutWidths: [Double] = [48, 100, 180, 213.5, 320, 480]

    @Test("≥ 99.7 % identical line counts and heights on the multilingual corpus")
    func linesAndHeightsAgreeWithPango() throws {
        let cases = PangoReference.cases(texts: Fixtures.corpus, sizes: Self.sizes, widths: Self.widths)
        let comparison = try PangoReference.compare(cases, reportName: "pango-disagreements.txt")
        print("Pango agreement: \(comparison.summary)")
        for line in comparison.disagreements.prefix(15) { print("  " + line) }
        // Measured: 14,081 / 14,112 = 99.78 % for both.
        #expect(comparison.agreement >= 0.997, "\(comparison.summary); all disagreements in .build/pango-disagreements.txt")
        #expect(comparison.heightAgreement >= 0.997,
                "\(comparison.summary); all disagreements in .build/pango-disagreements.txt")
    }

    @Test("≥ 99.9 % identical line counts and heights on the held-out corpus")
    func linesAndHeightsAgreeWithPangoOnTheHeldOutCorpus() throws {
        let texts = Fixtures.corpus(named: "held-out.txt")
        #expect(texts.count == 2_000)
        let cases = PangoReference.cases(texts: texts, sizes: Self.heldOutSizes, widths: Self.heldOutWidths)
        let comparison = try PangoReference.compare(cases, reportName: "pango-held-out-disagreements.txt")
        print("Pango agreement, held-out corpus: \(comparison.summary)")
        for line in comparison.disagreements.prefix(15) { print("  " + line) }
        // Measured: 47,996 / 48,000 = 99.99 % for both.
        #expect(comparison.agreement >= 0.999,
                "\(comparison.summary); all disagreements in .build/pango-held-out-disagreements.txt")
        #expect(comparison.heightAgreement >= 0.999,
                "\(comparison.summary); all disagreements in .build/pango-held-out-disagreements.txt")
    }

    /// Words joined by hyphens, dashes and their neighbours (`Tests/Corpus/hyphens.txt`), on the grid of
    /// its Chromium fixture: Pango keeps Unicode 15's rules around hyphens, which the browser modes
    /// leave. Measured: 3,994 line counts and 3,992 heights of 4,000.
    @Test("Words joined by hyphens break as in Pango")
    func hyphenatedWordsBreakAsInPango() throws {
        try Self.expectAgreement(onCorpus: "hyphens", texts: 400, sizes: [13, 17], widths: [24, 40, 64, 100, 160],
                                 lines: { $0 >= 3_993 }, heights: { $0 >= 3_991 })
    }

    /// Texts with quotation marks, most of them East Asian (`Tests/Corpus/quotes.txt`), on the grid of
    /// its Chromium fixture: Pango keeps every quotation mark with both neighbours, as Unicode 15.0
    /// does, where the browser modes break between East Asian characters. Measured: all 4,000 line
    /// counts and heights.
    @Test("Quotation marks break as in Pango")
    func quotationMarksBreakAsInPango() throws {
        try Self.expectAgreement(onCorpus: "quotes", texts: 400, sizes: [13, 17], widths: [40, 64, 100, 160, 240],
                                 lines: { $0 == 4_000 }, heights: { $0 == 4_000 })
    }

    /// Control characters between letters of several scripts and emoji (`Tests/Corpus/controls.txt`),
    /// on the grid of its Chromium fixture: Pango draws them as hex boxes in their neighbours' font.
    /// Measured: 1,800 line counts and 1,771 heights (an FF ending a wrapped line: see
    /// `docs/pango-differences.md`).
    @Test("Control characters as in Pango")
    func controlCharactersAsInPango() throws {
        try Self.expectAgreement(onCorpus: "controls", texts: 120, sizes: [11, 13, 17, 24, 31], widths: [20, 40, 300],
                                 lines: { $0 >= 1_738 }, heights: { $0 >= 1_710 })
    }

    /// Lines ending at soft hyphens and at paragraphs' ends (`Tests/Corpus/line-ends.txt`), on the grid
    /// of its Chromium fixture. Measured: 5,460 line counts and 5,458 heights of 5,544; most of the
    /// rest are a soft hyphen right after a tab.
    @Test("Soft hyphens and paragraph ends as in Pango")
    func lineEndsAsInPango() throws {
        try Self.expectAgreement(onCorpus: "line-ends", texts: 308, sizes: [13, 17],
                                 widths: [10, 14, 18, 24, 30, 40, 56, 80, 120],
                                 lines: { $0 >= 5_460 }, heights: { $0 >= 5_458 })
    }

    /// Texts of mixed pieces (`Tests/Corpus/mixed.txt`), on the grid of its Chromium fixture.
    /// Measured: 14,930 line counts and 14,863 heights of 15,000 (14,833 before a joiner ending an
    /// emoji cluster became text of its own, 14,855 before brackets were paired).
    @Test("Texts of mixed pieces as in Pango")
    func mixedTextsAsInPango() throws {
        try Self.expectAgreement(onCorpus: "mixed", texts: 1_000, sizes: [11, 15, 24], widths: [16, 40, 100, 180, 320],
                                 lines: { $0 >= 14_930 }, heights: { $0 >= 14_863 })
    }

    /// Lays a targeted corpus (`Tests/Corpus/<corpus>.txt`, `count` texts) out with Pango and with
    /// `.pango` at `sizes` × `widths`, and expects the agreeing line counts and heights to pass `lines`
    /// and `heights`; every disagreement is in `.build/pango-<corpus>-disagreements.txt`.
    static func expectAgreement(onCorpus corpus: String, texts count: Int, sizes: [Double], widths: [Double],
                                lines: (Int) -> Bool, heights: (Int) -> Bool,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let texts = Fixtures.corpus(named: corpus + ".txt")
        #expect(texts.count == count, sourceLocation: sourceLocation)
        let report = "pango-\(corpus)-disagreements.txt"
        let comparison = try PangoReference.compare(PangoReference.cases(texts: texts, sizes: sizes, widths: widths),
                                                    reportName: report)
        print("Pango agreement, \(corpus) corpus: \(comparison.summary)")
        #expect(lines(comparison.agreements) && heights(comparison.heightAgreements),
                "\(comparison.summary); all disagreements in .build/\(report)", sourceLocation: sourceLocation)
    }

    /// Command lines and other words that start with a hyphen-minus: Pango breaks after the hyphen
    /// before a letter even where a space or the paragraph's start comes before it (ICU keeps the
    /// two together there; see `break_after_word_initial_hyphens`), after U+2010 HYPHEN too, and never
    /// after a zero width joiner on the hyphen. Every layout as Pango's.
    @Test("Words that start with a hyphen break as in Pango", .disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func wordInitialHyphensBreakAsInPango() throws {
        let texts = ["ls -la /tmp", "kubectl get pods -n news", "grep -rn foo .", "a -ab -cd -ef", "-abc def",
                     "x --verbose", "x -ⓐ", "x -ไทย", "ab -ภาษาไทย", "x -а", "x -α", "x -한국", "x -漢", "x -ا",
                     "a -\u{0301}b", "(-a)", "\"-a\"", "a\u{A0}-b", "x -5 y", "- item", "x -😀", "a  -b", "a\t-b",
                     "a\u{200B}-b", "a\u{3000}-b", "x - -", "x -", "ab -\u{200D}cd ef", "a -\u{200D}b",
                     "a \u{2010}b", "ls \u{2010}la /tmp"]
        let cases = PangoReference.cases(texts: texts, sizes: [11, 15, 24], widths: [12, 20, 25, 30, 40, 50, 60, 80, 120])
        let comparison = try PangoReference.compare(cases, reportName: "pango-hyphen-disagreements.txt")
        #expect(comparison.agreements == comparison.total && comparison.heightAgreements == comparison.total,
                "\(comparison.summary)\n\(comparison.disagreements.prefix(20).joined(separator: "\n"))")
    }

    /// Pango's emoji segmentation draws an Emoji_Modifier_Base with the color font even when its
    /// default presentation is text ("✌", "☝", "✍") and with or without a modifier; U+FE0E still asks
    /// for text. A space before such an emoji keeps the font of the text before it, also where a style
    /// changes between them. A combining keycap after one is text of its own, in the first font that
    /// has it (which makes the line as tall as that font). Every layout as Pango's, line widths included.
    @Test("Emoji modifier bases are drawn as emoji, as in Pango", .disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func emojiModifierBasesAreEmoji() throws {
        let texts = ["a ✌", "a ☝ b", "a ✍", "a ✍\u{FE0E}", "a ✍🏽 b", "a 🕴🏾 b", "✌✌✌ ✍✍", "Patel: ✍🏽 0.16.7",
                     "☝\u{20E3}", "Patel: ☝\u{20E3} ok"]
        var cases = PangoReference.cases(texts: texts, sizes: [13, 24], widths: [30, 64, 120, 1000])
        for size in [13.0, 24.0] {
            for width in [64.0, 120.0, 180.0, 1000.0] {
                cases.append(PangoReference.Case(text: "Patel: ✍🏽 0.16.7", size: size, width: width,
                                                 spans: [TextSpan(0..<6, bold: true), TextSpan(10..<16, monospace: true)]))
            }
        }
        try Self.expectExactAgreement(cases, reportName: "pango-emoji-modifier-disagreements.txt")
        for (text, width) in [("a ✌", 50777), ("a ✍\u{FE0E}", 49472), ("a ✍🏽 b", 72281)] {
            let measurement = try Fixtures.measurer.measure(text, style: TextStyle(size: 24), width: 1000)
            #expect(measurement.lines.map { Int(($0.width * 1024).rounded()) } == [width], "\(text)")
        }
    }

    /// A joiner ending an emoji cluster joins nothing: Pango's emoji segmentation leaves it out of the
    /// sequence, and it takes the next text's font, or alone the first font, whose extent its line
    /// then reaches (found on the mixed corpus: `"🇯🇵\u{200D}"` was as tall as the emoji font).
    @Test("A joiner ending an emoji cluster is text, as in Pango", .disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func aJoinerEndingAnEmojiClusterIsText() throws {
        let texts = ["🇯🇵\u{200D}", "👨\u{200D}👩\u{200D}👧\u{200D}👦\u{200C}3.14159", "😀\u{200D}", "a 👍🏽\u{200C}مرحبا b",
                     "👩\u{200D}💻 ok", "❤\u{FE0F}\u{200D}\u{200D}x"]
        try Self.expectExactAgreement(PangoReference.cases(texts: texts, sizes: [11, 15, 24], widths: [16, 40, 100, 320]),
                                      reportName: "pango-emoji-joiner-disagreements.txt")
    }

    /// Lays `cases` out with Pango and with `.pango` and expects every layout to agree: line counts, and
    /// heights to the Pango unit. The disagreements go to `.build/<reportName>`.
    static func expectExactAgreement(_ cases: [PangoReference.Case], reportName: String,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        let comparison = try PangoReference.compare(cases, reportName: reportName)
        #expect(comparison.agreements == comparison.total && comparison.exactHeightAgreements == comparison.total,
                "\(comparison.summary)\n\(comparison.disagreements.prefix(20).joined(separator: "\n"))",
                sourceLocation: sourceLocation)
    }

    /// Pango's script iterator pairs brackets: a closing bracket takes the script its opening bracket
    /// stood in, and the text after it keeps that script until a strong one comes. A line starting
    /// there aligns its runs on that script's baseline (`"wordsmith （注） 🧑 विद्यालय"`: the line
    /// starting at the emoji is Latin, not Han, and the Devanagari after it is not moved up). Nested,
    /// unmatched and East Asian brackets and quotation marks; every layout as Pango's, exactly.
    @Test("A closing bracket closes in its opening bracket's script, as in Pango",
          .disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func closingBracketsTakeTheirOpeningBracketsScript() throws {
        let texts = ["wordsmith （注） 🧑 विद्यालय", "a (注) 🧑 विद्यालय", "x 「東京」 😀 नमस्ते", "注 (abc) 😀 नमस्ते",
                     "a (b [注] 注) 😀 नमस्ते", "注) x 😀 नमस्ते", "x « 注 » 🙂 नमस्ते", "(注 😀 नमस्ते",
                     "ok “東京” 🙂 नमस्ते"]
        try Self.expectExactAgreement(PangoReference.cases(texts: texts, sizes: [11, 15, 24], widths: [30, 55, 80, 1000]),
                                      reportName: "pango-bracket-disagreements.txt")
    }

    /// Pango picks a font per character, not per grapheme cluster: where a mark's first font is not
    /// its base's, the cluster is drawn in two items, and the line reaches both fonts' extents. A
    /// keycap mark without U+FE0F before it, or after an emoji that is no keycap base, is text in the
    /// first font that has it; "п" with a combining arrow is Noto Sans and Noto Sans Math; a Devanagari
    /// nukta after "Q" is Noto Sans Devanagari's, with the dotted circle HarfBuzz gives the broken
    /// cluster (Pango shapes the item with the text before it as context, as we do). Lines still
    /// break only between grapheme clusters. Every layout as Pango's, line widths included. (Not a mark
    /// after a space, and not narrower than a cluster with white space after it: see
    /// `docs/pango-differences.md`.)
    @Test("Grapheme clusters in two fonts are drawn as in Pango", .disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func graphemeClustersInTwoFonts() throws {
        let texts = ["a #\u{20E3} b", "1\u{20E3} 2\u{20E3}", "x\u{20E3}", "a 😀\u{20E3} b", "a ✌\u{20E3} b",
                     "👍🏽\u{20E3}", "a #\u{FE0F}\u{20E3} b", "a ✌\u{FE0F}\u{20E3} b", "😀\u{0301}x",
                     "п\u{20D7} q", "Ψ\u{20D7} = φ\u{20D7}", "v\u{20D7} = a\u{20D7}t", "п\u{20D7}п\u{20D7}п\u{20D7}п\u{20D7}",
                     "א\u{0301}ב", "ก\u{0301}ข", "日\u{0301}本", "Q\u{093C} x", "a\u{0951}b c",
                     "a 😀\u{FF9E} b"]
        var cases = PangoReference.cases(texts: texts, sizes: [13, 24], widths: [30, 40, 64, 120, 1000])
        cases += PangoReference.cases(texts: ["п\u{20D7}п\u{20D7}п\u{20D7}п\u{20D7}", "1\u{20E3}2\u{20E3}", "x\u{20E3}y"],
                                      sizes: [13, 24], widths: [5, 10, 20])
        for width in [20.0, 40, 1000] {
            cases.append(PangoReference.Case(text: "п\u{20D7} q 1\u{20E3}", size: 15, width: width,
                                             spans: [TextSpan(0..<3, bold: true), TextSpan(5..<7, italic: true)]))
        }
        try Self.expectExactAgreement(cases, reportName: "pango-two-font-cluster-disagreements.txt")
        for (text, width) in [("a ✌\u{20E3} b", 72281), ("a 😀\u{20E3} b", 72281), ("a #\u{20E3} b", 57557),
                              ("п\u{20D7} q", 36839), ("Q\u{093C} x", 51119)] {
            let measurement = try Fixtures.measurer.measure(text, style: TextStyle(size: 24), width: 1000)
            #expect(measurement.lines.map { Int(($0.width * 1024).rounded()) } == [width], "\(text)")
        }
        // At a width narrower than a cluster, every line still starts at a base, never at its mark.
        let text = "п\u{20D7}п\u{20D7}п\u{20D7}"
        let lines = try Fixtures.measurer.measure(text, style: TextStyle(size: 24), width: 5).lines
        #expect(lines.count == 3)
        let bytes = Array(text.utf8)
        #expect(lines.allSatisfy { String(decoding: bytes[$0.utf8Range], as: UTF8.self) == "п\u{20D7}" })
    }
}
