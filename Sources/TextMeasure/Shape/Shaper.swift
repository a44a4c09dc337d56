import CHarfBuzzFreeType

/// Shapes runs with HarfBuzz and reports glyph advances per HarfBuzz cluster.
///
/// Widths are integers in layout units (the HarfBuzz font scale is size × `TextStyle.unitsPerPixel`:
/// 1/1024 px as Pango computes them, 1/65536 px as Blink does), unhinted and unrounded to pixels;
/// kerning and ligatures are on (HarfBuzz defaults).
/// The `hb_buffer_t` passed in belongs to the calling thread (see ``ShapeScratch``).
enum Shaper {
    /// Where shaping results go: per byte offset of the paragraph, the advance of the HarfBuzz cluster
    /// starting there, whether one starts there, its break adjustment, and whether HarfBuzz marked the
    /// boundary before it unsafe to concatenate; and, for what the shaped-piece cache reuses across sizes,
    /// the cluster's glyph when it is plain.
    ///
    /// Advances are summed in `Int`: a cluster may hold any number of glyphs, and HarfBuzz's 32-bit
    /// positions (up to 2^31 each, at most 2^30 glyphs a buffer) cannot overflow 64 bits.
    struct Output {
        var advance: UnsafeMutableBufferPointer<Int>
        var isClusterStart: UnsafeMutableBufferPointer<Bool>
        var breakAdjust: UnsafeMutableBufferPointer<Int32>
        var isUnsafe: UnsafeMutableBufferPointer<Bool>
        /// The cluster's glyph if the cluster is one glyph that no lookup positioned (its advance is
        /// the nominal one, from `hmtx`), else `notPlain`. What no lookup positioned at one size is
        /// positioned by none at any size (which lookups apply depends on glyphs, not on the scale), so
        /// at another size its advance is that size's nominal advance of the same glyph (see
        /// ``ShapeCache``).
        var plainGlyph: UnsafeMutableBufferPointer<UInt32>

        /// Not a glyph: the cluster is not plain (or nothing was shaped there).
        static let notPlain = UInt32.max
    }

    /// Shapes `run` of the paragraph `bytes` (the whole paragraph is passed as context, so joining
    /// scripts shape correctly at run edges) and writes, at each glyph's cluster (byte offset), the sum
    /// of its glyphs' advances, clearing what an earlier shaping of the same bytes left there.
    ///
    /// The break adjustment is how much wider a cluster is when a line ends right after it: HarfBuzz
    /// applies pair kerning to the first glyph of the pair in logical order, in both directions, and a
    /// line broken between the two is shaped without the pair (Pango reshapes both sides of a break).
    /// It is the difference between the nominal and the positioned advance of the cluster's logically
    /// last glyph that advances (not a mark on it), clamped to 32 bits.
    /// `font` is an immutable `hb_font_t` (see ``HBFont``), passed as a raw pointer so that two threads
    /// shaping with the same font do not contend on its reference count.
    static func shape(_ run: Run, of bytes: UnsafeBufferPointer<UInt8>, font: OpaquePointer, scratch: ShapeScratch,
                      output: Output) {
        for offset in run.start..<run.end {
            output.advance[offset] = 0
            output.breakAdjust[offset] = 0
            output.isClusterStart[offset] = false
            output.isUnsafe[offset] = false
            output.plainGlyph[offset] = Output.notPlain
        }
        guard let (infos, positions, count) = shapeGlyphs(run.start..<run.end, of: bytes, run: run, font: font,
                                                          scratch: scratch) else { return }
        let isLTR = hb_script_get_horizontal_direction(run.script) != HB_DIRECTION_RTL
        // Every glyph's nominal advance in one call, not one call per glyph.
        let nominal = scratch.nominalAdvances(count: count)
        hb_font_get_glyph_h_advances(font, UInt32(count),
                                     UnsafeRawPointer(infos).advanced(by: MemoryLayout<hb_glyph_info_t>.offset(of: \.codepoint)!)
                                        .assumingMemoryBound(to: hb_codepoint_t.self),
                                     UInt32(MemoryLayout<hb_glyph_info_t>.stride), nominal,
                                     UInt32(MemoryLayout<hb_position_t>.stride))
        var adjustedCluster = -1
        for i in 0..<count {
            let cluster = Int(infos[i].cluster)
            output.advance[cluster] += Int(positions[i].x_advance)
            // A cluster's first glyph sets it; a second one makes the cluster not plain.
            output.plainGlyph[cluster] = !output.isClusterStart[cluster] && positions[i].x_advance == nominal[i]
                ? infos[i].codepoint : Output.notPlain
            output.isClusterStart[cluster] = true
            // The flag marks the boundary before this glyph's cluster (HarfBuzz sets it only from a
            // shaping that holds both sides).
            if hb_glyph_info_get_glyph_flags(infos + i).rawValue & HB_GLYPH_FLAG_UNSAFE_TO_CONCAT.rawValue != 0 {
                output.isUnsafe[cluster] = true
            }
            // The cluster's last glyph in logical order that advances (a mark after its base has no
            // advance; the kerning is on the base): a cluster's glyphs are consecutive, and
            // right-to-left glyphs come in visual order, so there the first one that advances is it.
            if positions[i].x_advance != 0 && (isLTR || adjustedCluster != cluster) {
                output.breakAdjust[cluster] = Int32(clamping: Int(nominal[i]) - Int(positions[i].x_advance))
                adjustedCluster = cluster
            }
        }
    }

    /// The advance of `range` of the paragraph `bytes` shaped on its own, as a line that starts or ends
    /// inside a ligature draws it: the text around it is passed as context (so Arabic letters keep their
    /// joined forms, as in Pango), but no ligature or kerning reaches across the range's edges.
    static func advance(of range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>, run: Run, font: OpaquePointer,
                        scratch: ShapeScratch) -> Int {
        guard let (_, positions, count) = shapeGlyphs(range, of: bytes, run: run, font: font, scratch: scratch) else {
            return 0
        }
        var advance = 0
        for i in 0..<count { advance += Int(positions[i].x_advance) }
        return advance
    }

    /// The advance of `range` shaped as the end of a line: with the text before it as context, none
    /// after it, as Blink shapes the last piece of a line that ends inside a ligature (Arabic lam
    /// then takes its isolated or final form, not the one joined to the alef on the next line).
    static func advanceEndingLine(_ range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>, run: Run,
                                  font: OpaquePointer, scratch: ShapeScratch) -> Int {
        advance(of: range, in: UnsafeBufferPointer(rebasing: bytes[..<range.upperBound]), run: run, font: font,
                scratch: scratch)
    }

    /// Shapes `range` (inside `run`) of the paragraph in the scratch's buffer, with the paragraph as
    /// context; returns the buffer's glyphs, or nil when there are none (or HarfBuzz ran out of memory).
    private static func shapeGlyphs(_ range: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>, run: Run,
                                    font: OpaquePointer, scratch: ShapeScratch)
        -> (UnsafeMutablePointer<hb_glyph_info_t>, UnsafeMutablePointer<hb_glyph_position_t>, Int)? {
        let buffer = scratch.buffer
        hb_buffer_clear_contents(buffer)
        var flags = HB_BUFFER_FLAG_PRODUCE_UNSAFE_TO_CONCAT.rawValue
        // A piece of a cut grapheme cluster may begin with marks: they have no base, by our choice.
        if run.startsInsideGrapheme && range.lowerBound == run.start {
            flags |= HB_BUFFER_FLAG_DO_NOT_INSERT_DOTTED_CIRCLE.rawValue
        }
        hb_buffer_set_flags(buffer, hb_buffer_flags_t(rawValue: flags))
        // Lengths fit: a prepared text is shorter than 2^31 bytes (see `MeasurementLimits.textBytes`).
        bytes.withMemoryRebound(to: CChar.self) { chars in
            hb_buffer_add_utf8(buffer, chars.baseAddress, Int32(chars.count), UInt32(range.lowerBound),
                               Int32(range.count))
        }
        hb_buffer_set_script(buffer, run.script)
        let direction = hb_script_get_horizontal_direction(run.script)
        hb_buffer_set_direction(buffer, direction == HB_DIRECTION_RTL ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        // What `hb_shape` does, with the plan looked up once per thread and the features that only
        // place marks switched off (advances are all we measure).
        let plan = scratch.shapePlan(font: font)
        plan.features.withUnsafeBufferPointer {
            _ = hb_shape_plan_execute(plan.plan, font, buffer, $0.baseAddress, UInt32($0.count))
        }

        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, nil), count > 0 else { return nil }
        return (infos, positions, Int(count))
    }
}
