import TestSupport
import Testing
@testable import TextMeasure

@Suite("Prepared text and valid widths")
struct PreparedTextTests {
    let measurer = Fixtures.measurer
    static let widths: [Double] = [9, 30, 64, 120, 200, 333, 1000]

    @Test(arguments: LineBreaking.allCases)
    func layoutOfAPreparedTextEqualsMeasuringFromScratch(breaking: LineBreaking) throws {
        let style = TextStyle(size: 15, breaking: breaking)
        for text in Fixtures.corpus.prefix(60) {
            let prepared = try measurer.prepare(text, style: style)
            for width in Self.widths {
                #expect(try prepared.layout(width: width) == measurer.measure(text, style: style, width: width))
            }
        }
    }

    /// The valid range is exact: inside it the lines are the same; just outside, they change.
    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"), arguments: [11.0, 17, 24], LineBreaking.allCases)
    func validWidthsHoldAndAreTight(size: Double, breaking: LineBreaking) throws {
        for text in Fixtures.corpus {
            let prepared = try measurer.prepare(text, style: TextStyle(size: size, breaking: breaking))
            for width in Self.widths {
                // Browser modes refill a line whose soft hyphen's hyphen does not fit (Blink); where the
                // refill's result ends at a soft hyphen again, the range is this width alone, so only
                // containment is checked for texts with soft hyphens there.
                try Self.expectValidWidthsHold(prepared, at: width, text: text,
                                               tight: breaking == .pango || !text.unicodeScalars.contains("\u{00AD}"))
            }
        }
    }

    /// A word broken between clusters before a soft hyphen and a space at a paragraph's end: the
    /// piece ending at the soft hyphen needs its hyphen, the whole word with its space counted does
    /// not (rule 23), so the narrow layout's range stops where the whole word fits (found by an
    /// outside probe, where a height store answered the narrow layout's two lines at a width that
    /// held one).
    @Test(arguments: [LineBreaking.browser, .browserStrict])
    func aBrokenWordBeforeASoftHyphenAndASpaceEndsItsRangeWhereTheWordFits(breaking: LineBreaking) throws {
        let prepared = try measurer.prepare("x\u{AD} ", style: TextStyle(size: 15, breaking: breaking))
        let narrow = try prepared.layout(width: 5), wide = try prepared.layout(width: 12)
        #expect(narrow.lineCount == 2 && wide.lineCount == 1)
        #expect(!narrow.validWidths.contains(12) && !wide.validWidths.contains(5))
        #expect(try prepared.layout(width: narrow.validWidths.upperBound.nextDown).lines == narrow.lines)
    }

    /// Random texts around soft hyphens (before a space, a bracket, a line feed, another soft hyphen,
    /// a narrow letter, a no-break or ideographic space, CJK, Arabic, marks), styled or not, at random
    /// widths and line limits: the lines are the same anywhere inside the valid range (18,000 layouts
    /// a mode, fixed seed; 72,000 more with four other seeds checked once).
    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"), arguments: LineBreaking.allCases)
    func validWidthsHoldAroundSoftHyphens(breaking: LineBreaking) throws {
        let pieces = ["x", "ab", "\u{AD}", "\u{AD}", " ", "(", ")", "\n", "한국어", "」", "「", "\u{947}", "-", ".",
                      "mpe.com/a/bd", "Hello", "\u{AD} ", "wo\u{AD}rd", "😀", "\t", "i", "\u{A0}", "\u{3000}", "ت"]
        var rng = SplitMix64(seed: 0x5348_5950_4845_4E53)
        var checked = 0
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 1...7, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            let size = [11.0, 15, 24].randomElement(using: &rng)!
            let maxLines = [0, 0, 1, 2, 3].randomElement(using: &rng)!
            let prepared = try measurer.prepare(text, style: TextStyle(size: size, maxLines: maxLines, breaking: breaking))
            for _ in 0..<6 {
                let width = Double.random(in: 1...120, using: &rng)
                try Self.expectValidWidthsHold(prepared, at: width, text: text, tight: false)
                checked += 1
            }
        }
        #expect(checked == 18_000)
    }

    /// Checks that the lines of `prepared` at `width` are the same anywhere inside their valid range
    /// and, with `tight`, change just outside it.
    static func expectValidWidthsHold(_ prepared: PreparedText, at width: Double, text: String, tight: Bool) throws {
        let result = try prepared.layout(width: width)
        let range = result.validWidths
        #expect(range.contains(width), "\(width) outside its own range \(range) for \(text)")
        var inside = [range.lowerBound, (range.lowerBound + width) / 2, width]
        if range.upperBound.isFinite {
            inside += [range.upperBound.nextDown, (width + range.upperBound) / 2]
        }
        for probe in inside where probe > 0 {
            #expect(try prepared.layout(width: probe).lines == result.lines, "lines changed at \(probe) in \(range) for \(text)")
        }
        guard tight else { return }
        if range.upperBound.isFinite {
            #expect(try prepared.layout(width: range.upperBound + 0.001).lines != result.lines,
                    "upper bound \(range.upperBound) not tight for \(text) at \(width)")
        }
        if range.lowerBound > 0.001 {
            #expect(try prepared.layout(width: range.lowerBound - 0.001).lines != result.lines,
                    "lower bound \(range.lowerBound) not tight for \(text) at \(width)")
        }
    }

    /// The whole-segment filler (layout's fast path) finds exactly what the general filler finds: the
    /// same lines, line count, truncation, widest line and valid widths, at widths from the least it
    /// applies at (`PreparedText.wholeSegmentFillWidth`) up to one line, with and without a line limit.
    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"), arguments: [11.0, 17, 24], LineBreaking.allCases)
    func wholeSegmentFillingIsTheGeneralFilling(size: Double, breaking: LineBreaking) throws {
        let style = TextStyle(size: size, breaking: breaking)
        let texts = Fixtures.corpus + [
            "Running ten minutes late, start without me.", "Sounds good!  See you at six.  ",
            "AVAV WAVE To Ty Wa. Yo! LT", "abc مرحبا def שלום ghi", "line one\nline two is longer\nthree",
            "Don't forget: dinner at Marco's on Friday, table booked for eight.", "x", "wide\u{3000}space 一二三四五",
        ]
        var rng = SplitMix64(seed: 0x5748_4F4C_4553_4547)
        var compared = 0
        for text in texts {
            let prepared = try measurer.prepare(text, style: style)
            let floor = prepared.wholeSegmentFillWidth
            guard floor != Int.max else { continue }
            let natural = LineBreaker.layout(prepared, width: Int.max / 2, maxLines: 0).widestLine
            var widths = [floor, floor + 1, natural, natural + 1]
            for _ in 0..<24 where natural > floor { widths.append(Int.random(in: floor...natural, using: &rng)) }
            for width in widths {
                for maxLines in [0, 1, 2] {
                    var fastLines = TextMeasurement.Lines(), generalLines = TextMeasurement.Lines()
                    let fast = LineBreaker.layout(prepared, width: width, maxLines: maxLines, lines: &fastLines)
                    let general = LineBreaker.layout(prepared, width: width, maxLines: maxLines, lines: &generalLines,
                                                     filling: .general)
                    #expect(fast == general, "\(text) at \(width) units, \(maxLines) lines")
                    #expect(fastLines == generalLines, "\(text) at \(width) units, \(maxLines) lines")
                    #expect(LineBreaker.layout(prepared, width: width, maxLines: maxLines) == general)
                    compared += 1
                }
            }
        }
        // Most of the corpus takes the fast path (texts with tabs, leading white space or empty
        // paragraphs do not).
        #expect(compared > 3 * 28 * texts.count / 2, "only \(compared) layouts took the fast path")
    }

    @Test(arguments: LineBreaking.allCases)
    func lineCountNeverGrowsWithWidth(breaking: LineBreaking) throws {
        for text in Fixtures.corpus {
            let prepared = try measurer.prepare(text, style: TextStyle(size: 13, breaking: breaking))
            var previous = Int.max
            for width in stride(from: 4.0, through: 600, by: 7.5) {
                let count = try prepared.layout(width: width).lineCount
                #expect(count <= previous, "\(count) lines at \(width) after \(previous) for \(text)")
                previous = count
            }
        }
    }

    @Test(arguments: LineBreaking.allCases)
    func maxLinesRangeStillHolds(breaking: LineBreaking) throws {
        let text = Fixtures.corpus.first { $0.count > 150 }!
        let prepared = try measurer.prepare(text, style: TextStyle(size: 15, maxLines: 2, breaking: breaking))
        let result = try prepared.layout(width: 150)
        #expect(result.isTruncated)
        #expect(try prepared.layout(width: result.validWidths.upperBound.nextDown).lines == result.lines)
    }
}

@Suite("Shaped-piece cache")
struct ShapeCacheTests {
    static func same(_ a: PreparedText, _ b: PreparedText) -> Bool {
        a.segments == b.segments && a.clusters == b.clusters && a.lineStartAdjusts == b.lineStartAdjusts
    }

    /// A measurer on the bundled fonts without the shape cache, and one with it.
    static func measurers() -> (uncached: TextMeasurer, cached: TextMeasurer) {
        let cascade = Fixtures.measurer.cascade
        return (TextMeasurer(cascade: cascade, shapeCacheCapacity: 0), TextMeasurer(cascade: cascade))
    }

    /// Preparing through the cache gives exactly what shaping every run afresh gives, whether the
    /// pieces were cached from the same text, from other texts, or not at all; in Pango's 1/1024 px
    /// units and in the browser modes' 1/65536 px (break adjustments there take 32 bits).
    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"), arguments: [11.0, 15.5, 24], [LineBreaking.pango, .browser])
    func cachedPreparationIsIdenticalToUncached(size: Double, breaking: LineBreaking) throws {
        let (uncached, cached) = Self.measurers()
        let style = TextStyle(size: size, breaking: breaking)
        let texts = Fixtures.corpus
        var rng = SplitMix64(seed: 0x5348_4150_4543_4143)
        // Cold, then warm in two other orders (pieces now come from other texts' shapings).
        for order in [texts, texts.shuffled(using: &rng), texts.reversed()] {
            for text in order {
                #expect(Self.same(try cached.prepare(text, style: style), try uncached.prepare(text, style: style)), "\(text)")
            }
        }
        let statistics = cached.shapingStatistics
        #expect(statistics.pieceHits > statistics.pieceMisses)
        #expect(statistics.hitRate > 0.5)
        #expect(statistics.spanHits > 0)
        #expect(uncached.shapingStatistics.pieceHits == 0)
        #expect(uncached.shapingStatistics.spanHits == 0)
    }

    /// Text that is not cached piece by piece is cached as spans, reused in other texts, at run edges
    /// with other neighbours, and still prepares exactly as shaping every run afresh: a syllable of a
    /// font with a legacy `kern` table (NanumGothic: HarfBuzz marks every join unsafe), Arabic (a
    /// letter after a space is marked, and the first letter of a run), Thai and Devanagari phrases, a
    /// word kerned across its soft hyphens, words over 32 bytes and 16 clusters.
    @Test(arguments: [LineBreaking.pango, .browser])
    func spansAreReusedExactly(breaking: LineBreaking) throws {
        let (uncached, cached) = Self.measurers()
        let style = TextStyle(size: 15, breaking: breaking)
        let phrases = [
            "한국어는 띄어쓰기를 사용합니다", "한국어", "한국 ",
            "اللغة العربية من أكثر اللغات انتشارا", "العربية",
            "นักเรียนทุกคนต้องทำการบ้าน", "ยินดีต้อนรับสู่ประเทศไทย",
            "कल की बैठक शुक्रवार सुबह", "ex\u{AD}tra\u{AD}or\u{AD}di\u{AD}nary",
            "Donaudampfschifffahrtsgesellschaftskapitänsmütze", "https://en.wikipedia.org/wiki/Line_wrap_and_word_wrap",
        ]
        // Each phrase alone, then between neighbours of other scripts and of its own, at a paragraph's
        // edges and inside one: the spans stored from one shaping are found in the others.
        let frames = ["%", "(%)", "Text %.", "% %", "a %\nb", "كلمة % كلمة", "中文%中文", "« % »", "1%2"]
        for frame in frames {
            for phrase in phrases {
                let text = frame.replacingOccurrences(of: "%", with: phrase)
                let prepared = try cached.prepare(text, style: style)
                let expected = try uncached.prepare(text, style: style)
                #expect(Self.same(prepared, expected), "\(text)")
            }
        }
        let statistics = cached.shapingStatistics
        #expect(statistics.spanHits >= phrases.count * (frames.count - 1) / 2, "\(statistics)")
    }

    /// Random texts made of the corpus's sentences, joined by spaces, punctuation or nothing, as the
    /// benchmarks' cold workload makes them (so spans and pieces meet many neighbours): cached
    /// preparation gives exactly what shaping every run afresh gives.
    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"), arguments: [LineBreaking.pango, .browser])
    func randomSentenceCombinationsAreIdenticalToUncached(breaking: LineBreaking) throws {
        let (uncached, cached) = Self.measurers()
        let style = TextStyle(size: 13, breaking: breaking)
        let texts = Fixtures.corpus
        let joins = [" ", "", ". ", "\n", "\u{200C}", "\u{0651}", "«", " - "]
        var rng = SplitMix64(seed: 0x5350_414E_5321)
        for index in 0..<600 {
            var text = texts[Int(rng.next() % UInt64(texts.count))]
            for _ in 0..<Int(rng.next() % 3) {
                text += joins[Int(rng.next() % UInt64(joins.count))] + texts[Int(rng.next() % UInt64(texts.count))]
            }
            text += " #\(index)"
            #expect(Self.same(try cached.prepare(text, style: style), try uncached.prepare(text, style: style)),
                    "\(text)")
        }
        #expect(cached.shapingStatistics.spanHits > 100)
    }

    /// A stretch of new pieces whose join with a cached neighbour is unsafe is shaped again with that
    /// neighbour instead of shaping its run whole; the texts where that happens (Devanagari and Thai
    /// mostly, whose words are not safe to shape apart) prepare exactly as shaping every run afresh.
    @Test(arguments: [LineBreaking.pango, .browser])
    func widenedStretchesAreIdenticalToWholeRuns(breaking: LineBreaking) throws {
        let (uncached, cached) = Self.measurers()
        let style = TextStyle(size: 15, breaking: breaking)
        var rng = SplitMix64(seed: 0x5749_4445_4E45_4421)
        var widenedTexts = 0
        // Cold, then in another order: a text's words come from other texts' shapings.
        for text in Fixtures.corpus + Fixtures.corpus.shuffled(using: &rng) {
            let before = cached.shapingStatistics.stretchesWidened
            let prepared = try cached.prepare(text, style: style)
            guard cached.shapingStatistics.stretchesWidened > before else { continue }
            widenedTexts += 1
            let expected = try uncached.prepare(text, style: style)
            #expect(Self.same(prepared, expected), "\(text)")
            #expect(try prepared.layout(width: 120, withLines: true) == expected.layout(width: 120, withLines: true))
        }
        #expect(widenedTexts > 0)
        // Most runs that met an unsafe join no longer shape whole.
        #expect(cached.shapingStatistics.stretchesWidened > cached.shapingStatistics.runsShapedWhole)
    }

    /// A piece missing at one size and stored plain at another (every cluster one glyph no lookup
    /// positioned) is put together from those glyphs without shaping (see `ShapeCache`): the corpus
    /// prepared at sizes in turn through one cache, twice, gives exactly what shaping every run afresh
    /// gives; with sizes below a face's units per em (nothing is kept from those) and above, and with
    /// the spaces HarfBuzz sizes from the scale when a font lacks them.
    @Test(arguments: [LineBreaking.pango, .browser])
    func piecesResizedFromAnotherSizeAreIdenticalToShaped(breaking: LineBreaking) throws {
        let (uncached, cached) = Self.measurers()
        let sizes = [13.0, 15, 17, 0.5, 40, 11.5, 13]
        let spaces = ["en\u{2002}space, four\u{2005}per\u{2005}em", "thin\u{2009}space", "ideographic\u{3000}space",
                      "narrow\u{202F}no-break", "figure\u{2007}2\u{2007}3"]
        var rng = SplitMix64(seed: 0x5349_5A45_5321)
        let texts = Fixtures.corpus + spaces + spaces + Fixtures.corpus.shuffled(using: &rng)
        for (index, text) in texts.enumerated() {
            let style = TextStyle(size: sizes[index % sizes.count], breaking: breaking)
            #expect(Self.same(try cached.prepare(text, style: style), try uncached.prepare(text, style: style)),
                    "\(text) at \(style.size) px")
        }
        #expect(cached.shapingStatistics.piecesResized > 500, "\(cached.shapingStatistics)")
    }

    /// Only plain pieces are resized: a word Noto Sans kerns inside is shaped at each size, one it
    /// does not is shaped once; nothing is resized while the cache has seen one size.
    @Test func onlyPlainPiecesAreResized() throws {
        let cached = TextMeasurer(cascade: Fixtures.measurer.cascade)
        _ = try cached.prepare("minimum AVATAR", style: TextStyle(size: 12))
        _ = try cached.prepare("AVATAR minimum", style: TextStyle(size: 12))
        #expect(cached.shapingStatistics.piecesResized == 0)
        _ = try cached.prepare("minimum AVATAR", style: TextStyle(size: 13))
        let before = cached.shapingStatistics
        _ = try cached.prepare("minimum AVATAR", style: TextStyle(size: 15))
        let after = cached.shapingStatistics
        #expect(after.piecesResized - before.piecesResized == 1, "\(after)")
        #expect(after.pieceMisses - before.pieceMisses == 2, "\(after)")
    }

    /// A cached piece is 160 bytes (what the measurer's documentation counts per piece).
    @Test func aPieceIs160Bytes() {
        #expect(MemoryLayout<ShapeCache.Shape>.stride == 160)
    }
}
