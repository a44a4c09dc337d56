import CHarfBuzzFreeType
import CUnicodeBreak

/// Shapes measured lines again as they are drawn: for ``TextMeasurer/glyphLayout(of:style:width:)``.
///
/// Per paragraph it repeats the preparation's analysis (grapheme clusters, fonts and scripts through
/// the same ``Itemizer``) and adds what measuring never needs: bidirectional levels (ICU, UAX #9).
/// Per line it cuts the visible text into pieces of one run and one level, shapes each with the
/// paragraph as context (so joining scripts keep their joined forms at a line's edges), and orders
/// the pieces visually (rule L2: from the highest level down to the lowest odd one, every sequence at
/// that level or above is reversed). A tab is a piece of its own that advances to the next tab stop, as
/// in the measurement (exact in left-to-right paragraphs, where visual and logical positions agree).
struct LineShaper {
    let itemizer: Itemizer
    let faces: [FontFace]
    let size: Double
    /// Layout units per pixel, the unit of `fonts`' advances (see `TextStyle.unitsPerPixel`).
    let unitsPerPixel: Double
    /// The distance between tab stops, in layout units, as the preparation computes it.
    let tabStop: Int
    /// The least a tab advances, in layout units, as the preparation computes it.
    let tabMinimum: Int
    /// The break rules: which characters end a paragraph.
    let breaking: LineBreaking
    /// A styled text's styles (their fonts, sizes and selectors, see ``StyledPreparation``); nil for
    /// plain text. `itemizer` has their selectors.
    var styled: StyledPreparation?
    /// The faces of hex boxes' digits: runs holding a character their font lacks (in
    /// ``LineBreaking/pango``) are shaped with their font's ``HexBoxFont``, as they were measured.
    var hexBoxDigits: HexBoxDigitFaces?

    /// A piece of a line: bytes of one run at one level, in the paragraph.
    private struct Piece {
        var range: Range<Int>
        var run: Run
        var level: UInt8
        var isTab = false
    }

    /// The glyph lines for `lines` (a measurement of `text`); `fonts` are the cascade's at the size.
    func lines(of text: String, _ lines: TextMeasurement.Lines,
               fonts: ScaledFonts) throws(TextMeasureError) -> [GlyphLine] {
        guard !lines.isEmpty else { return [] }
        var text = text
        let result: Result<[GlyphLine], TextMeasureError> = text.withUTF8 { bytes in
            PrepareScratch.withScratch { scratch in
                scratch.reserve(bytes: bytes.count + 1)
                styled?.fillStyles(scratch.styles, byteCount: bytes.count)
                var shaped: [GlyphLine] = []
                var failure: TextMeasureError?
                Paragraphs.forEach(in: bytes, breaking: breaking) { start, end in
                    guard failure == nil else { return }
                    var mine: [TextMeasurement.Line] = []
                    while shaped.count + mine.count < lines.count {
                        let line = lines[shaped.count + mine.count]
                        guard line.utf8Range.lowerBound >= start && line.utf8Range.upperBound <= end else { break }
                        mine.append(line)
                    }
                    guard !mine.isEmpty else { return }
                    do throws(TextMeasureError) {
                        shaped += try paragraph(start..<end, lines: mine, of: bytes, fonts: fonts, scratch: scratch)
                    } catch {
                        failure = error
                    }
                }
                return failure.map { .failure($0) } ?? .success(shaped)
            }
        }
        return try result.get()
    }

    /// The glyph lines of one paragraph (`range` of `text`).
    private func paragraph(_ range: Range<Int>, lines: [TextMeasurement.Line], of text: UnsafeBufferPointer<UInt8>,
                           fonts: ScaledFonts, scratch: PrepareScratch) throws(TextMeasureError) -> [GlyphLine] {
        let base = range.lowerBound
        let bytes = UnsafeBufferPointer(rebasing: text[range])
        guard bytes.count > 0 else {
            return lines.map { GlyphLine(utf8Range: $0.utf8Range, width: $0.width, drawnWidth: 0, isRightToLeft: false, runs: []) }
        }
        let flags = scratch.flags
        let status = bytes.withMemoryRebound(to: CChar.self) { cub_analyze($0.baseAddress, Int32(bytes.count), flags.baseAddress) }
        guard status == 0 else { throw .unicodeAnalysisFailed(code: status) }
        let styles = styled == nil ? nil : UnsafeBufferPointer(rebasing: scratch.styles[range])
        let itemized = itemizer.clusters(of: bytes, flags: UnsafeBufferPointer(flags), styles: styles,
                                         into: &scratch.clusters)
        itemizer.runs(of: scratch.clusters, byteCount: bytes.count, into: &scratch.runs,
                      marksHexBoxes: itemized.mayDrawHexBoxes)
        let clusters = scratch.clusters, runs = scratch.runs
        var levels = [UInt8](repeating: 0, count: bytes.count)
        var paragraphLevel: UInt8 = 0
        let bidi = bytes.withMemoryRebound(to: CChar.self) {
            cub_bidi_levels($0.baseAddress, Int32(bytes.count), &levels, &paragraphLevel)
        }
        guard bidi == 0 else { throw .unicodeAnalysisFailed(code: bidi) }

        var glyphLines: [GlyphLine] = []
        glyphLines.reserveCapacity(lines.count)
        var first = 0   // the first cluster of the line (lines come in order)
        var runIndex = 0
        for line in lines {
            let lineStart = line.utf8Range.lowerBound - base, lineEnd = line.utf8Range.upperBound - base
            while first < clusters.count && clusters[first].start < lineStart { first += 1 }
            var last = first   // one past the line's last cluster
            while last < clusters.count && clusters[last].start < lineEnd { last += 1 }
            // The visible clusters: hanging white space and control characters at the end dropped.
            var visibleEnd = last
            while visibleEnd > first && (clusters[visibleEnd - 1].isSpace || Self.isControl(bytes[clusters[visibleEnd - 1].start])) {
                visibleEnd -= 1
            }
            var pieces: [Piece] = []
            for i in first..<visibleEnd {
                let cluster = clusters[i]
                let end = i + 1 < clusters.count ? clusters[i + 1].start : bytes.count
                while runs[runIndex].end <= cluster.start { runIndex += 1 }
                let level = levels[cluster.start]
                let isTab = bytes[cluster.start] == 0x09
                if let previous = pieces.last, previous.level == level, previous.run.start == runs[runIndex].start,
                   !previous.isTab && !isTab {
                    pieces[pieces.count - 1].range = previous.range.lowerBound..<end
                } else {
                    pieces.append(Piece(range: cluster.start..<end, run: runs[runIndex], level: level, isTab: isTab))
                }
            }
            // Pango moves the runs of a line onto the baseline of its first run's script (see `Baselines`).
            var lineBaseline: (tag: Baselines.Tag, value: Int)?
            if breaking == .pango, let firstPiece = pieces.first(where: { $0.range.lowerBound == clusters[first].start }) {
                let tag = Baselines.Tag(script: firstPiece.run.script)
                lineBaseline = (tag, Int(baselines(of: firstPiece.run, fonts)[tag]))
            }
            Self.reorderVisually(&pieces)
            var x = 0
            let glyphRuns = pieces.map { piece in
                let rise = lineBaseline.map { $0.value - Int(baselines(of: piece.run, fonts)[$0.tag]) } ?? 0
                return shape(piece, of: bytes, font: font(of: piece.run, fonts), buffer: scratch.shape.buffer,
                             rise: rise, x: &x)
            }
            glyphLines.append(GlyphLine(utf8Range: line.utf8Range, width: line.width, drawnWidth: Double(x) / unitsPerPixel,
                                        isRightToLeft: paragraphLevel == 1, runs: glyphRuns))
            first = last
        }
        return glyphLines
    }

    /// The font `run` is shaped with, as the preparation shaped it.
    private func font(of run: Run, _ fonts: ScaledFonts) -> OpaquePointer {
        let runFonts = styled?.styles[run.style].fonts ?? fonts
        guard run.drawsHexBoxes, let hexBoxDigits else { return runFonts.handle(at: run.font).pointer }
        return hexBoxDigits.hexBoxFont(for: run, in: runFonts, styled: styled).pointer
    }

    /// The baselines of `run`'s font (a box drawn for a character it lacks is still its glyph).
    private func baselines(of run: Run, _ fonts: ScaledFonts) -> Baselines {
        (styled?.styles[run.style].fonts ?? fonts).baselines(at: run.font, for: run.script)
    }

    /// C0 controls and DEL: a tab or a hard break, drawn as nothing.
    private static func isControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F }

    /// Rule L2 of UAX #9 over the pieces of one line, in place.
    private static func reorderVisually(_ pieces: inout [Piece]) {
        guard let highest = pieces.map(\.level).max(),
              let lowestOdd = pieces.map(\.level).filter({ $0 & 1 == 1 }).min() else { return }
        var level = highest
        while level >= lowestOdd {
            var i = 0
            while i < pieces.count {
                guard pieces[i].level >= level else { i += 1; continue }
                var end = i + 1
                while end < pieces.count && pieces[end].level >= level { end += 1 }
                pieces[i..<end].reverse()
                i = end
            }
            level -= 1
        }
    }

    /// Shapes one piece with the paragraph as context; its glyphs start at `x` (layout units), which
    /// moves past them, `rise` layout units above the line's baseline.
    private func shape(_ piece: Piece, of bytes: UnsafeBufferPointer<UInt8>, font: OpaquePointer,
                       buffer: OpaquePointer, rise: Int, x: inout Int) -> GlyphRun {
        if piece.isTab, tabStop > 0 {
            // The first stop at least `tabMinimum` on, as `LineBreaker` counts it.
            x = (x + tabMinimum + tabStop - 1) / tabStop * tabStop
            return GlyphRun(face: faces[piece.run.font], size: size(of: piece.run), level: piece.level, glyphs: [])
        }
        hb_buffer_clear_contents(buffer)
        var flags = HB_BUFFER_FLAG_DEFAULT.rawValue
        if piece.run.startsInsideGrapheme && piece.range.lowerBound == piece.run.start {
            flags |= HB_BUFFER_FLAG_DO_NOT_INSERT_DOTTED_CIRCLE.rawValue
        }
        hb_buffer_set_flags(buffer, hb_buffer_flags_t(rawValue: flags))
        bytes.withMemoryRebound(to: CChar.self) { chars in
            hb_buffer_add_utf8(buffer, chars.baseAddress, Int32(chars.count), UInt32(piece.range.lowerBound),
                               Int32(piece.range.count))
        }
        hb_buffer_set_script(buffer, piece.run.script)
        hb_buffer_set_direction(buffer, piece.level & 1 == 1 ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        hb_shape(font, buffer, nil, 0)
        var count: UInt32 = 0
        var glyphs: [GlyphRun.Glyph] = []
        if let infos = hb_buffer_get_glyph_infos(buffer, &count), let positions = hb_buffer_get_glyph_positions(buffer, nil) {
            glyphs.reserveCapacity(Int(count))
            for i in 0..<Int(count) {
                let id = infos[i].codepoint
                // A hex box (Pango's unknown glyph) is handed out as the face's `.notdef`, at the box's
                // advance; Pango's empty glyph draws nothing.
                if !Self.isControl(bytes[Int(infos[i].cluster)]) && id != HexBoxFont.emptyGlyph {
                    glyphs.append(GlyphRun.Glyph(id: HexBoxFont.isPangoGlyph(id) ? 0 : id,
                                                 x: Double(x + Int(positions[i].x_offset)) / unitsPerPixel,
                                                 y: Double(Int(positions[i].y_offset) + rise) / unitsPerPixel))
                }
                x += Int(positions[i].x_advance)
            }
        }
        return GlyphRun(face: faces[piece.run.font], size: size(of: piece.run), level: piece.level, glyphs: glyphs)
    }

    /// The font size of a run: its style's.
    private func size(of run: Run) -> Double {
        styled?.runs.styles[run.style].size ?? size
    }
}
