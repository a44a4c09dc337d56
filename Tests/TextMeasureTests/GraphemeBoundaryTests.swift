import CUnicodeBreak
import TestSupport
import Testing

/// `cub_analyze` finds grapheme cluster boundaries with its own table-driven state machine (UAX #29
/// as the system ICU's `char.txt` rules implement it, with their Indic conjunct rule); ICU's
/// rule-based iterator is the reference, on 200,000 random sequences (fixed seed) of characters of
/// every class and on both corpora.
@Suite("Grapheme boundaries")
struct GraphemeBoundaryTests {
    /// Characters of every Grapheme_Cluster_Break value and the emoji-sequence classes: CR, LF,
    /// controls, Extend (combining marks, emoji modifiers, variation selectors, tag characters), ZWJ,
    /// regional indicators, Prepend, SpacingMark, Hangul L V T LV LVT, pictographs, keycap bases,
    /// consonants and viramas of the scripts of the Indic conjunct rule, and letters of several scripts.
    static let pool: [Unicode.Scalar] = [
        "a", "Z", " ", "#", "*", "1", "\r", "\n", "\t", "\u{7F}", "\u{85}", "\u{AD}", "\u{200B}", "\u{2028}",
        "\u{0301}", "\u{0308}", "\u{093F}", "\u{0940}", "\u{094D}", "\u{0915}", "\u{0937}", "\u{0E33}", "\u{0E01}",
        "\u{0E48}", "\u{1F3FB}", "\u{1F3FF}", "\u{FE0F}", "\u{FE0E}", "\u{E0067}", "\u{E007F}", "\u{20E3}",
        "\u{200D}", "\u{200C}", "\u{1F1E6}", "\u{1F1FA}", "\u{1F1F8}", "\u{0600}", "\u{0605}", "\u{110BD}",
        "\u{0D4E}", "\u{0903}", "\u{0995}", "\u{09CD}", "\u{0B95}", "\u{0BCD}", "\u{0A95}", "\u{0ACD}",
        "\u{0D15}", "\u{0D4D}", "\u{0C15}", "\u{0C4D}", "\u{0B15}", "\u{0B4D}", "\u{093C}", "\u{0928}", "\u{0E33}", "\u{1100}", "\u{1161}", "\u{11A8}", "\u{AC00}", "\u{AC01}", "\u{D7A3}",
        "\u{1F600}", "\u{1F469}", "\u{1F468}", "\u{1F467}", "\u{2764}", "\u{2640}", "\u{00A9}", "\u{00AE}",
        "\u{2122}", "\u{3030}", "\u{303D}", "\u{1F3F4}", "\u{1F44D}", "\u{263A}", "\u{2702}", "\u{0627}",
        "\u{0644}", "\u{05D0}", "\u{4E00}", "\u{3042}", "\u{1F9B0}", "\u{1FAF1}", "\u{E0001}", "\u{10FFFD}",
    ]

    static func flags(_ text: String, icu: Bool) -> [UInt8] {
        var utf8 = Array(text.utf8)
        var flags = [UInt8](repeating: 0, count: utf8.count + 1)
        let status = utf8.withUnsafeMutableBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                icu ? cub_grapheme_boundaries_icu(chars.baseAddress, Int32(chars.count), &flags)
                    : cub_analyze(chars.baseAddress, Int32(chars.count), &flags)
            }
        }
        #expect(status == 0)
        return flags.map { $0 & UInt8(CUB_GRAPHEME_BOUNDARY) }
    }

    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func agreesWithICUOnRandomSequences() {
        var random = SplitMix64(seed: 0x6772617068656D65)
        var disagreements: [String] = []
        for _ in 0..<200_000 {
            let length = Int(random.next() % 12) + 1
            var scalars = String.UnicodeScalarView()
            for _ in 0..<length { scalars.append(Self.pool[Int(random.next() % UInt64(Self.pool.count))]) }
            let text = String(scalars)
            if Self.flags(text, icu: false) != Self.flags(text, icu: true), disagreements.count < 10 {
                disagreements.append(text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " "))
            }
        }
        #expect(disagreements.isEmpty, "differs from ICU for: \(disagreements)")
    }

    @Test func agreesWithICUOnTheCorpora() {
        for text in Fixtures.corpus + Fixtures.corpus(named: "forced-breaks.txt") {
            #expect(Self.flags(text, icu: false) == Self.flags(text, icu: true), "\(text)")
        }
    }

    @Test func emojiSequencesAndFlagsStayWhole() {
        func clusters(_ text: String) -> Int { Self.flags(text, icu: false).filter { $0 != 0 }.count }
        #expect(clusters("👩‍👩‍👧‍👦") == 1)
        #expect(clusters("👍🏽") == 1)
        #expect(clusters("🇺🇸🇫🇷🇩") == 3)
        #expect(clusters("각") == 1)                       // L V T as jamo
        #expect(clusters("\u{1100}\u{1161}\u{11A8}") == 1)
        #expect(clusters("\r\n") == 1)
        #expect(clusters("e\u{0301}\u{0308}") == 1)
    }
}
