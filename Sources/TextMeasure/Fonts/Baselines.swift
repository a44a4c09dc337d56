import CHarfBuzzFreeType

/// Where a font's baselines lie, as Pango 1.50 aligns the runs of a line on them: in scale units above
/// the alphabetic baseline, at the font's scale.
///
/// Pango (`apply_baseline_shift`, built with HarfBuzz 4 or later) takes the baseline that the script of
/// a line's first run (in logical order) aligns on (``Tag``: HarfBuzz's
/// `hb_ot_layout_get_horizontal_baseline_tag_for_script`) and moves every other run of the line up by
/// the first run's baseline of that kind minus its own, as `hb_ot_layout_get_baseline_with_fallback`
/// gives them. The moved runs' logical rectangles move too, so a line that starts in Devanagari or
/// CJK text and holds text of another size or font can be taller than the union of its fonts'
/// extents. Fonts without a `BASE` table (all the bundled ones) get HarfBuzz's synthesized values:
/// the alphabetic baseline at 0, the hanging one at 0.6 em (HarfBuzz compares an OpenType script tag
/// with ISO 15924 codes there, so no script finds its letter's top), the ideographic face bottom a
/// tenth of the way from the descender to the ascender.
struct Baselines: Hashable, Sendable {
    /// Which baseline the runs of a line align on: the one of its first run's script.
    enum Tag: UInt8, Sendable {
        /// The alphabetic baseline (Latin, Arabic, Thai and most scripts).
        case roman
        /// The hanging baseline (Devanagari, Bengali, Gurmukhi, Tibetan and other scripts that hang
        /// their letters from a headline).
        case hanging
        /// The bottom of the ideographic character face (Han, Kana, Hangul, Bopomofo).
        case ideographic

        /// The baseline `script`'s runs align on, as HarfBuzz says.
        init(script: hb_script_t) {
            switch hb_ot_layout_get_horizontal_baseline_tag_for_script(script) {
            case HB_OT_LAYOUT_BASELINE_TAG_HANGING: self = .hanging
            case HB_OT_LAYOUT_BASELINE_TAG_IDEO_FACE_BOTTOM_OR_LEFT: self = .ideographic
            default: self = .roman
            }
        }

        var harfBuzz: hb_ot_layout_baseline_tag_t {
            switch self {
            case .roman: HB_OT_LAYOUT_BASELINE_TAG_ROMAN
            case .hanging: HB_OT_LAYOUT_BASELINE_TAG_HANGING
            case .ideographic: HB_OT_LAYOUT_BASELINE_TAG_IDEO_FACE_BOTTOM_OR_LEFT
            }
        }
    }

    var roman: Int32
    var hanging: Int32
    var ideographic: Int32

    /// Every baseline on the alphabetic one: no run moves (the browser modes, which align runs on it).
    static let zero = Baselines(roman: 0, hanging: 0, ideographic: 0)

    init(roman: Int32, hanging: Int32, ideographic: Int32) {
        self.roman = roman
        self.hanging = hanging
        self.ideographic = ideographic
    }

    /// The baselines of `font` for a run of `script` (whose OpenType tag a `BASE` table is searched
    /// for), as Pango asks HarfBuzz for them.
    init(font: OpaquePointer, script: hb_script_t) {
        // Pango passes the last of the script's OpenType tags (the oldest: "deva" after "dev2").
        var scriptTags = [hb_tag_t](repeating: 0, count: Int(HB_OT_MAX_TAGS_PER_SCRIPT))
        var scriptCount = UInt32(scriptTags.count), languageCount: UInt32 = 0
        hb_ot_tags_from_script_and_language(script, nil, &scriptCount, &scriptTags, &languageCount, nil)
        let scriptTag = scriptCount > 0 ? scriptTags[Int(scriptCount) - 1] : Self.defaultScriptTag
        func baseline(_ tag: Tag) -> Int32 {
            var coordinate: hb_position_t = 0
            // No language: HarfBuzz reads none for baselines.
            hb_ot_layout_get_baseline_with_fallback(font, tag.harfBuzz, HB_DIRECTION_LTR, scriptTag, 0, &coordinate)
            return coordinate
        }
        self.init(roman: baseline(.roman), hanging: baseline(.hanging), ideographic: baseline(.ideographic))
    }

    /// "DFLT" (`HB_OT_TAG_DEFAULT_SCRIPT`, a macro Swift does not import).
    static let defaultScriptTag: hb_tag_t = 0x4446_4C54
    /// "BASE", the table that names a font's baselines.
    static let baseTableTag: hb_tag_t = 0x4241_5345

    /// The baseline of kind `tag`.
    @inline(__always)
    subscript(tag: Tag) -> Int32 {
        switch tag {
        case .roman: roman
        case .hanging: hanging
        case .ideographic: ideographic
        }
    }
}
