import CHarfBuzzFreeType

/// The GPOS features of a face that only place marks, which shaping for measurement switches off.
///
/// Measuring needs glyph advances, never glyph offsets. The mark attachment lookups (GPOS types 4,
/// mark-to-base; 5, mark-to-ligature; 6, mark-to-mark) set only the offsets of the mark they attach:
/// HarfBuzz then carries those offsets along the attachment chain and never touches an advance. So a
/// feature all of whose lookups are of those types (`mark`, `mkmk`, and the Indic `abvm` and `blwm`
/// as most fonts build them) can be left out and every advance stays the same, while HarfBuzz skips
/// the lookups, which for Arabic, Thai and Devanagari text are a good part of its work.
///
/// Only where that is certain: a feature is switched off when every lookup it lists, in any script,
/// is of types 4–6 (directly or through an extension lookup), the face has no cursive attachment
/// lookup (type 3, the one lookup type that reads a glyph's offset into its advance), and its GPOS
/// table has no feature variations (which could swap in other lookups). A table that cannot be read
/// switches nothing off. Drawing (`LineShaper`) shapes with every feature.
///
/// One exception, in HarfBuzz rather than in the font: HarfBuzz's Hebrew shaper composes a letter
/// and its point into a presentation form when the plan has no `mark` feature (for old fonts), which
/// changes glyphs and advances. So for Hebrew `mark` stays on.
///
/// `MarkPositioningFeaturesTests` checks the analysis on the bundled fonts and on hand-made tables,
/// and that shaping the corpus with these features off gives the same advances as with them on.
enum MarkPositioningFeatures {
    /// The features that only place marks and may be switched off, when a face has them.
    static let candidates = ["mark", "mkmk", "abvm", "blwm"]

    /// The HarfBuzz features that switch off `face`'s mark-only features for text in `script` (see
    /// the type's description); empty when there are none.
    ///
    /// - Parameters:
    ///   - face: A HarfBuzz face.
    ///   - script: The script of the text to be shaped.
    /// - Returns: One `-tag` feature per mark-only feature, for `hb_shape_plan_create_cached2` and
    ///   `hb_shape_plan_execute`.
    /// - Complexity: O(*n*) in the size of the face's GPOS feature and lookup lists.
    static func switchedOff(for face: OpaquePointer, script: hb_script_t) -> [hb_feature_t] {
        guard let blob = hb_face_reference_table(face, tag("GPOS")) else { return [] }
        defer { hb_blob_destroy(blob) }
        var length: UInt32 = 0
        guard let data = hb_blob_get_data(blob, &length), length > 0 else { return [] }
        let table = UnsafeRawBufferPointer(start: UnsafeRawPointer(data), count: Int(length))
        var names = offsetOnlyFeatures(inGPOS: table)
        if script == HB_SCRIPT_HEBREW { names.removeAll { $0 == "mark" } }
        return names.map { name in
            var feature = hb_feature_t()
            _ = hb_feature_from_string("-" + name, -1, &feature)
            return feature
        }
    }

    /// The candidate features of a GPOS table that only place marks, in ``candidates`` order.
    ///
    /// - Parameter table: The bytes of a GPOS table.
    /// - Returns: The tags of the features that can be switched off; empty for a table that is
    ///   malformed, has feature variations or a cursive lookup.
    static func offsetOnlyFeatures(inGPOS table: UnsafeRawBufferPointer) -> [String] {
        let reader = BigEndianReader(bytes: table)
        guard let major = reader.u16(0), major == 1, let minor = reader.u16(2),
              let featureList = reader.u16(6).map(Int.init), let lookupList = reader.u16(8).map(Int.init),
              featureList > 0, lookupList > 0 else { return [] }
        if minor >= 1 {
            guard let variations = reader.u32(10), variations == 0 else { return [] }
        }
        // Every lookup's type, through extension lookups (type 9).
        guard let lookupCount = reader.u16(lookupList).map(Int.init) else { return [] }
        var types: [UInt16] = []
        types.reserveCapacity(lookupCount)
        for index in 0..<lookupCount {
            guard let offset = reader.u16(lookupList + 2 + 2 * index).map(Int.init),
                  var type = reader.u16(lookupList + offset),
                  let subtables = reader.u16(lookupList + offset + 4) else { return [] }
            if type == 9 {
                // Every subtable of an extension lookup names the same type; read them all.
                var extended: UInt16?
                for subtable in 0..<Int(subtables) {
                    guard let start = reader.u16(lookupList + offset + 6 + 2 * subtable).map(Int.init),
                          let inner = reader.u16(lookupList + offset + start + 2),
                          extended == nil || extended == inner else { return [] }
                    extended = inner
                }
                type = extended ?? 9
            }
            if type == 3 { return [] }   // cursive attachment reads offsets into advances
            types.append(type)
        }
        // The candidates whose every record (one per script and language system that uses the tag)
        // lists only mark attachment lookups.
        guard let featureCount = reader.u16(featureList).map(Int.init) else { return [] }
        var markOnly: [String: Bool] = [:]
        for index in 0..<featureCount {
            let record = featureList + 2 + 6 * index
            guard let tag = reader.tag(record), let offset = reader.u16(record + 4).map(Int.init) else { return [] }
            guard candidates.contains(tag) else { continue }
            let feature = featureList + offset
            guard let count = reader.u16(feature + 2).map(Int.init) else { return [] }
            var onlyMarks = true
            for lookup in 0..<count {
                guard let lookupIndex = reader.u16(feature + 4 + 2 * lookup).map(Int.init) else { return [] }
                guard lookupIndex < types.count, (4...6).contains(types[lookupIndex]) else {
                    onlyMarks = false
                    break
                }
            }
            markOnly[tag] = (markOnly[tag] ?? true) && onlyMarks
        }
        return candidates.filter { markOnly[$0] == true }
    }

    /// A four-letter OpenType tag as HarfBuzz's integer.
    private static func tag(_ name: String) -> hb_tag_t {
        name.utf8.reduce(0) { $0 << 8 | hb_tag_t($1) }
    }

    /// Bounds-checked big-endian reads from a table; `nil` past its end.
    private struct BigEndianReader {
        let bytes: UnsafeRawBufferPointer

        func u16(_ offset: Int) -> UInt16? {
            guard offset >= 0, offset + 2 <= bytes.count else { return nil }
            return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }

        func u32(_ offset: Int) -> UInt32? {
            guard let high = u16(offset), let low = u16(offset + 2) else { return nil }
            return UInt32(high) << 16 | UInt32(low)
        }

        func tag(_ offset: Int) -> String? {
            guard offset >= 0, offset + 4 <= bytes.count else { return nil }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 4)]), as: UTF8.self)
        }
    }
}
