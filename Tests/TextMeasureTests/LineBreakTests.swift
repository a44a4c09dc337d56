import CUnicodeBreak
import TestSupport
import Testing

/// `cub_analyze_with` finds line breaks by running the line rules ICU compiled (`line.txt`, and
/// `line_normal.txt` for CUB_STRICTNESS_NORMAL) with its own loop, and asks ICU's iterator only for
/// the breaks inside runs of dictionary characters (class SA), each run alone, cached by its bytes;
/// ICU's iterator on the whole text (`cub_line_breaks_icu`) is the reference, for both strictness
/// values, on the corpora, on every pair of class representatives (which cover all of ICU's
/// character categories) and 27,000 triples, on 250,000 random sequences and on 30,000 random
/// sequences of dictionary-script words mixed with everything around them (fixed seeds). Every text
/// is analyzed twice: the second time, its dictionary runs come from the cache.
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
                let reference = flags(text, strictness: strictness, icu: true)
                if flags(text, strictness: strictness, icu: false) != reference ||
                    flags(text, strictness: strictness, icu: false) != reference {
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

    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func agreesWithICUOnRandomSequences() {
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

    /// Pieces of text for `agreesWithICUOnDictionaryText`: words and phrases of the scripts ICU breaks
    /// with dictionaries (Thai, Lao, Khmer, Myanmar), SA characters of scripts it has no dictionary for
    /// (Tai Tham, New Tai Lue, Tai Viet, Tai Le, Ahom, Myanmar Extended-A/B, Khmer symbols), lone SA
    /// marks, characters of those scripts outside SA (digits, ฿, ๏, ๚), Thai ๆ and ฯ, and what sits
    /// around them: spaces, punctuation, quotes, digits, Latin, CJK, combining marks, ZWJ, ZWSP, WJ,
    /// NBSP, soft hyphen, emoji, and the BK characters that may sit inside a paragraph.
    static let dictionaryPieces: [String] = [
        "ภาษาไทย", "ง่าย", "นิดเดียว", "สวัสดีครับ", "การ", "ประเทศไทย", "กรุงเทพมหานคร", "ฯลฯ", "กรุงเทพฯ",
        "ๆ", "ฯ", "มากๆ", "ไปโรงเรียน", "เขาเป็นคนดี", "ก", "\u{0E48}", "\u{0E31}", "\u{0E33}", "๑๒๓", "฿", "๏", "๚", "๛",
        "ພາສາລາວ", "ສະບາຍດີ", "ປະເທດລາວ", "໑໒", "ភាសាខ្មែរ", "សួស្តី", "ប្រទេសកម្ពុជា", "១២", "\u{19E0}",
        "မြန်မာဘာသာ", "မင်္ဂလာပါ", "ရန်ကုန်မြို့", "၁၂", "ꩠꩡ", "ꧠꧡ",
        "ᨲᩤ᩠ᨾ", "\u{1A70}", "᪑", "ᦟᦲᧅ", "ᦀ", "ꪁꪫ", "ᥖᥭᥰ", "𑜀𑜁",
        " ", "  ", "\"", "'", "\u{201C}", "\u{201D}", "\u{00AB}", "(", ")", ",", ".", "!", "?", "-", ":", "/", "%", "$",
        "0", "42", "a", "abc", "Hello", "中文", "日本語", "。", "、", "\u{0301}", "\u{200D}", "\u{200B}", "\u{2060}",
        "\u{00A0}", "\u{00AD}", "\u{2014}", "\t", "\u{1F600}", "\u{1F44D}\u{1F3FD}", "\u{2764}\u{FE0F}",
        "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}",
    ]

    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func agreesWithICUOnDictionaryText() {
        var random = SplitMix64(seed: 0x5341_72756E73)
        let pool = Self.dictionaryPieces
        // Mostly short texts (many repeat a run met before: the cache answers), some long ones.
        let texts = (0..<30_000).lazy.map { i in
            let length = Int(random.next() % (i % 10 == 0 ? 40 : 12)) + 1
            return (0..<length).map { _ in pool[Int(random.next() % UInt64(pool.count))] }.joined()
        }
        let found = Self.disagreements(texts)
        #expect(found.isEmpty, "differs from ICU for: \(found)")
    }

    /// What ICU 72 does with the breaks its dictionaries find (rbbi_cache.cpp): they take the rule
    /// status of the END of the rule segment that holds them, so before a BK character they are
    /// mandatory; and a rule break inside a run (an SA mark is CM to the rules: here U+1A70 after a dash)
    /// splits it into two runs, each broken on its own.
    @Test func dictionaryBreaksTakeTheirSegmentsEndStatus() {
        let thai = "ภาษาไทย"   // ภาษา|ไทย
        let hard = UInt8(CUB_LINE_BREAK | CUB_MANDATORY_BREAK), line = UInt8(CUB_LINE_BREAK)
        for strictness in Self.strictnesses {
            let before = Self.flags(thai + "\u{0B}" + thai + " ab", strictness: strictness, icu: false)
            #expect(before == Self.flags(thai + "\u{0B}" + thai + " ab", strictness: strictness, icu: true))
            #expect(before[12] == hard && before[22] == hard && before[34] == line)
            for text in ["ab \u{2014}\u{1A70}\u{A9E0}", "\u{2014}\u{0E48}ภาษาไทย", "\u{85}ພາສາລາວ\u{2028}"] {
                #expect(Self.flags(text, strictness: strictness, icu: false) == Self.flags(text, strictness: strictness, icu: true))
            }
        }
    }

    /// `cub_prepare_dictionaries` (what a batch calls with its first input while its fonts load)
    /// finds each South-East Asian script once, by its letters of class SA only (not its digits),
    /// looks no further than 64 KiB, ignores the scripts that share its lead bytes (Devanagari,
    /// Vietnamese letters, Georgian, Hangul), and leaves the thread's iterator as it found it: the
    /// breaks found afterwards on this thread are ICU's and the expected ones.
    @Test func preparingDictionariesFindsTheirScriptsAndChangesNoBreak() {
        func prepare(_ text: String) -> Int32 {
            var utf8 = Array(text.utf8)
            return utf8.withUnsafeMutableBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    cub_prepare_dictionaries($0.baseAddress, Int32($0.count),
                                             Int32(CUB_DICTIONARIES_ICU | CUB_DICTIONARIES_PANGO))
                }
            }
        }
        #expect(prepare("") == 0)
        #expect(prepare(#"{"text": "hello \u0e01", "width": 300}"#) == 0)   // escaped: not text to the scan
        #expect(prepare("हिन्दी Tiếng Việt ჯორჯია 한국어 中文 ؟ 🙂") == 0)
        #expect(prepare(#"{"text": "ภาษาไทย ไทย"}"#) == 1)
        #expect(prepare("ภาษาไทย ພາສາລາວ မြန်မာ ភាសាខ្មែរ ไทย") == 4)
        #expect(prepare(String(repeating: "a", count: 65_536) + "ภาษาไทย") == 0)
        #expect(prepare(String(repeating: "a", count: 65_530) + "ภาษาไทย") == 1)
        // A three-byte letter that ends at the limit is read; one that straddles it is not.
        #expect(prepare(String(repeating: "a", count: 65_533) + "ก") == 1)
        #expect(prepare(String(repeating: "a", count: 65_534) + "ก") == 0)
        #expect(prepare("๑๒ ๓") == 0)            // Thai digits: class NU, no dictionary
        #expect(prepare("๑๒ ภาษาไทย") == 1)
        #expect(prepare("Ⴀ Ⴁ ꧐ ꩐") == 0)         // Georgian capitals, Javanese and Cham digits
        let line = UInt8(CUB_LINE_BREAK)
        var expected = [UInt8](repeating: 0, count: 22)
        expected[12] = line   // ภาษา|ไทย|
        expected[21] = line
        #expect(Self.flags("ภาษาไทย", strictness: Int32(CUB_STRICTNESS_STRICT), icu: false) == expected)
        for strictness in Self.strictnesses {
            for text in ["ภาษาไทยง่ายนิดเดียว", "ab ພາສາລາວ cd", "မြန်မာစာ ភាសាខ្មែរ"] {
                #expect(Self.flags(text, strictness: strictness, icu: false) == Self.flags(text, strictness: strictness, icu: true))
            }
        }
    }

    /// With Pango's rules, runs of SA characters get no break inside from the analysis (Pango's UAX #14
    /// breaks nowhere between two of them, and ICU's dictionaries are not asked); the rules' breaks
    /// around them are ICU's. `cub_pango_dictionary_breaks` then gives a Thai item libthai's word
    /// breaks. (`isSA` goes by blocks: the texts hold SA letters and marks only, no digits or signs.)
    @Test func pangoRulesLeaveDictionaryWordsToPangosBreaker() {
        let pango = Int32(CUB_RULES_PANGO), strict = Int32(CUB_STRICTNESS_STRICT)
        let isSA = { (scalar: Unicode.Scalar) in
            (0x0E01...0x0EFF).contains(scalar.value) || (0x1000...0x109F).contains(scalar.value)
                || (0x1780...0x17FF).contains(scalar.value)
        }
        for text in ["ภาษาไทยง่ายนิดเดียว", "ab ພາສາລາວ cd", "မြန်မာစာ ភាសាខ្មែរ", "ก ข ค (ไทย) 12 ภาษา-ไทย",
                     "Thai ภาษาไทย, Lao ພາສາລາວ."] {
            let rules = Self.flags(text, strictness: pango, icu: false)
            let icu = Self.flags(text, strictness: strict, icu: true)
            var offset = 0
            var previous: Unicode.Scalar?
            for scalar in text.unicodeScalars {
                if let previous, isSA(previous), isSA(scalar) {
                    #expect(rules[offset] == 0, "no break inside SA text at byte \(offset) of \(text)")
                } else {
                    #expect(rules[offset] == icu[offset], "ICU's rule break at byte \(offset) of \(text)")
                }
                offset += String(scalar).utf8.count
                previous = scalar
            }
            #expect(rules[offset] == icu[offset])
        }
        // A Thai item gets libthai's breaks: ภาษา|ไทย|ง่าย|นิดเดียว|.
        let thai = "ภาษาไทยง่ายนิดเดียว"
        var utf8 = Array(thai.utf8)
        var flags = [UInt8](repeating: 0, count: utf8.count + 1)
        utf8.withUnsafeMutableBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                #expect(cub_analyze_with(chars.baseAddress, Int32(chars.count), &flags, pango) == 0)
                #expect(cub_pango_dictionary_breaks(chars.baseAddress, Int32(chars.count), &flags, 1) == 1)
            }
        }
        let line = UInt8(CUB_LINE_BREAK)
        #expect(flags.indices.filter { flags[$0] & line != 0 } == [12, 21, 33, 57])
        // ICU's dictionary would have split นิด|เดียว too.
        #expect(Self.flags(thai, strictness: strict, icu: true)[42] == line)
    }

    /// In Pango's rules a hyphen-minus after a break (a space, the paragraph's start) is followed by a
    /// break before a letter, as after any other hyphen; ICU's rules keep the two together.
    @Test func pangoRulesBreakAfterAWordInitialHyphen() {
        let pango = Int32(CUB_RULES_PANGO), strict = Int32(CUB_STRICTNESS_STRICT)
        let line = UInt8(CUB_LINE_BREAK)
        // (text, the byte after the hyphen: a break in Pango's rules, none in ICU's)
        for (text, offset) in [("ls -la", 4), ("-abc", 1), ("x -ไทย", 3), ("x -ⓐ", 3), ("a -\u{0301}b", 5)] {
            #expect(Self.flags(text, strictness: pango, icu: false)[offset] == line, "\(text)")
            #expect(Self.flags(text, strictness: strict, icu: true)[offset] == 0, "\(text)")
        }
        // Elsewhere the rules agree: after a hyphen inside a word (a break in both), before a digit or
        // another hyphen (none in both).
        for text in ["a-b", "x -5", "x --a", "(-a)", "- a"] {
            #expect(Self.flags(text, strictness: pango, icu: false) == Self.flags(text, strictness: strict, icu: true),
                    "\(text)")
        }
    }

    /// Breaks between two SA characters that ICU's whole-text iterator marks (its dictionaries',
    /// mandatory ones before a VT, FF or NEL: they take their segment's end status) are all removed
    /// from a Pango item, whose UAX #14 has none there; a Lao, Khmer or Myanmar item gets no other.
    @Test func pangoItemsDropEveryBreakBetweenSALetters() {
        let hard = UInt8(CUB_LINE_BREAK | CUB_MANDATORY_BREAK)
        for (text, letters) in [("ພາສາລາວພາສາ\u{0C}", 11), ("ភាសាខ្មែរភាសាខ្មែរ\u{0B}", 18), ("မြန်မာစာ\u{85}", 8),
                                ("ภาษาไทยง่าย\u{0B}", 11)] {
            let scalars = Array(text.unicodeScalars)
            var utf8 = Array(text.utf8)
            // ICU's line breaks, with the grapheme boundaries of Pango's rules (libthai's breaks are
            // taken only there).
            var analysis = [UInt8](repeating: 0, count: utf8.count + 1)
            utf8.withUnsafeMutableBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    #expect(cub_analyze_with(chars.baseAddress, Int32(chars.count), &analysis, Int32(CUB_RULES_PANGO)) == 0)
                }
            }
            var flags = zip(Self.flags(text, strictness: Int32(CUB_STRICTNESS_STRICT), icu: true), analysis)
                .map { $0 | ($1 & UInt8(CUB_GRAPHEME_BOUNDARY)) }
            let letterEnd = scalars[..<letters].reduce(0) { $0 + String($1).utf8.count }
            // ICU puts its dictionary breaks there, mandatory ones.
            #expect((1..<letterEnd).contains { flags[$0] & hard == hard }, "\(text)")
            let isThai: Int32 = scalars[0].value < 0x0E80 ? 1 : 0
            utf8.withUnsafeMutableBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    #expect(cub_pango_dictionary_breaks(chars.baseAddress, Int32(letterEnd), &flags, isThai) == 1)
                }
            }
            let inside = (1..<letterEnd).filter { flags[$0] & hard != 0 }
            if isThai == 1 {
                // libthai's: ภาษา|ไทย|ง่าย, never mandatory.
                #expect(inside == [12, 21], "\(text)")
            } else {
                #expect(inside.isEmpty, "\(text): \(inside)")
            }
            #expect(!(1..<letterEnd).contains { flags[$0] & UInt8(CUB_MANDATORY_BREAK) != 0 }, "\(text)")
            // Pango's rules themselves put none there.
            let rules = Self.flags(text, strictness: Int32(CUB_RULES_PANGO), icu: false)
            #expect(!(1..<letterEnd).contains { rules[$0] != 0 }, "\(text)")
        }
    }

    @Test func marksBreaksAndMandatoryBreaks() {
        let line = UInt8(CUB_LINE_BREAK), hard = UInt8(CUB_LINE_BREAK | CUB_MANDATORY_BREAK)
        #expect(Self.flags("ab cd", strictness: 0, icu: false) == [0, 0, 0, line, 0, line])
        #expect(Self.flags("a\nb", strictness: 0, icu: false) == [0, 0, hard, line])
        #expect(Self.flags("a\r\nb", strictness: 0, icu: false) == [0, 0, 0, hard, line])
        // CJ: no break before a small kana in the strict rules, a break in the normal ones.
        #expect(Self.flags("\u{3042}\u{3041}", strictness: Int32(CUB_STRICTNESS_STRICT), icu: false) == [0, 0, 0, 0, 0, 0, line])
        #expect(Self.flags("\u{3042}\u{3041}", strictness: Int32(CUB_STRICTNESS_NORMAL), icu: false) == [0, 0, 0, line, 0, 0, line])
        // Thai: ICU's dictionary breaks between words, none inside.
        #expect(Self.flags("ภาษาไทยง่ายนิดเดียว", strictness: 0, icu: false).filter { $0 != 0 }.count > 1)
    }
}
