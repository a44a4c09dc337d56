import Testing
@testable import TextMeasure

@Suite("Metrics and wrapping")
struct LayoutTests {
    let measurer = Fixtures.measurer
    let style = TextStyle(size: 16)

    func lines(_ text: String, width: Double, style: TextStyle? = nil) throws -> [String] {
        let result = try measurer.measure(text, style: style ?? self.style, width: width)
        return result.lines.map { String(text[$0.range(in: text)]) }
    }

    func width(_ text: String) throws -> Double {
        try measurer.measure(text, style: style, width: 100_000).widestLineWidth
    }

    @Test func naturalLineHeightIsThePrimaryFontsAscenderPlusDescender() throws {
        // Noto Sans: ascender 1069, descender 293, line gap 0 per 1000 units: 1.362 em, as Pango measures.
        let lineHeight = try measurer.lineHeight(for: style)
        #expect(abs(lineHeight - 21.792) < 0.002)
        let one = try measurer.measure("Hello", style: style, width: 500)
        #expect(one.lineCount == 1)
        #expect(one.height == one.lineHeight)
    }

    /// Tabs advance to stops every eight spaces of the primary font, at least a space past where they
    /// start, counted from the start of each line (Pango's default tabs); at a line's end they hang.
    @Test func tabsAdvanceToTheNextStop() throws {
        let space = try width("a a") - 2 * width("a")
        let stop = 8 * space
        // At the start of a line: a whole stop.
        #expect(abs(try width("\tx") - (stop + width("x"))) < 0.001)
        // After short text: to the first stop.
        #expect(abs(try width("ab\tc") - (stop + width("c"))) < 0.001)
        // Less than a space before a stop: on to the next one.
        var text = "i"
        while try width(text + "i") + space <= stop { text += "i" }
        text += "i"   // now less than a space short of the stop
        #expect(try width(text) < stop && width(text) + space > stop)
        #expect(abs(try width(text + "\tx") - (2 * stop + width("x"))) < 0.001)
        // Two tabs in a row: a stop each.
        #expect(abs(try width("\t\tx") - (2 * stop + width("x"))) < 0.001)
    }

    @Test func aTabAtTheEndOfALineHangsAndTheNextLineStartsAfresh() throws {
        let first = try width("abcdef")
        let result = try measurer.measure("abcdef\tghijkl\tm", style: style, width: first + 1)
        #expect(result.lineCount == 3)
        #expect(abs(result.lines[0].width - first) < 0.001)   // the tab hangs: no width
        let space = try width("a a") - 2 * width("a")
        // "ghijkl" starts its own line, so its tab reaches a stop counted from that line's start.
        let stops = ((try width("ghijkl") + space) / (8 * space)).rounded(.up)
        #expect(try measurer.measure("ghijkl\tm", style: style, width: 10_000).lines[0].width
                == stops * 8 * space + width("m"))
    }

    @Test func fixedAndMultipleLineHeights() throws {
        let fixed = try measurer.measure("a\nb\nc", style: TextStyle(size: 16, lineHeight: .fixed(20)), width: 100)
        #expect(fixed.lineCount == 3)
        #expect(fixed.height == 60)
        let multiple = try measurer.measure("a\nb", style: TextStyle(size: 10, lineHeight: .multiple(1.5)), width: 100)
        #expect(multiple.height == 30)
    }

    /// The height is the lines' heights added up, each line starting where the one before ends, and
    /// `lineHeight` is the tallest; a Latin text's lines are all the primary font's height.
    @Test func heightIsTheSumOfTheLinesHeights() throws {
        for breaking in LineBreaking.allCases {
            for text in Fixtures.corpus.prefix(60) {
                let result = try measurer.measure(text, style: TextStyle(size: 15, breaking: breaking), width: 150)
                #expect(result.lines.count == result.lineCount)
                var top = 0.0
                for line in result.lines {
                    #expect(line.top == top)
                    #expect(line.baseline > line.top && line.baseline < line.top + line.height)
                    top += line.height
                }
                #expect(abs(result.height - top) < 1e-9)
                #expect(result.lineHeight == result.lines.map(\.height).max())
            }
        }
        let latin = try measurer.measure(String(repeating: "Lorem ipsum dolor sit amet. ", count: 8), style: style,
                                         width: 150)
        #expect(latin.lines.allSatisfy { $0.height == latin.lineHeight })
        #expect(latin.height == Double(latin.lineCount) * latin.lineHeight)
    }

    @Test func widthsAreUnroundedAndKerned() throws {
        // Kerning is on: "AV" is narrower than "A" plus "V".
        #expect(try width("AV") < width("A") + width("V"))
        // Widths are in 1/1024 px, not whole pixels.
        let hello = try width("Hello")
        #expect(hello != hello.rounded())
    }

    @Test func wrapsAtWordsGreedily() throws {
        #expect(try lines("Hello world", width: 1000) == ["Hello world"])
        let needed = try width("Hello world")
        #expect(try lines("Hello world", width: needed) == ["Hello world"])
        #expect(try lines("Hello world", width: needed - 0.01) == ["Hello ", "world"])
        #expect(try lines("one two three four", width: try width("one two")) == ["one two ", "three ", "four"])
    }

    @Test func trailingSpacesHang() throws {
        // Half a pixel of slack: in context, "o" may kern with the space after it.
        let hello = try width("Hello")
        let column = max(hello, try width("world")) + 0.5
        #expect(try lines("Hello ", width: hello + 0.5) == ["Hello "])
        #expect(try lines("Hello world", width: column) == ["Hello ", "world"])
        let result = try measurer.measure("Hello ", style: style, width: hello + 0.5)
        #expect(result.widestLineWidth == hello)
        // Of several, `.pango` lets only the last hang, as Pango does, and breaks off what does not fit
        // (`PangoWhiteSpaceTests`; the browser modes hang them all).
        #expect(try lines("Hello     ", width: hello + 0.5) == ["Hello ", "    "])
        #expect(try measurer.measure("Hello     ", style: style, width: hello + 0.5).widestLineWidth == hello)
    }

    @Test(arguments: ["a\nb", "a\r\nb", "a\rb", "a\u{2028}b", "a\u{2029}b"])
    func hardBreaksSplitParagraphs(text: String) throws {
        #expect(try lines(text, width: 500) == ["a", "b"])
    }

    @Test func emptyParagraphsTakeALine() throws {
        #expect(try measurer.measure("", style: style, width: 100).lineCount == 0)
        #expect(try measurer.measure("", style: style, width: 100).height == 0)
        #expect(try lines("\n", width: 100) == ["", ""])
        #expect(try lines("a\n", width: 100) == ["a", ""])
        #expect(try lines("a\n\nb", width: 100) == ["a", "", "b"])
        #expect(try lines("   ", width: 100) == ["   "])
    }

    @Test func longWordsBreakBetweenClusters() throws {
        let word = "Supercalifragilisticexpialidocious"
        let result = try lines(word, width: 60)
        #expect(result.count > 3)
        #expect(result.joined() == word)
        for line in result.dropLast() { #expect(try width(line) <= 60) }
    }

    @Test func everyLineHoldsAtLeastOneClusterAtTinyWidths() throws {
        let text = "Wide 👨‍👩‍👧‍👦 text"
        for tiny in [0.001, 0.5, 1.0] {
            let result = try lines(text, width: tiny)
            #expect(result.joined() == text)
            #expect(!result.contains(""))
            #expect(result.count <= text.count)
        }
    }

    @Test(arguments: ["👨‍👩‍👧‍👦", "🇯🇵", "👍🏽", "1️⃣", "e\u{301}\u{302}", "क्षि", "🏳️‍🌈"])
    func graphemeClustersStayWhole(cluster: String) throws {
        // At a width narrower than anything, each line holds exactly one grapheme cluster.
        let text = "x" + cluster + cluster + "y"
        let browser = try measurer.measure(text, style: TextStyle(size: 16, breaking: .browser), width: 0.5)
        #expect(browser.lines.map { String(text[$0.range(in: text)]) } == ["x", cluster, cluster, "y"])
        // Pango's clusters are GLib's: a virama ends one (no conjunct rule), so "क्षि" is "क्" and "षि".
        let pango = cluster == "क्षि" ? ["x", "क्", "षि", "क्", "षि", "y"] : ["x", cluster, cluster, "y"]
        #expect(try lines(text, width: 0.5) == pango)
    }

    @Test func emojiSequencesUseTheColorFontWhole() throws {
        // A ZWJ family is one emoji glyph, as wide as a single emoji, not four.
        #expect(try width("👨‍👩‍👧‍👦") == width("😀"))
        #expect(try width("🇯🇵") == width("😀"))
    }

    @Test func thaiBreaksBetweenWordsFromTheDictionary() throws {
        let text = "สวัสดีครับ"
        let whole = try width(text)
        #expect(try lines(text, width: whole - 1) == ["สวัสดี", "ครับ"])
    }

    @Test func cjkBreaksBetweenIdeographsButNotBeforeClosingPunctuation() throws {
        let ideograph = try width("中")
        let result = try lines("中文中文。中文", width: ideograph * 4.5)
        #expect(result == ["中文中", "文。中文"])   // 。 may not start a line, so 文 moves down with it
        #expect(try lines("中文中文", width: ideograph * 2.5) == ["中文", "中文"])
    }

    @Test func maxLinesTruncates() throws {
        let text = "one two three four five six seven"
        let narrow = try width("three")
        let all = try measurer.measure(text, style: style, width: narrow)
        #expect(all.lineCount > 3)
        #expect(!all.isTruncated)
        let two = try measurer.measure(text, style: TextStyle(size: 16, maxLines: 2), width: narrow)
        #expect(two.lineCount == 2)
        #expect(two.isTruncated)
        #expect(two.height == 2 * two.lineHeight)
        let exact = try measurer.measure(text, style: TextStyle(size: 16, maxLines: all.lineCount), width: narrow)
        #expect(!exact.isTruncated)
        #expect(exact.lineCount == all.lineCount)
        // A trailing hard break makes one more (empty) line.
        let newline = try measurer.measure("a\n", style: TextStyle(size: 16, maxLines: 1), width: 100)
        #expect(newline.isTruncated)
    }

    @Test func badInputIsRefusedWithTypedErrors() throws {
        for width in [0, -1, .nan, .infinity] as [Double] {
            #expect(throws: TextMeasureError.self) { try measurer.measure("x", style: style, width: width) }
        }
        #expect(throws: TextMeasureError.invalidWidth(0)) { try measurer.measure("x", style: style, width: 0) }
        #expect(throws: TextMeasureError.invalidSize(-2)) {
            try measurer.measure("x", style: TextStyle(size: -2), width: 10)
        }
        #expect(throws: TextMeasureError.invalidMaxLines(-1)) {
            try measurer.measure("x", style: TextStyle(size: 10, maxLines: -1), width: 10)
        }
        #expect(throws: TextMeasureError.invalidLineHeight(-3)) {
            try measurer.measure("x", style: TextStyle(size: 10, lineHeight: .fixed(-3)), width: 10)
        }
        let prepared = try measurer.prepare("x", style: style)
        #expect(throws: TextMeasureError.invalidWidth(-5)) { try prepared.layout(width: -5) }
    }

    @Test func unusualInputDoesNotCrash() throws {
        let odd = ["\u{0}", "\u{FEFF}", "\u{200D}", "\u{FE0F}", "\t\t", "\u{0B}\u{0C}\u{85}", String(repeating: "\u{301}", count: 50),
                   "\u{E000}\u{10FFFD}", "a\u{200B}b", String(repeating: "ab ", count: 3000)]
        for text in odd {
            for width in [0.01, 5, 100, 1e6] {
                let result = try measurer.measure(text, style: style, width: width)
                #expect(result.lineCount >= 1)
                #expect(result.isValid(atWidth: width))
            }
        }
    }
}
