import CFreeType

/// Shapes runs with HarfBuzz and reports glyph advances per HarfBuzz cluster.
///
/// Widths are integers in 1/1024 px (the HarfBuzz font scale is size × 1024), unhinted and unrounded
/// to pixels, exactly as Pango computes them; kerning and ligatures are on (HarfBuzz defaults).
/// The `hb_buffer_t` passed in belongs to the calling thread (see ``PrepareScratch``).
enum Shaper {
    /// Where shaping results go: per byte offset of the paragraph, the advance of the HarfBuzz cluster
    /// starting there, whether one starts there, its break adjustment, and whether HarfBuzz marked the
    /// boundary before it unsafe to concatenate.
    struct Output {
        var advance: UnsafeMutableBufferPointer<Int32>
        var isClusterStart: UnsafeMutableBufferPointer<Bool>
        var breakAdjust: UnsafeMutableBufferPointer<Int32>
        var isUnsafe: UnsafeMutableBufferPointer<Bool>
    }

    /// Shapes `run` of the paragraph `bytes` (the whole paragraph is passed as context, so joining
    /// scripts shape correctly at run edges) and writes, at each glyph's cluster (byte offset), the sum
    /// of its glyphs' advances, clearing what an earlier shaping of the same bytes left there.
    ///
    /// The break adjustment is how much wider a cluster is when a line ends right after it: HarfBuzz
    /// applies pair kerning to the first glyph of the pair, and a line broken between the two is shaped
    /// without the pair (Pango reshapes both sides of a break). It is the difference between the nominal
    /// and the positioned advance of the cluster's last glyph, for left-to-right runs (right-to-left
    /// scripts here break only at spaces, where it does not matter).
    /// `font` is an immutable `hb_font_t` (see ``HBFont``), passed as a raw pointer so that two threads
    /// shaping with the same font do not contend on its reference count.
    static func shape(_ run: Run, of bytes: UnsafeBufferPointer<UInt8>, font: OpaquePointer, scratch: PrepareScratch,
                      output: Output) {
        let buffer = scratch.buffer
        for offset in run.start..<run.end {
            output.advance[offset] = 0
            output.breakAdjust[offset] = 0
            output.isClusterStart[offset] = false
            output.isUnsafe[offset] = false
        }
        hb_buffer_clear_contents(buffer)
        hb_buffer_set_flags(buffer, hb_buffer_flags_t(rawValue: HB_BUFFER_FLAG_PRODUCE_UNSAFE_TO_CONCAT.rawValue))
        bytes.withMemoryRebound(to: CChar.self) { chars in
            hb_buffer_add_utf8(buffer, chars.baseAddress, Int32(chars.count), UInt32(run.start), Int32(run.end - run.start))
        }
        hb_buffer_set_script(buffer, run.script)
        let direction = hb_script_get_horizontal_direction(run.script)
        hb_buffer_set_direction(buffer, direction == HB_DIRECTION_RTL ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        // What `hb_shape` does, with the plan looked up once per thread.
        hb_shape_plan_execute(scratch.shapePlan(font: font), font, buffer, nil, 0)

        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, nil), count > 0 else { return }
        let isLTR = direction != HB_DIRECTION_RTL
        for i in 0..<Int(count) {
            let cluster = Int(infos[i].cluster)
            output.advance[cluster] &+= positions[i].x_advance
            output.isClusterStart[cluster] = true
            // The flag marks the boundary before this glyph's cluster (HarfBuzz sets it only from a
            // shaping that holds both sides).
            if hb_glyph_info_get_glyph_flags(infos + i).rawValue & HB_GLYPH_FLAG_UNSAFE_TO_CONCAT.rawValue != 0 {
                output.isUnsafe[cluster] = true
            }
            let isLastOfCluster = i + 1 == Int(count) || infos[i + 1].cluster != infos[i].cluster
            if isLTR && isLastOfCluster && positions[i].x_advance != 0 {
                let nominal = hb_font_get_glyph_h_advance(font, infos[i].codepoint)
                output.breakAdjust[cluster] = nominal - positions[i].x_advance
            }
        }
    }
}
