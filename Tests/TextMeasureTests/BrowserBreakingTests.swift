import Testing
@testable import TextMeasure

/// The browser modes' rules, one by one, each against the case Chromium 156 was checked with (see
/// `docs/chromium-differences.md`); `.pango` beside it where the two differ.
@Suite("Browser-compatible breaking")
struct BrowserBreakingTests {
    let measurer = Fixtures.measurer

    func lines(_ text: String, size: Double = 15.5, width: Double, _ breaking: LineBreaking = .browser) throws -> [String] {
        let result = try measurer.measure(text, style: TextStyle(size: size, breaking: breaking), width: width)
        let utf8 = Array(text.utf8)
        return result.lines.map { String(decoding: utf8[$0.utf8Range], as: UTF8.self) }
    }

    func width(_ text: String, size: Double = 15.5, _ breaking: LineBreaking = .browser) throws -> Double {
        try measurer.measure(text, style: TextStyle(size: size, breaking: breaking), width: 100_000).widestLineWidth
    }

    @Test func pangoIsTheDefault() {
        #expect(TextStyle().breaking == .pango)
        #expect(TextStyle(size: 12, lineHeight: .fixed(14), maxLines: 2).breaking == .pango)
        #expect(LineBreaking(rawValue: "browser-strict") == .browserStrict)
    }

    @Test func aFinalNewlineMakesNoEmptyLine() throws {
        #expect(try lines("Trailing newline\n", width: 1000) == ["Trailing newline"])
        #expect(try lines("Trailing newline\n", width: 1000, .pango).count == 2)
        #expect(try lines("\n", width: 100) == [""])
        #expect(try lines("\n\n\n", width: 100).count == 3)
        #expect(try lines("a\r\n", width: 100) == ["a"])
        #expect(try lines("a\n\nb", width: 100) == ["a", "", "b"])
        #expect(try measurer.measure("", style: TextStyle(breaking: .browser), width: 100).lineCount == 0)
    }

    @Test(arguments: ["a\rb", "a\u{2028}b", "a\u{2029}b"])
    func loneCRAndUnicodeSeparatorsAreNoHardBreaks(text: String) throws {
        #expect(try lines(text, width: 500).count == 1)
        #expect(try lines(text, width: 500, .pango).count == 2)
    }

    @Test func loneCRIsZeroWidthAndJoinsTheWords() throws {
        #expect(abs(try width("a\rb") - width("ab")) < 0.01)
        // "Mac\rline" is one word: no break after the CR.
        #expect(try lines("Mac\rline", width: 60).first != "Mac\r")
    }

    @Test func lineSeparatorsAreSpaceWideAndDoNotHang() throws {
        #expect(abs(try width("a\u{2028}b") - width("a b")) < 0.01)
        let aaaa = try width("aaaa")
        // At a width for "aaaa" but not "aaaa" and a space, the separator goes to the next line.
        #expect(try lines("aaaa\u{2028}bbbb", width: aaaa + 1).first == "aaaa")
    }

    @Test func noBreakAfterSlashBeforeASCII() throws {
        // Pango (ICU) breaks after "/"; Blink's pair table does not, so the word is broken anywhere.
        let column = try width("abcd/e") + 0.5
        #expect(try lines("abcd/efgh", width: column, .pango).first == "abcd/")
        #expect(try lines("abcd/efgh", width: column).first == "abcd/e")
        // Before a letter past ASCII, ICU decides, in both.
        #expect(try lines("abcd/жжжж", width: try width("abcd/ж") + 0.5).first == "abcd/")
    }

    @Test func pairTable() {
        func breaks(_ pair: String) -> Bool {
            let bytes = Array(pair.utf8)
            return BrowserBreakRules.breaksBetween(bytes[0], bytes[1])
        }
        #expect(!breaks("/a") && !breaks("a/") && !breaks("a.") && !breaks(".a") && !breaks("a("))
        #expect(breaks("-a") && breaks("?a") && breaks(")(") && breaks(",[") && breaks("\\["))
        #expect(!breaks("-$") && !breaks("?\"") && !breaks("?'") && !breaks("((") && !breaks("a{"))
    }

    @Test func hyphenBeforeADigitBreaksAfterALetterOrDigit() throws {
        let column = try width("ext-12") + 0.5
        #expect(try lines("ext-1234", width: column, .pango).first == "ext-12")
        #expect(try lines("ext-1234", width: column).first == "ext-")
        #expect(try lines("x -1234", width: try width("x -12") + 0.5).first == "x ")
    }

    @Test func aLineStartingAtAHyphenDoesNotBreakAfterIt() throws {
        // "#A-" does not fit at 37 px (24 px): "#A", then "-10" on one line, as in Chromium.
        #expect(try lines("#A-10293 shipped", size: 24, width: 37).prefix(3) == ["#A", "-10", "29"])
    }

    /// Chromium's ICU breaks around hyphens as Unicode 16 does (`cub_browser_hyphen_breaks`), Debian's
    /// ICU 72 and Pango as Unicode 15. Every case as Chromium 156 lays it out at 13 px.
    @Test func hyphensBreakAsUnicode16() throws {
        // LB21a: a line may break after a hyphen or dash between two Hebrew letters (Pango: no)...
        #expect(try lines("x חצור-אשדוד", size: 13, width: 45) == ["x חצור-", "אשדוד"])
        #expect(try lines("x חצור-אשדוד", size: 13, width: 45, .pango) == ["x ", "חצור-א", "שדוד"])
        #expect(try lines("x חצור\u{05BE}אשדוד", size: 13, width: 45) == ["x חצור\u{05BE}", "אשדוד"])
        // ...not before another letter (but for "-" before ASCII, where Blink's pair table decides)...
        #expect(try lines("x חצור\u{2010}ab", size: 13, width: 45) == ["x ", "חצור\u{2010}a", "b"])
        #expect(try lines("x חצור-ab", size: 13, width: 45) == ["x חצור-", "ab"])
        // ...and after the other BA characters a Hebrew letter comes before, as after any letter.
        #expect(try lines("x חצור|אשדוד", size: 13, width: 45) == ["x חצור|", "אשדוד"])
        #expect(try lines("x חצור\u{AD}абвг", size: 13, width: 45) == ["x חצור\u{AD}", "абвг"])
        // LB20a: no break after a word-initial hyphen or dash before a letter: Hebrew letters, the
        // dashes of class HH and a hyphen after a no-break space too (Pango: a break).
        #expect(try lines("x -אשדוד", size: 13, width: 20) == ["x ", "-א", "שד", "וד"])
        #expect(try lines("x -אשדוד", size: 13, width: 20, .pango) == ["x -", "אש", "דוד"])
        #expect(try lines("x \u{2013}абвг", size: 13, width: 20) == ["x ", "\u{2013}а", "бв", "г"])
        #expect(try lines("aa \u{A0}-абвг", size: 13, width: 28) == ["aa ", "\u{A0}-аб", "вг"])
        // A line that starts at a dash sees nothing before it: a word-initial dash.
        #expect(try lines("abcdefgh\u{2013}abcd", size: 13, width: 32) == ["abcd", "efgh", "\u{2013}abc", "d"])
        #expect(try lines("abcdefgh\u{2010}абвг", size: 13, width: 32) == ["abcd", "efgh", "\u{2010}абв", "г"])
        #expect(try lines("abcdefghij\u{2013}#abcdef", size: 13, width: 24).suffix(3) == ["\u{2013}#a", "bcd", "ef"])
        // A combining grapheme joiner (class GL, but a mark to Chromium) is part of the letter before
        // it; marks on a no-break space leave it one.
        #expect(try lines("ab\u{34F}-абвгдежзик", size: 13, width: 52) == ["ab\u{34F}-", "абвгде", "жзик"])
        #expect(try lines("א\u{34F}\u{05BE}בגדהו", size: 13, width: 40) == ["א\u{34F}\u{05BE}", "בגדהו"])
        #expect(try lines("x\u{A0}\u{301}-абвгд", size: 13, width: 40) == ["x\u{A0}\u{301}-абв", "гд"])
    }

    /// Chromium's ICU lets a line break before an opening quotation mark and after a closing one
    /// between East Asian characters (Unicode 15.1, LB19a); Pango and ICU 72 keep them with both
    /// neighbours. Not after an opening bracket, nor around "\"", nor beside Latin (every pair:
    /// `LineBreakMatrixTests`).
    @Test func quotationMarksBreakBetweenEastAsianCharacters() throws {
        let text = "他说“我们明天去北京看看”然后走了。她问“为什么”"
        #expect(try lines(text, size: 17, width: 120) == ["他说“我们明天", "去北京看看”然", "后走了。她问", "“为什么”"])
        #expect(try lines(text, size: 17, width: 120, .pango) == ["他说“我们明天", "去北京看看”然", "后走了。她", "问“为什么”"])
        #expect(try lines("问。“为什么”", size: 17, width: 45) == ["问。", "“为什", "么”"])
        #expect(try lines("「“为什么”", size: 17, width: 45) == ["「“为", "什么”"])
        #expect(try lines("他说\"我们\"然后", size: 17, width: 45) == ["他", "说\"我", "们\"然", "后"])
        #expect(try lines("ab“我们”", size: 17, width: 45) == ["ab“我", "们”"])
    }

    /// Blink breaks neither after a VT nor after an FF (ICU: mandatory breaks), as after a lone CR.
    @Test func noBreakAfterAVerticalTabOrAFormFeed() throws {
        #expect(try lines("aaaa\u{0C}bbbb", size: 13, width: 40) == ["aaaa\u{0C}b", "bbb"])
        #expect(try lines("aaaa\u{0C}bbbb", size: 13, width: 52) == ["aaaa\u{0C}bb", "bb"])
        #expect(try lines("aaaa\u{0B}bbbb", size: 13, width: 1000).count == 1)
        #expect(try lines("aaaa\u{0B}bbbb", size: 13, width: 40, .pango) == ["aaaa\u{0B}", "bbbb"])
    }

    /// A line ending after a cluster whose base is kerned with the next letter is as wide as the
    /// cluster without the kerning, also when the cluster ends in a mark: "אאאקבֻ" (a qubuts under
    /// the bet) is 40.11 px alone and 39.86 px in context before "ך", so at 40 px Chromium and Pango
    /// end the line before the bet.
    @Test func aLineEndingAfterAMarkLosesItsBasesKerning() throws {
        #expect(try lines("אאאקבֻך", size: 13, width: 40) == ["אאאק", "בֻך"])
        #expect(try lines("אאאקבֻך", size: 13, width: 40, .pango) == ["אאאק", "בֻך"])
    }

    /// Blink gets a bitmap emoji font's advances from FreeType at its strike (Noto Color Emoji: 136 px
    /// at 109 ppem), Pango from `hmtx` (2,550 / 2,048 em): ten 😀 at 17 px are 212.110 px in Chromium
    /// (212.125 in LayoutUnits) and 211.670 px in Pango. So "Paula Daniels 🎅🏼 👷🏿‍♀️👷🏿‍♀️" at 17 px
    /// (held-out:1809) takes two lines at 180 px in Chromium, one in Pango.
    @Test func bitmapEmojiAdvanceAsTheirStrike() throws {
        let tenEmoji = String(repeating: "😀", count: 10)
        #expect(abs(try width(tenEmoji, size: 17) - 10 * 17 * 136 / 109) < 10.0 / 65536)
        #expect(abs(try width(tenEmoji, size: 17, .pango) - 10 * 17 * 2550 / 2048) < 10.0 / 1024)
        let text = "Paula Daniels 🎅🏼 👷🏿\u{200D}♀\u{FE0F}👷🏿\u{200D}♀\u{FE0F}"
        #expect(try lines(text, size: 17, width: 180).count == 2)
        #expect(try lines(text, size: 17, width: 180, .pango).count == 1)
        let emoji = try #require(Fixtures.measurer.cascade.fonts.first { $0.isColor })
        #expect(emoji.strikeID != nil && emoji.strikeAdvances != nil)
        #expect(Fixtures.measurer.cascade.primary.strikeID == nil)
    }

    @Test func spacesHangAfterAClusterWiderThanTheLine() throws {
        #expect(try lines("e x", size: 24, width: 12) == ["e ", "x"])
        #expect(try lines("e x", size: 24, width: 12, .pango) == ["e", " ", "x"])
    }

    @Test func noBreakingSpaceDoesNotHang() throws {
        #expect(try lines("100\u{00A0}km", width: 12).contains("\u{00A0}"))
    }

    @Test func aLineMayOverflowByALayoutUnit() throws {
        let hello = try width("Hello")
        // 1/128 px too narrow: Pango wraps; a browser rounds to 1/64 px and allows 1/64 more.
        let snug = (hello * 64).rounded(.down) / 64
        #expect(try lines("Hello", width: snug).count == 1)
        #expect(try lines("Hello", width: snug, .pango).count == 2)
        #expect(try lines("Hello", width: snug - 2.0 / 64).count == 2)
    }

    /// Blink checks a line end it reshapes (kerning with the next letter is lost) against LayoutUnit
    /// positions: the text before the reshaped piece counts up to its position rounded up to 1/64 px.
    /// "Lor" of "Lorem" at 24 px is 37.008 px as drawn, within 37 px + 1/64, but "Lo" ends at 27.096
    /// (27.109 rounded up) and "r" reshaped is 9.912: 37.021 px, so Chromium breaks after "Lo"
    /// (multilingual:91); without the kerning ("Lorx") "Lor" fits.
    @Test func aReshapedLineEndCountsFromARoundedUpPosition() throws {
        #expect(try lines("Lorem", size: 24, width: 37) == ["Lo", "re", "m"])
        #expect(try lines("Lor.", size: 24, width: 37) == ["Lo", "r."])
        #expect(try lines("Lorx", size: 24, width: 37) == ["Lor", "x"])
        #expect(try lines("Lorem", size: 24, width: 37 + 1.0 / 64).first == "Lor")
        #expect(try lines("yoyo Lorem", size: 13, width: 14.484375)
                == ["y", "oy", "o ", "L", "or", "e", "m"])
    }

    /// Blink gives HarfBuzz a 16.16 scale and sums exact advances; so do the browser modes (1/65536 px
    /// units). "ers" at 11 px is 1,456 font units, 16.01599 px, over 16 px + 1/64 = 16.015625, so it
    /// does not fit at 16 px (forced-breaks:7, "offers"). Rounded to 1/1024 px per glyph, as Pango
    /// does, its advances add up to exactly 16.015625, which would fit.
    @Test func advancesAreExactTo1Over65536Pixel() throws {
        #expect(try width("ers", size: 11) == 1_049_624 / 65536)   // 16.015991…
        #expect(try width("ers", size: 11, .pango) == 16_400 / 1024)   // 16.015625
        #expect(try lines("ers", size: 11, width: 16) == ["er", "s"])
        #expect(try lines("ers", size: 11, width: 16 + 1.0 / 64) == ["ers"])
        // The valid widths of the two-line layout end where "ers" fits: at 16 px + 1/64, in whole
        // LayoutUnits, whatever the finer units inside.
        let narrow = try measurer.measure("ers", style: TextStyle(size: 11, breaking: .browser), width: 16)
        #expect(narrow.validWidths.upperBound == 16 + 1.0 / 64 - 0.5 / 1024)
    }

    /// Past 1,024 px the browser modes measure in 1/1024 px again (a cluster's advance must fit 32
    /// bits): a text measures the same within the coarser rounding on either side of the switch, and
    /// the largest size gives finite results.
    @Test func unitsBecomeCoarserPast1024Pixels() throws {
        #expect(TextStyle(size: 1024, breaking: .browser).unitsPerPixel == 65536)
        #expect(TextStyle(size: 1024.5, breaking: .browserStrict).unitsPerPixel == 1024)
        #expect(TextStyle(size: 17).unitsPerPixel == 1024)
        let text = "word word 😀 مرحبا\tx"
        let fine = try width(text, size: 1024), coarse = try width(text, size: 1024.001)
        #expect(fine > 5 * 1024 && abs(fine - coarse) < 0.1)
        let style = TextStyle(size: 10_000, lineHeight: .fixed(100_000), breaking: .browser)
        let huge = try measurer.measure(text, style: style, width: 1e9)
        #expect(huge.height == 100_000 && huge.widestLineWidth.isFinite)
    }

    @Test func smallKanaBreakInBrowserButNotInStrict() throws {
        #expect(try lines("あいうッえお", width: 46.8) == ["あいう", "ッえお"])
        #expect(try lines("あいうッえお", width: 46.8, .browserStrict) == ["あい", "うッえ", "お"])
        #expect(try lines("あいうッえお", width: 46.8, .pango) == ["あい", "うッえ", "お"])
    }

    @Test func tabsStopAtLeastHalfASpaceAway() throws {
        // Blink's tabs need half a space before a stop, Pango's a whole one: "abcdefg" ends less than a
        // space before the first stop at 15.5 px.
        #expect(try width("abcdefg\tb") < width("abcdefg\tb", .pango))
    }

    @Test func softHyphenBreaksOnlyWhereTheHyphenFits() throws {
        let extra = try width("extra")
        #expect(try lines("extra\u{00AD}ordinary", width: extra + 1, .pango).first == "extra\u{00AD}")
        #expect(try lines("extra\u{00AD}ordinary", width: extra + 1).first != "extra\u{00AD}")
    }

    @Test func softHyphenWhoseHyphenDoesNotFitRefillsTheLine() throws {
        // Blink fills a line ending at a soft hyphen once more, to the width less the hyphen, when the
        // hyphen does not fit: "phen" + hyphen is 65.5 px at 24 px, so at 64 px the line is "phe" and
        // the "n" keeps its soft hyphen (Chromium: "phe", "n\u{00AD}", "ation"); .pango does
        // not refill the line.
        #expect(try lines("phen\u{00AD}ation", size: 24, width: 64) == ["phe", "n\u{00AD}", "ation"])
        #expect(try lines("phen\u{00AD}ation", size: 24, width: 64, .pango).first != "phe")
        // Where the hyphen fits, nothing changes.
        #expect(try lines("phen\u{00AD}ation", size: 24, width: 70).first == "phen\u{00AD}")
    }

    @Test func aSoftHyphenBeforeWhiteSpaceShowsItsHyphenWhereTheLineBreaks() throws {
        // Rule 22, Chromium 156 at 15 px: "x" is 7.94 px, the hyphen 4.84, a space 3.91. A line ending
        // after "x\u{AD} " with more text after it needs "x" and the hyphen (12.77 px), the space
        // hanging after it; .pango lets the space hang and shows no hyphen.
        #expect(try lines("x\u{AD} y", size: 15, width: 12) == ["x", "\u{AD} y"])
        #expect(try lines("x\u{AD} y", size: 15, width: 14) == ["x\u{AD} ", "y"])
        #expect(try lines("x\u{AD} y", size: 15, width: 12, .pango) == ["x\u{AD} ", "y"])
        let before = try measurer.measure("x\u{AD}  y", style: TextStyle(size: 15, breaking: .browser), width: 14)
        #expect(abs(before.lines[0].width - (try width("x", size: 15) + width("\u{2010}", size: 15))) < 0.01)
    }

    @Test func theLastLineOfAParagraphTakesTheRestWholeWhereItFits() throws {
        // Rule 23, Chromium 156 at 15 px: "xi" is 11.8 px, so "x\u{AD}i" is one line at 12 px though
        // "x\u{AD}" with its hyphen (12.77 px) would not end a line there; at the paragraph's end "x\u{AD} "
        // fits with its space counted (11.84 px), "x\u{AD}  " with its hyphen (two spaces are wider).
        #expect(try lines("x\u{AD}i", size: 15, width: 12) == ["x\u{AD}i"])
        #expect(try lines("x\u{AD}i\nab", size: 15, width: 12).first == "x\u{AD}i")
        #expect(try lines("x\u{AD} ", size: 15, width: 12) == ["x\u{AD} "])
        #expect(try lines("x\u{AD} ", size: 15, width: 11.5) == ["x", "\u{AD} "])
        #expect(try lines("x\u{AD}  ", size: 15, width: 12.5) == ["x", "\u{AD}  "])
        #expect(try lines("x\u{AD}  ", size: 15, width: 13) == ["x\u{AD}  "])
        // Not where more follows: there the line must end at the soft hyphen, with its hyphen.
        #expect(try lines("x\u{AD}i y", size: 15, width: 12) != ["x\u{AD}i y"])
        // The range of widths these lines hold over stops where the rest no longer fits whole.
        let fits = try measurer.measure("x\u{AD} ", style: TextStyle(size: 15, breaking: .browser), width: 12)
        #expect(abs(fits.widestLineWidth - 11.84) < 0.01)
        #expect(fits.validWidths.lowerBound > 11.8 && fits.validWidths.lowerBound <= fits.widestLineWidth)
        #expect(try lines("x\u{AD} ", size: 15, width: fits.validWidths.lowerBound - 0.01).count == 2)
    }

    @Test func aLineGoesOnPastASoftHyphenToALaterBreakThatFits() throws {
        // Rule 25, Chromium 156 at 13 px: Blink takes the last break whose line fits, so a soft hyphen
        // whose hyphen does not fit ends no line where a later break fits. "abcdef" is 41.33 px, the
        // hyphen 3.69, "i" 3.39: "abcdef\u{AD}i " fits 45 px where "abcdef" and its hyphen would not;
        // at a line's start, in the middle of a line, and after a word broken between clusters whose
        // last piece ends at the soft hyphen (17 px: "а\u{AD}i" is 13.93 px).
        #expect(try lines("abcdef\u{AD}i end", size: 13, width: 45) == ["abcdef\u{AD}i ", "end"])
        #expect(try lines("xx abcdef\u{AD}i end", size: 13, width: 62) == ["xx abcdef\u{AD}i ", "end"])
        #expect(try lines("Таблица ра\u{AD}i", size: 17, width: 14).last == "а\u{AD}i")
        // Where no later break fits, the word breaks, or the line ends before it, as before.
        #expect(try lines("abcdef\u{AD}i end", size: 13, width: 44) == ["abcde", "f\u{AD}i end"])
        #expect(try lines("xx abcdef\u{AD}i end", size: 13, width: 61.5) == ["xx ", "abcdef\u{AD}i ", "end"])
        // The lines hold over their range of widths, which ends where "abcdef\u{AD}i " stops fitting.
        let fits = try measurer.measure("abcdef\u{AD}i end", style: TextStyle(size: 13, breaking: .browser), width: 45)
        #expect(fits.validWidths.lowerBound > 44.5 && fits.validWidths.lowerBound <= 45)
        #expect(try lines("abcdef\u{AD}i end", size: 13, width: fits.validWidths.lowerBound) == ["abcdef\u{AD}i ", "end"])
    }

    @Test func aSoftHyphenAfterRightToLeftTextStartsABlinkItem() throws {
        // Rule 26, Chromium 156 at 13 px: "مرحبا" is 27.36 px, too wide for 30 px with the hyphen.
        // Blink lays a soft hyphen after right-to-left text, before text that is not, out in a text
        // item of its own: the line ends before it, where the item starts, and the next line, the soft
        // hyphen and a space, is as tall as the strut (18 px), not as Noto Sans Arabic (28 px).
        #expect(try lines("مرحبا\u{AD} ", size: 13, width: 30) == ["مرحبا", "\u{AD} "])
        #expect(try measurer.measure("مرحبا\u{AD} ", style: TextStyle(size: 13, breaking: .browser), width: 30).height == 46)
        #expect(try lines("שלום\u{AD} ", size: 13, width: 30) == ["שלום", "\u{AD} "])
        #expect(try lines("مرحبا\u{AD}i end", size: 13, width: 28) == ["مرحبا", "\u{AD}i ", "end"])
        // Between right-to-left words it takes their level and starts no item: the word breaks as before.
        #expect(try lines("مرحبا\u{AD}مرحبا", size: 13, width: 30).first != "مرحبا")
        // What follows a run of soft hyphens is looked for once, not once per soft hyphen: 100,000 of
        // them after Arabic prepare in time linear in their number (10^10 steps otherwise).
        let many = "ت" + String(repeating: "\u{AD}", count: 100_000) + "x"
        #expect(try measurer.measure(many, style: TextStyle(size: 13, breaking: .browser), width: 100).lineCount == 1)
    }

    @Test func segmentsOfNoWidthEndingInSoftHyphensLayOutInLinearTime() throws {
        // A soft hyphen after each of 10,000 Mongolian vowel separators: 10,000 segments of no width,
        // each ending where its hyphen does not fit 3 px, nor "abcdef" and a hyphen 43 px. What follows
        // such a segment (rules 23 and 25) is looked at a bounded number of segments ahead, not to the
        // paragraph's end for each (10^8 steps otherwise).
        let text = "abcdef" + String(repeating: "\u{AD}\u{180E}", count: 10_000) + " end"
        let style = TextStyle(size: 13, breaking: .browser)
        #expect(try measurer.measure(text, style: style, width: 3).lineCount > 10_000)
        #expect(try measurer.measure(text, style: style, width: 43).lineCount > 1)
    }

    @Test func aSoftHyphenAloneOnALineIsAsTallAsTheStrut() throws {
        // Chromium 156 at 13 px, 18 px wide: "مر", "حبا", then the soft hyphen alone, 18 px tall (Noto
        // Sans's line), not 28 (Noto Sans Arabic's).
        let style = TextStyle(size: 13, breaking: .browser)
        let alone = try measurer.measure("ت\u{AD}", style: style, width: 5)
        #expect(alone.lines.count == 2 && alone.lines[1].height == 18)
        #expect(try measurer.measure("ت\u{AD}", style: style, width: 100).lines[0].height == 28)
        #expect(try measurer.measure("ت\u{AD}غ", style: style, width: 100).lines[0].height == 28)
    }

    @Test func aTabOrAZeroWidthSpaceReachesOnlyTheStrut() throws {
        // Chromium 156 at 17 px: "\tد" at 41 px is a line of the tab (23 px, the strut) and one of
        // "د" (36 px), 59 in all; a zero-width space alone on a line likewise, and "שלום\t" before
        // Arabic is as tall as its Hebrew. Both are still shaped with their neighbours: Arabic joins
        // across a zero-width space as it does without one.
        let style = TextStyle(size: 17, breaking: .browser)
        #expect(try measurer.measure("\tد", style: style, width: 41).height == 59)
        #expect(try measurer.measure("\u{200B}ب", style: style, width: 13).height == 59)
        #expect(try measurer.measure("שלום\tمحمد", style: style, width: 60).height == 59)
        #expect(try width("عر\u{200B}بي", size: 15) == width("عربي", size: 15))
    }

    @Test func aLineEndingInsideALigatureReachesOnlyItsStart() throws {
        // Noto Sans draws "ffi" as one glyph (22.7 px at 24 px). Blink places an offset inside a glyph at
        // the glyph's start, so at 8 px "ff" reaches 0 px in context; no piece fits as drawn ("f" is
        // 8.26 px), and the line takes what reached: Chromium breaks "ffi" as "ff", "i", but "fi"
        // (one glyph too) and "ff" as "f", "i" and "f", "f".
        #expect(try lines("ffi", size: 24, width: 8) == ["ff", "i"])
        #expect(try lines("fi", size: 24, width: 8) == ["f", "i"])
        #expect(try lines("ff", size: 24, width: 8) == ["f", "f"])
        #expect(try lines("official", size: 24, width: 8) == ["o", "ff", "i", "c", "i", "a", "l"])
        #expect(try lines("ffi", size: 24, width: 8, .pango) == ["f", "f", "i"])
    }

    @Test func aLigatureBrokenAtALineEndIsReshaped() throws {
        // Lam-alef: a line may not end after a lam whose alef went to the next line unless the
        // isolated lam fits; at 11 px each "لا" takes a line, as in Chromium.
        #expect(try lines("لالالالالا", size: 11, width: 12) == Array(repeating: "لا", count: 5))
        #expect(try lines("لالالالالا", size: 24, width: 28) == ["لالا", "لالا", "لا"])
    }

    @Test func preparedTextsKeepTheirRules() throws {
        let cache = PreparedTextCache(measurer: measurer)
        let pango = try cache.measure("a\n", style: TextStyle(size: 15), width: 100)
        let browser = try cache.measure("a\n", style: TextStyle(size: 15, breaking: .browser), width: 100)
        #expect(pango.lineCount == 2 && browser.lineCount == 1)
        #expect(try measurer.prepare("a\n", style: TextStyle(breaking: .browser)).style.breaking == .browser)
    }
}
