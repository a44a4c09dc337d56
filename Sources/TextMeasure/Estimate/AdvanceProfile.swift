import CFreeType
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

    init(measurer: TextMeasurer) {
        let fonts = measurer.cascade.fonts
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
            guard !sample.isEmpty, let width = try? measurer.measure(sample, style: TextStyle(size: 1000), width: 1e9)
            else { return 0 }
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

extension TextMeasurer {
    /// Estimates the height of `text` at `width` without shaping or break analysis: a pass over the
    /// text's scalars adding each script's typical advance.
    ///
    /// Two answers: ``TextEstimate/height``, the expected height (assuming lines are filled to 93 % on
    /// average), and ``TextEstimate/maximumHeight``, an upper bound for callers that must not clip. The
    /// bound comes from greedy line filling itself: two consecutive lines of a paragraph always hold
    /// more than the width (otherwise the second line's first piece would have joined the first), so a
    /// paragraph of total advance A has at most ⌊2A / width⌋ + 1 lines, and never more than two per
    /// character. A is bounded using the widest glyph of each script in the cascade, padded by 15 % for
    /// shaping.
    ///
    /// With a natural line height, lines are as tall as their fonts make them (see
    /// ``TextMeasurement/Line/height``): the expected height gives each paragraph's lines the height
    /// of a line holding the fonts its scripts' everyday text is drawn with (a Thai paragraph, Noto Sans
    /// Thai's), and the bound the height of a line holding every font that draws some character of
    /// its scripts.
    ///
    /// - Parameters:
    ///   - text: The text to estimate.
    ///   - style: Size, line height and line limit.
    ///   - width: The width to wrap at, in pixels.
    /// - Returns: The expected and the maximum line count and height, both within the style's line
    ///   limit; all 0 for empty text.
    /// - Throws: A ``TextMeasureError`` for a value of `style` outside ``MeasurementLimits``, or
    ///   ``TextMeasureError/invalidWidth(_:)`` for a width outside ``MeasurementLimits/width``.
    /// - Complexity: O(*n*) in the text's Unicode scalars. A measurer's first estimate also builds its
    ///   per-script advance profile, measuring a sample text per script (once per measurer).
    public func estimate(_ text: String, style: TextStyle, width: Double) throws(TextMeasureError) -> TextEstimate {
        try style.validate()
        try MeasurementLimits.check(width: width)
        let profile = advanceProfile
        let fonts = fonts(scale: style.scale)
        return withExtendedLifetime(fonts) {
            var heights = EstimatedLineHeights(Preparer.lineHeights(style, fonts: fonts), profile: profile) {
                Preparer.extent(ofFont: $0, fonts, style: style)
            }
            return estimate(text, style: style, width: width, profile: profile, heights: &heights)
        }
    }

    private func estimate(_ text: String, style: TextStyle, width: Double, profile: AdvanceProfile,
                          heights: inout EstimatedLineHeights) -> TextEstimate {
        var lines = 0, maximumLines = 0
        var typical = 0.0, maximum = 0.0, scalars = 0
        /// The script classes of the paragraph so far, one bit each.
        var classes: UInt32 = 0
        var isEmpty = true
        let limit = style.maxLines > 0 ? style.maxLines : Int.max

        func endParagraph() {
            let typicalWidth = typical * style.size, maximumWidth = maximum * 1.15 * style.size
            // Both counts are capped at two lines per character (the bound's own ceiling) while still
            // Doubles, so that no width or size converts out of Int's range, and the expected count
            // never exceeds the bound.
            let ceiling = Double(max(1, 2 * scalars))
            let bound = max(1, Int(min((2 * maximumWidth / width).rounded(.down) + 1, ceiling)))
            let expected = min(bound, max(1, Int(min((typicalWidth / (width * 0.93)).rounded(.up), ceiling))))
            // Within the line limit, the paragraphs' lines in order.
            let shown = min(expected, limit - lines), shownMaximum = min(bound, limit - maximumLines)
            heights.add(lines: shown, maximumLines: shownMaximum, classes: classes)
            lines += shown
            maximumLines += shownMaximum
            typical = 0
            maximum = 0
            scalars = 0
            classes = 0
        }

        var previous: UInt32 = 0
        for scalar in text.unicodeScalars {
            isEmpty = false
            let value = scalar.value
            switch value {
            case 0x0A where previous == 0x0D:
                break   // \r\n is one break
            case 0x0A, 0x0D, 0x2028, 0x2029:
                endParagraph()
            default:
                let scriptClass = ScriptClass.of(value).rawValue
                typical += profile.typical[scriptClass]
                maximum += profile.maximum[scriptClass]
                classes |= 1 << UInt32(scriptClass)
                scalars += 1
            }
            previous = value
        }
        if isEmpty { return TextEstimate(lineCount: 0, height: 0, maximumLineCount: 0, maximumHeight: 0) }
        endParagraph()
        return TextEstimate(lineCount: lines, height: heights.height, maximumLineCount: maximumLines,
                            maximumHeight: heights.maximumHeight)
    }
}

/// Adds up an estimate's line heights paragraph by paragraph: with a natural line height, a
/// paragraph's lines are as tall as a line holding the fonts of its script classes (see
/// ``TextMeasurer/estimate(_:style:width:)``); otherwise each is the fixed height.
private struct EstimatedLineHeights {
    private let heights: LineHeights
    private let profile: AdvanceProfile
    /// A font's extent at the estimate's style.
    private let extent: (Int) -> LineExtent
    /// Natural heights so far, in line units; fixed heights count lines.
    private var units = 0, maximumUnits = 0
    private var lines = 0, maximumLines = 0

    init(_ heights: LineHeights, profile: AdvanceProfile, extent: @escaping (Int) -> LineExtent) {
        self.heights = heights
        self.profile = profile
        self.extent = extent
    }

    /// Counts a paragraph of `lines` expected and `maximumLines` at most, holding the script classes
    /// whose bits `classes` sets (none: an empty paragraph).
    mutating func add(lines: Int, maximumLines: Int, classes: UInt32) {
        self.lines += lines
        self.maximumLines += maximumLines
        guard case .natural(let natural) = heights, lines > 0 || maximumLines > 0 else { return }
        guard classes != 0 else {
            units += lines * natural.empty.height
            maximumUnits += maximumLines * natural.empty.height
            return
        }
        var typical = natural.floor, most = natural.floor
        var drawn = false
        for scriptClass in ScriptClass.allCases where classes & (1 << UInt32(scriptClass.rawValue)) != 0 {
            if let font = profile.typicalFont[scriptClass.rawValue] {
                typical = typical.union(extent(font))
                drawn = true
            }
            for font in profile.drawingFonts[scriptClass.rawValue] { most = most.union(extent(font)) }
        }
        // Only spaces, tabs or marks: they take the primary font's extent, or their neighbours'.
        if !drawn { typical = typical.union(natural.empty) }
        units += lines * typical.height
        maximumUnits += maximumLines * most.union(natural.empty).height
    }

    /// The expected lines' height in pixels.
    var height: Double { total(units, lines) }
    /// The maximum lines' height in pixels.
    var maximumHeight: Double { total(maximumUnits, maximumLines) }

    private func total(_ units: Int, _ lines: Int) -> Double {
        switch heights {
        case .fixed(let height, _): Double(lines) * height
        case .natural(let natural): Double(units) / Double(natural.unitsPerPixel)
        }
    }
}
