/// A text shaped and analyzed once, ready to be laid out at any width by arithmetic alone.
///
/// Everything that does not depend on the width (paragraphs, fonts, scripts, HarfBuzz shaping, UAX #14
/// break opportunities) is done by ``TextMeasurer/prepare(_:style:)-(String,_)``. What is kept is a list of
/// *segments* — the pieces between two break opportunities — with their widths and the width of the
/// white space that hangs after them, plus per-cluster advances for breaking pieces wider than a line.
/// ``layout(width:)`` walks those numbers; it calls neither HarfBuzz nor ICU.
///
/// ```swift
/// let prepared = try measurer.prepare(comment.body, style: TextStyle(size: 15))
/// let narrow = try prepared.layout(width: 320)   // portrait
/// let wide = try prepared.layout(width: 680)     // landscape: no reshaping
/// ```
///
/// Thread safety: an immutable value; lay it out from any number of threads at once.
public struct PreparedText: Sendable {
    /// Everything below, in one object: a copy of a prepared text (a cache handing it out, a layout
    /// borrowing it) retains one reference, not one per array.
    private let storage: Storage

    /// The text as given.
    public var text: String { storage.text }
    /// The spans of the ``StyledText`` it was prepared from, as given; empty for plain text.
    public var spans: [TextSpan] { storage.spans }
    /// The style it was prepared with (``TextStyle/maxLines`` and the line height apply at layout).
    public var style: TextStyle { storage.style }
    /// The height of a line holding no text (an empty paragraph's), in pixels: with
    /// ``LineHeight/natural``, the primary font's line height (Blink's, rounded, in the browser modes);
    /// otherwise the fixed height every line has. With a natural line height, a line drawn with a
    /// taller fallback font is taller (and in ``LineBreaking/pango`` one drawn only with a shorter
    /// font is shorter): each laid-out line says its own (``TextMeasurement/Line/height``).
    public var lineHeight: Double { storage.lineHeights.emptyLineHeight }

    /// How tall each line is (see ``LineHeights``).
    var lineHeights: LineHeights { storage.lineHeights }
    /// Layout units per pixel of its advances and widths: the style's (`TextStyle.unitsPerPixel`), or
    /// for a styled text in a browser mode with a span past `TextStyle.largestFineSize`, 1,024.
    var unitsPerPixel: Int { storage.unitsPerPixel }

    /// The pieces between break opportunities, in text order.
    var segments: [Segment] { storage.segments }
    /// Every grapheme cluster, in text order.
    var clusters: [PreparedCluster] { storage.clusters }
    /// For the clusters flagged ``ClusterFlags/adjustsLineStart`` (inside a ligature), how much wider
    /// a line starting at them is; in cluster order.
    var lineStartAdjusts: [LineStartAdjust] { storage.lineStartAdjusts }
    /// The distance between tab stops, in layout units (`TextStyle.unitsPerPixel`): eight spaces of the primary font, as in Pango. A
    /// tab reaches the first stop at least an eighth of that (a space) past where it starts.
    var tabStop: Int { storage.tabStop }
    /// The least a tab advances, in layout units: a space (an eighth of a stop) in ``LineBreaking/pango``,
    /// as Pango; half a space of the first font in the browser modes, as Blink. Past a stop closer
    /// than that, a tab goes on to the next.
    var tabMinimum: Int { storage.tabMinimum }
    /// The least fill width, in layout units, from which `LineBreaker` lays the text out whole segment
    /// by whole segment (its fast path, see `LineBreaker.fillWholeSegments`): the widest segment's
    /// width as drawn, so that every segment fits a line of its own. `Int.max` when some segment needs
    /// the general filler at any width: it holds no visible cluster (an empty paragraph, leading white
    /// space), holds a tab, starts inside a ligature, follows a hyphen whose break depends on the line's
    /// start, or (browser modes) ends where Blink reshapes it.
    var wholeSegmentFillWidth: Int { storage.wholeSegmentFillWidth }

    /// The prepared form's fields (see the properties of the same names above). Immutable.
    private final class Storage: Sendable {
        let text: String
        let spans: [TextSpan]
        let style: TextStyle
        let unitsPerPixel: Int
        let lineHeights: LineHeights
        let extentRuns: [ExtentRun]
        let segments: [Segment]
        let clusters: [PreparedCluster]
        let lineStartAdjusts: [LineStartAdjust]
        let tabStop: Int
        let tabMinimum: Int
        let wholeSegmentFillWidth: Int

        init(text: String, spans: [TextSpan], style: TextStyle, unitsPerPixel: Int, lineHeights: LineHeights,
             extentRuns: [ExtentRun], segments: [Segment], clusters: [PreparedCluster],
             lineStartAdjusts: [LineStartAdjust], tabStop: Int, tabMinimum: Int, wholeSegmentFillWidth: Int) {
            self.text = text
            self.spans = spans
            self.style = style
            self.unitsPerPixel = unitsPerPixel
            self.lineHeights = lineHeights
            self.extentRuns = extentRuns
            self.segments = segments
            self.clusters = clusters
            self.lineStartAdjusts = lineStartAdjusts
            self.tabStop = tabStop
            self.tabMinimum = tabMinimum
            self.wholeSegmentFillWidth = wholeSegmentFillWidth
        }

        /// About how many bytes the object itself takes: its header and fields.
        static let instanceSize = 2 * MemoryLayout<Int>.size
            + MemoryLayout<(String, [TextSpan], TextStyle, Int, LineHeights, [ExtentRun], [Segment], [PreparedCluster],
                            [LineStartAdjust], Int, Int, Int)>.size
    }

    init(text: String, spans: [TextSpan] = [], style: TextStyle, unitsPerPixel: Int, lineHeights: LineHeights,
         extentRuns: [ExtentRun], segments: [Segment], clusters: [PreparedCluster], lineStartAdjusts: [LineStartAdjust],
         tabStop: Int, tabMinimum: Int) {
        storage = Storage(text: text, spans: spans, style: style, unitsPerPixel: unitsPerPixel,
                          lineHeights: lineHeights, extentRuns: extentRuns, segments: segments, clusters: clusters,
                          lineStartAdjusts: lineStartAdjusts, tabStop: tabStop, tabMinimum: tabMinimum,
                          wholeSegmentFillWidth: Self.wholeSegmentFillWidth(segments: segments, clusters: clusters,
                                                                            isBrowser: style.breaking.isBrowser))
    }

    /// See ``wholeSegmentFillWidth``.
    ///
    /// - Complexity: O(*n*) in the segments.
    private static func wholeSegmentFillWidth(segments: [Segment], clusters: [PreparedCluster], isBrowser: Bool) -> Int {
        var widest = 0
        for segment in segments {
            guard segment.contentClusterCount > 0, !segment.hasTab, !segment.followsHyphen,
                  !clusters[Int(segment.firstCluster)].flags.contains(.adjustsLineStart),
                  !(isBrowser && segment.endAdjust != 0) else { return Int.max }
            widest = max(widest, segment.width + segment.endAdjust)
        }
        return widest
    }

    /// About how many bytes the prepared form holds: its segments, clusters, line-start table and
    /// line-height runs, the text's UTF-8 bytes and the value itself with the object holding its fields. What
    /// ``PreparedTextCache`` counts against its budget.
    ///
    /// Lists count by their elements, not their capacity: the segments and clusters are allocated at
    /// their exact size, and the capacity an array reports includes what the allocator rounded up,
    /// which depends on the heap's state (a chunk it did not split): the same text prepared twice
    /// differed by a cluster's 20 bytes, and a cache's byte total with it.
    ///
    /// - Complexity: O(1).
    var byteCount: Int {
        MemoryLayout<PreparedText>.size + Storage.instanceSize + segments.count * MemoryLayout<Segment>.stride
            + clusters.count * MemoryLayout<PreparedCluster>.stride
            + lineStartAdjusts.count * MemoryLayout<LineStartAdjust>.stride + text.utf8.count
            + extentRuns.count * MemoryLayout<ExtentRun>.stride + spans.count * MemoryLayout<TextSpan>.stride
    }

    /// The runs of bytes whose fonts make lines taller or shorter than the others (see
    /// ``LineHeights``); empty when every line is equally tall.
    var extentRuns: [ExtentRun] { storage.extentRuns }
}

/// How much wider a line is when it starts at a cluster inside a ligature (see
/// `LineBreaker`'s `lineStartAdjust(at:)`), in layout units (`TextStyle.unitsPerPixel`).
struct LineStartAdjust: Hashable, Sendable {
    var cluster: Int32
    var adjust: Int32
}

/// One grapheme cluster as layout sees it.
struct PreparedCluster: Hashable, Sendable {
    /// Byte range in `text.utf8`.
    var start: Int32
    var end: Int32
    /// Advance in layout units (`TextStyle.unitsPerPixel`), as shaped in context (a ligature's shared evenly between the clusters it
    /// spans), clamped to 32 bits: ±2^31 units is two million pixels, more than any cluster's.
    var advance: Int32
    /// How much wider the cluster is when a line ends right after it, in layout units: its kerning with
    /// the next cluster is lost, or, inside a ligature, the line draws the ligature's head on its own.
    var breakAdjust: Int32
    var flags: ClusterFlags
}

/// Per-cluster facts used by the line breaker.
struct ClusterFlags: OptionSet, Hashable, Sendable {
    /// 16 bits: `PreparedCluster`'s stride stays 20 bytes.
    let rawValue: UInt16
    /// A lone white-space character: it hangs at the end of a line.
    static let space = ClusterFlags(rawValue: 1)
    /// White space that hangs even after a cluster wider than the line. In ``LineBreaking/pango``, the
    /// first cluster of a shaping run (new font or script; set on every such cluster, read on white
    /// space): Pango lays out run by run, and white space that begins a run hangs. In the browser
    /// modes, all white space (CSS `white-space: pre-wrap` hangs it unconditionally).
    static let hangsAlways = ClusterFlags(rawValue: 2)
    /// A tab: its advance depends on where on the line it falls (see `PreparedText.tabStop`).
    static let tab = ClusterFlags(rawValue: 4)
    /// Inside a ligature: a line starting here is wider or narrower than the cluster's advance in
    /// context (see `LineBreaker`'s `lineStartAdjust(at:)`).
    static let adjustsLineStart = ClusterFlags(rawValue: 8)
    /// A part of a ligature other than its last (the "f" and "f" of an "ffi" glyph): Blink finds where a
    /// line may end by the x position of each offset, and an offset inside a ligature lies at the
    /// ligature's start (read by the browser modes' layout only).
    static let insideLigature = ClusterFlags(rawValue: 16)
    /// A soft hyphen (U+00AD): its `breakAdjust` is the hyphen a line ending here shows, which Blink
    /// adds after choosing the line (read by the browser modes' layout only).
    static let softHyphen = ClusterFlags(rawValue: 32)
    /// ``LineBreaking/pango``: the last white space character before a line feed, carriage return,
    /// paragraph separator or U+2028 ending its paragraph. That separator is the last white space
    /// character before the break, so all the white space before it counts at a line's end (the
    /// segment's `endAdjust`), and a line that cannot take it all ends before its last character, or
    /// before it all when it is one; before a U+2028 the retry with character breaks may let that last
    /// character hang instead (``Segment/endsBeforeLineSeparator``; see `LineBreaker`'s `hangPangoSpace`).
    static let beforeSeparator = ClusterFlags(rawValue: 64)
    /// ``LineBreaking/pango``: a form feed, white space that Pango draws as a hex box. White space of a
    /// segment of its own after it, before a separator, leaves it hanging, as Pango does (see
    /// `LineBreaker`'s `hangSpace`).
    static let formFeed = ClusterFlags(rawValue: 128)
    /// Browser modes: a soft hyphen after right-to-left text and before text that is not, which Blink
    /// lays out in a text item of its own (the soft hyphen takes the paragraph's level): a word broken
    /// between clusters whose line cannot show the hyphen ends before it, where the item starts, and
    /// is not filled again (see `LineBreaker`'s `breakClusters`).
    static let startsBlinkItem = ClusterFlags(rawValue: 256)
}

/// The text between two break opportunities (or a whole empty paragraph).
struct Segment: Hashable, Sendable {
    /// Byte range in the text, hanging white space included.
    var byteStart: Int32
    var byteEnd: Int32
    /// Clusters `firstCluster..<contentEnd` are visible content; the segment's clusters after them
    /// (up to the next segment's first) are white space that hangs.
    var firstCluster: Int32
    var contentEnd: Int32
    /// Width of the content, and of the trailing white space, in layout units.
    var width: Int
    var hanging: Int
    /// Added to `width` when a line ends after this segment: without white space after the content,
    /// the kerning lost at the line's end (see `PreparedCluster.breakAdjust`); with white space, 0,
    /// except in ``LineBreaking/pango`` after two or more white space characters, which counts all of
    /// them but the last (Pango lets only the last hang; `LineBreaker` breaks between them where they
    /// do not fit), and in the browser modes after a soft hyphen, whose hyphen a line ending there
    /// shows (the white space hanging after it).
    var endAdjust: Int
    /// The line must end after this segment (a hard break or the end of a paragraph).
    var isMandatoryBreak: Bool
    /// The segment holds a tab, so its widths depend on where it starts (the fields above count the
    /// tab's shaped advance, which layout replaces).
    var hasTab = false
    /// Browser modes: the segment follows a hyphen that ended the segment before, and the break between
    /// them depends on the character before the hyphen — which a line starting at the hyphen does not
    /// see (Blink looks for breaks from the line's start): after a "-" before a digit, Blink's rule
    /// allows it only after an ASCII letter or digit; after a "-" before a character past ASCII, or a
    /// dash of class HH before a letter, Chromium's ICU (UAX #14 LB20a) forbids it after a word-initial
    /// hyphen. See `LineBreaker`.
    var followsHyphen = false
    /// ``LineBreaking/pango``: the segment ends its paragraph before a U+2028, which Pango lays out as
    /// an item of its own in the paragraph. UAX #14 breaks nowhere before it, so the white space before
    /// it counts as before any separator (`endAdjust`); but where no break fits a line, the retry with
    /// character breaks may end the line after that white space, whose last character then hangs.
    var endsBeforeLineSeparator = false

    var contentClusterCount: Int { Int(contentEnd - firstCluster) }
}
