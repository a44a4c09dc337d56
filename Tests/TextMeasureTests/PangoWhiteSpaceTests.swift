import Testing
import TestSupport
@testable import TextMeasure

/// White space at a line's end as Pango counts it (see `LineBreaker.Filler.hangPangoSpace`): only the
/// last white space character before a break hangs, all of it before a paragraph's separator, and
/// white space that does not fit is broken off, as `PANGO_WRAP_WORD_CHAR` does.
@Suite("White space at line ends as Pango counts it")
struct PangoWhiteSpaceTests {
    /// Words from several scripts joined by one to four spaces, some with a line feed, CR LF, paragraph
    /// or line separator after them, some ending in white space (a fixed seed), and a few written out.
    static let texts: [String] = {
        let words = ["a", "is", "the", "word", "sentence", "Hello,", "world.", "llama", "mmmmmm", "1234567",
                     "مرحبا", "שלום", "你好", "ภาษาไทย", "안녕하세요", "Привет"]
        let separators = ["\n", "\r\n", "\u{2029}", "\u{2028}"]
        var random = SplitMix64(seed: 0x5EED_5BAC)
        var texts = ["This sentence has  two  spaces between words and ends with spaces   ",
                     "word  ", "word \nx", "ab  \n  cd   \n", "  lead  trail  ", "ok.  Next  one.  And  more."]
        for _ in 0..<60 {
            var text = ""
            for index in 0..<Int.random(in: 2...8, using: &random) {
                if index > 0 {
                    text += String(repeating: " ", count: Int.random(in: 1...4, using: &random))
                    if Int.random(in: 0..<6, using: &random) == 0 { text += separators.randomElement(using: &random)! }
                }
                text += words.randomElement(using: &random)!
            }
            if Bool.random(using: &random) { text += String(repeating: " ", count: Int.random(in: 1...3, using: &random)) }
            texts.append(text)
        }
        return texts
    }()

    /// Texts of words from several scripts joined by one to four spaces, some ending in white space,
    /// some with line feeds, CR LF, paragraph or line separators after it (a fixed seed): line counts
    /// and heights as Pango's at three sizes and seven widths, and at narrower widths at the smaller sizes.
    @Test("Runs of spaces break as in Pango", .disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func runsOfSpacesBreakAsInPango() throws {
        let texts = Self.texts
        // Narrower widths than a character or two are left out at the larger sizes: there, where a
        // cluster wider than the line is followed by white space, Pango and we break differently
        // (`docs/pango-differences.md`, degenerate widths).
        let cases = PangoReference.cases(texts: texts, sizes: [11, 15, 24], widths: [30, 37, 45, 60, 90, 130, 200])
            + PangoReference.cases(texts: texts, sizes: [11], widths: [12, 20])
            + PangoReference.cases(texts: texts, sizes: [15], widths: [20])
        let comparison = try PangoReference.compare(cases, reportName: "pango-white-space-disagreements.txt")
        // One layout of 1,584 differs: Arabic broken between clusters at 12 px, where Pango shapes the
        // pieces again (`docs/pango-differences.md`).
        #expect(comparison.agreement >= 0.999 && comparison.heightAgreement >= 0.999,
                "\(comparison.summary)\n\(comparison.disagreements.prefix(20).joined(separator: "\n"))")
    }

    /// A sender's bold name and two spaces before the message, the spaces in either style: Pango
    /// counts the first space wherever the line breaks after both.
    @Test("Spaces at a style change break as in Pango", .disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func spacesAtAStyleChangeBreakAsInPango() throws {
        let texts = ["Василина Щириця:  Ростислав Слюсар", "Leon Kurnik:  Ksiądz, 23 wrzesień 2004",
                     "תמר בן משה:  גיא מחאמיד: אסתר אסרף"]
        var cases: [PangoReference.Case] = []
        for text in texts {
            let name = text.unicodeScalars.firstIndex(of: ":").map { text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: $0) + 1 }!
            for spans in [[TextSpan(0..<name, bold: true)], [TextSpan(0..<name + 1, bold: true)],
                          [TextSpan(0..<name + 2, bold: true, size: 20)]] {
                for size in [13.0, 17.0, 24.0] {
                    for width in [58.0, 64.0, 120.0, 180.0, 240.0] {
                        cases.append(PangoReference.Case(text: text, size: size, width: width, spans: spans))
                    }
                }
            }
        }
        let comparison = try PangoReference.compare(cases, reportName: "pango-white-space-styled-disagreements.txt")
        #expect(comparison.agreements == comparison.total && comparison.heightAgreements == comparison.total,
                "\(comparison.summary)\n\(comparison.disagreements.prefix(20).joined(separator: "\n"))")
    }

    /// Line widths, in Pango units, as Pango 1.50 lays the texts out with the bundled fonts.
    @Test("Lines count the white space Pango counts", arguments: [
        // Two spaces before a break: the first counts (11 px: "word" 27,022, a space 2,929).
        (text: "word  x", size: 11.0, width: 31.0, lines: [29951, 5959]),
        // Three that do not fit after "b": one hangs after it, the next two make a line of their own.
        (text: "ab   cd", size: 15.0, width: 12.0, lines: [8617, 9446, 3994, 7373, 9446]),
        // Before a line feed a single space counts; when it does not fit, it goes to a line of its own.
        (text: "word \nx", size: 11.0, width: 28.0, lines: [27022, 2929, 5959]),
        (text: "ab  \n  cd   \n", size: 11.0, width: 20.0, lines: [19104, 2929, 15263, 2929, 0]),
        // At the text's end, as in the middle, all but the last count.
        (text: "word   ", size: 11.0, width: 32.0, lines: [29951, 0]),
        // A break before U+3000 after a space: "　 " joins a line only if the ideographic space fits,
        // the space hanging; where nothing fits, character breaks let the U+3000 hang alone.
        (text: "x \u{3000} \u{3000} y", size: 15.0, width: 20.0, lines: [8125, 15360, 15360, 7834]),
        (text: "x \u{3000} \u{3000} y", size: 15.0, width: 12.0, lines: [8125, 0, 0, 0, 11828]),
    ])
    func linesCountTheWhiteSpacePangoCounts(_ example: (text: String, size: Double, width: Double, lines: [Int])) throws {
        let measured = try Fixtures.measurer.measure(example.text, style: TextStyle(size: example.size),
                                                     width: example.width)
        #expect(measured.lines.map { Int(($0.width * 1024).rounded()) } == example.lines)
    }

    /// Where white space is broken off, the range of widths over which the lines hold is still exact
    /// and tight: the lines are the same anywhere inside it and change just outside.
    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"), arguments: [11.0, 15, 17, 24])
    func validWidthsHoldAndAreTight(size: Double) throws {
        for text in Self.texts {
            let prepared = try Fixtures.measurer.prepare(text, style: TextStyle(size: size))
            for width in [12.0, 20, 30, 37, 45, 60, 90, 130, 200] {
                try PreparedTextTests.expectValidWidthsHold(prepared, at: width, text: text, tight: true)
            }
        }
    }

    /// A VT, FF or NEL ending a paragraph (UAX #14 breaks after it, before the separator) is the last
    /// white space before a break and hangs, the white space before it counting; white space in a
    /// style of its own after a word. Every layout as Pango's.
    @Test("White space at break characters and style changes breaks as in Pango",
          .disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func breakCharactersAndRunStartsBreakAsInPango() throws {
        let texts = ["word\u{0C}\nnext", "word \u{0C}\nnext", "word  \u{0C}\nnext", "word\u{0C}\r\nnext",
                     "word \u{0C}\u{2029}next", "word\u{0B}\nnext", "word \u{0B}\nnext", "word \u{85}\nnext",
                     "a\u{0C}\u{0C}\nb"]
        var cases = PangoReference.cases(texts: texts, sizes: [11, 15, 24], widths: Array(stride(from: 20.0, to: 90, by: 3)))
        for (text, spans) in Self.styledWhiteSpace {
            for size in [11.0, 15, 24] {
                // From a little wider than the word: narrower, where white space follows a cluster
                // wider than the line, Pango and we differ (`docs/pango-differences.md`).
                for width in stride(from: 0.9 * size + 2, to: 40, by: 0.5) {
                    cases.append(PangoReference.Case(text: text, size: size, width: width, spans: spans))
                }
            }
        }
        let comparison = try PangoReference.compare(cases, reportName: "pango-white-space-break-disagreements.txt")
        #expect(comparison.agreements == comparison.total && comparison.heightAgreements == comparison.total,
                "\(comparison.summary)\n\(comparison.disagreements.prefix(20).joined(separator: "\n"))")
    }

    /// White space that is a segment of its own after other white space (a no-break space or an en
    /// space after a space, where a break lies before it): the white space before it counts once it
    /// follows, as in Pango, and the lines' range of valid widths stays exact and tight.
    @Test("White space after white space makes it count, as in Pango",
          .disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func whiteSpaceAfterWhiteSpaceCounts() throws {
        let texts = Self.whiteSpaceAfterWhiteSpace
        let cases = PangoReference.cases(texts: texts, sizes: [11, 15, 24], widths: [55, 70, 100, 150, 250])
            + PangoReference.cases(texts: texts, sizes: [11, 15], widths: [30, 40])
        let comparison = try PangoReference.compare(cases, reportName: "pango-white-space-run-disagreements.txt")
        #expect(comparison.agreements == comparison.total && comparison.heightAgreements == comparison.total,
                "\(comparison.summary)\n\(comparison.disagreements.prefix(20).joined(separator: "\n"))")
        for text in texts {
            for size in [11.0, 15, 24] {
                let prepared = try Fixtures.measurer.prepare(text, style: TextStyle(size: size))
                for width in [20.0, 30, 40, 55, 70, 100, 150] {
                    try PreparedTextTests.expectValidWidthsHold(prepared, at: width, text: text, tight: true)
                }
            }
        }
    }

    /// A U+2028 ends its line inside Pango's paragraph: the white space before it counts (UAX #14
    /// breaks nowhere before it) unless a retry with character breaks lets its last character hang,
    /// and one before another separator or the text's end starts no line. Every layout as Pango's, at
    /// widths from a little wider than a character on (narrower, white space after a cluster wider than
    /// the line differs, `docs/pango-differences.md`).
    @Test("Line separators break as in Pango", .disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func lineSeparatorsBreakAsInPango() throws {
        let texts = ["word\u{2028}", "word \u{2028}\nnext", "ab\u{2001}\u{2028}-n", "עולם  안녕 \u{2028}", "the\u{3000}\u{2028}",
                     "a\u{2028}\u{2028}", "x  \u{2028}\n", "word\u{2028}\u{2029}next", "a \u{2028} b\u{2028}\r\nc",
                     "Hello,  world \u{2028}next line"]
        var cases: [PangoReference.Case] = []
        for size in [11.0, 15, 24] {
            cases += PangoReference.cases(texts: texts, sizes: [size], widths: Array(stride(from: 1.25 * size, to: 120, by: 3)))
        }
        let comparison = try PangoReference.compare(cases, reportName: "pango-line-separator-disagreements.txt")
        #expect(comparison.agreements == comparison.total && comparison.heightAgreements == comparison.total,
                "\(comparison.summary)\n\(comparison.disagreements.prefix(20).joined(separator: "\n"))")
        for text in texts {
            let prepared = try Fixtures.measurer.prepare(text, style: TextStyle(size: 15))
            for width in stride(from: 4.0, to: 160, by: 3.1) {
                try PreparedTextTests.expectValidWidthsHold(prepared, at: width, text: text.debugDescription, tight: true)
            }
        }
    }

    /// Ideographic spaces (U+3000, which UAX #14 breaks after, and before after a space) mixed with
    /// spaces, no-break spaces, en and thin spaces and words of four scripts (a fixed seed), so that
    /// white space often has a break before it. Pango takes that break unless all of the white space
    /// fits, its last character hanging, and retries with character breaks only where no break fits;
    /// an item of white space alone takes the primary font, which draws U+3000 as HarfBuzz's fallback
    /// space. Every layout as Pango's, at widths from narrower than a character on, and the lines'
    /// ranges of valid widths exact and tight.
    @Test("White space with a break before it breaks as in Pango",
          .disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func whiteSpaceWithABreakBeforeIt() throws {
        let texts = Self.ideographicWhiteSpace
        let cases = PangoReference.cases(texts: texts, sizes: [11, 15, 19],
                                         widths: [6, 10, 14, 18, 22, 27, 33, 40, 50, 64, 80, 100])
        let comparison = try PangoReference.compare(cases, reportName: "pango-white-space-break-before-disagreements.txt")
        #expect(comparison.agreements == comparison.total && comparison.heightAgreements == comparison.total,
                "\(comparison.summary)\n\(comparison.disagreements.prefix(20).joined(separator: "\n"))")
        for text in texts {
            // The scalars in hex: most of these characters look alike in a message.
            let scalars = text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")
            for size in [11.0, 15, 19, 24] {
                let prepared = try Fixtures.measurer.prepare(text, style: TextStyle(size: size))
                for width in stride(from: 4.0, to: 160, by: 1.7) {
                    try PreparedTextTests.expectValidWidthsHold(prepared, at: width, text: "\(scalars) at \(size) px",
                                                                tight: true)
                }
            }
        }
        // A style change inside such white space: a character ending a run leaves the line's visible
        // width below what the white space needed to join it.
        for (text, spans) in [("x \u{3000} y", [TextSpan(2..<3, bold: true)]), ("ab \u{A0} \u{A0} cd", [TextSpan(3..<5, size: 20)]),
                              ("漢字 \u{3000}\u{3000} かな", [TextSpan(3..<4, italic: true)])] {
            let prepared = try Fixtures.measurer.prepare(StyledText(text, spans: spans), style: TextStyle(size: 15))
            for width in stride(from: 4.0, to: 120, by: 0.9) {
                try PreparedTextTests.expectValidWidthsHold(prepared, at: width, text: "\(text) \(spans)", tight: true)
            }
        }
    }

    static let ideographicWhiteSpace: [String] = {
        let white = [" ", "\u{A0}", "\u{3000}", "\u{2002}", "\u{2009}", "  ", "\u{3000} ", " \u{3000}"]
        let words = ["x", "ab", "word", "漢字", "かな", "y", "テスト", "한국", "foo-bar"]
        var random = SplitMix64(seed: 0x3000)
        var texts = ["x \u{3000} \u{3000} y", "a  \u{3000} b", "かな\u{3000}ab \u{3000} ", "\u{3000}", "\u{3000}  \u{3000} ",
                     "字\u{A0}\u{A0}テスト"]
        for _ in 0..<74 {
            var text = ""
            for _ in 0..<Int.random(in: 2...6, using: &random) {
                if Int.random(in: 0..<10, using: &random) < 7 { text += words.randomElement(using: &random)! }
                for _ in 0..<Int.random(in: 1...3, using: &random) { text += white.randomElement(using: &random)! }
            }
            if Bool.random(using: &random) { text += words.randomElement(using: &random)! }
            texts.append(text)
        }
        return texts
    }()

    static let whiteSpaceAfterWhiteSpace = [String(repeating: "\u{A0} ", count: 20), "a \u{A0} b",
                                            "Hello\u{A0} \u{A0} world", "word \u{A0} \u{A0} next \u{A0} more",
                                            "the\u{A0} a \u{2009} 你好  i  ภาษา"]

    /// White space in a style of its own after a word: it starts a run.
    static let styledWhiteSpace: [(String, [TextSpan])] = [
        ("W  ii", [TextSpan(1..<3, bold: true)]), ("W   ii", [TextSpan(1..<4, bold: true)]),
        ("mm  x", [TextSpan(2..<4, size: 20)]), ("word  next  more", [TextSpan(4..<6, italic: true)]),
    ]

    /// Layout's fast path, which fills whole segments, counts white space as the general filler does,
    /// and finds the same range of widths over which the lines hold.
    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func wholeSegmentFillingCountsWhiteSpaceAlike() throws {
        var compared = 0
        let texts = (Self.texts + Self.whiteSpaceAfterWhiteSpace).map { StyledText($0) }
            + Self.styledWhiteSpace.map { StyledText($0.0, spans: $0.1) }
        for text in texts {
            let prepared = try Fixtures.measurer.prepare(text, style: TextStyle(size: 15))
            let floor = prepared.wholeSegmentFillWidth
            guard floor != Int.max else { continue }
            let natural = LineBreaker.layout(prepared, width: Int.max / 2, maxLines: 0).widestLine
            for width in Set([floor, floor + 1, (floor + natural) / 2, natural, natural + 1]) {
                var fastLines = TextMeasurement.Lines(), generalLines = TextMeasurement.Lines()
                let fast = LineBreaker.layout(prepared, width: width, maxLines: 0, lines: &fastLines)
                let general = LineBreaker.layout(prepared, width: width, maxLines: 0, lines: &generalLines, filling: .general)
                #expect(fast == general && fastLines == generalLines, "\(text) at \(width) units")
                compared += 1
            }
        }
        #expect(compared > Self.texts.count)
    }

    /// The browser modes hang all the white space at a line's end (CSS `white-space: pre-wrap`).
    @Test("The browser modes hang all white space")
    func browserModesHangAllWhiteSpace() throws {
        for breaking in [LineBreaking.browser, .browserStrict] {
            let style = TextStyle(size: 11, breaking: breaking)
            let word = try Fixtures.measurer.measure("word", style: style, width: 1000).widestLineWidth
            let measured = try Fixtures.measurer.measure("word   x", style: style, width: word + 1)
            #expect(measured.lineCount == 2)
            #expect(measured.lines.first?.width == word)
        }
    }
}
