/// Greedy line filling over a ``PreparedText``'s segments: numbers only, no shaping.
///
/// The rules are those of Pango's `PANGO_WRAP_WORD_CHAR` (and of UIKit's word wrapping and CSS
/// `overflow-wrap: anywhere`):
/// - a segment (the text between two break opportunities) joins the current line if the line so far,
///   hanging space included, plus the segment fits; white space at the end of a line hangs and never
///   pushes the line over the width, except that in ``LineBreaking/pango`` only its last character
///   hangs, as in Pango, and before a paragraph's separator none (before a U+2028 none, unless no
///   other break fits the line), and white space with a break before it joins a line only if all of
///   it fits (see `hangPangoSpace`);
/// - a segment that does not fit starts a new line; if it does not fit on a line of its own either, it
///   is broken between grapheme clusters, each line taking as many clusters as fit and at least one;
/// - white space can hang only after content that fits: after a single cluster wider than the line it
///   starts the next line instead (unless it begins a new shaping run, which Pango lays out separately);
/// - a line that ends inside a word or between two pieces with no space between them is as wide as
///   that piece shaped on its own (the kerning with what follows is dropped), as Pango reshapes it;
///   inside a ligature, a line ending there draws the ligature's head on its own and the next line
///   its tail (both measured at prepare time, see `Preparer`);
/// - a mandatory break ends the line;
/// - a tab advances to the next tab stop at least a space away (stops every eight spaces of the
///   primary font, from the line's start), so a segment holding one is as wide as where it starts
///   makes it; like a space, a tab at the end of a line hangs.
///
/// In the browser modes (``LineBreaking``), as Blink does:
/// - white space hangs always, also after a cluster wider than the line (`PreparedText` marks it);
/// - a break after `-` before a digit or a character past ASCII needs the character before the `-`,
///   which a line starting at the `-` does not see (Blink's rule, see `BrowserBreakRules`; UAX #14
///   LB20a): there, the word goes on, broken between clusters (`#A-10293` at a narrow width gives
///   `#A`, `-10`, `29`, `3`);
/// - a word broken between clusters takes as many clusters as fit with their advances in context,
///   then gives clusters back while the line, with its last cluster drawn as a line end (see
///   `PreparedCluster.breakAdjust`: a broken ligature's head, an Arabic lam no longer joined), does
///   not fit (Blink's `ShapingLineBreaker`); Pango instead stops at the first cluster that does
///   not fit as a line end. A line ending inside a ligature reaches, in context, only as far as the
///   ligature's start (Blink's offsets inside a glyph lie at its start); when not even the first
///   cluster fits as drawn, the line ends where the clusters in context reached (`"ffi"` at 8 px at
///   24 px: `"ff"`, `"i"`);
/// - a line end that must be shaped again (kerning with the next cluster lost, a ligature split) fits
///   only if, besides fitting as drawn, it fits from the position of the last safe-to-break offset
///   before it rounded up to 1/64 px (Blink's LayoutUnit offset positions, see `reshapeNeed`);
/// - the width given is Blink's (see `PreparedText.fillWidth`).
///
/// Along the way it records the range of widths over which these exact lines stay the same: below the
/// widest line a line would lose its last piece (or its hanging space); at the smallest width that
/// lets some line take in what went to the next line, that line would change.
struct LineBreaker {
    /// What a layout found. Widths are in the text's layout units (`TextStyle.unitsPerPixel`).
    struct Outcome: Equatable {
        var lineCount = 0
        var isTruncated = false
        /// The widest line's content width.
        var widestLine = 0
        /// Smallest width at which the lines stay the same.
        var minimumWidth = 0
        /// Smallest width at which some line would change; `Int.max` when none would.
        var changeWidth = Int.max
        /// The lines' heights added up, and the tallest line's (an empty line's when there is none),
        /// in pixels (see ``LineHeightCounter``).
        var height = 0.0
        var tallestLine = 0.0
    }

    /// The line being filled.
    private struct OpenLine {
        var start: Int32 = 0
        var end: Int32 = 0
        /// Width through the last visible cluster, as shaped in context.
        var content = 0
        /// Extra width if the line ends after its last visible cluster (lost kerning).
        var endAdjust = 0
        /// `content` plus the white space after it.
        var advance = 0
        /// Visible clusters on the line.
        var clusters = 0
        /// Whether white space hangs after the content only because the content fits (a narrower width
        /// would push it to the next line).
        var hangsBecauseContentFits = false
        /// Whether the line's first visible cluster follows white space on the line: at a narrower
        /// width they part, so a line of one cluster holds only down to its visible width.
        var startsWithWhiteSpace = false
        /// Whether the line holds anything yet (a closed line is not open until something starts one).
        var isOpen = false
        /// A least width for the line besides its visible width (0 when none): for a line a browser
        /// broke inside a word, its width in context, which must fit too; for a line Pango took for
        /// the narrowest piece (see `overflowsAsDrawn`), the width below which it would not look that far.
        var requirement = 0
        /// No break inside the word fits as drawn: in the browser modes the line ends where the
        /// clusters in context reached, wider than the width (Blink's choice when reshaping finds no
        /// fit); in ``LineBreaking/pango`` at the narrowest break Pango looked at (see
        /// `takeNarrowerPrefix`). Only `requirement` bounds the widths at which it stays from below.
        var overflowsAsDrawn = false
        /// A least width for the line whatever it holds (0 when none): in the browser modes, for a lone
        /// cluster that fits only as drawn, below which Blink would take what reached in context; in
        /// ``LineBreaking/pango``, for white space with a break before it that joined the line.
        var floorWidth = 0
        /// Browser modes: the line's first cluster, and where it lies in its Blink text item (the
        /// paragraph, or the text after a tab), in context: Blink's positions are LayoutUnits, each
        /// offset's x rounded up to 1/64 px from the item's start (see `reshapeNeed`).
        var firstCluster = 0
        var origin = 0
        /// Browser modes: where on the line (in context) the text after the line's last tab starts, a
        /// new Blink text item; 0 when the line holds no tab.
        var itemStart = 0
        /// Browser modes: the width the line needs because Blink checks its reshaped end against its
        /// LayoutUnit positions (0 when its end needs no reshaping; see `reshapeNeed`).
        var endNeed = 0
        /// The most width a segment needed to join the line, as a line end (its lost kerning, a soft
        /// hyphen's hyphen, its reshaped end), though more followed it on the line: below it, that
        /// segment would have gone to the next line (0 for a lone cluster, which joins at any width).
        var placementNeed = 0
        /// Browser modes: the line opened at a segment's start (not inside a word broken between
        /// clusters), so it may end its paragraph the way Blink takes the rest of a text item whole.
        var startsAtSegment = false
        /// Browser modes: the rest of the paragraph fits the line whole (see `paragraphRest`), so every
        /// segment up to the paragraph's end joins it without a check of its own.
        var takesParagraphRest = false
        /// The line holds a segment with a tab (where `paragraphRest` stops).
        var holdsTab = false

        /// The line's width as drawn: white space excluded, lost kerning included; in
        /// ``LineBreaking/pango``, the white space at its end that counts (see `hangPangoSpace`), also on
        /// a line of white space alone.
        var visibleWidth: Int { clusters > 0 ? content + endAdjust : endAdjust }

        init() {}

        init(start: Int32) {
            self.start = start
            isOpen = true
        }

        mutating func addContent(width: Int, endAdjust: Int, clusters: Int) {
            if self.clusters == 0 && advance > 0 { startsWithWhiteSpace = true }
            content = advance + width
            self.endAdjust = endAdjust
            advance = content
            self.clusters += clusters
            hangsBecauseContentFits = false
            endNeed = 0
        }

        /// Adds hanging white space; with `always` it hangs whatever the content's width.
        mutating func addSpace(_ width: Int, always: Bool) {
            advance += width
            if !always { hangsBecauseContentFits = true }
        }
    }

    /// Which filler lays a text out.
    enum Filling {
        /// Whole segments when the text and width allow it (see `PreparedText.wholeSegmentFillWidth`),
        /// else the general filler: what layout uses.
        case automatic
        /// The general filler always (for tests comparing the two).
        case general
    }

    /// Lays out `prepared` at `width` (in its layout units, see `TextStyle.unitsPerPixel`) with at most
    /// `maxLines` lines (0 = unlimited): the line count and bounds only, no line and no allocation.
    static func layout(_ prepared: PreparedText, width: Int, maxLines: Int, filling: Filling = .automatic) -> Outcome {
        fill(prepared, width: width, maxLines: maxLines, lines: nil, filling: filling)
    }

    /// Lays out `prepared` as ``layout(_:width:maxLines:filling:)`` does, appending every line kept to
    /// `lines` as it is found.
    static func layout(_ prepared: PreparedText, width: Int, maxLines: Int,
                       lines: inout TextMeasurement.Lines, filling: Filling = .automatic) -> Outcome {
        withUnsafeMutablePointer(to: &lines) {
            fill(prepared, width: width, maxLines: maxLines, lines: $0, filling: filling)
        }
    }

    private static func fill(_ prepared: PreparedText, width: Int, maxLines: Int,
                             lines: UnsafeMutablePointer<TextMeasurement.Lines>?, filling: Filling) -> Outcome {
        // The fillers read the arrays through buffer pointers: they copy no `PreparedText`, so a
        // layout retains and releases none of its arrays.
        var outcome = prepared.segments.withUnsafeBufferPointer { segments in
            prepared.clusters.withUnsafeBufferPointer { clusters in
                /// Fills the lines, counting their heights with `heights`.
                func fill(_ heights: consuming LineHeightCounter) -> Outcome {
                    var outcome: Outcome
                    if width >= prepared.wholeSegmentFillWidth && filling == .automatic {
                        outcome = fillWholeSegments(segments, clusters: clusters, width: width, maxLines: maxLines,
                                                    unitsPerPixel: prepared.unitsPerPixel,
                                                    countsWhiteSpace: !prepared.style.breaking.isBrowser,
                                                    heights: &heights, lines: lines)
                    } else {
                        outcome = prepared.lineStartAdjusts.withUnsafeBufferPointer { lineStartAdjusts in
                            var filler = Filler(prepared, segments: segments, clusters: clusters,
                                                lineStartAdjusts: lineStartAdjusts, width: width, maxLines: maxLines,
                                                heights: heights, lines: lines)
                            filler.run()
                            heights = filler.heights
                            return filler.outcome
                        }
                    }
                    (outcome.height, outcome.tallestLine) = heights.totals(lineCount: outcome.lineCount)
                    return outcome
                }
                // The extent runs are read only by a text whose lines differ in height.
                let heights = prepared.lineHeights
                guard heights.kind == .perLine else {
                    return fill(LineHeightCounter(heights, runs: UnsafeBufferPointer(start: nil, count: 0)))
                }
                return prepared.extentRuns.withUnsafeBufferPointer { fill(LineHeightCounter(heights, runs: $0)) }
            }
        }
        // The lines found hold at this width, whatever the bookkeeping of their bounds says: bounds
        // that leave it out would be a bug in that bookkeeping (`validWidthsHoldAndAreTight` checks
        // for it), never a reason to trap on input; the range then becomes this width alone.
        if outcome.minimumWidth > width || (outcome.changeWidth <= width && outcome.changeWidth != Int.max) {
            outcome.minimumWidth = width
            outcome.changeWidth = width == Int.max ? width : width + 1
        }
        return outcome
    }

    /// The fast path: lays out a text every segment of which fits a line of its own at `width` and
    /// needs none of the general filler's special cases (see `PreparedText.wholeSegmentFillWidth`).
    /// No segment is then ever broken between clusters and no white space ever fails to hang, so a
    /// line is a run of whole segments, and the general filler's rules come down to sums: segment
    /// `i` joins a line whose segments so far (their white space included) are `x` wide when
    /// `x + width(i) + endAdjust(i)` fits. The lines, bounds and truncation are exactly those of the
    /// general filler (`wholeSegmentFillingIsTheGeneralFilling` checks it on the corpus).
    ///
    /// - Complexity: O(*n*) in the segments, a few instructions each.
    private static func fillWholeSegments(_ segments: UnsafeBufferPointer<Segment>,
                                          clusters: UnsafeBufferPointer<PreparedCluster>, width: Int, maxLines: Int,
                                          unitsPerPixel: Int, countsWhiteSpace: Bool, heights: inout LineHeightCounter,
                                          lines: UnsafeMutablePointer<TextMeasurement.Lines>?) -> Outcome {
        var outcome = Outcome()
        /// The open line's first segment, and its width through the segment before `index`, white
        /// space included. These are sums of at most 2^31 clusters' 32-bit advances, below 2^62, so they
        /// are added unchecked (`&+`).
        var first = 0, advance = 0

        /// Ends the line of segments `first..<end`, `advance` wide with its white space; false when the
        /// line limit stops the layout. `change` is the width at which it would take in the next segment.
        func close(end: Int, change: Int, moreFollows: Bool) -> Bool {
            let last = segments[end - 1]
            let visible = advance &- last.hanging &+ last.endAdjust
            outcome.lineCount += 1
            outcome.widestLine = max(outcome.widestLine, visible)
            // A lone cluster stays alone at any narrower width, unless white space hangs after it only
            // because it fits (as in the general filler's `close`): white space that does not hang
            // whatever the width, or, in ``LineBreaking/pango``, white space Pango counts (two or more
            // characters, or any before a separator: `hangPangoSpace` places it).
            if end - first > 1 || last.contentClusterCount > 1
                || (last.hanging > 0 && (!clusters[Int(last.contentEnd)].flags.contains(.hangsAlways)
                                         || (countsWhiteSpace && countsPangoWhiteSpace(after: end - 1)))) {
                outcome.minimumWidth = max(outcome.minimumWidth, visible)
            }
            outcome.changeWidth = min(outcome.changeWidth, change)
            let extent = heights.countsLines ? heights.add(lineFrom: segments[first].byteStart, to: last.byteEnd) : .zero
            if let lines {
                lines.pointee.append(heights.line(utf8Range: Int(segments[first].byteStart)..<Int(last.byteEnd),
                                                  width: Double(visible) / Double(unitsPerPixel),
                                                  index: outcome.lineCount - 1, extent: extent))
            }
            if maxLines > 0 && outcome.lineCount == maxLines && moreFollows {
                outcome.isTruncated = true
                return false
            }
            return true
        }

        /// Whether the white space after segment `index`'s content goes through `hangPangoSpace`.
        func countsPangoWhiteSpace(after index: Int) -> Bool {
            let whiteEnd = index + 1 < segments.count ? Int(segments[index + 1].firstCluster) : clusters.count
            return Self.pangoCounts(clusters, from: Int(segments[index].contentEnd), to: whiteEnd)
        }

        for index in segments.indices {
            let segment = segments[index]
            let needed = advance &+ segment.width &+ segment.endAdjust
            if needed > width && index > first {
                guard close(end: index, change: needed, moreFollows: true) else { return outcome }
                first = index
                advance = 0
            }
            advance = advance &+ segment.width &+ segment.hanging
            if segment.isMandatoryBreak {
                guard close(end: index + 1, change: Int.max, moreFollows: index + 1 < segments.count) else {
                    return outcome
                }
                first = index + 1
                advance = 0
            }
        }
        if first < segments.count { _ = close(end: segments.count, change: Int.max, moreFollows: false) }
        return outcome
    }

    /// ``LineBreaking/pango``: whether Pango counts some of the white space `first..<end` after a
    /// segment's content at a line's end (two or more characters, or any before a paragraph's
    /// separator), which `Filler.hangPangoSpace` then places.
    @inline(__always)
    private static func pangoCounts(_ clusters: UnsafeBufferPointer<PreparedCluster>, from first: Int, to end: Int) -> Bool {
        end - first >= 2 || clusters[end - 1].flags.contains(.beforeSeparator)
    }

    /// The state of one layout.
    private struct Filler {
        /// The prepared text's arrays, borrowed for the layout (see ``PreparedText``).
        let segments: UnsafeBufferPointer<Segment>
        let clusters: UnsafeBufferPointer<PreparedCluster>
        let lineStartAdjusts: UnsafeBufferPointer<LineStartAdjust>
        /// The prepared text's tab spacing and layout units (see ``PreparedText``, `TextStyle.unitsPerPixel`).
        let tabStop: Int
        let tabMinimum: Int
        let unitsPerPixel: Int
        let width: Int
        let maxLines: Int
        /// Where the lines kept go, when they are asked for (the caller's array, borrowed: a layout
        /// without lines has no array to copy or release).
        let lines: UnsafeMutablePointer<TextMeasurement.Lines>?
        var outcome = Outcome()
        /// The lines' heights as they close.
        var heights: LineHeightCounter
        /// The line being filled, when `line.isOpen` (kept in place, not as an optional: layout
        /// mutates it for every segment).
        var line = OpenLine()

        /// Whether a word broken between clusters is filled by advances in context first, then
        /// trimmed to fit as drawn (Blink), rather than cluster by cluster as drawn (Pango).
        let fitsInContextFirst: Bool
        /// Browser modes: Blink's LayoutUnit in the text's layout units.
        let layoutUnit: Int
        /// ``LineBreaking/pango``: how far past the width Pango looks for a narrower break inside a word
        /// (see `takeNarrowerPrefix`): its `safe_distance`, three times the font's approximate character
        /// width, taken as 1.5 em.
        let pangoReach: Int

        /// Browser modes: a cluster and where it lies in its Blink text item, in context (see
        /// `itemPosition(of:)`); moves forward only, as lines do.
        var cursorIndex = 0
        var cursorPosition = 0

        init(_ prepared: PreparedText, segments: UnsafeBufferPointer<Segment>,
             clusters: UnsafeBufferPointer<PreparedCluster>, lineStartAdjusts: UnsafeBufferPointer<LineStartAdjust>,
             width: Int, maxLines: Int, heights: LineHeightCounter, lines: UnsafeMutablePointer<TextMeasurement.Lines>?) {
            self.segments = segments
            self.heights = heights
            self.clusters = clusters
            self.lineStartAdjusts = lineStartAdjusts
            tabStop = prepared.tabStop
            tabMinimum = prepared.tabMinimum
            unitsPerPixel = prepared.unitsPerPixel
            self.width = width
            self.maxLines = maxLines
            self.lines = lines
            fitsInContextFirst = prepared.style.breaking.isBrowser
            layoutUnit = LayoutUnit.inUnits(unitsPerPixel: unitsPerPixel)
            pangoReach = Int(1.5 * prepared.style.size * Double(unitsPerPixel))
        }

        /// How much wider a line starting at cluster `index` is than the cluster's advance in context:
        /// not 0 only inside a ligature, where the line draws the ligature's tail on its own.
        ///
        /// - Complexity: O(1) for an unflagged cluster, else O(log n) in the flagged clusters.
        @inline(__always)
        func lineStartAdjust(at index: Int) -> Int {
            guard clusters[index].flags.contains(.adjustsLineStart) else { return 0 }
            var low = 0, high = lineStartAdjusts.count
            while low < high {
                let middle = (low + high) / 2
                if Int(lineStartAdjusts[middle].cluster) < index { low = middle + 1 } else { high = middle }
            }
            return low < lineStartAdjusts.count && Int(lineStartAdjusts[low].cluster) == index
                ? Int(lineStartAdjusts[low].adjust) : 0
        }

        mutating func run() {
            for (index, segment) in segments.enumerated() {
                let clusterEnd = index + 1 < segments.count ? Int(segments[index + 1].firstCluster) : clusters.count
                if segment.contentClusterCount > 0 {
                    guard place(segment, at: index) else { return }
                }
                if segment.hanging > 0 || (segment.hasTab && Int(segment.contentEnd) < clusterEnd) {
                    guard hangSpace(of: segment, clusterEnd: clusterEnd) else { return }
                }
                if !line.isOpen {   // an empty paragraph
                    line = OpenLine(start: segment.byteStart)
                    line.startsAtSegment = true
                }
                line.end = segment.byteEnd
                if segment.isMandatoryBreak {
                    guard close(change: nil, endsParagraph: true, moreFollows: index + 1 < segments.count) else { return }
                    if fitsInContextFirst {
                        // The next paragraph is a new Blink text item.
                        cursorIndex = clusterEnd
                        cursorPosition = 0
                    }
                }
            }
            _ = close(change: nil, endsParagraph: true, moreFollows: false)
        }

        /// Puts segment `index`'s visible content on the open line, else on a new line, broken between
        /// clusters if no line can hold it. Returns false when the line limit stopped the layout.
        @inline(__always)
        mutating func place(_ segment: Segment, at index: Int) -> Bool {
            defer { if segment.hasTab { line.holdsTab = true } }
            let x = line.isOpen ? line.advance : 0
            var content = contentWidth(of: segment, at: x)
            let contentEnd = clusters[Int(segment.contentEnd) - 1].end
            let last = Int(segment.contentEnd) - 1
            if line.isOpen {
                var needed = line.advance + content + segment.endAdjust
                var endNeed = 0
                if fitsInContextFirst && segment.endAdjust != 0 {
                    endNeed = reshapeNeed(of: line, endingAfter: last, at: line.advance + content)
                    needed = max(needed, endNeed)
                }
                if needed > width && fitsInContextFirst && !line.takesParagraphRest,
                   let rest = paragraphRest(from: index, at: line.advance, reaching: needed), rest < needed {
                    // From `rest` on the line takes the rest of the paragraph whole.
                    if rest <= width {
                        line.takesParagraphRest = true
                        line.placementNeed = max(line.placementNeed, rest)
                    }
                    needed = rest
                }
                if !line.takesParagraphRest {
                    needed = need(needed, pastSoftHyphenOf: segment, at: index, reaching: line.advance + content)
                }
                if needed <= width || line.takesParagraphRest {
                    line.addContent(width: content, endAdjust: segment.endAdjust, clusters: segment.contentClusterCount)
                    line.endNeed = endNeed
                    if !line.takesParagraphRest { line.placementNeed = max(line.placementNeed, needed) }
                    line.end = contentEnd
                    return true
                }
                if segment.followsHyphen && line.clusters == 1
                    && line.start == clusters[Int(segment.firstCluster) - 1].start {
                    // The line starts at the "-": no break after it, the word goes on (see above). From
                    // `needed` on, the segment joins the line whole.
                    outcome.changeWidth = min(outcome.changeWidth, needed)
                    line.startsAtSegment = false   // its pieces move with the width
                    return breakClusters(of: segment, at: index, continuingLine: true)
                }
                guard close(change: needed, moreFollows: true) else { return false }
                if segment.hasTab { content = contentWidth(of: segment, at: 0) }
            }
            // The segment starts a line (inside a ligature, with the ligature's tail drawn on its own).
            let lead = lineStartAdjust(at: Int(segment.firstCluster))
            var opened = openLine(start: segment.byteStart, at: Int(segment.firstCluster))
            var endNeed = 0
            if fitsInContextFirst && segment.endAdjust != 0 {
                endNeed = reshapeNeed(of: opened, endingAfter: last, at: lead + content)
            }
            // Counted white space (``LineBreaking/pango``) that does not fit is broken off by `hangPangoSpace`,
            // not the content.
            let ownAdjust = segment.hanging > 0 && !fitsInContextFirst ? 0 : segment.endAdjust
            var wholeNeed = max(lead + content + ownAdjust, endNeed)
            opened.startsAtSegment = true
            if wholeNeed > width && fitsInContextFirst && segment.contentClusterCount > 1,
               let rest = paragraphRest(from: index, at: lead, reaching: wholeNeed), rest < wholeNeed {
                // From `rest` on the line takes the rest of the paragraph whole.
                opened.takesParagraphRest = rest <= width
                wholeNeed = rest
            }
            if !opened.takesParagraphRest {
                let later = need(wholeNeed, pastSoftHyphenOf: segment, at: index, reaching: lead + content)
                if later < wholeNeed {
                    wholeNeed = later
                    if later <= width { opened.placementNeed = later }
                }
            }
            if wholeNeed > width && segment.contentClusterCount > 1 {
                // From `wholeNeed` on the segment takes a line whole. The pieces' own bounds need not
                // say so: a piece ending at a soft hyphen needs its hyphen, which the whole segment,
                // ending in hanging white space or going on past the soft hyphen, does not.
                outcome.changeWidth = min(outcome.changeWidth, wholeNeed)
                return breakClusters(of: segment, at: index, continuingLine: false)
            }
            opened.addContent(width: lead + content, endAdjust: segment.endAdjust, clusters: segment.contentClusterCount)
            opened.endNeed = endNeed
            if segment.contentClusterCount > 1 { opened.placementNeed = wholeNeed }
            line = opened
            line.end = contentEnd
            return true
        }

        /// Adds the white space after a segment's content to the open line, where it hangs, or starts
        /// a line with it. Returns false when the line limit stopped the layout.
        @inline(__always)
        mutating func hangSpace(of segment: Segment, clusterEnd: Int) -> Bool {
            let spaceIndex = Int(segment.contentEnd)
            if !fitsInContextFirst && !segment.hasTab {
                let allCount = clusters[clusterEnd - 1].flags.contains(.beforeSeparator)
                // White space that is a segment of its own (a break before it: U+3000, a no-break space or
                // an en space after a space) right after what the open line holds. White space after a
                // tab (an item of its own in Pango) keeps the rule for white space after content, and so
                // does white space before a separator after a form feed, which Pango then lets hang
                // ("a\f\f" before a line feed is one line where "a\f" and the counted "\f" do not fit).
                let before = spaceIndex > 0 ? clusters[spaceIndex - 1].flags : []
                let followsBreak = segment.contentClusterCount == 0 && line.isOpen && spaceIndex > 0
                    && !before.contains(.tab) && !(allCount && before.contains(.formFeed))
                    && line.end == clusters[spaceIndex - 1].end
                let afterWhiteSpace = followsBreak && before.contains(.space)
                if LineBreaker.pangoCounts(clusters, from: spaceIndex, to: clusterEnd) || afterWhiteSpace {
                    return hangPangoSpace(from: spaceIndex, to: clusterEnd, allCount: allCount,
                                          beforeLineSeparator: segment.endsBeforeLineSeparator,
                                          followsBreak: followsBreak)
                }
            }
            let space = clusters[spaceIndex].flags
            if line.isOpen, line.visibleWidth > width, !space.contains(.hangsAlways) {
                // Space cannot hang after a cluster that already overflows.
                guard close(change: line.visibleWidth, moreFollows: true) else { return false }
            }
            if !line.isOpen {
                line = openLine(start: clusters[spaceIndex].start, at: spaceIndex)
                line.startsAtSegment = true
            }
            let x = line.advance
            let hanging = segment.hasTab ? span(of: spaceIndex..<clusterEnd, at: x) : segment.hanging
            if segment.hasTab { line.holdsTab = true }
            if fitsInContextFirst && segment.hasTab {
                // The text after a tab is a new Blink text item.
                var position = x
                for index in spaceIndex..<clusterEnd {
                    position += advance(of: clusters[index], at: position)
                    if clusters[index].flags.contains(.tab) { line.itemStart = position }
                }
            }
            line.addSpace(hanging, always: space.contains(.hangsAlways))
            return true
        }

        /// ``LineBreaking/pango``: adds the white space after a segment's content (clusters
        /// `first..<end`) where Pango counts some of it: two or more characters, or any before a
        /// paragraph's separator (`allCount`). Pango lets only the last white space character before a
        /// break hang (`find_break_extra_width`), so a line ending after them counts the others, and
        /// before a separator, which is that last character, all of them (the segment's `endAdjust`).
        /// Where the content fits and they do not, `PANGO_WRAP_WORD_CHAR` retries with character breaks
        /// and takes the last that fits: after `m` of them the line counts `m - 1` (the `m`th hangs),
        /// after all of them before a separator all (there it does not collapse the last, but before a
        /// U+2028, `beforeLineSeparator`, which comes only with `allCount`, it does); a line
        /// holding nothing else takes at least one. The rest start the next line, a line of white space
        /// unless what follows fits after it. With `followsBreak` the characters are a segment of their
        /// own after what the open line holds, so the line may end before them, a break that fits: they
        /// join it only if all of them fit, the last hanging (but before a separator), and white space
        /// ending the line before them then counts too; else they start the next line.
        /// Returns false when the line limit stopped the layout.
        ///
        /// - Complexity: O(*k*) in the white space characters.
        mutating func hangPangoSpace(from first: Int, to end: Int, allCount: Bool, beforeLineSeparator: Bool,
                                     followsBreak: Bool) -> Bool {
            /// What of the white space already on the line counts before these characters (with
            /// `followsBreak`: what counted of it, and the character that hung).
            var carried = 0
            if followsBreak {
                // Pango takes the last break that fits (`process_item`) and retries with character
                // breaks only when none does; the one before these characters does. It takes an item's
                // whole width off what remains of the line, but never below zero: white space ending a
                // run stays free when what follows adds no counted width, and counts otherwise.
                // Before a paragraph's separator all of them count (see `countWhiteSpace`).
                var own = 0
                for k in first..<(allCount ? end : end - 1) { own += Int(clusters[k].advance) }
                let before = !clusters[first - 1].flags.contains(.space) ? 0
                    : line.endAdjust + (own == 0 && freeAtRunEnd(first - 1) ? 0 : Int(clusters[first - 1].advance))
                let joined = line.visibleWidth - line.endAdjust + before + own
                if joined > width {
                    guard close(change: joined, moreFollows: true) else { return false }
                } else {
                    carried = before
                    line.endAdjust = carried
                    // Narrower, they do not join, even where a character ending a run leaves the line's
                    // visible width below `joined` (a style change inside the white space).
                    line.floorWidth = max(line.floorWidth, joined)
                }
            } else if line.isOpen && line.clusters > 0 {
                // The content's own end: the white space after it is what counts now, not what `place`
                // assumed for a line ending after all of it, nor kerning lost at a line end.
                line.endAdjust = 0
            }
            /// Whether the last character stays counted, even in the retry with character breaks: before
            /// a paragraph's end, where Pango does not collapse it; not before a U+2028, an item of its
            /// own, where the retry may let it hang.
            let keepsLast = allCount && !beforeLineSeparator
            if line.isOpen, line.visibleWidth > width {
                // White space cannot hang after a cluster that already overflows; it joins the line from
                // where the cluster fits, or where a lone character before a separator fits with it.
                let joins = line.visibleWidth + (keepsLast && end - first == 1 ? Int(clusters[first].advance) : 0)
                guard close(change: joins, moreFollows: true) else { return false }
            }
            if !line.isOpen { line = openLine(start: clusters[first].start, at: first) }
            /// Before a separator, the width of the characters from `index` on, and of those that count:
            /// all but a character ending a shaping run, which Pango, fitting item by item, lets hang at
            /// its item's end (our runs are its items). Kept as `index` moves, so that a long run of
            /// white space broken over many lines costs O(*k*), not O(*k*²).
            var all = 0, allCounted = 0
            func add(_ range: Range<Int>, _ sign: Int) {
                for k in range {
                    all += sign * Int(clusters[k].advance)
                    if k == end - 1 || !freeAtRunEnd(k) { allCounted += sign * Int(clusters[k].advance) }
                }
            }
            if allCount { add(first..<end, 1) }
            var index = first
            while true {
                let x = line.visibleWidth
                let holdsNothing = line.clusters == 0 && line.advance == 0
                // A line of one white space character is that line at any width (see below), but before
                // a U+2028, where it counts only while it fits.
                let alone = holdsNothing && end - index == 1 && !beforeLineSeparator
                if allCount && x + allCounted <= width {
                    line.addSpace(all, always: alone)
                    line.endAdjust = carried + allCounted
                    return true
                }
                // After `m` characters, `m < count` (or any `m` without `allCount`): the `m`th hangs, and
                // those before it count but for run ends.
                let last = keepsLast ? end - 1 : end
                var taken = 0, counted = 0, next = index
                while next < last {
                    if next > index {
                        let withNext = freeAtRunEnd(next - 1) ? counted : counted + Int(clusters[next - 1].advance)
                        guard x + withNext <= width else { break }
                        counted = withNext
                    }
                    taken += Int(clusters[next].advance)
                    next += 1
                }
                if next == index && holdsNothing {
                    // One character before a separator, alone on a line too narrow for it: it stays.
                    taken = Int(clusters[index].advance)
                    counted = taken
                    next += 1
                }
                if next == end {
                    line.addSpace(taken, always: alone)
                    line.endAdjust = carried + counted
                    // Before a U+2028, the last hangs only until all of them fit counted.
                    if beforeLineSeparator { outcome.changeWidth = min(outcome.changeWidth, x + allCounted) }
                    return true
                }
                if next > index {
                    line.addSpace(taken, always: false)
                    line.endAdjust = carried + counted
                    line.end = clusters[next - 1].end
                }
                // The width at which the next character would join: hanging after these, or, when it is
                // the last before a separator, counted with them.
                let change = keepsLast && next == end - 1 ? x + allCounted
                    : x + (freeAtRunEnd(next - 1) ? counted : counted + Int(clusters[next - 1].advance))
                guard close(change: change, moreFollows: true) else { return false }
                line = openLine(start: clusters[next].start, at: next)
                carried = 0
                if allCount { add(index..<next, -1) }
                index = next
            }
        }

        /// ``LineBreaking/pango``: whether white space character `index` ends a shaping run (the next
        /// cluster starts one), where Pango, fitting item by item, lets it hang at its item's end.
        @inline(__always)
        func freeAtRunEnd(_ index: Int) -> Bool {
            index + 1 < clusters.count && clusters[index + 1].flags.contains(.hangsAlways)
        }

        /// The width of a segment's visible content when it starts at `x` on its line.
        func contentWidth(of segment: Segment, at x: Int) -> Int {
            segment.hasTab ? span(of: Int(segment.firstCluster)..<Int(segment.contentEnd), at: x) : segment.width
        }

        /// The width of consecutive clusters starting at `x` on their line, tabs included.
        func span(of range: Range<Int>, at x: Int) -> Int {
            var position = x
            for index in range { position += advance(of: clusters[index], at: position) }
            return position - x
        }

        /// A cluster's advance at `x` on its line: its shaped advance, or for a tab the distance to the
        /// first tab stop at least `tabMinimum` past `x` (a space in Pango, half a space in Blink).
        func advance(of cluster: PreparedCluster, at x: Int) -> Int {
            guard cluster.flags.contains(.tab) else { return Int(cluster.advance) }
            let stop = tabStop
            let earliest = x + tabMinimum
            return (earliest + stop - 1) / stop * stop - x
        }

        /// A line starting with cluster `first`; in the browser modes, with where that cluster lies in
        /// its Blink text item.
        mutating func openLine(start: Int32, at first: Int) -> OpenLine {
            var opened = OpenLine(start: start)
            if fitsInContextFirst {
                opened.firstCluster = first
                opened.origin = itemPosition(of: first)
            }
            return opened
        }

        /// Browser modes: where cluster `index` starts in its Blink text item (the paragraph, or the
        /// text after a tab), in context. `index` must not lie before the previous call's.
        mutating func itemPosition(of index: Int) -> Int {
            while cursorIndex < index {
                let cluster = clusters[cursorIndex]
                cursorPosition = cluster.flags.contains(.tab) ? 0 : cursorPosition + Int(cluster.advance)
                cursorIndex += 1
            }
            return cursorPosition
        }

        /// Browser modes: whether a line ending after cluster `index` ends where Blink reshapes it (not
        /// safe to break: kerning with the next cluster, or inside a ligature).
        func endsUnsafe(_ index: Int) -> Bool {
            let cluster = clusters[index]
            guard !cluster.flags.contains(.softHyphen) && !cluster.flags.contains(.space) else { return false }
            return cluster.breakAdjust != 0 || cluster.flags.contains(.insideLigature)
        }

        /// Browser modes: the width `line` needs when it ends after cluster `last`, its content then
        /// ending at `x` in context, as Blink's `ShapingLineBreaker::ShapeLine` checks a reshaped line
        /// end: the end is shaped again from the last safe-to-break offset before it, and that piece
        /// must fit between the offset's position and the line's end position, both LayoutUnits
        /// (`ShapeResult::CachedPositionForOffset`: an offset's x from the item's start, rounded up to
        /// 1/64 px). So the text before the piece counts as the difference of two rounded-up
        /// positions, not its width: `"Lor"` in `"Lorem"` (24 px) is "Lo" (27.096, at 27.109) and "r"
        /// reshaped (9.912), 37.021 px, which does not fit 37 px + 1/64. 0 when the line's end needs no
        /// reshaping or the piece is the whole line (then its width as drawn is what counts).
        func reshapeNeed(of line: OpenLine, endingAfter last: Int, at x: Int) -> Int {
            guard endsUnsafe(last) else { return 0 }
            var first = last
            var pieceStart = x - Int(clusters[last].advance)
            while first > line.firstCluster && endsUnsafe(first - 1) {
                first -= 1
                pieceStart -= Int(clusters[first].advance)
            }
            guard first > line.firstCluster else { return 0 }
            let piece = x - pieceStart + Int(clusters[last].breakAdjust)
            let unit = layoutUnit
            func roundedUp(_ value: Int) -> Int { LayoutUnit.roundedUp(value, toMultipleOf: unit) }
            if line.itemStart > 0 && pieceStart >= line.itemStart {
                // After a tab: the item starts there, after the LayoutUnits of the items before it.
                return roundedUp(line.itemStart) + roundedUp(pieceStart - line.itemStart) + piece
            }
            return roundedUp(line.origin + pieceStart) - roundedUp(line.origin) + piece
        }

        /// Browser modes: the width a line ending after cluster `last` must fit in: as drawn (see
        /// `fillWidth`), and as Blink checks a reshaped end (see `reshapeNeed`).
        func drawnNeed(of line: OpenLine, endingAfter last: Int) -> Int {
            max(fillWidth(of: line, endingAfter: last), reshapeNeed(of: line, endingAfter: last, at: line.content))
        }

        /// Browser modes: how far a line reaches in context when it ends after cluster `last`, its
        /// content then ending at `x`. Blink finds a line's end by the position of the offset after
        /// it, and an offset inside a ligature lies at the ligature's start (or the line's, for a line
        /// starting inside it): "ff" of an "ffi" glyph reaches no further than the glyph's start.
        func reach(endingAfter last: Int, at x: Int, lineFirst: Int) -> Int {
            guard clusters[last].flags.contains(.insideLigature) else { return x }
            var position = x, k = last
            while true {
                position -= Int(clusters[k].advance)
                if k <= lineFirst || !clusters[k - 1].flags.contains(.insideLigature) { return position }
                k -= 1
            }
        }

        /// Browser modes: `line` holds clusters up to `index` (exclusive), as many as reach no further
        /// than the width in context (see `reach`). Gives clusters back, down to `kept`, while the line
        /// as drawn (its last cluster's break adjustment included) is wider than the width; moves
        /// `index` back with them. When even `kept` clusters do not fit as drawn and `overflowsToReach`,
        /// ends the line where the clusters in context reached instead (Blink: "the one after
        /// candidate_break is better for ligatures": "ffi" at 8 px at 24 px breaks as "ff", "i").
        /// Returns the smallest width at which the line would end elsewhere: where some longer prefix,
        /// given back or not reached, fits both in context and as drawn, or, for a line that overflows,
        /// where the clusters in context reach further or a shorter prefix fits as drawn.
        func giveBack(_ line: inout OpenLine, next index: inout Int, kept: Int, end: Int, lineFirst: Int,
                      limit: Int, overflowsToReach: Bool) -> Int {
            // Prefixes past the line: each needs its reach in context and its width as drawn; both
            // positions only grow, so stop once the reach passes the best found.
            var change = Int.max
            var inContext = line.advance
            var next = index
            var nextReach = Int.max
            while next < end {
                inContext += Int(clusters[next].advance)
                let reach = reach(endingAfter: next, at: inContext, lineFirst: lineFirst)
                if next == index { nextReach = reach }
                guard reach < change else { break }
                let drawn = max(inContext + Int(clusters[next].breakAdjust),
                                reshapeNeed(of: line, endingAfter: next, at: inContext))
                change = min(change, max(reach, drawn))
                next += 1
            }
            guard drawnNeed(of: line, endingAfter: index - 1) > limit else { return change }
            let reached = line, reachedIndex = index
            // White space that hangs always stays after the clusters kept: giving it back narrows
            // nothing (a tab after a lone cluster wider than the line hangs there, as in Blink).
            var floor = kept
            while floor < index && clusters[floor].flags.contains(.space) && clusters[floor].flags.contains(.hangsAlways) {
                floor += 1
            }
            while index > floor && drawnNeed(of: line, endingAfter: index - 1) > limit {
                change = min(change, max(reach(endingAfter: index - 1, at: line.content, lineFirst: lineFirst),
                                         line.visibleWidth, reshapeNeed(of: line, endingAfter: index - 1,
                                                                        at: line.content)))
                giveBackLast(&line, next: &index)
            }
            if overflowsToReach && index < reachedIndex {
                let drawn = drawnNeed(of: line, endingAfter: index - 1)
                if drawn > limit {
                    // Nothing fits as drawn: the line takes what reached in context after all. It stays
                    // so until the reach grows or one of the prefixes fits as drawn.
                    change = min(change, drawn, nextReach)
                    line = reached
                    index = reachedIndex
                    line.overflowsAsDrawn = true
                } else if index == kept && index < end {
                    // A lone cluster: just below its width as drawn, the line would take what reached in
                    // context, if the next cluster still reaches there.
                    let next = reach(endingAfter: index, at: line.content + Int(clusters[index].advance),
                                     lineFirst: lineFirst)
                    if next < drawn { line.floorWidth = drawn }
                }
            }
            return change
        }

        /// Browser modes: takes the last of `line`'s clusters, the one before `index`, off the line (the
        /// line then ends after the cluster before it, with that cluster's break adjustment), and moves
        /// `index` back to it.
        func giveBackLast(_ line: inout OpenLine, next index: inout Int) {
            index -= 1
            line.content -= Int(clusters[index].advance)
            line.advance = line.content
            line.clusters -= 1
            line.endAdjust = Int(clusters[index - 1].breakAdjust)
        }

        /// ``LineBreaking/pango``: after the clusters of a word broken between clusters stopped fitting
        /// at cluster `index` (the line then ends before it, `change` wide with it), looks further, as
        /// Pango's `process_item` does: it measures every break in the word as drawn while the word in
        /// context still reaches no further than the width plus a margin (``pangoReach``), and takes
        /// the last break that fits, or, when none fits, the narrowest. Where a longer piece draws
        /// narrower than a shorter one (a Devanagari conjunct drawn as one glyph, "क्ष", is narrower
        /// than its half form "क्" alone), that is a later break than filling cluster by cluster finds.
        /// Moves `line` and `index` to the break taken; returns the width at which the line would end
        /// elsewhere: the narrowest piece looked at past the break taken (it would fit there and be the
        /// last that fits), or `change`. A line taken for being the narrowest of pieces that none fits
        /// holds down to the width at which Pango would no longer look as far as its end.
        mutating func takeNarrowerPrefix(_ line: inout OpenLine, next index: inout Int, end: Int, lineFirst: Int,
                                         change: Int) -> Int {
            var x = line.advance
            var best = index, bestWidth = line.visibleWidth, bestReach = line.advance
            /// The narrowest piece looked at past `best`: at that width the line would take it.
            var narrowestPast = change
            var next = index
            while next < end {
                x += advance(of: clusters[next], at: x)
                let drawn = x + Int(clusters[next].breakAdjust)
                if x > width + pangoReach {
                    narrowestPast = min(narrowestPast, drawn)
                    break
                }
                if drawn <= width || drawn < bestWidth {
                    best = next + 1
                    bestWidth = drawn
                    bestReach = x
                    narrowestPast = Int.max
                } else {
                    narrowestPast = min(narrowestPast, drawn)
                }
                next += 1
            }
            guard best > index else { return narrowestPast }
            for k in index..<best {
                line.addContent(width: advance(of: clusters[k], at: line.advance), endAdjust: Int(clusters[k].breakAdjust),
                                clusters: 1)
            }
            index = best
            if bestWidth > width {
                line.overflowsAsDrawn = true
                line.requirement = max(0, bestReach - pangoReach)
            }
            return narrowestPast
        }

        /// Browser modes: where the rest of the paragraph from segment `index` on reaches when it starts
        /// at `x` on the line, its white space counted (and a soft hyphen ending the paragraph's content
        /// with its hyphen), the way Blink measures the rest of a text item: where it fits, Blink takes
        /// it whole, without looking for a break in it, so no segment in it needs to fit as a line's end
        /// (`"x\u{AD}i"` fits at the width of `"xi"`, where `"x\u{AD}"` with its hyphen would not). The
        /// sum stops once it reaches `limit` (the width the segment needs otherwise, which is then what
        /// counts); nil where a tab comes first (the text after it is another Blink item, at a place
        /// only filling tells).
        ///
        /// - Complexity: O(*k*) in the segments summed: up to `limit`, and at most
        ///   ``paragraphRestSegments`` of them (nil past that), so that segments of no width (a soft
        ///   hyphen after each of 50,000 format characters) do not make a layout quadratic.
        func paragraphRest(from index: Int, at x: Int, reaching limit: Int) -> Int? {
            var reach = x
            var next = index
            while next < index + Self.paragraphRestSegments {
                let segment = segments[next]
                if segment.hasTab { return nil }
                let endsParagraph = segment.isMandatoryBreak || next + 1 == segments.count
                reach += segment.width + (endsParagraph && segment.hanging == 0 ? segment.endAdjust : segment.hanging)
                if endsParagraph || reach >= limit { return reach }
                next += 1
            }
            return nil
        }

        /// Browser modes: `need`, the width segment `index` needs on a line where its content ends at
        /// `x`; or, where that is more than the width and the segment ends at a soft hyphen, the least
        /// width from which a later break fits, if narrower: the line then goes on past the soft hyphen
        /// to that break (see `laterFitWidth`).
        func need(_ need: Int, pastSoftHyphenOf segment: Segment, at index: Int, reaching x: Int) -> Int {
            guard need > width && fitsInContextFirst
                    && clusters[Int(segment.contentEnd) - 1].flags.contains(.softHyphen) else { return need }
            return min(need, laterFitWidth(after: index, at: x + segment.hanging))
        }

        /// Browser modes: how many segments `paragraphRest` sums at most: more than a line of text
        /// holds, but for segments of no width.
        static let paragraphRestSegments = 1_024

        /// Browser modes: how many segments `laterFitWidth` looks at past its own. Blink looks to the
        /// end of the line; the two differ only past this many segments of no width.
        static let laterFitSegments = 16

        /// Browser modes: the least width at which a line whose content reaches `x` after segment
        /// `index` (its white space included) can end at a later break, the segments from `index + 1`
        /// on following at their widths; `Int.max` when none can (segment `index` ends its paragraph, or
        /// a tab comes first, in it or after it: the text after a tab is another Blink item, and the
        /// tab's advance depends on where it falls). Blink takes the last break whose
        /// line fits, so a soft hyphen whose hyphen does not fit ends no line where a later break fits
        /// (`"abcdef\u{AD}i end"`: `"abcdef\u{AD}i "` fits where `"abcdef-"` does not).
        ///
        /// - Complexity: O(1): the segments looked at stop once their content reaches past the least
        ///   width found, so a few past the first, and at most ``laterFitSegments`` of them, so that
        ///   segments of no width (a soft hyphen after each of 50,000 format characters) cost no more.
        func laterFitWidth(after index: Int, at x: Int) -> Int {
            guard !segments[index].isMandatoryBreak && !segments[index].hasTab else { return Int.max }
            var least = Int.max
            var reach = x
            var next = index + 1
            while next < segments.count && next <= index + Self.laterFitSegments {
                let segment = segments[next]
                if segment.hasTab { break }
                let content = reach + segment.width
                if content >= least { break }
                least = min(least, content + segment.endAdjust)
                if segment.isMandatoryBreak { break }
                reach = content + segment.hanging
                next += 1
            }
            return least
        }

        /// Browser modes: the width of `line`, ending after cluster `last`, that Blink's line filling
        /// compares with the width: as drawn, but without the hyphen of a soft hyphen ending it (Blink
        /// adds the hyphen once the line is chosen, see `breakClusters`).
        func fillWidth(of line: OpenLine, endingAfter last: Int) -> Int {
            clusters[last].flags.contains(.softHyphen) ? line.content : line.visibleWidth
        }

        /// Makes the layout's range of valid widths this width alone: for a line chosen in two passes
        /// (a soft hyphen's retry), whose bounds the single-pass bookkeeping does not describe.
        mutating func pinValidWidths() {
            outcome.minimumWidth = max(outcome.minimumWidth, width)
            outcome.changeWidth = min(outcome.changeWidth, width == Int.max ? width : width + 1)
        }

        /// Ends the open line; returns false when the line limit stops the layout. `change` is the
        /// width at which this line would have taken in what follows it; `endsParagraph` says the line
        /// ends at its paragraph's end.
        mutating func close(change: Int?, endsParagraph: Bool = false, moreFollows: Bool) -> Bool {
            guard line.isOpen else { return true }
            let current = line
            var visible = current.visibleWidth
            // Browser modes: Blink takes the rest of a text item whole where it fits, white space
            // counted, so the last line of a paragraph holds down to that width too (see
            // `paragraphRest`), and is that wide (a soft hyphen before its hanging white space draws no
            // hyphen). Not for a line that started inside a broken word (its pieces move with the
            // width) or that holds a tab (`paragraphRest` stops at tabs).
            let rest = fitsInContextFirst && endsParagraph && current.startsAtSegment && !current.holdsTab
                && current.clusters > 0
                ? (current.advance > current.content ? current.advance : current.content + current.endAdjust) : Int.max
            visible = min(visible, rest)
            outcome.lineCount += 1
            outcome.widestLine = max(outcome.widestLine, visible)
            // A lone cluster stays alone at any narrower width, unless space hangs after it.
            var lower = current.floorWidth
            if current.overflowsAsDrawn {
                lower = max(lower, current.requirement)
            } else if current.clusters > 1 || (current.clusters == 1 && (current.hangsBecauseContentFits || current.startsWithWhiteSpace))
                        || (current.clusters == 0 && current.endAdjust > 0 && current.hangsBecauseContentFits) {
                lower = max(lower, min(rest, max(visible, current.requirement, current.endNeed, current.placementNeed)))
            }
            let upper = change ?? Int.max
            outcome.minimumWidth = max(outcome.minimumWidth, lower)
            outcome.changeWidth = min(outcome.changeWidth, upper)
            let extent = heights.countsLines ? heights.add(lineFrom: current.start, to: current.end) : .zero
            if let lines {
                lines.pointee.append(heights.line(utf8Range: Int(current.start)..<Int(current.end),
                                                  width: Double(visible) / Double(unitsPerPixel),
                                                  index: outcome.lineCount - 1, extent: extent))
            }
            line.isOpen = false
            if maxLines > 0 && outcome.lineCount == maxLines && moreFollows {
                outcome.isTruncated = true
                return false
            }
            return true
        }

        /// Breaks a segment too wide for any line between grapheme clusters, closing every full line
        /// and leaving the last piece open; with `continuingLine`, its first clusters go on the open
        /// line as long as they fit. Returns false when the line limit stopped the layout.
        mutating func breakClusters(of segment: Segment, at segmentIndex: Int, continuingLine: Bool) -> Bool {
            let end = Int(segment.contentEnd)
            var index = Int(segment.firstCluster)
            if fitsInContextFirst && (index..<end).contains(where: { clusters[$0].flags.contains(.softHyphen) }) {
                // Blink refills a line whose soft hyphen's hyphen does not fit, and a piece ending at a
                // soft hyphen needs its hyphen where a longer one does not: the widths at which these
                // lines stay are not the union of per-line bounds. This width alone is exact.
                pinValidWidths()
            }
            var continuing = continuingLine && line.isOpen
            while true {
                var current = OpenLine()
                /// Clusters before this one are never given back.
                var kept = index
                /// The first cluster of the line, as far as `reach` needs to know.
                let lineFirst = index
                /// Whether the line starts here (Blink's overflow rule applies to a line's first word).
                let startsLine = !continuing
                /// The width the clusters are filled to: `width`, less a hyphen on a soft hyphen's retry.
                var limit = width
                var retried = false
                var change = 0
                fill: while true {
                    if continuing {
                        current = line
                        continuing = false
                    } else {
                        index = lineFirst
                        kept = index + 1
                        current = openLine(start: clusters[index].start, at: index)
                        // The first cluster goes on the line whatever its width (inside a ligature, with
                        // the ligature's tail drawn on its own).
                        let first = clusters[index]
                        if first.flags.contains(.space) {
                            current.addSpace(advance(of: first, at: 0), always: first.flags.contains(.hangsAlways))
                        } else {
                            current.addContent(width: lineStartAdjust(at: index) + advance(of: first, at: 0),
                                               endAdjust: Int(first.breakAdjust), clusters: 1)
                        }
                        index += 1
                    }
                    change = 0
                    while index < end {
                        let cluster = clusters[index]
                        if cluster.flags.contains(.space) {
                            if !fitsInContextFirst && index > lineFirst && clusters[index - 1].flags.contains(.space)
                                && !cluster.flags.contains(.hangsAlways) {
                                // Pango lets only the last white space character before a break hang: the
                                // one before this counts once this follows (unless it ended a run).
                                let counted = current.advance - current.content
                                if current.content + counted > limit {
                                    change = current.content + counted
                                    break
                                }
                                current.endAdjust = counted
                            } else if current.visibleWidth > limit && !cluster.flags.contains(.hangsAlways) {
                                change = current.visibleWidth
                                break
                            }
                            current.addSpace(advance(of: cluster, at: current.advance),
                                             always: cluster.flags.contains(.hangsAlways))
                        } else if fitsInContextFirst {
                            let advance = advance(of: cluster, at: current.advance)
                            if reach(endingAfter: index, at: current.advance + advance, lineFirst: lineFirst) > limit {
                                change = giveBack(&current, next: &index, kept: kept, end: end, lineFirst: lineFirst,
                                                  limit: limit, overflowsToReach: startsLine)
                                break
                            }
                            current.addContent(width: advance, endAdjust: Int(cluster.breakAdjust), clusters: 1)
                        } else {
                            let advance = advance(of: cluster, at: current.advance)
                            let needed = current.advance + advance + Int(cluster.breakAdjust)
                            if needed > width {
                                change = needed
                                break
                            }
                            current.addContent(width: advance, endAdjust: Int(cluster.breakAdjust), clusters: 1)
                        }
                        index += 1
                    }
                    if !fitsInContextFirst && index < end {
                        change = takeNarrowerPrefix(&current, next: &index, end: end, lineFirst: lineFirst, change: change)
                    }
                    if fitsInContextFirst && index == end && clusters[index - 1].flags.contains(.softHyphen)
                        && laterFitWidth(after: segmentIndex, at: current.advance + segment.hanging) <= width {
                        // The word's last piece ends at a soft hyphen, and the line goes on past it to a
                        // later break that fits (see `laterFitWidth`).
                        break fill
                    }
                    if fitsInContextFirst && index == end && drawnNeed(of: current, endingAfter: index - 1) > limit {
                        // The word's last piece must fit as drawn too.
                        change = giveBack(&current, next: &index, kept: kept, end: end, lineFirst: lineFirst,
                                          limit: limit, overflowsToReach: startsLine)
                    }
                    // Blink: a line ending at a soft hyphen whose hyphen does not fit is filled once more,
                    // to the width less the hyphen ("phen" + hyphen at 64 px at 24 px gives "phe"); what
                    // that finds stays, hyphen and all.
                    if fitsInContextFirst && clusters[index - 1].flags.contains(.softHyphen)
                        && current.visibleWidth > width {
                        if clusters[index - 1].flags.contains(.startsBlinkItem) && index - 1 > lineFirst
                            && current.content <= width {
                            // The soft hyphen starts a Blink text item: the line ends before it, where
                            // the item starts ("مرحبا", then "\u{AD} end"), and it starts the next line.
                            giveBackLast(&current, next: &index)
                            pinValidWidths()
                            break fill
                        }
                        if startsLine && !retried && !current.overflowsAsDrawn && current.content <= width {
                            retried = true
                            let hyphen = Int(clusters[index - 1].breakAdjust)
                            limit = width - hyphen
                            continue fill
                        }
                        current.overflowsAsDrawn = true
                        pinValidWidths()
                    }
                    break fill
                }
                current.end = clusters[index - 1].end
                if fitsInContextFirst && !current.overflowsAsDrawn {
                    current.endNeed = reshapeNeed(of: current, endingAfter: index - 1, at: current.content)
                }
                if fitsInContextFirst && (index < end || current.overflowsAsDrawn) {
                    current.requirement = min(limit, reach(endingAfter: index - 1, at: current.content, lineFirst: lineFirst))
                }
                line = current
                if index == end { return true }
                guard close(change: change, moreFollows: true) else { return false }
            }
        }
    }
}
