import CHarfBuzzFreeType
import Testing
@testable import TextMeasure

/// Shaping for measurement switches off the GPOS features that only place marks
/// (`MarkPositioningFeatures`): the analysis must find exactly those, and switching them off must
/// leave every advance as it was.
@Suite("Mark-only features")
struct MarkPositioningFeaturesTests {
    static func face(_ file: String) -> OpaquePointer {
        let blob = hb_blob_create_from_file(Fixtures.root + "/Fonts/" + file)
        defer { hb_blob_destroy(blob) }
        return hb_face_create(blob, 0)!
    }

    static func names(_ features: [hb_feature_t]) -> [String] {
        features.map { feature in
            var name = [CChar](repeating: 0, count: 128)
            var copy = feature
            hb_feature_to_string(&copy, &name, UInt32(name.count))
            return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    @Test(arguments: [
        ("NotoSans-Regular.ttf", HB_SCRIPT_LATIN, ["-mark", "-mkmk"]),
        ("NotoSansArabic-Regular.ttf", HB_SCRIPT_ARABIC, ["-mark", "-mkmk"]),
        ("NotoSansDevanagari-Regular.ttf", HB_SCRIPT_DEVANAGARI, ["-abvm", "-blwm"]),   // `dist` mixes in pair adjustments: kept
        ("NotoSansHebrew-Regular.ttf", HB_SCRIPT_LATIN, ["-mark"]),
        ("NotoSansHebrew-Regular.ttf", HB_SCRIPT_HEBREW, []),   // HarfBuzz's Hebrew shaper reads `mark`
        ("NotoSans-Regular.ttf", HB_SCRIPT_HEBREW, ["-mkmk"]),
        ("NotoSansThai-Regular.ttf", HB_SCRIPT_THAI, ["-mark", "-mkmk"]),
        ("NanumGothic.ttf", HB_SCRIPT_HANGUL, []),   // no GPOS table
        ("NotoColorEmoji.ttf", HB_SCRIPT_COMMON, []),
    ])
    func bundledFontsSwitchOffTheirMarkOnlyFeatures(file: String, script: hb_script_t, expected: [String]) {
        let face = Self.face(file)
        defer { hb_face_destroy(face) }
        #expect(Self.names(MarkPositioningFeatures.switchedOff(for: face, script: script)) == expected)
    }

    /// The bytes of a GPOS table with `lookups` (a type each; `extension: true` wraps it in a type-9
    /// lookup) and `features` (tag and lookup indices, in order).
    static func gpos(lookups: [(type: UInt16, extension: Bool)], features: [(String, [UInt16])],
                     minor: UInt16 = 0, variations: UInt32 = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        func u16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
        func u32(_ value: UInt32) { u16(UInt16(value >> 16)); u16(UInt16(value & 0xFFFF)) }
        func set16(_ value: Int, at offset: Int) {
            bytes[offset] = UInt8(value >> 8)
            bytes[offset + 1] = UInt8(value & 0xFF)
        }
        u16(1); u16(minor); u16(0); u16(0); u16(0)   // version, script, feature and lookup lists
        if minor >= 1 { u32(variations) }
        // Feature list.
        let featureList = bytes.count
        set16(featureList, at: 6)
        u16(UInt16(features.count))
        let records = bytes.count
        for (tag, _) in features { bytes += Array(tag.utf8); u16(0) }
        for (index, (_, indices)) in features.enumerated() {
            set16(bytes.count - featureList, at: records + 6 * index + 4)
            u16(0); u16(UInt16(indices.count))
            indices.forEach(u16)
        }
        // Lookup list.
        let lookupList = bytes.count
        set16(lookupList, at: 8)
        u16(UInt16(lookups.count))
        let offsets = bytes.count
        for _ in lookups { u16(0) }
        for (index, lookup) in lookups.enumerated() {
            let start = bytes.count
            set16(start - lookupList, at: offsets + 2 * index)
            u16(lookup.extension ? 9 : lookup.type); u16(0); u16(1); u16(8)   // one subtable, right after
            if lookup.extension { u16(1); u16(lookup.type); u32(8) } else { u16(1); u16(0); u32(0) }
        }
        return bytes
    }

    static func analyse(_ bytes: [UInt8]) -> [String] {
        bytes.withUnsafeBytes { MarkPositioningFeatures.offsetOnlyFeatures(inGPOS: $0) }
    }

    @Test func onlyFeaturesListingNothingButMarkAttachmentAreSwitchedOff() {
        let lookups: [(type: UInt16, extension: Bool)] = [(2, false), (4, false), (5, false), (6, true), (4, false)]
        #expect(Self.analyse(Self.gpos(lookups: lookups, features: [
            ("kern", [0]), ("mark", [1, 2]), ("mkmk", [3]), ("abvm", [4]), ("blwm", [0, 4]),
        ])) == ["mark", "mkmk", "abvm"])
        // A tag listed twice (two language systems) is switched off only if both lists qualify.
        #expect(Self.analyse(Self.gpos(lookups: lookups, features: [("mark", [1]), ("mark", [1, 0])])) == [])
        #expect(Self.analyse(Self.gpos(lookups: lookups, features: [("mark", [1]), ("mark", [2])])) == ["mark"])
        // A lookup index past the list: not a mark lookup.
        #expect(Self.analyse(Self.gpos(lookups: lookups, features: [("mark", [9])])) == [])
    }

    @Test func aCursiveLookupOrFeatureVariationsSwitchNothingOff() {
        let features = [("mark", [UInt16(0)])]
        #expect(Self.analyse(Self.gpos(lookups: [(4, false), (3, false)], features: features)) == [])
        #expect(Self.analyse(Self.gpos(lookups: [(4, false), (3, true)], features: features)) == [])
        #expect(Self.analyse(Self.gpos(lookups: [(4, false)], features: features, minor: 1, variations: 64)) == [])
        #expect(Self.analyse(Self.gpos(lookups: [(4, false)], features: features, minor: 1)) == ["mark"])
    }

    /// Every truncation of a valid table reads as "switch nothing off" or as the whole table's answer,
    /// never out of bounds.
    @Test func truncatedTablesAreReadSafely() {
        let table = Self.gpos(lookups: [(4, false), (6, true)], features: [("mark", [0]), ("mkmk", [1])])
        #expect(Self.analyse(table) == ["mark", "mkmk"])
        for length in 0..<table.count {
            let answer = Self.analyse(Array(table.prefix(length)))
            #expect(answer.isEmpty || answer == ["mark", "mkmk"], "length \(length)")
        }
    }

    /// Shaping every corpus text, and texts heavy in marks, with each bundled font's mark-only
    /// features off gives the same glyphs, clusters and advances as with every feature on.
    @Test func switchingThemOffKeepsEveryAdvance() {
        let markHeavy = [
            "Tiếng Việt có dấu: Nguyễn Thị Ánh Tuyết, ở đâu, phở bò, trường học",
            "בְּרֵאשִׁית בָּרָא אֱלֹהִים אֵת הַשָּׁמַיִם וְאֵת הָאָרֶץ",
            "بِسْمِ ٱللَّٰهِ ٱلرَّحْمَٰنِ ٱلرَّحِيمِ، مُحَمَّدٌ رَسُولُ ٱللَّهِ",
            "ภาษาไทย น้ำใจ ผู้ใหญ่ ที่นี่ กี่ปี ไม้เอก ไม้โท ไม้ตรี ไม้จัตวา",
            "क़ीमत ड़ ढ़ श्री क्षत्रिय हिन्दी द्ध्र्य ज़्यादा ँ ं ः",
            "Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇ a\u{301}\u{323}\u{302}\u{300} q\u{30A}\u{327}",
        ]
        let files = ["NotoSans-Regular.ttf", "NotoSansArabic-Regular.ttf", "NotoSansDevanagari-Regular.ttf",
                     "NotoSansHebrew-Regular.ttf", "NotoSansThai-Regular.ttf"]
        var compared = 0
        for file in files {
            let face = Self.face(file)
            #expect(!MarkPositioningFeatures.switchedOff(for: face, script: HB_SCRIPT_COMMON).isEmpty, "\(file)")
            for size in [13, 24] {
                let font = hb_font_create(face)!
                hb_font_set_scale(font, Int32(size * 64), Int32(size * 64))
                for text in Fixtures.corpus + markHeavy {
                    let all = Self.shape(text, font: font, face: nil)
                    let measured = Self.shape(text, font: font, face: face)
                    #expect(all == measured, "\(file) at \(size): \(text)")
                    compared += 1
                }
                hb_font_destroy(font)
            }
            hb_face_destroy(face)
        }
        #expect(compared == files.count * 2 * (Fixtures.corpus.count + markHeavy.count))
    }

    /// Glyph id, cluster and advances of every glyph of `text` shaped whole; with `face`, with its
    /// mark-only features for the text's script switched off.
    static func shape(_ text: String, font: OpaquePointer, face: OpaquePointer?) -> [[Int32]] {
        let buffer = hb_buffer_create()!
        defer { hb_buffer_destroy(buffer) }
        hb_buffer_add_utf8(buffer, text, -1, 0, -1)
        hb_buffer_guess_segment_properties(buffer)
        let features = face.map { MarkPositioningFeatures.switchedOff(for: $0, script: hb_buffer_get_script(buffer)) } ?? []
        hb_shape(font, buffer, features, UInt32(features.count))
        var count: UInt32 = 0
        let infos = hb_buffer_get_glyph_infos(buffer, &count)!
        let positions = hb_buffer_get_glyph_positions(buffer, nil)!
        return (0..<Int(count)).map {
            [Int32(infos[$0].codepoint), Int32(infos[$0].cluster), positions[$0].x_advance, positions[$0].y_advance]
        }
    }
}
