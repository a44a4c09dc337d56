import TextMeasureSupport
import CHarfBuzzFreeType
import CUnicodeBreak

/// A maximal stretch of clusters (see ``Itemizer/Cluster``) with one font, script and style: the unit
/// HarfBuzz shapes.
struct Run {
    /// Byte range in the paragraph.
    var start: Int
    var end: Int
    /// Index of the font in the preparation's fonts: the cascade's for plain text, a styled text's
    /// table of every face's fonts otherwise (see `StyledFontTable`).
    var font: Int
    var script: hb_script_t
    /// The style of a styled text the run is drawn in (0: plain; see `StyleRuns`).
    var style = 0
    /// The run begins inside a grapheme cluster that ``Itemizer`` cut because it was too long: HarfBuzz
    /// must not draw a dotted circle for the marks it begins with, and the shaped-piece cache (whose
    /// keys do not say so) is not used.
    var startsInsideGrapheme = false
    /// ``LineBreaking/pango``: the run begins with a piece of a grapheme cluster in another font than
    /// the piece before it (``Itemizer/Cluster/joinsPrevious``). It is shaped as Pango shapes such an
    /// item, with the paragraph as context and no flag against dotted circles, so that HarfBuzz's
    /// syllabic shapers draw one for a broken cluster (a Devanagari nukta after a Latin letter); not
    /// through the shaped-piece cache, since such runs are rare and begin with marks whose shaping
    /// may read the base before them, which a cached piece does not see.
    var startsWithFontPiece = false
    /// In ``LineBreaking/pango``: the run holds a character its font lacks, which Pango draws as a hex
    /// box: it is shaped with the font's ``HexBoxFont``, not through the shaped-piece cache.
    var drawsHexBoxes = false
}

/// Splits a paragraph into runs: the font is chosen per grapheme cluster through the cascade (in the
/// browser modes a cluster is never split across fonts; in ``LineBreaking/pango`` it is where Pango's
/// per-character choice splits it), and the script per cluster, with Common and Inherited characters
/// taking the script of the text around them.
///
/// Font choice for a cluster:
/// 1. an emoji-presentation cluster (U+FE0F, an Emoji_Presentation or Emoji_Modifier_Base base, or a ZWJ
///    sequence, as Pango's emoji segmentation has them) takes the first color font that covers its base;
/// 2. otherwise the first font covering every character of the cluster (ignoring joiners and selectors),
///    else the first covering its base, else the primary font (which draws `.notdef`). In
///    ``LineBreaking/pango``, where its characters' first covering fonts differ, Pango's per-character
///    choice instead: the cluster is cut where the font changes (see `appendPangoPieces`);
/// 3. a lone space, control or format character or variation selector never picks a font of its own
///    (as in Pango): it takes the font of the text around it (see ``Followers``).
///
/// With ``drawsHexBoxes`` (``LineBreaking/pango``), each cluster also records whether its font lacks
/// its characters (``Cluster/coverage``), and a run holding such a cluster is shaped as Pango draws
/// them (see ``HexBoxFont``).
///
/// With ``choosesFontPerCharacter`` (the browser modes), as Blink does for a `font-family` list: a
/// space and a control character (but tab and line feed) take the first font that has them, like any
/// other character (a C0 control NanumGothic's blank glyph, 0.28 em; DEL and the C1 controls Noto Sans
/// Symbols 2's empty one, whose extent the line then reaches), and only a cluster holding
/// U+FE0F asks for a color font first (an emoji without it takes the first font that covers it,
/// a text glyph if a text font comes first).
///
/// A styled text's clusters each take the style of their first byte (see `StyleRuns`), and their
/// font from that style's cascade (``styles``); runs end where the style changes, as Pango's
/// items end where attributes change and Blink's where an inline box does. Neutral clusters take
/// the font of neighbours in their own style only.
///
/// Grapheme clusters are bounded (see ``maximumNonStarters`` and ``maximumScalars``): a longer one is cut
/// into pieces that are clusters of their own, shaped separately. No script needs more, and without a
/// bound one cluster of N combining marks costs HarfBuzz 6.0 O(N²) time.
struct Itemizer {
    /// The selector of plain text (style 0).
    let selector: FontSelector
    /// Fonts are chosen as Blink chooses them (see above), not as Pango does.
    var choosesFontPerCharacter = false
    /// Characters a cluster's font lacks are found, for Pango's hex boxes (see ``Cluster/coverage``).
    var drawsHexBoxes = false
    /// A styled text's styles (their selectors and fonts); empty for plain text. A cluster's
    /// ``Cluster/font`` is an index in its style's cascade; `runs` maps it to the preparation's fonts
    /// through the style's `fontIndices`.
    var styles: [StyledPreparation.Style] = []

    /// The selector of clusters in `style`.
    @inline(__always)
    private func selector(of style: UInt16) -> FontSelector {
        style == 0 ? selector : styles[Int(style)].selector
    }
    // HarfBuzz's default Unicode functions are an immutable, process-wide object: safe from any thread.
    nonisolated(unsafe) static let unicode = hb_unicode_funcs_get_default()

    /// The most non-starters (characters of canonical combining class other than 0) in a row inside one
    /// cluster: Unicode's Stream-Safe Text Format (UAX #15) allows 30; the 31st starts a new cluster.
    static let maximumNonStarters = 30
    /// The most characters in one cluster. The longest emoji ZWJ sequences have 10, a base with 30
    /// marks 31; past this (a chain of thousands of joiners, jamo or viramas), a new cluster starts.
    static let maximumScalars = 32

    /// One entry per grapheme cluster of the paragraph, or per piece of one (too long, or in
    /// ``LineBreaking/pango`` drawn in several fonts: see ``continuesGrapheme`` and ``joinsPrevious``):
    /// its byte start, chosen font, resolved script and whether it is a lone hanging space.
    struct Cluster {
        var start: Int
        /// Index of the font in its style's cascade; nil for a neutral cluster until ``Followers`` gives
        /// it its neighbours' font (every cluster has one once `clusters(of:flags:into:)` returns).
        var font: Int?
        /// ``LineBreaking/pango``: a piece of a grapheme cluster after its first, drawn in another font
        /// (see `appendPangoPieces`): a run of its own to shaping, one cluster with the piece before
        /// it to layout. Beside `font`, in its padding: the list's stride stays 32 bytes.
        var joinsPrevious = false
        var script: hb_script_t
        var isSpace: Bool
        /// A lone space, control or format character or selector: it follows its neighbours' font.
        var isNeutral: Bool
        var isEmoji: Bool
        /// The cluster is a piece of an over-long grapheme cluster, after its first (see
        /// ``Itemizer/maximumScalars``): it starts a run of its own, shaped separately.
        var continuesGrapheme = false
        /// The bidirectional embedding level of its first character, when the paragraph's levels were
        /// given (see `clusters(of:flags:levels:into:)`); 0 otherwise.
        var level: UInt8 = 0
        /// With ``Itemizer/drawsHexBoxes``: whether its font has its characters. White space, default
        /// ignorable characters and hard breaks count as had (Pango draws no box for them). Beside
        /// `level`, where the layout has a spare byte: the list's stride stays 32 bytes.
        var coverage = Coverage.covered
        /// The style of a styled text it is drawn in: its first byte's (0: plain).
        var style: UInt16 = 0
    }

    /// How much of a cluster its font draws (see ``Cluster/coverage``).
    enum Coverage: UInt8 {
        /// Every character (or not looked at: ``Itemizer/drawsHexBoxes`` is off).
        case covered
        /// Some characters are drawn as hex boxes, others with the font's glyphs.
        case partlyCovered
        /// Every character is drawn as a hex box: the cluster's extent is the box's (see
        /// ``HexBoxFont/Metrics/extent``).
        case uncovered
        /// A lone control or format character whose font comes from its neighbours: decided when it
        /// has it (`giveFont`).
        case pending
    }

    /// Fills `clusters` for the paragraph's bytes, given the boundary flags from `cub_analyze`, and in
    /// ``LineBreaking/pango`` for a paragraph with right-to-left text its bidirectional levels (one per
    /// byte): Pango starts an item wherever the level changes, so a stretch of neutral clusters takes
    /// the font of the neighbour it shares its level with (see `giveFont`), and runs end there.
    ///
    /// A styled text's paragraph gives each byte's style in `styles`.
    ///
    /// - Returns: What the runs and the preparation need to know (see ``Findings``).
    /// - Complexity: O(n) in the paragraph's bytes.
    @discardableResult
    func clusters(of bytes: UnsafeBufferPointer<UInt8>, flags: UnsafeBufferPointer<UInt8>,
                  levels: UnsafeBufferPointer<UInt8>? = nil, styles: UnsafeBufferPointer<UInt16>? = nil,
                  into clusters: inout ScratchList<Cluster>) -> Findings {
        clusters.removeAll()
        var followers = Followers()
        defer { followers.openBrackets?.deallocate() }
        let count = bytes.count
        var start = 0
        // The current style's selector, fetched again only where the style changes: one reference
        // held per paragraph of plain text, not one retained per cluster.
        var style: UInt16 = 0
        var selector = self.selector
        while start < count {
            var end = start + 1
            while end < count && flags[end] & UInt8(CUB_GRAPHEME_BOUNDARY) == 0 { end += 1 }
            if let styles, styles[start] != style {
                style = styles[start]
                selector = self.selector(of: style)
            }
            // A cluster of at most `maximumScalars` bytes cannot hold too many characters.
            if end - start <= Self.maximumScalars {
                append(bytes, start, end, continuesGrapheme: false, level: levels?[start] ?? 0,
                       style: style, selector: selector, to: &clusters, &followers)
            } else {
                var pieceStart = start
                while pieceStart < end {
                    let pieceEnd = Self.pieceEnd(in: bytes, from: pieceStart, to: end)
                    append(bytes, pieceStart, pieceEnd, continuesGrapheme: pieceStart > start,
                           level: levels?[pieceStart] ?? 0, style: style, selector: selector, to: &clusters,
                           &followers)
                    pieceStart = pieceEnd
                }
            }
            start = end
        }
        if followers.neutralStart >= 0 {
            giveFont(to: &clusters, from: followers.neutralStart, fontAfter: nil, scriptAfter: HB_SCRIPT_INVALID,
                     levelAfter: 0, bytes: bytes)
        }
        return followers.findings
    }

    /// What `clusters(of:flags:levels:styles:into:)` found that the steps after it need.
    struct Findings {
        /// With ``Itemizer/drawsHexBoxes``, a cluster lacks a glyph, or may (a control whose font was
        /// not decided when it was appended): pass it on to `runs(of:byteCount:into:marksHexBoxes:)`.
        /// False when none does, or without it.
        var mayDrawHexBoxes = false
        /// Some cluster is ``Cluster/joinsPrevious`` (``LineBreaking/pango`` only).
        var hasJoinedPieces = false
        /// With ``Itemizer/choosesFontPerCharacter``, some cluster but a line feed is ``Cluster/isNeutral``
        /// (a tab, a soft hyphen, a zero-width space or another format character), which Blink draws
        /// with no font of its own for the line's extent (see `Preparer`'s extent runs).
        var hasNeutralClusters = false
    }

    /// Where the piece of the grapheme cluster `start..<end` that begins at `start` ends: before the
    /// character that would be its `maximumScalars + 1`th, or its `maximumNonStarters + 1`th non-starter
    /// in a row; at `end` if neither comes.
    static func pieceEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        var offset = start
        var scalars = 0
        var nonStarters = 0
        while offset < end {
            let (scalar, length) = UTF8Decoding.scalar(in: bytes, at: offset)
            if hb_unicode_combining_class(unicode, scalar) == HB_UNICODE_COMBINING_CLASS_NOT_REORDERED {
                nonStarters = 0
            } else {
                nonStarters += 1
            }
            scalars += 1
            if offset > start && (scalars > maximumScalars || nonStarters > maximumNonStarters) { return offset }
            offset += length
        }
        return end
    }

    /// Appends the cluster `start..<end`, with its font (or none yet, for a neutral one) and script.
    @inline(__always)
    private func append(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, continuesGrapheme: Bool,
                        level: UInt8, style: UInt16, selector: FontSelector, to clusters: inout ScratchList<Cluster>,
                        _ followers: inout Followers) {
        let (first, firstLength) = UTF8Decoding.scalar(in: bytes, at: start)
        let isLone = firstLength == end - start
        if isLone && first < 0x80 {
            // ASCII: no emoji, Latin or Common script, the font from a table.
            // Pango's white space (`g_unichar_isspace`) hangs at a line's end: a form feed too.
            let isSpace = first == 0x20 || first == 0x09 || (first == 0x0C && !choosesFontPerCharacter)
            let isControl = first < 0x20 || first == 0x7F
            // Blink gives a control but tab and line feed the first font that has it, as any character.
            let isNeutral = choosesFontPerCharacter ? first == 0x09 || first == 0x0A : isSpace || isControl
            let isLetter = (first | 0x20) >= 0x61 && (first | 0x20) <= 0x7A
            let font = isNeutral ? nil : selector.firstCovering(first)
            var coverage = Coverage.covered
            if drawsHexBoxes {
                // A C0 control but tab, LF and CR is boxed where its neighbours' font lacks it (a form
                // feed too, though it hangs as white space).
                if isNeutral {
                    if first != 0x20 && !HexBoxFont.drawsNoBox(first, properties: Int(cub_scalar_properties(first))) {
                        coverage = .pending
                    }
                } else if font == nil {
                    coverage = .uncovered
                }
                if coverage != .covered { followers.findings.mayDrawHexBoxes = true }
            }
            if !isLetter && !choosesFontPerCharacter && PairedBrackets.mayStartBracket(UInt8(first)) {
                pairBracket(at: start, in: bytes, &followers)
            }
            push(Cluster(start: start, font: isNeutral ? nil : font ?? 0,
                         script: isLetter ? HB_SCRIPT_LATIN : HB_SCRIPT_COMMON,
                         isSpace: isSpace, isNeutral: isNeutral, isEmoji: false,
                         continuesGrapheme: continuesGrapheme, level: level, coverage: coverage, style: style),
                 to: &clusters, &followers, bytes: bytes)
            return
        }
        let properties = Int(cub_scalar_properties(first))
        let isSpace = isLone && properties & CUB_HANGING_SPACE != 0
        let isNeutral = isLone && properties & CUB_FONT_NEUTRAL != 0
            && !(choosesFontPerCharacter && (isSpace || (first >= 0x80 && first <= 0x9F)))
        let isEmoji = !isNeutral && isEmojiPresentation(bytes, start, end, first: first, properties: properties)
        let choice = isNeutral ? nil : chooseFont(bytes, start, end, first: first, isLone: isLone, isEmoji: isEmoji,
                                                  selector: selector)
        if let choice, !isLone && !choosesFontPerCharacter && (isEmoji || !choice.isUniform)
            && appendPangoPieces(bytes, start, end, base: first, emojiFont: isEmoji ? choice.font : nil,
                                 continuesGrapheme: continuesGrapheme, level: level, style: style, selector: selector,
                                 to: &clusters, &followers) {
            return
        }
        var coverage = Coverage.covered
        if drawsHexBoxes {
            if let choice {
                if !choice.coversAll { coverage = self.coverage(of: bytes, start, end, font: selector.fonts[choice.font]) }
            } else if !HexBoxFont.drawsNoBox(first, properties: properties) {
                coverage = .pending
            }
            if coverage != .covered { followers.findings.mayDrawHexBoxes = true }
        }
        let script = script(bytes, start, end)
        if !choosesFontPerCharacter && Itemizer.isWeak(script) && PairedBrackets.mayStartBracket(bytes[start]) {
            pairBracket(at: start, in: bytes, &followers)
        }
        push(Cluster(start: start, font: choice?.font, script: script,
                     isSpace: isSpace, isNeutral: isNeutral, isEmoji: isEmoji,
                     continuesGrapheme: continuesGrapheme, level: level, coverage: coverage, style: style),
             to: &clusters, &followers, bytes: bytes)
    }

    /// How much of the cluster `start..<end` `font` draws (see ``Coverage``), as Pango's callbacks
    /// answer: a character is drawn if the font maps it, or Pango draws no box for it
    /// (``HexBoxFont/drawsNoBox(_:properties:)``).
    private func coverage(of bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, font: FontFace) -> Coverage {
        var drawn = false, boxed = false
        var offset = start
        while offset < end {
            let (scalar, length) = UTF8Decoding.scalar(in: bytes, at: offset)
            offset += length
            if HexBoxFont.drawsNoBox(scalar, properties: Int(cub_scalar_properties(scalar))) || font.covers(scalar) {
                drawn = true
            } else {
                boxed = true
            }
        }
        return !boxed ? .covered : drawn ? .partlyCovered : .uncovered
    }

    /// What `clusters(of:flags:into:)` keeps to give neutral clusters their font and Common/Inherited
    /// clusters their script as it appends them (one pass over the paragraph, not a second over its
    /// clusters).
    ///
    /// A stretch of neutral clusters between text in font P and text in font N takes whichever of the
    /// two comes first in the cascade (the "less fallback" one, as Pango moves trailing spaces into the
    /// next item), in ``LineBreaking/pango`` only when N has the stretch's script (see
    /// `giveFont`); emoji text does not lend its font (emoji and text are separate runs). With neither
    /// neighbour usable, the first font that covers the character. A cluster whose script is weak takes
    /// the last strong script before it, else the first after it, else Common. In
    /// ``LineBreaking/pango``, as Pango's script iterator: a closing bracket takes the script its
    /// opening bracket was in, and so does the text after it until a strong script comes (`(注) x`:
    /// the `)` and the space after it are Latin, not Han), which decides the baseline a line starting
    /// there aligns on (see ``Baselines``).
    struct Followers {
        /// The index of the first of the neutral clusters that end the list so far; -1 if it ends with
        /// text (or is empty).
        var neutralStart = -1
        /// The last strong script so far; `HB_SCRIPT_INVALID` before the first.
        var script = HB_SCRIPT_INVALID
        /// ``LineBreaking/pango``: the opening brackets not yet closed, innermost last
        /// (``openBracketCount`` of them): each one's pair (see ``PairedBrackets``) and the script it
        /// was in (`HB_SCRIPT_INVALID` before the first strong script, which then becomes theirs).
        /// Allocated when the first bracket opens, for ``PairedBrackets/depth``, and freed by
        /// `clusters(of:flags:levels:styles:into:)`: a pointer, not an array, keeps this struct
        /// trivial, which the call for every cluster needs to stay cheap.
        var openBrackets: UnsafeMutablePointer<(pair: Int, script: hb_script_t)>?
        var openBracketCount = 0
        /// What the clusters so far show (see ``Findings``): what `clusters(of:flags:levels:styles:into:)`
        /// returns.
        var findings = Findings()
    }

    /// Appends `cluster`, giving it the last strong script if its own is weak, and its font to the
    /// stretch of neutral clusters before it if it has one (see ``Followers``).
    @inline(__always)
    private func push(_ cluster: Cluster, to clusters: inout ScratchList<Cluster>, _ followers: inout Followers,
                      bytes: UnsafeBufferPointer<UInt8>) {
        var cluster = cluster
        if Itemizer.isWeak(cluster.script) {
            if followers.script.rawValue != HB_SCRIPT_INVALID.rawValue { cluster.script = followers.script }
        } else {
            if followers.script.rawValue == HB_SCRIPT_INVALID.rawValue {
                // Every cluster before the first strong one is weak: it takes this script.
                for k in clusters.indices { clusters[k].script = cluster.script }
                if followers.openBracketCount > 0 { Self.giveScript(cluster.script, toOpenBracketsOf: &followers) }
            }
            followers.script = cluster.script
        }
        if followers.neutralStart >= 0 && clusters[followers.neutralStart].style != cluster.style {
            // A style change ends the stretch: no font of another style is lent across it.
            giveFont(to: &clusters, from: followers.neutralStart, fontAfter: nil, scriptAfter: HB_SCRIPT_INVALID,
                     levelAfter: cluster.level, bytes: bytes)
            followers.neutralStart = -1
        }
        if cluster.isNeutral {
            if followers.neutralStart < 0 { followers.neutralStart = clusters.count }
            if choosesFontPerCharacter && bytes[cluster.start] != 0x0A { followers.findings.hasNeutralClusters = true }
        } else if followers.neutralStart >= 0 {
            giveFont(to: &clusters, from: followers.neutralStart, fontAfter: cluster.isEmoji ? nil : cluster.font,
                     scriptAfter: cluster.script, levelAfter: cluster.level, bytes: bytes)
            followers.neutralStart = -1
        }
        clusters.append(cluster)
    }

    /// ``LineBreaking/pango``: notes the opening bracket `bracket` (a ``PairedBrackets`` pair index,
    /// even to open, odd to close) in the script so far, or makes the script the one its closing
    /// bracket's opening bracket was in, as Pango's script iterator (`pango_script_iter_next`): the
    /// opening brackets above the matching one are dropped (all of them when none matches), and past
    /// 128 open at once the stack starts again from its bottom.
    @inline(never)
    private func pairBracket(at start: Int, in bytes: UnsafeBufferPointer<UInt8>, _ followers: inout Followers) {
        guard let bracket = PairedBrackets.pair(of: bytes, at: start) else { return }
        if bracket & 1 == 0 {
            let stack = followers.openBrackets ?? {
                let stack = UnsafeMutablePointer<(pair: Int, script: hb_script_t)>.allocate(capacity: PairedBrackets.depth)
                followers.openBrackets = stack
                return stack
            }()
            if followers.openBracketCount == PairedBrackets.depth { followers.openBracketCount = 0 }
            stack[followers.openBracketCount] = (bracket, followers.script)
            followers.openBracketCount += 1
            return
        }
        guard let stack = followers.openBrackets else { return }
        while followers.openBracketCount > 0 && stack[followers.openBracketCount - 1].pair != bracket - 1 {
            followers.openBracketCount -= 1
        }
        guard followers.openBracketCount > 0 else { return }
        followers.openBracketCount -= 1
        let script = stack[followers.openBracketCount].script
        if script.rawValue != HB_SCRIPT_INVALID.rawValue { followers.script = script }
    }

    /// Gives the brackets opened before the paragraph's first strong script that script, as Pango's
    /// script iterator fixes them once it knows its run's script.
    @inline(never)
    private static func giveScript(_ script: hb_script_t, toOpenBracketsOf followers: inout Followers) {
        guard let stack = followers.openBrackets else { return }
        for k in 0..<followers.openBracketCount { stack[k].script = script }
    }

    /// Gives the neutral clusters from `start` to the end of the list their font (see ``Followers``),
    /// given the font, script and level of the cluster after them (font nil if there is none, or it is
    /// emoji).
    ///
    /// Between text in two fonts, Pango (`itemize_state_add_character`) moves the spaces ending an item
    /// into the next only inside one run of one script and one bidirectional level: spaces between
    /// Thai and Latin stay Thai; spaces after emoji before another script are a run of their own; in
    /// right-to-left text, spaces between a number and Arabic take Arabic's level and so its font. So
    /// in ``LineBreaking/pango`` the stretch takes the font before it only at that text's level, and
    /// the font after it only when that text has the stretch's script and level (its weak clusters took
    /// the script before them).
    private func giveFont(to clusters: inout ScratchList<Cluster>, from start: Int, fontAfter after: Int?,
                          scriptAfter: hb_script_t, levelAfter: UInt8, bytes: UnsafeBufferPointer<UInt8>) {
        let level = clusters[start].level, style = clusters[start].style
        let before = start > 0 && !clusters[start - 1].isEmoji && clusters[start - 1].style == style
            && (choosesFontPerCharacter || clusters[start - 1].level == level)
            ? clusters[start - 1].font : nil
        let sameRun = choosesFontPerCharacter
            || (scriptAfter.rawValue == clusters[start].script.rawValue && levelAfter == level)
        let font: Int
        switch (before, sameRun ? after : nil) {
        case let (before?, after?): font = min(before, after)
        case let (before?, nil): font = before
        case let (nil, after?): font = after
        case (nil, nil):
            // A run of its own (after emoji, before another script, or the whole paragraph). Pango
            // (`itemize_state_process_run`) gives an item with no font the first font that has a space,
            // whatever its characters: U+3000 alone takes the primary font, which draws it as HarfBuzz's
            // fallback space, not the first that maps it. The browser modes take the first font that
            // has the stretch's first character, as before.
            let (scalar, _) = UTF8Decoding.scalar(in: bytes, at: clusters[start].start)
            font = selector(of: style).firstCovering(choosesFontPerCharacter ? scalar : 0x20) ?? 0
        }
        for k in start..<clusters.count {
            clusters[k].font = font
            if clusters[k].coverage == .pending {
                let (scalar, _) = UTF8Decoding.scalar(in: bytes, at: clusters[k].start)
                clusters[k].coverage = selector(of: style).fonts[font].covers(scalar) ? .covered : .uncovered
            }
        }
    }

    /// The most bytes HarfBuzz shapes at once: a longer run is cut between two clusters (1 MB and more
    /// of text in one font and script). HarfBuzz works in linear time there, but its buffers hold at
    /// most 2^30 characters and its lengths are 32-bit.
    static let maximumRunBytes = 1 << 22

    /// Groups consecutive clusters with the same font, script and level into runs; a piece of a cut
    /// grapheme cluster (too long, or drawn in another font) starts a run of its own, and no run is
    /// longer than ``maximumRunBytes`` plus a cluster.
    /// With `marksHexBoxes` (what `clusters(of:flags:levels:styles:into:)` returned), a run holding a
    /// cluster its font lacks is marked ``Run/drawsHexBoxes``; without it no cluster is looked at again.
    func runs(of clusters: ScratchList<Cluster>, byteCount: Int, into runs: inout [Run], marksHexBoxes: Bool = false) {
        runs.removeAll(keepingCapacity: true)
        // Every cluster has its font by now (see `Cluster.font`); the primary font stands in otherwise.
        guard let first = clusters.first else { return }
        var current = Run(start: 0, end: 0, font: first.font ?? 0, script: first.script, style: Int(first.style))
        // Fonts and scripts compared as integers (not through `Optional`'s and `hb_script_t`'s `Equatable`).
        for index in 1..<clusters.count {
            let cluster = clusters[index]
            guard cluster.font ?? -1 != current.font || cluster.script.rawValue != current.script.rawValue
                    || cluster.level != clusters[index - 1].level || Int(cluster.style) != current.style
                    || cluster.continuesGrapheme || cluster.joinsPrevious
                    || cluster.start - current.start >= Self.maximumRunBytes else { continue }
            current.end = cluster.start
            runs.append(current)
            current = Run(start: cluster.start, end: 0, font: cluster.font ?? 0, script: cluster.script,
                          style: Int(cluster.style), startsInsideGrapheme: cluster.continuesGrapheme,
                          startsWithFontPiece: cluster.joinsPrevious)
        }
        current.end = byteCount
        runs.append(current)
        if marksHexBoxes {
            var run = 0
            for index in clusters.indices where clusters[index].coverage != .covered {
                while runs[run].end <= clusters[index].start { run += 1 }
                runs[run].drawsHexBoxes = true
            }
        }
        // A styled text's runs name their fonts in the table of every face's fonts.
        if !styles.isEmpty {
            for k in runs.indices { runs[k].font = styles[runs[k].style].fontIndices[runs[k].font] }
        }
    }

    /// The cluster's font, whether it covers every character of the cluster that chooses fonts (all
    /// but control and format characters and selectors), and whether those characters' first covering
    /// fonts are one font (false where some character has none; always true for emoji).
    private func chooseFont(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, first: UInt32,
                            isLone: Bool, isEmoji: Bool, selector: FontSelector)
        -> (font: Int, coversAll: Bool, isUniform: Bool) {
        if isEmoji, let index = selector.firstColorCovering(first) { return (index, true, true) }
        if isLone {
            guard let index = selector.firstCovering(first) else { return (0, false, true) }
            return (index, true, true)
        }
        // The first font covering every character: no font before the last of the characters' first
        // covering fonts (from the selector's table) can (it misses that character), so the search
        // starts there; if no font covers some character, none covers them all.
        var candidate = 0, lowest = Int.max
        var offset = start
        while offset < end {
            let (scalar, length) = UTF8Decoding.scalar(in: bytes, at: offset)
            if Int(cub_scalar_properties(scalar)) & CUB_FONT_NEUTRAL == 0 {
                guard let index = selector.firstCovering(scalar) else {
                    return (selector.firstCovering(first) ?? 0, false, false)
                }
                candidate = max(candidate, index)
                lowest = min(lowest, index)
            }
            offset += length
        }
        let isUniform = lowest == Int.max || lowest == candidate
        if let index = selector.fonts[candidate...].firstIndex(where: { covers($0, bytes, start, end, selector: selector) }) {
            return (index, true, isUniform)
        }
        return (selector.firstCovering(first) ?? 0, false, isUniform)
    }

    /// ``LineBreaking/pango``: appends the cluster `start..<end` as the pieces Pango draws it in, if
    /// its characters take more than one font; returns false, appending nothing, if they take one.
    ///
    /// Pango (`itemize_state_process_run`) gives each character the first font that has it, whatever
    /// font the character before it took, and starts an item where the font changes, inside a
    /// grapheme cluster too: a Cyrillic "п" with U+20D7 COMBINING RIGHT ARROW ABOVE is "п" in Noto Sans
    /// and the arrow in Noto Sans Math, whose extents the line then reaches. A space, control or
    /// format character or selector keeps the font before it: one that begins the cluster goes with
    /// its first piece. (Pango also breaks lines between a space and a mark after it, which a cluster
    /// cannot show; see `docs/pango-differences.md`.) Its emoji segmentation ends an emoji sequence
    /// before any character that is not part of one (see `endsEmojiSequence`), which starts text of
    /// its own: "😀\u{20E3}" is the emoji and a keycap mark in the first text font that has one. A
    /// joiner (ZWJ, ZWNJ) ending an emoji cluster joins nothing: it is text of its own there, with no
    /// font (a neutral cluster, ``Followers``): the next text's, or alone the first font with a space,
    /// so a line holding "🇯🇵\u{200D}" reaches Noto Sans's extent as in Pango.
    ///
    /// Each piece is a cluster with its own font, script and coverage; those after the first are
    /// ``Cluster/joinsPrevious``, and the first continues a grapheme where the cluster did.
    ///
    /// - Parameter emojiFont: The cluster's color font, if it is emoji; nil for text.
    @inline(never)
    private func appendPangoPieces(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, base: UInt32,
                                   emojiFont: Int?, continuesGrapheme: Bool, level: UInt8, style: UInt16,
                                   selector: FontSelector, to clusters: inout ScratchList<Cluster>,
                                   _ followers: inout Followers) -> Bool {
        /// The piece so far: its start, font (nil before its first character that chooses one) and
        /// whether that character belongs to the emoji sequence.
        var pieceStart = start, pieceFont: Int? = nil, pieceIsEmoji = false
        var previous: UInt32 = 0
        var offset = start
        var contentEnd = end
        if emojiFont != nil {
            while contentEnd > start + 3 && bytes[contentEnd - 3] == 0xE2 && bytes[contentEnd - 2] == 0x80
                    && (bytes[contentEnd - 1] == 0x8D || bytes[contentEnd - 1] == 0x8C) {
                contentEnd -= 3
            }
        }
        while offset < contentEnd {
            let (scalar, length) = UTF8Decoding.scalar(in: bytes, at: offset)
            defer {
                previous = scalar
                offset += length
            }
            guard Int(cub_scalar_properties(scalar)) & CUB_FONT_NEUTRAL == 0 else { continue }
            let isEmoji = emojiFont != nil
                && (offset == start || !Self.endsEmojiSequence(scalar, after: previous, base: base))
            let font = isEmoji ? emojiFont.unsafelyUnwrapped : selector.firstCovering(scalar) ?? 0
            if let current = pieceFont, current != font {
                pushPiece(bytes, pieceStart, offset, font: current, isEmoji: pieceIsEmoji,
                          continuesGrapheme: continuesGrapheme && pieceStart == start, joinsPrevious: pieceStart > start,
                          level: level, style: style, selector: selector, to: &clusters, &followers)
                pieceStart = offset
                pieceFont = font
                pieceIsEmoji = isEmoji
            } else if pieceFont == nil {
                pieceFont = font
                pieceIsEmoji = isEmoji
            }
        }
        guard pieceStart > start || contentEnd < end, let pieceFont else { return false }
        followers.findings.hasJoinedPieces = true
        pushPiece(bytes, pieceStart, contentEnd, font: pieceFont, isEmoji: pieceIsEmoji,
                  continuesGrapheme: continuesGrapheme && pieceStart == start, joinsPrevious: pieceStart > start,
                  level: level, style: style, selector: selector, to: &clusters, &followers)
        if contentEnd < end {
            push(Cluster(start: contentEnd, font: nil, joinsPrevious: true, script: script(bytes, contentEnd, end),
                         isSpace: false, isNeutral: true, isEmoji: false, continuesGrapheme: false, level: level,
                         coverage: .covered, style: style),
                 to: &clusters, &followers, bytes: bytes)
        }
        return true
    }

    /// Appends one piece of `appendPangoPieces`' cluster.
    private func pushPiece(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, font: Int, isEmoji: Bool,
                           continuesGrapheme: Bool, joinsPrevious: Bool, level: UInt8, style: UInt16,
                           selector: FontSelector, to clusters: inout ScratchList<Cluster>, _ followers: inout Followers) {
        var coverage = Coverage.covered
        if drawsHexBoxes {
            coverage = self.coverage(of: bytes, start, end, font: selector.fonts[font])
            if coverage != .covered { followers.findings.mayDrawHexBoxes = true }
        }
        push(Cluster(start: start, font: font, joinsPrevious: joinsPrevious, script: script(bytes, start, end),
                     isSpace: false, isNeutral: false, isEmoji: isEmoji, continuesGrapheme: continuesGrapheme,
                     level: level, coverage: coverage, style: style),
             to: &clusters, &followers, bytes: bytes)
    }

    /// Whether `scalar`, after the first character (`base`) of an emoji cluster, is left out of the
    /// emoji sequence by Pango's emoji segmentation (Chromium's scanner): all but pictographs (a ZWJ
    /// sequence's), skin-tone modifiers, regional indicators and the keycap of a keycap sequence
    /// ("#", "*" or a digit, U+FE0F, U+20E3). Joiners, selectors and tags never get here (they keep
    /// the font before them).
    private static func endsEmojiSequence(_ scalar: UInt32, after previous: UInt32, base: UInt32) -> Bool {
        if scalar >= 0x1F3FB && scalar <= 0x1F3FF || scalar >= 0x1F1E6 && scalar <= 0x1F1FF { return false }
        if scalar == 0x20E3 {
            let isKeycapBase = base == 0x23 || base == 0x2A || (base >= 0x30 && base <= 0x39)
            return !(previous == 0xFE0F && isKeycapBase)
        }
        return Int(cub_scalar_properties(scalar)) & CUB_EXTENDED_PICTOGRAPHIC == 0
    }

    private func covers(_ font: FontFace, _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int,
                        selector: FontSelector) -> Bool {
        var offset = start
        while offset < end {
            let (scalar, length) = UTF8Decoding.scalar(in: bytes, at: offset)
            if Int(cub_scalar_properties(scalar)) & CUB_FONT_NEUTRAL == 0 && !selector.covers(font, scalar) { return false }
            offset += length
        }
        return true
    }

    private func isEmojiPresentation(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, first: UInt32,
                                     properties: Int) -> Bool {
        var hasJoiner = false
        var offset = start
        while offset < end {
            let (scalar, length) = UTF8Decoding.scalar(in: bytes, at: offset)
            if scalar == 0xFE0E { return false }   // text presentation selector
            if scalar == 0xFE0F { return true }    // emoji presentation selector
            if scalar == 0x200D { hasJoiner = true }
            offset += length
        }
        if choosesFontPerCharacter { return false }
        // Pango's emoji segmentation (Chromium's scanner) draws every Emoji_Modifier_Base as emoji,
        // with a modifier or not: "✌" and "✍🏽" come from the color font, as "😀" does (a combining
        // mark after one is text of its own: see `appendPangoPieces`).
        if properties & (CUB_EMOJI_PRESENTATION | CUB_EMOJI_MODIFIER_BASE) != 0 { return true }
        return hasJoiner && properties & CUB_EXTENDED_PICTOGRAPHIC != 0
    }

    /// The cluster's script: its first strong (not Common, Inherited or Unknown) script, else Common.
    private func script(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> hb_script_t {
        var offset = start
        while offset < end {
            let (scalar, length) = UTF8Decoding.scalar(in: bytes, at: offset)
            let script = hb_unicode_script(Itemizer.unicode, scalar)
            if !Itemizer.isWeak(script) { return script }
            offset += length
        }
        return HB_SCRIPT_COMMON
    }

    static func isWeak(_ script: hb_script_t) -> Bool {
        script == HB_SCRIPT_COMMON || script == HB_SCRIPT_INHERITED || script == HB_SCRIPT_UNKNOWN
    }
}
