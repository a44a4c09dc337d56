import CHarfBuzzFreeType
import CUnicodeBreak

/// Script classes with their own typical advance: what an estimate needs to tell a Latin line from a
/// Chinese one without shaping.
enum ScriptClass: Int, CaseIterable {
    case latin, greek, cyrillic, arabic, hebrew, thai, devanagari, cjk, hangul, emoji, space, tab, mark, other

    /// The class of a scalar, by block.
    @inline(__always)
    static func of(_ scalar: UInt32) -> ScriptClass {
        // ASCII, most scalars of most texts: two comparisons instead of the walk through the blocks
        // below (which puts spaces and marks first), with the same answers.
        if scalar < 0x80 { return scalar == 0x20 ? .space : scalar == 0x09 ? .tab : .latin }
        return ofBlock(scalar)
    }

    /// The class of a scalar, by block, for any scalar.
    static func ofBlock(_ scalar: UInt32) -> ScriptClass {
        switch scalar {
        case 0x20, 0xA0, 0x2000...0x200A, 0x202F, 0x205F, 0x3000: return .space
        case 0x09: return .tab
        case 0x0300...0x036F, 0x0483...0x0489, 0x0591...0x05C7, 0x0610...0x061A, 0x064B...0x065F,
             0x0E31, 0x0E34...0x0E3A, 0x0E47...0x0E4E, 0x0900...0x0903, 0x093A...0x094F, 0x200B...0x200F,
             0xFE00...0xFE0F, 0x1F3FB...0x1F3FF, 0x20E3, 0xE0020...0xE007F:
            return .mark
        case 0...0x024F, 0x1E00...0x1EFF, 0x2C60...0x2C7F, 0xA720...0xA7FF: return .latin
        case 0x0370...0x03FF, 0x1F00...0x1FFF: return .greek
        case 0x0400...0x052F, 0x2DE0...0x2DFF, 0xA640...0xA69F: return .cyrillic
        case 0x0600...0x06FF, 0x0750...0x077F, 0x08A0...0x08FF: return .arabic
        case 0x0590...0x05FF: return .hebrew
        case 0x0E00...0x0E7F: return .thai
        case 0x0900...0x097F, 0xA8E0...0xA8FF: return .devanagari
        case 0x1100...0x11FF, 0x3130...0x318F, 0xAC00...0xD7AF: return .hangul
        case 0x2E80...0x2FDF, 0x3000...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,
             0xFF00...0xFFEF, 0x20000...0x3FFFF:
            return .cjk
        case 0x1F000...0x1FAFF, 0x2600...0x27BF: return .emoji
        default: return .other
        }
    }

    /// Ranges walked to find the widest glyph of a class (the conservative bound). Presentation forms
    /// and rare planes are left to `.other`, which uses the fonts' own maximum advance.
    var representativeRanges: [ClosedRange<UInt32>] {
        switch self {
        case .latin: [0x21...0x7E, 0xA1...0x24F, 0x1E00...0x1EFF]
        case .greek: [0x370...0x3FF, 0x1F00...0x1FFF]
        case .cyrillic: [0x400...0x52F]
        case .arabic: [0x600...0x6FF, 0x750...0x77F]
        case .hebrew: [0x590...0x5FF]
        case .thai: [0xE00...0xE7F]
        case .devanagari: [0x900...0x97F]
        case .cjk: [0x3000...0x30FF, 0x4E00...0x9FFF, 0xFF00...0xFFEF]
        case .hangul: [0xAC00...0xD7AF, 0x3130...0x318F]
        case .emoji: [0x1F300...0x1FAFF, 0x2600...0x27BF]
        case .space: [0x20...0x20, 0x3000...0x3000]
        case .tab, .mark, .other: []
        }
    }

    /// Ranges walked to find the fonts that draw the class (see `AdvanceProfile.drawingFonts`): the
    /// representative ranges, and for marks the blocks of marks `ofBlock` knows.
    var drawnRanges: [ClosedRange<UInt32>] {
        guard self == .mark else { return representativeRanges }
        return [0x0300...0x036F, 0x0483...0x0489, 0x0591...0x05C7, 0x0610...0x061A, 0x064B...0x065F,
                0x0E31...0x0E31, 0x0E34...0x0E3A, 0x0E47...0x0E4E, 0x0900...0x0903, 0x093A...0x094F, 0x20E3...0x20E3]
    }

    /// Everyday text of the class, shaped to find its average advance per character.
    var sample: String {
        switch self {
        case .latin: "The quick brown fox jumps over the lazy dog. Größe, déjà vu, Zażółć, Tiếng Việt 1234567890"
        case .greek: "Γαζέες καὶ μυρτιὲς δὲν θὰ βρῶ πιὰ στὸ χρυσαφὶ ξέφωτο"
        case .cyrillic: "Съешь же ещё этих мягких французских булок, да выпей чаю"
        case .arabic: "نص حكيم له سر قاطع وذو شأن عظيم مكتوب على ثوب أخضر"
        case .hebrew: "דג סקרן שט בים מאוכזב ולפתע מצא חברה"
        case .thai: "เป็นมนุษย์สุดประเสริฐเลิศคุณค่ากว่าบรรดาฝูงสัตว์เดรัจฉาน"
        case .devanagari: "ऋषियों को सताने वाले दुष्ट राक्षसों के राजा रावण का सर्वनाश"
        case .cjk: "我能吞下玻璃而不伤身体。私はガラスを食べられます。"
        case .hangul: "나는 유리를 먹을 수 있어요 그래도 아프지 않아요"
        case .emoji: "😀😃😄👍🎉❤️🚀"
        case .space: " "
        case .tab, .mark: ""
        case .other: "→ ≈ ∞ ©"
        }
    }
}

/// Average and maximum advance per script class for one cascade, in em (multiply by the size), and
/// the fonts that draw each class (whose extents make its lines' natural heights). Built once per
/// measurer, on first use.
struct AdvanceProfile: Sendable {
    var typical: [Double]
    var maximum: [Double]
    /// Per class, the font that draws its everyday text (its sample's first character); nil for the
    /// classes that take their neighbours' font (spaces, tabs, marks).
    var typicalFont: [Int?]
    /// Per class, every font that draws some character of it (the first to cover each character of
    /// its representative ranges); every font of the cascade for the classes without ranges.
    var drawingFonts: [[Int]]

    /// The profile of the cascade `fonts`; `measure` lays a sample text out on one line at 1,000 px
    /// (nil if it cannot).
    init(fonts: [FontFace], measure: (String) -> TextMeasurement?) {
        /// The font that draws `scalar` on its own: the first covering it (a color one for emoji).
        func drawing(_ scalar: UInt32, preferColor: Bool) -> Int? {
            fonts.firstIndex { $0.covers(scalar) && (!preferColor || $0.isColor) } ?? fonts.firstIndex { $0.covers(scalar) }
        }
        // A tab reaches the next stop (every eight spaces) at least a space away: between one and nine
        // spaces wide, four and a half on average.
        let space = Self.spaceAdvance(of: fonts)
        typical = ScriptClass.allCases.map { scriptClass in
            if scriptClass == .tab { return 4.5 * space }
            let sample = scriptClass.sample
            guard !sample.isEmpty, let width = measure(sample) else { return 0 }
            let scalars = sample.unicodeScalars.filter { ScriptClass.of($0.value) != .mark }.count
            return width.widestLineWidth / 1000 / Double(max(1, scalars))
        }
        let fontMaximum = fonts.map(Self.maximumAdvance).max() ?? 1
        maximum = ScriptClass.allCases.map { scriptClass in
            switch scriptClass {
            case .mark: return 0
            case .other: return fontMaximum
            case .tab: return 9 * space
            default: break
            }
            var widest = 0.0
            for range in scriptClass.representativeRanges {
                for scalar in range {
                    guard let index = drawing(scalar, preferColor: scriptClass == .emoji) else { continue }
                    let font = fonts[index]
                    var glyph: hb_codepoint_t = 0
                    hb_font_get_nominal_glyph(font.coverageFont.pointer, scalar, &glyph)
                    let advance = Double(hb_font_get_glyph_h_advance(font.coverageFont.pointer, glyph))
                    widest = max(widest, advance / Double(font.unitsPerEm))
                }
            }
            return widest > 0 ? widest : fontMaximum
        }
        drawingFonts = ScriptClass.allCases.map { scriptClass in
            var found = Set<Int>()
            for range in scriptClass.drawnRanges {
                for scalar in range {
                    if let index = drawing(scalar, preferColor: scriptClass == .emoji) { found.insert(index) }
                }
            }
            return found.isEmpty ? Array(fonts.indices) : found.sorted()
        }
        typicalFont = ScriptClass.allCases.map { scriptClass in
            switch scriptClass {
            case .space, .tab, .mark: return nil
            default: break
            }
            return scriptClass.sample.unicodeScalars.first.flatMap { drawing($0.value, preferColor: scriptClass == .emoji) }
        }
    }

    /// The advance of a space in the first font that has one (the one tab stops are made of), in em.
    static func spaceAdvance(of fonts: [FontFace]) -> Double {
        for font in fonts {
            var glyph: hb_codepoint_t = 0
            guard hb_font_get_nominal_glyph(font.coverageFont.pointer, 0x20, &glyph) != 0 else { continue }
            return Double(hb_font_get_glyph_h_advance(font.coverageFont.pointer, glyph)) / Double(font.unitsPerEm)
        }
        return 1   // no font has a space (no real cascade): an em, generously
    }

    /// The font's `hhea.advanceWidthMax`, in em.
    static func maximumAdvance(of font: FontFace) -> Double {
        let tag: hb_tag_t = 0x6868_6561   // 'hhea'
        let blob = hb_face_reference_table(font.face, tag)
        defer { hb_blob_destroy(blob) }
        var length: UInt32 = 0
        guard let data = hb_blob_get_data(blob, &length), length >= 12 else { return 1 }
        let bytes = UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self)
        let value = UInt16(bytes[10]) << 8 | UInt16(bytes[11])
        return Double(value) / Double(font.unitsPerEm)
    }
}

/// A cheap guess at a text's height that never shapes: see ``TextMeasurer/estimate(_:style:width:)``.
public struct TextEstimate: Hashable, Sendable {
    /// Lines expected, from the text's length and the typical advance of its scripts.
    public var lineCount: Int
    /// The expected lines' height: each paragraph's lines as tall as a line holding the fonts its
    /// scripts are usually drawn with (with a fixed or multiple line height, `lineCount × lineHeight`).
    public var height: Double
    /// Lines the text can never exceed at this width (an upper bound; see ``TextMeasurer/estimate(_:style:width:)``).
    public var maximumLineCount: Int
    /// A height that never clips: each paragraph's maximum lines as tall as a line holding every font
    /// that could draw its characters.
    public var maximumHeight: Double
}

