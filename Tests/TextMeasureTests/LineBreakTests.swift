import CUnicodeBreak
import TestSupport
import Testing

/// `cub_analyze_with` finds line breaks by running the line rules ICU compiled (`line.txt`, and
/// `line_normal.txt` for CUB_STRICTNESS_NORMAL) with its own loop, and sends text of dictionary
/// scripts (class SA) to ICU's iterator; ICU's iterator (`cub_line_breaks_icu`) is the reference, for
/// both strictness values, on the corpora, on every pair of class representatives (which cover all
/// of ICU's character categories) and 27,000 triples, and on 250,000 random sequences (fixed seed).
@Suite("Line breaks")
struct LineBreakTests {
    /// One or more characters of every Line_Break class (and of the sub-classes ICU's rules tell
    /// apart: East_Asian_Width of OP/CP for LB30, unassigned pictographs for LB30b, U+2010 for LB20a,
    /// CJ for the two strictness values, SA letters and marks for the dictionary fallback).
    static let representatives: [Unicode.Scalar] = [
        "\u{0A}", "\u{0D}", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}",   // LF CR BK NL
        " ", "\u{200B}", "\u{2060}", "\u{FEFF}", "\u{A0}", "\u{202F}", "\u{0F0C}", // SP ZW WJ GL
        "\u{200D}", "\u{0301}", "\u{0308}", "\u{093F}", "\u{09}", "\u{01}", "\u{1F3FB}", "\u{FE0F}", // ZWJ CM
        "a", "Z", "\u{00C5}", "#", "&", "@", "\u{0627}", "\u{0915}", "\u{0416}", "\u{03A9}",      // AL
        "\u{05D0}", "\u{05E9}",                                                     // HL
        "\u{00A7}", "\u{2460}", "\u{00B7}",                                         // AI
        "0", "7", "\u{0661}", "\u{0967}",                                           // NU
        "$", "+", "\u{00A3}", "\u{20AC}", "\\",                                      // PR
        "%", "\u{00B0}", "\u{2030}", "\u{00A2}",                                    // PO
        "(", "[", "{", "\u{2018}", "\u{201A}", "\u{3008}", "\u{FF08}",              // OP (narrow, wide)
        ")", "]", "\u{FF09}", "}", "\u{3009}", "\u{3001}", "\u{3002}",              // CP, CL
        "!", "?", "\u{061F}",                                                        // EX
        ",", ".", ":", ";", "\u{037E}",                                              // IS
        "/",                                                                         // SY
        "\"", "'", "\u{00AB}", "\u{00BB}", "\u{201C}", "\u{201D}", "\u{2019}",      // QU
        "-", "\u{2010}", "\u{2013}", "\u{00AD}", "\u{2014}", "\t", "|",             // HY HH BA B2
        "\u{00B4}", "\u{1806}",                                                      // BB
        "\u{2026}", "\u{2024}",                                                      // IN
        "\u{203C}", "\u{30FB}", "\u{3005}", "\u{FF1A}",                             // NS
        "\u{3041}", "\u{30A1}", "\u{30FC}", "\u{31F0}", "\u{FF67}",                 // CJ
        "\u{4E00}", "\u{3042}", "\u{30A2}", "\u{1F600}", "\u{2764}", "\u{1F02C}",  // ID
        "\u{1FA7D}", "\u{1F0FF}",                                                    // unassigned pictographs
        "\u{1F44D}", "\u{261D}",                                                     // EB
        "\u{1F3FD}",                                                                 // EM
        "\u{1F1E6}", "\u{1F1FA}", "\u{1F1F8}",                                      // RI
        "\u{1100}", "\u{1160}", "\u{11A8}", "\u{AC00}", "\u{AC01}",                  // JL JV JT H2 H3
        "\u{FFFC}", "\u{D7FF}", "\u{E000}", "\u{10FFFD}", "\u{E0001}", "\u{0378}",   // CB XX (private, unassigned)
        "\u{0E01}", "\u{0E48}", "\u{0E33}", "\u{1000}", "\u{17B6}",                  // SA letters and marks
    ]

    static func flags(_ text: String, strictness: Int32, icu: Bool) -> [UInt8] {
        var utf8 = Array(text.utf8)
        var flags = [UInt8](repeating: 0, count: utf8.count + 1)
        let status = utf8.withUnsafeMutableBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                icu ? cub_line_breaks_icu(chars.baseAddress, Int32(chars.count), &flags, strictness)
                    : cub_analyze_with(chars.baseAddress, Int32(chars.count), &flags, strictness)
            }
        }
        #expect(status == 0)
        return flags.map { $0 & UInt8(CUB_LINE_BREAK | CUB_MANDATORY_BREAK) }
    }

    static let strictnesses = [Int32(CUB_STRICTNESS_STRICT), Int32(CUB_STRICTNESS_NORMAL)]

    /// The texts (at most 10) where the two differ, as code points in hex.
    static func disagreements(_ texts: some Sequence<String>) -> [String] {
        var found: [String] = []
        for text in texts {
            for strictness in strictnesses where found.count < 10 {
                if flags(text, strictness: strictness, icu: false) != flags(text, strictness: strictness, icu: true) {
                    let scalars = text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")
                    found.append("\(strictness): \(scalars)")
                }
            }
        }
        return found
    }

    @Test func agreesWithICUOnTheCorpora() {
        let texts = Fixtures.corpus + Fixtures.corpus(named: "forced-breaks.txt")
        #expect(texts.count > 100)
        let found = Self.disagreements(texts)
        #expect(found.isEmpty, "differs from ICU for: \(found)")
    }

    @Test func agreesWithICUOnEveryPairAndTriple() {
        let pool = Self.representatives
        func text(_ scalars: [Unicode.Scalar]) -> String { String(String.UnicodeScalarView(scalars)) }
        var texts: [String] = []
        for a in pool {
            for b in pool { texts.append(text([a, b])) }
        }
        let pairs = Self.disagreements(texts)
        #expect(pairs.isEmpty, "differs from ICU for: \(pairs)")
        // Triples of every fifth representative and the characters of LB5, LB8a and LB9 (27,000).
        let classes = stride(from: 0, to: pool.count, by: 5).map { pool[$0] } + ["\u{0D}", "\u{0A}", "\u{200D}", "\u{0301}"]
        texts = []
        for a in classes {
            for b in classes {
                for c in classes { texts.append(text([a, b, c])) }
            }
        }
        let found = Self.disagreements(texts)
        #expect(found.isEmpty, "differs from ICU for: \(found)")
    }

    @Test func agreesWithICUOnRandomSequences() {
        var random = SplitMix64(seed: 0x6C696E6562726B)
        let pool = Self.representatives
        let texts = (0..<250_000).lazy.map { _ in
            let length = Int(random.next() % 12) + 1
            var scalars = String.UnicodeScalarView()
            for _ in 0..<length { scalars.append(pool[Int(random.next() % UInt64(pool.count))]) }
            return String(scalars)
        }
        let found = Self.disagreements(texts)
        #expect(found.isEmpty, "differs from ICU for: \(found)")
    }

    @Test func marksBreaksAndMandatoryBreaks() {
        let line = UInt8(CUB_LINE_BREAK), hard = UInt8(CUB_LINE_BREAK | CUB_MANDATORY_BREAK)
        #expect(Self.flags("ab cd", strictness: 0, icu: false) == [0, 0, 0, line, 0, line])
        #expect(Self.flags("a\nb", strictness: 0, icu: false) == [0, 0, hard, line])
        #expect(Self.flags("a\r\nb", strictness: 0, icu: false) == [0, 0, 0, hard, line])
        // CJ: no break before a small kana in the strict rules, a break in the normal ones.
        #expect(Self.flags("\u{3042}\u{3041}", strictness: Int32(CUB_STRICTNESS_STRICT), icu: false) == [0, 0, 0, 0, 0, 0, line])
        #expect(Self.flags("\u{3042}\u{3041}", strictness: Int32(CUB_STRICTNESS_NORMAL), icu: false) == [0, 0, 0, line, 0, 0, line])
        // Thai goes to ICU's dictionary: breaks between words, none inside.
        #expect(Self.flags("ภาษาไทยง่ายนิดเดียว", strictness: 0, icu: false).filter { $0 != 0 }.count > 1)
    }
}
