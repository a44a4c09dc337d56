import TextMeasureSupport
import CHarfBuzzFreeType
import CUnicodeBreak

/// Turns text into a ``PreparedText``: paragraphs → break analysis (ICU) → clusters and runs
/// (font cascade, scripts) → shaping (HarfBuzz, through the shaped-piece cache) → segments.
struct Preparer {
    /// Chooses fonts as Pango does, and as Blink does (see ``FontSelector/decomposes``).
    let selector: FontSelector
    let browserSelector: FontSelector
    /// Shaped pieces reused across texts; nil shapes every run afresh.
    let shapeCache: ShapeCache?
    /// Broken ligatures' pieces measured across texts; there when `shapeCache` is.
    let ligatureBreaks: LigatureBreakCache?
    /// The faces of hex boxes' digits, for characters the fonts lack in ``LineBreaking/pango``.
    let hexBoxDigits: HexBoxDigitFaces

    init(cascade: FontCascade, shapeCache: ShapeCache?, hexBoxDigits: HexBoxDigitFaces) {
        selector = FontSelector(cascade: cascade)
        browserSelector = FontSelector(cascade: cascade, decomposes: true)
        self.shapeCache = shapeCache
        ligatureBreaks = shapeCache == nil ? nil : LigatureBreakCache()
        self.hexBoxDigits = hexBoxDigits
    }

    /// Prepares `text`; `fonts` are the cascade's HarfBuzz fonts at the style's scale. A styled text
    /// also gives its styles (`styled`), whose fonts for style 0 are `fonts`.
    ///
    /// - Throws: ``TextMeasureError/textTooLong(byteCount:)`` for a text longer than
    ///   ``MeasurementLimits/textBytes``, or ``TextMeasureError/unicodeAnalysisFailed(code:)``.
    func prepare(_ text: String, spans: [TextSpan] = [], style: TextStyle, fonts: ScaledFonts,
                 styled: StyledPreparation? = nil) throws(TextMeasureError) -> PreparedText {
        try MeasurementLimits.check(textByteCount: text.utf8.count)
        var text = text
        let outcome: Result<Builder.Lists, TextMeasureError> = text.withUTF8 { bytes in
            PrepareScratch.withScratch { scratch in
                guard bytes.count > 0 else { return .success(Builder.Lists()) }   // empty text: no lines
                scratch.reserve(bytes: bytes.count + 1)
                var builder = Builder(reusing: scratch)
                defer { builder.handBack(to: scratch) }
                let isBrowser = style.breaking.isBrowser
                var itemizer = Itemizer(selector: isBrowser ? browserSelector : selector, choosesFontPerCharacter: isBrowser,
                                        drawsHexBoxes: !isBrowser)
                if let styled {
                    styled.fillStyles(scratch.styles, byteCount: bytes.count)
                    itemizer.styles = styled.styles
                }
                let context = Context(bytes: bytes, itemizer: itemizer,
                                      fonts: fonts, shapeCache: shapeCache, ligatureBreaks: ligatureBreaks,
                                      scratch: scratch, breaking: style.breaking,
                                      spaceAdvance: isBrowser ? Self.spaceAdvance(fonts) ?? 0 : 0,
                                      style: style, extentFloor: Self.emptyExtents(fonts, style: style).floor,
                                      styled: styled, hexBoxDigits: hexBoxDigits)
                var failure: TextMeasureError?
                Paragraphs.forEach(in: bytes, breaking: style.breaking) { start, end in
                    guard failure == nil else { return }
                    do throws(TextMeasureError) {
                        try builder.add(paragraph: start..<end, context)
                    } catch {
                        failure = error
                    }
                }
                return failure.map { .failure($0) } ?? .success(builder.lists())
            }
        }
        let lists = try outcome.get()
        let tabs = lists.hasTab
            ? Self.tabSpacing(fonts, style: style, unitsPerPixel: styled?.unitsPerPixel ?? style.unitsPerPixel)
            : (stop: 0, minimum: 0)
        let tabStop = tabs.stop
        let tabMinimum = tabs.minimum
        let lineHeights: LineHeights, extentRuns: [ExtentRun]
        if case .natural = style.lineHeight {
            let (floor, empty) = Self.emptyExtents(fonts, style: style)
            (lineHeights, extentRuns) = LineHeights.natural(
                unitsPerPixel: LineHeights.unitsPerPixel(for: style.breaking), floor: floor, empty: empty,
                runs: lists.extentRuns, firstExtent: lists.firstExtent, hasEmptyParagraph: lists.hasEmptyParagraph)
        } else {
            (lineHeights, extentRuns) = (Self.lineHeights(style, fonts: fonts), [])
        }
        return PreparedText(text: text, spans: spans, style: style,
                            unitsPerPixel: styled?.unitsPerPixel ?? style.unitsPerPixel,
                            lineHeights: lineHeights, extentRuns: extentRuns,
                            segments: lists.segments, clusters: lists.clusters,
                            lineStartAdjusts: lists.lineStartAdjusts, tabStop: tabStop, tabMinimum: tabMinimum)
    }

    /// The extent of font `index` of the cascade on a line in `style`'s engine (see ``LineExtent``).
    static func extent(ofFont index: Int, _ fonts: ScaledFonts, style: TextStyle) -> LineExtent {
        style.breaking.isBrowser ? .blink(fonts.faces[index], size: style.size) : .pango(fonts[index])
    }

    /// What every line holds whatever its fonts (`floor`), and what a line with no text reaches
    /// (`empty`), for natural line heights (see ``LineHeights``): in Pango nothing and the
    /// primary font's extent; in Blink the primary font's extent (the strut), both.
    static func emptyExtents(_ fonts: ScaledFonts, style: TextStyle) -> (floor: LineExtent, empty: LineExtent) {
        let primary = extent(ofFont: 0, fonts, style: style)
        return (style.breaking.isBrowser ? primary : .zero, primary)
    }

    /// The line heights of any text in `style`, as far as they do not depend on its fonts: every line
    /// as tall as a fixed or multiple height, or, for a natural one, as an empty line (the primary
    /// font's extent).
    static func lineHeights(_ style: TextStyle, fonts: ScaledFonts) -> LineHeights {
        let (floor, primary) = emptyExtents(fonts, style: style)
        let units = LineHeights.unitsPerPixel(for: style.breaking)
        let ascent = Double(primary.above) / Double(units), descent = Double(primary.below) / Double(units)
        let height: Double
        switch style.lineHeight {
        case .natural:
            return LineHeights.natural(unitsPerPixel: units, floor: floor, empty: primary, runs: [], firstExtent: nil,
                                       hasEmptyParagraph: true).0
        case .fixed(let fixed): height = fixed
        case .multiple(let factor): height = factor * style.size
        }
        // The primary font's extent centered in the line, half the leading above and half below (CSS's
        // half-leading; what `textmeasure render` draws).
        return .fixed(height: height, baseline: (height - (ascent + descent)) / 2 + ascent)
    }

    /// The distance between tab stops and the least a tab advances, in layout units (see
    /// `TextStyle.unitsPerPixel`), for `style`'s break rules: Blink's unrounded stop and at least half
    /// a space (and a LayoutUnit), or Pango's stop and at least a space. Also what `textmeasure
    /// render` draws tabs with.
    /// `fonts` are at `style`'s size in the text's layout units, `unitsPerPixel` (a styled text's may
    /// differ from its style's, see `StyledPreparation`).
    static func tabSpacing(_ fonts: ScaledFonts, style: TextStyle, unitsPerPixel: Int) -> (stop: Int, minimum: Int) {
        if style.breaking.isBrowser {
            let stop = unroundedTabStop(fonts, scale: fonts.scale, unitsPerPixel: unitsPerPixel)
            return (stop, max(stop / 16, LayoutUnit.inUnits(unitsPerPixel: unitsPerPixel)))
        }
        let stop = tabStop(fonts, unitsPerPixel: unitsPerPixel)
        return (stop, stop / 8)
    }

    /// Eight spaces of the first font that has a space (Pango shapes eight spaces in the layout's
    /// font); Pango's own fallback, 50 px, if none has. At most 2^31 − 1 units (two million pixels in 1/1024 px),
    /// so that a tab, like any cluster, advances less than 2^32 and no line of fewer than 2^31
    /// clusters can overflow 64 bits.
    static func tabStop(_ fonts: ScaledFonts, unitsPerPixel: Int) -> Int {
        spaceAdvance(fonts).map { min(8 * $0, Int(Int32.max)) } ?? 50 * unitsPerPixel
    }

    /// Blink's tab stop: eight spaces of the first font that has a space, each unrounded (Blink
    /// measures the space in floating point, then multiplies), at most 2^31 − 1 units as in
    /// ``tabStop(_:unitsPerPixel:)``; 50 px without a space.
    static func unroundedTabStop(_ fonts: ScaledFonts, scale: Int32, unitsPerPixel: Int) -> Int {
        for font in fonts {
            guard let face = hb_font_get_face(font.pointer) else { continue }
            var glyph: hb_codepoint_t = 0
            guard hb_font_get_nominal_glyph(font.pointer, 0x20, &glyph) != 0 else { continue }
            // A font of the face at its own scale gives the advance in font units, unrounded.
            let unscaled = hb_font_create(face)
            defer { hb_font_destroy(unscaled) }
            let units = Double(hb_font_get_glyph_h_advance(unscaled, glyph))
            let upem = Double(hb_face_get_upem(face))
            guard units > 0, upem > 0 else { continue }
            return Int(min((8 * units * Double(scale) / upem).rounded(), Double(Int32.max)))
        }
        return 50 * unitsPerPixel
    }

    /// The advance of U+0020 in the first font that has one with a positive advance, in layout units.
    static func spaceAdvance(_ fonts: ScaledFonts) -> Int? {
        for font in fonts {
            var glyph: hb_codepoint_t = 0
            guard hb_font_get_nominal_glyph(font.pointer, 0x20, &glyph) != 0 else { continue }
            let advance = Int(hb_font_get_glyph_h_advance(font.pointer, glyph))
            if advance > 0 { return advance }
        }
        return nil
    }

    /// What every paragraph of one text is prepared with.
    private struct Context {
        let bytes: UnsafeBufferPointer<UInt8>
        let itemizer: Itemizer
        /// The cascade's fonts at the style's scale, each made when a run is first shaped with it (the
        /// caller holds the object, so its fonts' handles stay valid).
        let fonts: ScaledFonts
        let shapeCache: ShapeCache?
        let ligatureBreaks: LigatureBreakCache?
        let scratch: PrepareScratch
        /// Whose rules break lines (see ``LineBreaking``).
        let breaking: LineBreaking
        /// In the browser modes, what U+2028 and U+2029 advance: a space of the first font.
        let spaceAdvance: Int
        /// The style prepared with.
        let style: TextStyle
        /// What every line's extent holds whatever its fonts (see `LineHeights.floor`).
        let extentFloor: LineExtent
        /// A styled text's styles; nil for plain text.
        let styled: StyledPreparation?
        let hexBoxDigits: HexBoxDigitFaces

        /// The fonts of `style` (see `Run.style`): ``fonts`` for plain text and style 0.
        @inline(__always)
        func fonts(of style: Int) -> ScaledFonts {
            style == 0 ? fonts : styled.unsafelyUnwrapped.styles[style].fonts
        }

        /// The font `run` is shaped with: its font, or for a run holding a character its font lacks
        /// (``Run/drawsHexBoxes``) that font's ``HexBoxFont``.
        @inline(__always)
        func handle(for run: Run) -> HBFont.Handle {
            run.drawsHexBoxes ? hexBoxFont(for: run).handle : fonts(of: run.style).handle(at: run.font)
        }

        /// The hex-box font of `run`'s font (see ``HexBoxDigitFaces/hexBoxFont(for:in:styled:)``).
        func hexBoxFont(for run: Run) -> HexBoxFont {
            hexBoxDigits.hexBoxFont(for: run, in: fonts(of: run.style), styled: styled)
        }

        /// The preparation's index of an itemized cluster's font (an index in its style's cascade).
        @inline(__always)
        func font(of cluster: Itemizer.Cluster) -> Int {
            guard let styled else { return cluster.font ?? 0 }
            return styled.styles[Int(cluster.style)].fontIndices[cluster.font ?? 0]
        }

        /// The extent of `font` (the preparation's index) in `style` on a line, with every line's
        /// floor, and in the browser modes the strut of the style's inline box (its first font at its
        /// size, which Blink's line box holds wherever the box has text).
        func extent(ofFont font: Int, style: Int) -> LineExtent {
            guard let styled, style != 0 else {
                return Preparer.extent(ofFont: font, fonts, style: self.style).union(extentFloor)
            }
            let resolved = styled.styles[style]
            if breaking.isBrowser {
                return LineExtent.blink(styled.table.faces[font], size: resolved.size).union(resolved.strut).union(extentFloor)
            }
            return LineExtent.pango(resolved.fonts[font]).union(extentFloor)
        }

        /// Browser modes: what a line reaches in `style` from text with no font of its own: the style's
        /// strut (its first font at its size) and every line's floor.
        func strutExtent(style: Int) -> LineExtent {
            guard let styled, style != 0 else { return extentFloor }
            return styled.styles[style].strut.union(extentFloor)
        }

        /// The extent run of `font` (the preparation's index) in `style` from `byteStart`, for a run of
        /// `script`: in ``LineBreaking/pango`` with the baselines Pango aligns it on (see ``Baselines``).
        func extentRun(from byteStart: Int, font: Int, style: Int, script: hb_script_t,
                       extent: LineExtent) -> ExtentRun {
            var run = ExtentRun(byteStart: Int32(byteStart), extent: extent)
            if breaking == .pango {
                run.baselineTag = Baselines.Tag(script: script)
                run.baselines = fonts(of: style).baselines(at: font, for: script)
            }
            return run
        }
    }

    /// The prepared form as it grows, paragraph by paragraph.
    ///
    /// Offsets are stored in 32 bits: `prepare` refuses texts of 2^31 bytes or more, so every byte offset
    /// and cluster index fits. Advances are summed in `Int` and stored clamped to 32 bits per cluster.
    ///
    /// The segments and clusters grow in the scratch's lists, which keep their capacity from one
    /// preparation to the next, and the result gets copies of exactly their size: no reallocation as
    /// a text's lists grow, and no spare capacity held by the prepared text.
    private struct Builder {
        var segments: [Segment]
        var clusters: [PreparedCluster]
        var lineStartAdjusts: [LineStartAdjust] = []
        var hasTab = false
        /// The runs of bytes whose fonts reach one line extent, adjacent runs differing (see
        /// `LineHeights`); and the font the last cluster added was drawn with (-1 before any).
        var extentRuns: [ExtentRun]
        var lastExtentFont = -1, lastExtentStyle = -1
        var lastExtentScript = HB_SCRIPT_INVALID.rawValue
        /// Whether some paragraph is empty (a line with no cluster).
        var hasEmptyParagraph = false
        /// Whether some empty paragraph lies in a styled span, with an extent run of its own.
        var hasEmptyLineRuns = false

        /// The prepared form's lists, at their exact size.
        struct Lists {
            var segments: [Segment] = []
            var clusters: [PreparedCluster] = []
            var lineStartAdjusts: [LineStartAdjust] = []
            var hasTab = false
            /// The runs when there are several; empty when one extent (`firstExtent`) or none covers the text.
            var extentRuns: [ExtentRun] = []
            var firstExtent: LineExtent?
            var hasEmptyParagraph = false
        }

        /// A builder growing the scratch's lists (taken out of it, so that they are not shared).
        init(reusing scratch: PrepareScratch) {
            segments = scratch.segments
            clusters = scratch.preparedClusters
            extentRuns = scratch.extentRuns
            scratch.segments = []
            scratch.preparedClusters = []
            scratch.extentRuns = []
            segments.removeAll(keepingCapacity: true)
            clusters.removeAll(keepingCapacity: true)
            extentRuns.removeAll(keepingCapacity: true)
        }

        /// Gives the lists back to the scratch for its next preparation.
        mutating func handBack(to scratch: PrepareScratch) {
            scratch.segments = segments
            scratch.preparedClusters = clusters
            scratch.extentRuns = extentRuns
            segments = []
            clusters = []
            extentRuns = []
        }

        /// Copies of the lists at their exact size. A text whose clusters all reach one extent gets
        /// no run list (its lines are equally tall, see `LineHeights`), so nothing is allocated.
        func lists() -> Lists {
            Lists(segments: Self.exactCopy(segments), clusters: Self.exactCopy(clusters),
                  lineStartAdjusts: lineStartAdjusts, hasTab: hasTab,
                  extentRuns: extentRuns.count > 1 || hasEmptyLineRuns ? Self.exactCopy(extentRuns) : [],
                  firstExtent: extentRuns.first?.extent,
                  hasEmptyParagraph: hasEmptyParagraph)
        }

        private static func exactCopy<Element>(_ list: [Element]) -> [Element] {
            guard !list.isEmpty else { return [] }
            return Array(unsafeUninitializedCapacity: list.count) { buffer, count in
                _ = buffer.initialize(from: list)
                count = list.count
            }
        }

        /// Makes room for `count` more elements, at least doubling the capacity when it grows (a text
        /// of many short paragraphs would otherwise reallocate its list once a paragraph). Always
        /// through `reserveCapacity`, which leaves the list unique: the appends after it are cheaper.
        @inline(__always)
        private static func reserve<Element>(_ count: Int, more list: inout [Element]) {
            let needed = list.count + count
            list.reserveCapacity(needed > list.capacity ? max(needed, 2 * list.capacity) : needed)
        }

        mutating func add(paragraph range: Range<Int>, _ context: Context) throws(TextMeasureError) {
            let base = range.lowerBound
            let count = range.count
            if count == 0 {
                hasEmptyParagraph = true
                // Inside a styled span, an empty line is as tall as the span's first font at its size
                // (Pango's empty-line extents at the index; Blink's inline box strut). A run of its own
                // at the paragraph's byte (its terminator, which no cluster starts at) says so to layout.
                if let styled = context.styled, base < context.bytes.count, context.scratch.styles[base] != 0 {
                    let style = Int(context.scratch.styles[base])
                    let resolved = styled.styles[style]
                    let extent = context.breaking.isBrowser ? resolved.strut.union(context.extentFloor)
                        : LineExtent.pango(resolved.fonts[resolved.fontIndices[0]])
                    extentRuns.append(ExtentRun(byteStart: Int32(base), extent: extent, isEmptyLine: true))
                    hasEmptyLineRuns = true
                    lastExtentFont = -1
                }
                let first = Int32(clusters.count)
                segments.append(Segment(byteStart: Int32(base), byteEnd: Int32(base), firstCluster: first,
                                        contentEnd: first, width: 0, hanging: 0, endAdjust: 0, isMandatoryBreak: true))
                return
            }
            let bytes = UnsafeBufferPointer(rebasing: context.bytes[range])
            let scratch = context.scratch
            let flags = scratch.flags

            // 1. Break analysis: grapheme boundaries and UAX #14 line-break opportunities (in a browser
            //    mode, with Blink's own rules on top).
            let breaking = context.breaking
            let strictness = switch breaking {
            case .pango: Int32(CUB_RULES_PANGO)
            case .browser: Int32(CUB_STRICTNESS_NORMAL)
            case .browserStrict: Int32(CUB_STRICTNESS_STRICT)
            }
            let status = bytes.withMemoryRebound(to: CChar.self) {
                cub_analyze_with($0.baseAddress, Int32(count), flags.baseAddress, strictness)
            }
            guard status == 0 else { throw .unicodeAnalysisFailed(code: status) }
            if breaking.isBrowser { BrowserBreakRules.apply(to: flags, bytes: bytes, strictness: strictness) }

            // 2. Clusters with their font and script, then runs.
            let levels = breaking == .pango ? Self.bidiLevels(bytes, scratch: scratch) : nil
            let styles = context.styled == nil ? nil : UnsafeBufferPointer(rebasing: scratch.styles[range])
            let itemized = context.itemizer.clusters(of: bytes, flags: UnsafeBufferPointer(flags), levels: levels,
                                                     styles: styles, into: &scratch.clusters)
            context.itemizer.runs(of: scratch.clusters, byteCount: count, into: &scratch.runs,
                                  marksHexBoxes: itemized.mayDrawHexBoxes)
            if breaking == .pango { Self.breakDictionaryWordsAsPango(bytes, runs: scratch.runs, flags: flags) }
            let firstCluster = clusters.count
            appendClusters(&scratch.clusters, base: base, byteCount: count, bytes: bytes, scratch: scratch,
                           breaking: breaking)
            if case .natural = context.style.lineHeight {
                appendExtentRuns(scratch.runs, clusters: scratch.clusters, base: base,
                                 neutralClusters: itemized.hasNeutralClusters, context)
            }
            if itemized.hasJoinedPieces {
                joinPieces(&scratch.clusters, firstCluster: firstCluster, byteCount: count, scratch: scratch)
            }

            // 3. Shaping: glyph advances land on HarfBuzz clusters (byte offsets)...
            let output = scratch.shape.shaperOutput
            for run in scratch.runs {
                let font = context.handle(for: run)
                if run.drawsHexBoxes || run.startsWithFontPiece {
                    // Rare; hex boxes are shaped with callbacks of our own, a font's piece of a grapheme
                    // cluster with the text before it as context: not worth the cache's keys.
                    Shaper.shape(run, of: bytes, font: font.pointer, scratch: scratch.shape, output: output)
                } else if run.startsInsideGrapheme {
                    scratch.shape.cutPieces.shape(run, of: bytes, font: font.pointer, scratch: scratch.shape, output: output)
                } else if let shapeCache = context.shapeCache {
                    shapeCache.shape(run, of: bytes, flags: UnsafeBufferPointer(flags), font: font.pointer,
                                     fontID: font.id, scratch: scratch.shape, output: output)
                } else {
                    Shaper.shape(run, of: bytes, font: font.pointer, scratch: scratch.shape, output: output)
                }
            }
            // ...and are spread over the grapheme clusters each covers; where a ligature covers several,
            // its pieces are shaped again for lines that end or start inside it.
            distributeAdvances(byteCount: count, firstCluster: firstCluster, scratch: scratch)
            measureBreaksInsideShapedClusters(bytes, firstCluster: firstCluster, context)
            if breaking.isBrowser { applyBrowserAdvances(bytes, firstCluster: firstCluster, context) }

            // 4. Segments between break opportunities; trailing spaces hang.
            let all = context.bytes, end = base + count
            // .pango: Pango counts white space at a line's end (see `countWhiteSpace`). Every paragraph
            // but the text's last ends at a hard break (see `Paragraphs`): LF, CR, U+2029 or U+2028
            // (E2 80 A8, whose third byte tells it from U+2029's).
            let endsAtSeparator = !breaking.isBrowser && end < all.count
            let endsAtLineSeparator = endsAtSeparator && all[end] == 0xE2 && all[end + 2] == 0xA8
            let firstSegment = segments.count
            let endsInWhiteSpaceRuns = appendSegments(scratch.clusters, base: base, byteCount: count,
                                                      firstCluster: firstCluster, flags: flags, bytes: bytes,
                                                      breaking: breaking)
            if endsInWhiteSpaceRuns || endsAtSeparator {
                countWhiteSpace(from: firstSegment, endsAtSeparator: endsAtSeparator,
                                endsAtLineSeparator: endsAtLineSeparator,
                                endsInBreakAfter: endsAtSeparator && Preparer.endsInBreakAfterCharacter(bytes))
            }
        }

        /// Appends the paragraph's clusters (advances still 0) and records which cluster each byte is in.
        ///
        /// In the browser modes only U+0020, tabs and U+3000 are white space that hangs (NBSP, U+202F
        /// and the other spaces are ordinary characters for Blink), and it hangs always, also after a
        /// cluster wider than the line (CSS `white-space: pre-wrap`).
        private mutating func appendClusters(_ itemized: inout ScratchList<Itemizer.Cluster>, base: Int, byteCount: Int,
                                             bytes: UnsafeBufferPointer<UInt8>, scratch: PrepareScratch,
                                             breaking: LineBreaking) {
            Self.reserve(itemized.count, more: &clusters)
            let clusterAtByte = scratch.clusterAtByte
            let isBrowser = breaking.isBrowser
            for i in itemized.indices {
                let cluster = itemized[i]
                let end = i + 1 < itemized.count ? itemized[i + 1].start : byteCount
                for byte in cluster.start..<end { clusterAtByte[byte] = Int32(i) }
                var clusterFlags: ClusterFlags = []
                if cluster.isSpace { clusterFlags = bytes[cluster.start] == 0x0C ? [.space, .formFeed] : .space }
                if i == 0 || itemized[i - 1].font ?? -1 != cluster.font ?? -1
                    || itemized[i - 1].script.rawValue != cluster.script.rawValue || itemized[i - 1].level != cluster.level
                    || itemized[i - 1].style != cluster.style {
                    clusterFlags.insert(.hangsAlways)
                }
                if isBrowser && cluster.isSpace {
                    let lead = bytes[cluster.start]
                    if lead == 0x20 || lead == 0x09 || (lead == 0xE3 && bytes[cluster.start + 1] == 0x80
                                                        && bytes[cluster.start + 2] == 0x80) {
                        clusterFlags.insert(.hangsAlways)
                    } else {
                        clusterFlags.remove(.space)
                        itemized[i].isSpace = false
                    }
                }
                // A tab (a control character: always a cluster of its own) is a run of its own in Pango,
                // so it and what follows it start runs.
                if bytes[cluster.start] == 0x09 {
                    clusterFlags.formUnion([.tab, .hangsAlways])
                    hasTab = true
                } else if i > 0 && bytes[itemized[i - 1].start] == 0x09 {
                    clusterFlags.insert(.hangsAlways)
                }
                clusters.append(PreparedCluster(start: Int32(base + cluster.start), end: Int32(base + end),
                                                advance: 0, breakAdjust: 0, flags: clusterFlags))
            }
        }

        /// ``LineBreaking/pango``: joins each piece of a grapheme cluster that Pango draws in another
        /// font than the piece before it (``Itemizer/Cluster/joinsPrevious``: a run of its own by now)
        /// to the cluster before it, since layout breaks no line inside a grapheme cluster; the pieces
        /// leave the itemized clusters too, which from here on are the layout's, one per index. The
        /// flags `appendClusters` gave the cluster after a piece stay as they are: they were set
        /// against the piece, whose run it follows. Not inline: few paragraphs have such pieces.
        @inline(never)
        private mutating func joinPieces(_ itemized: inout ScratchList<Itemizer.Cluster>, firstCluster: Int,
                                         byteCount: Int, scratch: PrepareScratch) {
            let clusterAtByte = scratch.clusterAtByte
            var kept = firstCluster - 1
            for i in itemized.indices {
                if itemized[i].joinsPrevious {
                    clusters[kept].end = clusters[firstCluster + i].end
                } else {
                    kept += 1
                    clusters[kept] = clusters[firstCluster + i]
                }
                let end = i + 1 < itemized.count ? itemized[i + 1].start : byteCount
                for byte in itemized[i].start..<end { clusterAtByte[byte] = Int32(kept - firstCluster) }
            }
            clusters.removeLast(clusters.count - kept - 1)
            itemized.removeAll { $0.joinsPrevious }
        }

        /// Whether `script` is written right to left (Arabic, Hebrew, Syriac, Thaana, N'Ko …).
        private static func isRightToLeft(_ script: hb_script_t) -> Bool {
            hb_script_get_horizontal_direction(script) == HB_DIRECTION_RTL
        }

        /// The first cluster from `i` on that starts with a letter of a strong script or a digit (the
        /// paragraph's cluster count if none does), and whether it is right-to-left text or a digit
        /// (which right-to-left text before it makes an Arabic number): the neutral characters before
        /// it then take the right-to-left level, a soft hyphen among them too.
        private static func nextStrong(_ bytes: UnsafeBufferPointer<UInt8>, _ itemized: ScratchList<Itemizer.Cluster>,
                                       from i: Int) -> (index: Int, isRightToLeft: Bool) {
            for next in i..<itemized.count {
                let (scalar, _) = UTF8Decoding.scalar(in: bytes, at: itemized[next].start)
                if scalar >= 0x30 && scalar <= 0x39 { return (next, true) }
                let script = hb_unicode_script(Itemizer.unicode, scalar)
                if !Itemizer.isWeak(script) { return (next, isRightToLeft(script)) }
            }
            return (itemized.count, false)
        }

        /// ``LineBreaking/pango``: the paragraph's bidirectional levels, one per byte, when it holds
        /// right-to-left text (Pango itemizes by level; see `Itemizer.clusters(of:flags:levels:into:)`);
        /// nil when every level is 0 or ICU fails (the clusters then take fonts as if they were).
        private static func bidiLevels(_ bytes: UnsafeBufferPointer<UInt8>,
                                       scratch: PrepareScratch) -> UnsafeBufferPointer<UInt8>? {
            guard Preparer.mayHoldRightToLeft(bytes) else { return nil }
            let levels = scratch.levels
            var paragraphLevel: UInt8 = 0
            let status = bytes.withMemoryRebound(to: CChar.self) {
                cub_bidi_levels($0.baseAddress, Int32($0.count), levels.baseAddress, &paragraphLevel)
            }
            guard status == 0 else { return nil }
            return UnsafeBufferPointer(rebasing: levels[0..<bytes.count])
        }



        /// ``LineBreaking/pango``: the words of Thai, Lao, Khmer and Myanmar runs broken as Pango breaks
        /// them, run by run as Pango tailors its items: Thai with libthai's dictionary, the others only
        /// where UAX #14 breaks without a dictionary (see `cub_pango_dictionary_breaks`).
        private static func breakDictionaryWordsAsPango(_ bytes: UnsafeBufferPointer<UInt8>, runs: [Run],
                                                        flags: UnsafeMutableBufferPointer<UInt8>) {
            for run in runs {
                let script = run.script
                let isThai = script == HB_SCRIPT_THAI
                guard isThai || script == HB_SCRIPT_LAO || script == HB_SCRIPT_KHMER || script == HB_SCRIPT_MYANMAR
                else { continue }
                let base = bytes.baseAddress! + run.start
                _ = base.withMemoryRebound(to: CChar.self, capacity: run.end - run.start) {
                    cub_pango_dictionary_breaks($0, Int32(run.end - run.start), flags.baseAddress! + run.start,
                                                isThai ? 1 : 0)
                }
            }
        }

        /// Extends the extent runs over the paragraph's shaping runs (one font and style each): an
        /// extent run starts where a run's font reaches another extent than the one before (see
        /// `LineHeights`). Per shaping run, not per cluster: a paragraph in one font costs one step.
        ///
        /// In the browser modes (`neutralClusters`: the itemizer found some) a tab, a soft hyphen, a
        /// zero-width space and the other characters that follow their neighbours' font are shaped in
        /// that font but reach no extent of their own: Blink draws a tab with the first font, and a
        /// default-ignorable character as nothing. So a line holding nothing else (a tab starting a
        /// paragraph of Arabic, a soft hyphen after a word broken before it) is as tall as its strut,
        /// not as the font of the text around it: each such cluster gets an extent run of the
        /// style's strut (`neutralClusterRuns`).
        private mutating func appendExtentRuns(_ runs: [Run], clusters: ScratchList<Itemizer.Cluster>, base: Int,
                                               neutralClusters: Bool, _ context: Context) {
            var clusterIndex = 0
            var neutralIndex = 0
            for run in runs {
                if neutralClusters && !run.drawsHexBoxes
                    && neutralClusterRuns(run, clusters: clusters, from: &neutralIndex, base: base, context) {
                    continue
                }
                if run.drawsHexBoxes {
                    appendExtentRuns(hexBoxRun: run, clusters: clusters, from: &clusterIndex, base: base, context)
                    continue
                }
                guard run.font != lastExtentFont || run.style != lastExtentStyle
                    || run.script.rawValue != lastExtentScript else { continue }
                lastExtentFont = run.font
                lastExtentStyle = run.style
                lastExtentScript = run.script.rawValue
                let extent = context.extent(ofFont: run.font, style: run.style)
                append(context.extentRun(from: base + run.start, font: run.font, style: run.style, script: run.script,
                                         extent: extent))
            }
        }

        /// Browser modes: the extent runs of a shaping run holding neutral clusters but line feeds (see
        /// `appendExtentRuns`), if it holds any (else false, and nothing appended): the run's font's
        /// extent, the strut of its style at each such cluster, the font's again after it. `index` is
        /// a cursor in `clusters`, moving forward with the runs.
        ///
        /// - Complexity: O(*k*) in the run's clusters.
        private mutating func neutralClusterRuns(_ run: Run, clusters: ScratchList<Itemizer.Cluster>,
                                                 from index: inout Int, base: Int, _ context: Context) -> Bool {
            while index < clusters.count && clusters[index].start < run.start { index += 1 }
            /// The run's font's extent from `start`.
            func fontRun(from start: Int) -> ExtentRun {
                context.extentRun(from: base + start, font: run.font, style: run.style, script: run.script,
                                  extent: context.extent(ofFont: run.font, style: run.style))
            }
            var found = false, inStrut = false
            while index < clusters.count && clusters[index].start < run.end {
                let cluster = clusters[index]
                index += 1
                let isStrut = cluster.isNeutral && context.bytes[base + cluster.start] != 0x0A
                guard isStrut != inStrut else { continue }
                inStrut = isStrut
                guard isStrut else {
                    append(fontRun(from: cluster.start))   // the font again after a neutral cluster
                    continue
                }
                if !found && cluster.start > run.start { append(fontRun(from: run.start)) }
                found = true
                append(ExtentRun(byteStart: Int32(base + cluster.start), extent: context.strutExtent(style: run.style)))
            }
            if found { lastExtentFont = -1 }
            return found
        }

        /// Appends `run` unless the last run reaches as far (see `ExtentRun.reachesAsFar(as:)`).
        @inline(__always)
        private mutating func append(_ run: ExtentRun) {
            if let last = extentRuns.last, last.reachesAsFar(as: run) { return }
            extentRuns.append(run)
        }

        /// The extent runs of a run holding hex boxes: as Pango unites its glyphs' logical rectangles,
        /// a cluster drawn with hex boxes alone reaches the box's extent, any other the font's.
        private mutating func appendExtentRuns(hexBoxRun run: Run, clusters: ScratchList<Itemizer.Cluster>,
                                               from index: inout Int, base: Int, _ context: Context) {
            let fontExtent = context.extent(ofFont: run.font, style: run.style)
            let boxExtent = context.hexBoxFont(for: run).metrics.extent.union(context.extentFloor)
            while index < clusters.count && clusters[index].start < run.start { index += 1 }
            while index < clusters.count && clusters[index].start < run.end {
                // A box is a glyph of the run's font to Pango: the run moves on that font's baselines.
                let extent = clusters[index].coverage == .uncovered ? boxExtent : fontExtent
                append(context.extentRun(from: base + clusters[index].start, font: run.font, style: run.style,
                                         script: run.script, extent: extent))
                index += 1
            }
            lastExtentFont = -1
        }

        /// Browser modes: the advances Blink gives characters that are hard breaks for Pango, and the
        /// hyphen a break after a soft hyphen shows.
        /// - A lone CR, NEL (U+0085) and FF advance nothing (Blink draws them as zero-width controls);
        ///   U+2028 and U+2029 advance a space of the first font (Blink draws them as spaces, which
        ///   do not hang).
        /// - A line ending after U+00AD SOFT HYPHEN is wider by a hyphen: it becomes the cluster's
        ///   break adjustment, so such a break is taken only where the hyphen fits too. Blink shapes the
        ///   hyphen with the style's fonts, U+2010 where the first font has it, else "-" (so after Han
        ///   or Arabic text it is Noto Sans's, not the soft hyphen's neighbours' font's).
        private mutating func applyBrowserAdvances(_ bytes: UnsafeBufferPointer<UInt8>, firstCluster: Int,
                                                   _ context: Context) {
            let itemized = context.scratch.clusters
            // The first strong cluster after the soft hyphen looked at last, kept so that a run of soft
            // hyphens is looked past once (the paragraph stays linear in its length).
            var strong = (index: -1, isRightToLeft: false)
            for (i, cluster) in itemized.enumerated() {
                let lead = bytes[cluster.start]
                let end = i + 1 < itemized.count ? itemized[i + 1].start : bytes.count
                let index = firstCluster + i
                guard lead == 0x0D || lead == 0x0C || lead == 0xC2 || lead == 0xE2 else { continue }
                let (scalar, length) = UTF8Decoding.scalar(in: bytes, at: cluster.start)
                guard length == end - cluster.start else { continue }   // lone characters only
                switch scalar {
                case 0x0D, 0x0C, 0x85:
                    clusters[index].advance = 0
                    clusters[index].breakAdjust = 0
                case 0x2028, 0x2029:
                    clusters[index].advance = Int32(clamping: context.spaceAdvance)
                    clusters[index].breakAdjust = 0
                case 0xAD:
                    clusters[index].flags.insert(.softHyphen)
                    if i > 0 && Self.isRightToLeft(itemized[i - 1].script) {
                        if strong.index <= i { strong = Self.nextStrong(bytes, itemized, from: i + 1) }
                        if !strong.isRightToLeft { clusters[index].flags.insert(.startsBlinkItem) }
                    }
                    var primary = cluster
                    primary.font = 0
                    clusters[index].breakAdjust = Int32(clamping: Int(clusters[index].breakAdjust)
                                                        + Self.hyphenAdvance(context.fonts(of: Int(cluster.style))
                                                                                .handle(at: context.font(of: primary)).pointer))
                default: break
                }
            }
        }

        /// The hyphen a break at a soft hyphen shows: U+2010, else "-", of `font` (the style's first
        /// font); 0 when it has neither.
        private static func hyphenAdvance(_ font: OpaquePointer) -> Int {
            var glyph: hb_codepoint_t = 0
            guard hb_font_get_nominal_glyph(font, 0x2010, &glyph) != 0 || hb_font_get_nominal_glyph(font, 0x2D, &glyph) != 0
            else { return 0 }
            return Int(hb_font_get_glyph_h_advance(font, glyph))
        }

        /// Gives each grapheme cluster its share of the HarfBuzz clusters' advances: a ligature spanning
        /// several grapheme clusters shares its advance evenly between them (as Pango does for its first
        /// estimate), and a grapheme cluster holding several HarfBuzz clusters takes their sum, clamped
        /// to 32 bits (±2^31 units, two million pixels: more than any cluster at any size allowed).
        /// The ligatures are listed in `scratch.ligatures` for `measureBreaksInsideShapedClusters`.
        private mutating func distributeAdvances(byteCount: Int, firstCluster: Int, scratch: PrepareScratch) {
            let output = scratch.shape.shaperOutput
            let clusterAtByte = scratch.clusterAtByte
            var ligatures = scratch.ligatures
            scratch.ligatures = []
            ligatures.removeAll(keepingCapacity: true)
            clusters.withUnsafeMutableBufferPointer { clusters in
                var byte = 0
                while byte < byteCount {
                    var end = byte + 1
                    while end < byteCount && !output.isClusterStart[end] { end += 1 }
                    let first = firstCluster + Int(clusterAtByte[byte])
                    let last = firstCluster + Int(clusterAtByte[end - 1])
                    let advance = output.advance[byte]
                    if last == first {
                        clusters[first].advance = Int32(clamping: Int(clusters[first].advance) + advance)
                    } else {
                        ligatures.append(byte..<end)
                        let parts = last - first + 1
                        let share = advance / parts
                        var remainder = advance - share * parts
                        for c in first...last {
                            clusters[c].advance = Int32(clamping: Int(clusters[c].advance) + share + remainder)
                            if c < last { clusters[c].flags.insert(.insideLigature) }
                            remainder = 0
                        }
                    }
                    clusters[last].breakAdjust = output.breakAdjust[byte]
                    byte = end
                }
            }
            scratch.ligatures = ligatures
        }


        /// The longest HarfBuzz cluster whose pieces are shaped again (see below), and the longest
        /// neighbouring cluster taken into the pieces: ligatures and the clusters around them are short.
        static let maximumReshapedBytes = 64

        /// Where a HarfBuzz cluster spans several grapheme clusters (a ligature: "fi", "ffi", Arabic
        /// lam-alef), a line may end or start between them, and then draws the pieces of the ligature
        /// on their own, as Pango does: it shapes the text of a broken item again, with the paragraph
        /// as context (so Arabic keeps its joined forms, but the ligature is undone).
        ///
        /// For each grapheme boundary `b` inside such a cluster `H`, two pieces are shaped here, so that
        /// layout stays arithmetic:
        /// - the *head*, from the start of the cluster before `H` to `b`: what a line ending at `b`
        ///   draws there. The cluster before `b` gets `breakAdjust` = head − its in-context advances.
        /// - the *tail*, from `b` to the end of the cluster after `H`: what a line starting at `b`
        ///   draws there. The cluster at `b` gets a ``LineStartAdjust`` = tail − its in-context advances
        ///   (less the break adjustment at the tail's end, which layout adds when the line ends there).
        /// A line both starting and ending inside one ligature (its middle "f" of "ffi", at a width of
        /// one glyph) is approximated by the two.
        private mutating func measureBreaksInsideShapedClusters(_ bytes: UnsafeBufferPointer<UInt8>, firstCluster: Int,
                                                                _ context: Context) {
            let scratch = context.scratch
            let output = scratch.shape.shaperOutput
            let itemized = scratch.clusters
            let limit = Self.maximumReshapedBytes
            var runIndex = 0
            for ligature in scratch.ligatures {
                let start = ligature.lowerBound, end = ligature.upperBound
                while scratch.runs[runIndex].end <= start { runIndex += 1 }
                let run = scratch.runs[runIndex]
                guard end <= run.end, end - start <= limit, output.isClusterStart[start] else { continue }
                let first = Int(scratch.clusterAtByte[start]), last = Int(scratch.clusterAtByte[end - 1])
                // The neighbouring HarfBuzz clusters in the run, when short.
                var before = start
                while before > run.start && start - before < limit {
                    before -= 1
                    if output.isClusterStart[before] { break }
                }
                if !output.isClusterStart[before] { before = start }
                var after = end
                if end < run.end {
                    var next = end + 1
                    while next < run.end && !output.isClusterStart[next] && next - end <= limit { next += 1 }
                    if next - end <= limit { after = next }
                }
                // In-context advances: the cluster's parts as `distributeAdvances` shared them.
                let parts = last - first + 1
                let share = output.advance[start] / parts
                let remainder = output.advance[start] - share * parts
                func inContext(parts range: Range<Int>) -> Int {
                    range.reduce(0) { $0 + share + ($1 == 0 ? remainder : 0) }
                }
                let beforeAdvance = before < start ? output.advance[before] : 0
                let afterAdvance = after > end ? output.advance[end] : 0
                let endAdjust = Int(output.breakAdjust[after > end ? end : start])
                let font = context.handle(for: run)
                for k in (first + 1)...last {
                    let boundary = itemized[k].start
                    let widths = Self.pieceWidths(window: before..<after, boundary: boundary, of: bytes, run: run,
                                                  font: font, context)
                    clusters[firstCluster + k - 1].breakAdjust =
                        Int32(clamping: widths.head - beforeAdvance - inContext(parts: 0..<(k - first)))
                    let adjust = widths.tail - inContext(parts: (k - first)..<parts) - afterAdvance - endAdjust
                    if adjust != 0 {
                        clusters[firstCluster + k].flags.insert(.adjustsLineStart)
                        lineStartAdjusts.append(LineStartAdjust(cluster: Int32(firstCluster + k),
                                                                adjust: Int32(clamping: adjust)))
                    }
                }
            }
        }

        /// The advances of `window` before and after `boundary`, each shaped on its own (through the
        /// measurer's cache of broken ligatures). In the browser modes the piece before the boundary
        /// is shaped without the text after it, as Blink draws the end of a line (not cached: the
        /// cache's pieces are Pango's).
        private static func pieceWidths(window: Range<Int>, boundary: Int, of bytes: UnsafeBufferPointer<UInt8>,
                                        run: Run, font handle: HBFont.Handle, _ context: Context) -> LigatureBreakCache.Widths {
            let font = handle.pointer
            if context.breaking.isBrowser {
                let scratch = context.scratch.shape
                return LigatureBreakCache.Widths(
                    head: Shaper.advanceEndingLine(window.lowerBound..<boundary, in: bytes, run: run, font: font,
                                                   scratch: scratch),
                    tail: Shaper.advance(of: boundary..<window.upperBound, in: bytes, run: run, font: font, scratch: scratch))
            }
            let cache = run.startsInsideGrapheme ? nil : context.ligatureBreaks
            let key = cache == nil ? nil
                : LigatureBreakCache.key(window: window, boundary: boundary, of: bytes, run: run, font: handle.id)
            if let key, let widths = cache?.widths(for: key) { return widths }
            let scratch = context.scratch.shape
            let widths = LigatureBreakCache.Widths(
                head: Shaper.advance(of: window.lowerBound..<boundary, in: bytes, run: run, font: font, scratch: scratch),
                tail: Shaper.advance(of: boundary..<window.upperBound, in: bytes, run: run, font: font, scratch: scratch))
            if let key { cache?.store(widths, for: key) }
            return widths
        }

        /// Whether a segment starting at byte `start` follows a hyphen with a break that needs to see
        /// the character before it: a "-" before an ASCII digit (Blink's rule) or a character past
        /// ASCII, a dash of class HH (U+2010, U+2013 …) before a letter (Chromium's ICU has UAX #14
        /// LB20a, no break after a word-initial hyphen).
        @inline(__always)
        private static func followsHyphen(_ start: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            guard start > 0 else { return false }
            let before = bytes[start - 1], next = bytes[start]
            if before == 0x2D { return next >= 0x80 || (next >= 0x30 && next <= 0x39) }
            // The HH dashes end in one of these continuation bytes (0x80 + bit): most characters that
            // start a segment of their own (every CJK character) do not get further.
            let dashEnds: UInt64 = 1 << 0x0A | 1 << 0x3E | 1 << 0x00 | 1 << 0x10 | 1 << 0x12 | 1 << 0x13 | 1 << 0x17
                | 1 << 0x1D | 1 << 0x2D
            guard before & 0xC0 == 0x80, dashEnds >> (before & 0x3F) & 1 != 0 else { return false }
            return followsDash(start, bytes)
        }

        /// ``followsHyphen(_:_:)`` past its byte tests: whether the character before `start` is an HH
        /// dash, and the one at `start` a letter.
        @inline(never)
        private static func followsDash(_ start: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            var lead = start - 1
            while lead > 0 && bytes[lead] & 0xC0 == 0x80 { lead -= 1 }
            return bytes.withMemoryRebound(to: CChar.self) {
                cub_is_unambiguous_hyphen_before_letter($0.baseAddress, Int32(bytes.count), Int32(lead), Int32(start)) != 0
            }
        }

        /// ``LineBreaking/pango``: sets the width a line ending after each of the paragraph's segments
        /// from `first` on counts of the white space after its content (`Segment.endAdjust`), where
        /// Pango counts some. It lets only the last white space character before a break hang
        /// (`find_break_extra_width`), so a line ending after several counts the others; before a
        /// paragraph's separator (`endsAtSeparator`), the separator is that character, and all of
        /// them count (the last one is marked `ClusterFlags.beforeSeparator`). Pango fits item by item,
        /// so the last of an item's characters before the next item is free too (see `LineBreaker`'s
        /// `hangPangoSpace`). Not inline: most paragraphs have no segment ending in two or more white
        /// space characters.
        ///
        /// A paragraph ending in a VT, FF or NEL (`endsInBreakAfter`: UAX #14 classes BK and NL,
        /// after which a break always lies) has a break before its separator: when that character ends
        /// a segment with content, it is the last white space before that break and hangs, the white
        /// space before it counting as anywhere else.
        ///
        /// A U+2028 after the paragraph (`endsAtLineSeparator`) counts as its separator here, and marks
        /// the segment before it `Segment.endsBeforeLineSeparator`.
        ///
        /// - Complexity: O(*n*) in the paragraph's segments and their white space.
        @inline(never)
        private mutating func countWhiteSpace(from first: Int, endsAtSeparator: Bool, endsAtLineSeparator: Bool,
                                              endsInBreakAfter: Bool) {
            for index in first..<segments.count {
                let segment = segments[index]
                let whiteStart = Int(segment.contentEnd)
                let whiteEnd = index + 1 < segments.count ? Int(segments[index + 1].firstCluster) : clusters.count
                let beforeSeparator = endsAtSeparator && index == segments.count - 1 && whiteEnd > whiteStart
                    && !(endsInBreakAfter && segment.contentEnd > segment.firstCluster)
                guard !segment.hasTab, whiteEnd - whiteStart >= 2 || beforeSeparator else { continue }
                var counted = 0
                for c in whiteStart..<whiteEnd where c == whiteEnd - 1 ? beforeSeparator
                    : !clusters[c + 1].flags.contains(.hangsAlways) {
                    counted += Int(clusters[c].advance)
                }
                segments[index].endAdjust = counted
                if beforeSeparator {
                    clusters[whiteEnd - 1].flags.insert(.beforeSeparator)
                    segments[index].endsBeforeLineSeparator = endsAtLineSeparator
                }
            }
        }

        /// Appends the paragraph's segments: the clusters between two break opportunities, with the
        /// width of their content and of the white space that hangs after it. Returns whether, in
        /// ``LineBreaking/pango``, a segment ends in two or more white space characters (see
        /// `countWhiteSpace`).
        ///
        /// In the browser modes a soft hyphen ending a segment's content shows its hyphen at a line's
        /// end also when white space follows it: Blink breaks before the white space, at the soft
        /// hyphen, and lets the white space hang after the hyphen (`"x\u{AD} y"` needs the hyphen on
        /// its first line). Only the last line of a paragraph may do without it (see `LineBreaker`).
        private mutating func appendSegments(_ itemized: ScratchList<Itemizer.Cluster>, base: Int, byteCount: Int,
                                             firstCluster: Int, flags: UnsafeMutableBufferPointer<UInt8>,
                                             bytes: UnsafeBufferPointer<UInt8>, breaking: LineBreaking) -> Bool {
            let clusters = self.clusters
            Self.reserve(itemized.count, more: &segments)
            var segmentStart = 0
            var endsInWhiteSpaceRuns = false
            for i in 1...itemized.count {
                let atEnd = i == itemized.count
                let breakFlags = atEnd ? UInt8(CUB_MANDATORY_BREAK) : flags[itemized[i].start]
                guard breakFlags & UInt8(CUB_LINE_BREAK | CUB_MANDATORY_BREAK) != 0 else { continue }
                var contentEnd = i
                while contentEnd > segmentStart && itemized[contentEnd - 1].isSpace { contentEnd -= 1 }
                var width = 0, hanging = 0, segmentHasTab = false
                for c in segmentStart..<i {
                    let cluster = clusters[firstCluster + c]
                    if c < contentEnd { width += Int(cluster.advance) } else { hanging += Int(cluster.advance) }
                    if cluster.flags.contains(.tab) { segmentHasTab = true }
                }
                if i - contentEnd >= 2 { endsInWhiteSpaceRuns = true }
                segments.append(Segment(
                    byteStart: Int32(base + itemized[segmentStart].start),
                    byteEnd: Int32(base + (atEnd ? byteCount : itemized[i].start)),
                    firstCluster: Int32(firstCluster + segmentStart), contentEnd: Int32(firstCluster + contentEnd),
                    width: width, hanging: hanging,
                    endAdjust: contentEnd > segmentStart && (contentEnd == i || (breaking.isBrowser
                        && clusters[firstCluster + contentEnd - 1].flags.contains(.softHyphen)))
                        ? Int(clusters[firstCluster + contentEnd - 1].breakAdjust) : 0,
                    isMandatoryBreak: breakFlags & UInt8(CUB_MANDATORY_BREAK) != 0, hasTab: segmentHasTab,
                    followsHyphen: breaking.isBrowser && Self.followsHyphen(itemized[segmentStart].start, bytes)))
                segmentStart = i
            }
            return endsInWhiteSpaceRuns && !breaking.isBrowser
        }
    }
}

extension Preparer {
    /// Whether `bytes` ends in VT, FF or NEL: a character after which UAX #14 always breaks (a U+2028
    /// separates paragraphs in ``LineBreaking/pango``, so none ends in one).
    static func endsInBreakAfterCharacter(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        guard count > 0 else { return false }
        if bytes[count - 1] == 0x0B || bytes[count - 1] == 0x0C { return true }
        return count >= 2 && bytes[count - 2] == 0xC2 && bytes[count - 1] == 0x85
    }

    /// Whether `bytes` may hold a character of a right-to-left level: a letter of the blocks from
    /// Hebrew to Arabic Extended (U+0590...U+08FF), of their presentation forms (U+FB1D...U+FEFC),
    /// of the right-to-left scripts of plane 1, or an explicit right-to-left mark, embedding,
    /// override or isolate. A quick look at lead bytes; ICU decides.
    static func mayHoldRightToLeft(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return false }
        var index = 0
        while index < count {
            // Eight bytes at a time: skipped whole when none is a lead byte of 0xD6 or more (each
            // byte's low seven bits plus 0x2A carry into its top bit exactly when they are 0x56 or
            // more, and its own top bit says it is past ASCII; no carry crosses bytes, as
            // 0x7F + 0x2A < 0x100), else looked at byte by byte.
            let end = min(index + 8, count)
            if end - index == 8 {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if (word & 0x7F7F_7F7F_7F7F_7F7F &+ 0x2A2A_2A2A_2A2A_2A2A) & word & 0x8080_8080_8080_8080 == 0 {
                    index = end
                    continue
                }
            }
            while index < end {
                if Self.isRightToLeftLead(bytes, at: index) { return true }
                index += 1
            }
        }
        return false
    }

    /// Whether the character whose lead byte is at `index` may be of a right-to-left level (see
    /// ``mayHoldRightToLeft(_:)``); false for continuation bytes and anything below 0xD6.
    @inline(__always)
    private static func isRightToLeftLead(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        let byte = bytes[index]
        guard byte >= 0xD6 else { return false }
        let count = bytes.count
        let next = index + 1 < count ? bytes[index + 1] : 0
        let third = index + 2 < count ? bytes[index + 2] : 0
        switch byte {
        case 0xD6...0xDF: return byte > 0xD6 || next >= 0x90
        case 0xE0: return next >= 0xA0 && next <= 0xA3
        case 0xE2:
            // U+200F RLM, U+202B RLE, U+202E RLO, U+2067 RLI.
            return (next == 0x80 && (third == 0x8F || third == 0xAB || third == 0xAE)) || (next == 0x81 && third == 0xA7)
        case 0xEF: return next >= 0xAC && next <= 0xBB
        case 0xF0:
            // U+10800...U+10FFF and U+1E800...U+1EFFF.
            return next == 0x90 && third >= 0xA0 || next == 0x9E && third >= 0xA0
        default: return false
        }
    }
}
