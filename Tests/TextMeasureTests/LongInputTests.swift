import TestSupport
import Testing
@testable import TextMeasure

/// Inputs that once trapped, wrapped around or took quadratic time: long grapheme clusters, large
/// sizes, long runs. Correctness only; their timings are measured by Tools/long-lines.
@Suite("Long and pathological inputs")
struct LongInputTests {
    let measurer = Fixtures.measurer

    /// 5,000 × "👩‍": one grapheme cluster for ICU, 35,000 bytes. At 10,000 px its advances once
    /// overflowed 32 bits (a trap) or wrapped (a negative line width).
    @Test(arguments: [1_000.0, 10_000])
    func longEmojiJoinerChainsHaveSaneLines(size: Double) throws {
        let text = String(repeating: "👩\u{200D}", count: 5_000)
        let prepared = try measurer.prepare(text, style: TextStyle(size: size))
        var previous = Int.max
        for width in [size / 2, size, size * 10, size * 100, size * 1_000, size * 100_000] {
            let result = try prepared.layout(width: width)
            #expect(result.lines.allSatisfy { $0.width >= 0 }, "negative line width at \(width)")
            #expect(result.widestLineWidth >= 0)
            #expect(result.lineCount >= 1 && result.lineCount <= previous, "\(result.lineCount) lines at \(width)")
            previous = result.lineCount
        }
        // At a width narrower than an emoji, each piece of the cut cluster takes a line of its own.
        let pieces = prepared.clusters.count
        #expect(try prepared.layout(width: size / 2).lineCount == pieces)
        // The whole chain is as wide as its pieces.
        let total = prepared.clusters.reduce(0) { $0 + Int($1.advance) }
        let wide = try prepared.layout(width: 1e9)
        #expect(wide.lineCount == 1)
        #expect(abs(wide.widestLineWidth - Double(total) / 1024) < 0.001)
    }

    /// At the largest size allowed, tabs, marks, emoji and ligatures lay out without trapping or
    /// wrapping, at widths from one pixel to a billion: line widths are never negative and line
    /// counts never grow with the width.
    @Test func largeSizesLayOutSanely() throws {
        let texts = [String(repeating: "\t", count: 2_000) + "x",
                     "a" + String(repeating: "\u{0301}", count: 1_000),
                     String(repeating: "👨\u{200D}👩\u{200D}👧\u{200D}👦 ", count: 200),
                     String(repeating: "official waffle ", count: 200),
                     String(repeating: "الاستراتيجيات ", count: 100)]
        for text in texts {
            let prepared = try measurer.prepare(text, style: TextStyle(size: 10_000))
            var previous = Int.max
            for exponent in 0...9 {
                let width = Double(1 << (exponent * 3))
                let result = try prepared.layout(width: min(width, 1e9))
                #expect(result.lines.allSatisfy { $0.width >= 0 }, "\(text.prefix(10)) at \(width)")
                #expect(result.lineCount <= previous, "\(text.prefix(10)) at \(width)")
                previous = result.lineCount
            }
        }
    }

    /// Grapheme clusters are cut as Unicode's Stream-Safe Text Format asks (at most 30 non-starters in a
    /// row) and at 32 characters; shorter clusters, the longest emoji sequences among them, stay whole.
    @Test func overLongClustersAreCut() throws {
        // In the browser modes, whose clusters are ICU's (with the conjunct rule: "क्ष्म्य" is one).
        func clusterLengths(_ text: String) throws -> [Int] {
            try measurer.prepare(text, style: TextStyle(size: 17, breaking: .browser)).clusters.map { Int($0.end - $0.start) }
        }
        let acute = "\u{0301}".utf8.count
        // A base and 40 marks: the base with 30 marks, then 10.
        #expect(try clusterLengths("a" + String(repeating: "\u{0301}", count: 40)) == [1 + 30 * acute, 10 * acute])
        // Marks alone: 30 at a time.
        #expect(try clusterLengths(String(repeating: "\u{0301}", count: 65)) == [30 * acute, 30 * acute, 5 * acute])
        // Joiners (starters: only the length bound applies): 32 at a time.
        let zwj = "\u{200D}".utf8.count
        #expect(try clusterLengths(String(repeating: "\u{200D}", count: 70)) == [32 * zwj, 32 * zwj, 6 * zwj])
        // The longest sequences in use stay whole.
        for sequence in ["👩🏻\u{200D}❤️\u{200D}💋\u{200D}👨🏼", "👨\u{200D}👩\u{200D}👧\u{200D}👦", "🏴󠁧󠁢󠁳󠁣󠁴󠁿",
                         "a" + String(repeating: "\u{0301}", count: 30), "क्ष्म्य"] {
            #expect(try clusterLengths(sequence).count == 1, "\(sequence) was cut")
        }
    }

    /// A cut cluster's pieces measure the same whether shaped one by one or remembered from an
    /// identical piece of the same text, and whether or not the shaped-piece cache is on.
    @Test func piecesOfCutClustersMeasureAsShaped() throws {
        let uncached = TextMeasurer(cascade: measurer.cascade, shapeCacheCapacity: 0)
        let texts = [String(repeating: "👩\u{200D}", count: 300),
                     "x" + String(repeating: "\u{0301}\u{0323}", count: 200) + " end",
                     String(repeating: "क्", count: 100),
                     "ب" + String(repeating: "\u{064E}", count: 100) + "ب"]
        for text in texts {
            let style = TextStyle(size: 17)
            let a = try measurer.prepare(text, style: style), b = try uncached.prepare(text, style: style)
            #expect(ShapeCacheTests.same(a, b), "\(text.prefix(8))")
            // Identical pieces (the pieces after the first) have identical advances.
            let pieces = a.clusters.dropFirst().dropLast()
            if text.hasPrefix("👩") {
                #expect(Set(pieces.map(\.advance)).count == 1)
            }
            #expect(a.clusters.allSatisfy { $0.advance >= 0 })
        }
    }

    /// A run of hundreds of pieces is shaped in stretches that reuse the pieces just stored: the result
    /// is the one shaping every run afresh gives.
    @Test func longRunsThroughTheCacheEqualUncachedShaping() throws {
        let cached = TextMeasurer(cascade: measurer.cascade)
        let uncached = TextMeasurer(cascade: measurer.cascade, shapeCacheCapacity: 0)
        var rng = SplitMix64(seed: 7)
        let words = ["official", "waffle", "AVA", "To", "fi", "Tầng", "ffi", "👩", "😀", "你好"]
        let texts = [
            (0..<600).map { _ in words[Int(rng.next() % UInt64(words.count))] }.joined(separator: " "),
            (0..<600).map { _ in words[Int(rng.next() % UInt64(words.count))] }.joined(),
            String(repeating: "👩", count: 500),
            String(repeating: "ภาษาไทย", count: 200),
        ]
        for text in texts {
            for size in [11.0, 17] {
                let style = TextStyle(size: size)
                let a = try cached.prepare(text, style: style), b = try uncached.prepare(text, style: style)
                #expect(ShapeCacheTests.same(a, b), "\(text.prefix(20)) at \(size)")
            }
        }
    }

    /// Texts of 2^31 bytes and more are refused: offsets are stored in 32 bits.
    @Test func textsOfTwoGigabytesAreRefused() throws {
        #expect(throws: TextMeasureError.textTooLong(byteCount: Int(Int32.max))) {
            try MeasurementLimits.check(textByteCount: Int(Int32.max))
        }
        #expect(throws: Never.self) { try MeasurementLimits.check(textByteCount: MeasurementLimits.textBytes.upperBound) }
        #expect(TextMeasureError.textTooLong(byteCount: 1 << 31).description
                == "text of 2147483648 bytes is too long: at most 2147483646 bytes of UTF-8")
    }
}
