import TextMeasureSupport
import CUnicodeBreak

/// Measures how tall text will be at a width, without rendering it.
///
/// ```swift
/// let measurer = try TextMeasurer()                        // the bundled fonts
/// let m = try measurer.measure("Hello, world", style: TextStyle(size: 17), width: 320)
/// m.height, m.lineCount, m.isTruncated, m.validWidths
/// ```
///
/// To lay the same text out at several widths, ``prepare(_:style:)-(String,_)`` it once and call
/// ``PreparedText/layout(width:)`` for each width: that skips shaping and Unicode analysis.
///
/// Thread safety: a `TextMeasurer` is immutable and `Sendable`; call it from any number of threads or
/// tasks at once. The fonts it holds are immutable HarfBuzz faces shared by all threads; each call
/// borrows a HarfBuzz buffer of its own from a pool, and ICU break iterators are per thread.
///
/// Memory: a measurer keeps HarfBuzz fonts for the ``fontSizeCapacity`` sizes it used most recently
/// (at most one per font of the cascade and size, made when a text at that size is first shaped with
/// the font; under a kilobyte each); a size used again after being evicted has its fonts made again
/// (microseconds). Fonts are loaded lazily, each when a text first needs it (see ``FontFace``). Shaped words are cached by face and size
/// (`shapeCacheCapacity` pieces, 160 bytes each, and a thirty-second as many spans of at most 512
/// bytes of text: under 9 KB each, about 1 KB for a phrase), so any number of sizes takes bounded
/// memory.
public final class TextMeasurer: Sendable {
    /// The font cascade: primary font first, then fallbacks.
    public let cascade: FontCascade
    private let preparer: Preparer
    /// Where the faces of styled text come from: cascades given, or the bundled files, opened on the
    /// first styled text (a measurer of plain text never reads them).
    private enum StyledFaces: Sendable {
        case given(FontCascades)
        case bundled(folder: String)
    }
    private let styledFaces: StyledFaces
    /// Every face's fonts, made on the first styled text (see ``StyledFontTable``).
    private let styledFontTable = Locked<StyledFontTable?>(nil)
    /// The cascade's HarfBuzz fonts for the most recently used sizes, fetched under one lock per
    /// preparation.
    let scaledFonts: ScaledFontCache
    private let profile = Locked<AdvanceProfile?>(nil)

    /// A measurer using the bundled fonts (see ``BundledFonts``).
    ///
    /// - Throws: ``FontError/bundledFontsNotFound(searched:)`` when the bundled fonts are not found;
    ///   otherwise the ``FontError`` of a bundled file that cannot be loaded.
    public convenience init() throws(FontError) {
        // The break analysis's shared set-up first (see `init(cascade:shapeCacheCapacity:)`): a batch
        // makes this measurer on a thread of its own while its main thread reads the input and then
        // loads the line-break dictionaries, which need that set-up; the fonts need nothing from it.
        cub_prepare()
        let folder = try BundledFonts.folder()
        let cascade = try FontCascade(files: BundledFonts.fileNames.map { FontFile(path: folder + "/" + $0) })
        self.init(cascade: cascade, styledFaces: .bundled(folder: folder), shapeCacheCapacity: 50_000)
    }

    /// A measurer using these font files, in order: the first is the primary font, the rest are
    /// fallbacks.
    ///
    /// - Parameter fontFiles: Paths of font files, primary first; the first face of each is used.
    /// - Throws: ``FontError/emptyCascade`` when `fontFiles` is empty; otherwise the ``FontError``
    ///   naming the first file that is missing, unreadable or corrupt.
    public convenience init(fontFiles: [String]) throws(FontError) {
        self.init(cascade: try FontCascade(files: fontFiles.map { FontFile(path: $0) }))
    }

    /// A measurer using these font faces, in order (use ``FontFile/faceIndex`` for `.ttc` collections).
    ///
    /// - Parameter fonts: The faces, primary first, then the fallbacks in the order they are tried.
    /// - Throws: ``FontError/emptyCascade`` when `fonts` is empty; otherwise the ``FontError`` naming
    ///   the first file that is missing, unreadable, corrupt or without a face at its index.
    public convenience init(fonts: [FontFile]) throws(FontError) {
        self.init(cascade: try FontCascade(files: fonts))
    }

    /// A measurer using an already loaded cascade, for plain text and every face of styled text (a
    /// ``StyledText`` then measures as plain text, except for its sizes).
    ///
    /// - Parameters:
    ///   - cascade: The fonts, primary first.
    ///   - shapeCacheCapacity: The most shaped pieces (words) kept for reuse across texts, about 160
    ///     bytes each, and a thirty-second as many spans (text not cached word by word: up to 512
    ///     bytes of text and 16 bytes per glyph cluster each); 0 (or less) turns the cache off, and
    ///     more than ``maximumShapeCacheCapacity`` counts as ``maximumShapeCacheCapacity``.
    /// - Complexity: O(1); the cache's tables reserve their storage (address space, mapped as
    ///   pieces fill it).
    public convenience init(cascade: FontCascade, shapeCacheCapacity: Int = 50_000) {
        self.init(cascade: cascade, styledFaces: .given(FontCascades(regular: cascade)),
                  shapeCacheCapacity: shapeCacheCapacity)
    }

    /// A measurer drawing each face of styled text with its own cascade (see ``FontCascades``).
    ///
    /// - Parameters:
    ///   - cascades: The regular cascade, and those of the bold, italic and monospaced faces.
    ///   - shapeCacheCapacity: As for ``init(cascade:shapeCacheCapacity:)``: 0 (or less) turns the
    ///     cache off, and more than ``maximumShapeCacheCapacity`` counts as ``maximumShapeCacheCapacity``.
    /// - Complexity: O(1); the cache's tables reserve their storage (address space, mapped as
    ///   pieces fill it).
    public convenience init(cascades: FontCascades, shapeCacheCapacity: Int = 50_000) {
        self.init(cascade: cascades.regular, styledFaces: .given(cascades), shapeCacheCapacity: shapeCacheCapacity)
    }

    private convenience init(cascade: FontCascade, styledFaces: StyledFaces, shapeCacheCapacity: Int) {
        let capacity = min(shapeCacheCapacity, Self.maximumShapeCacheCapacity)
        self.init(cascade: cascade, styledFaces: styledFaces, shapeCache: capacity > 0 ? ShapeCache(capacity: capacity) : nil)
    }

    /// The largest capacity of the cache of shaped pieces: 4,194,304 (2^22) pieces, about 670 MB
    /// when full. A larger `shapeCacheCapacity` given to ``init(cascade:shapeCacheCapacity:)`` or
    /// ``init(cascades:shapeCacheCapacity:)`` is taken as this one.
    public static let maximumShapeCacheCapacity = 1 << 22

    /// A measurer with the fonts of `cascade` and `shapeCache` as its cache of shaped pieces (for
    /// tests that size the cache's parts themselves).
    convenience init(cascade: FontCascade, shapeCache: ShapeCache) {
        self.init(cascade: cascade, styledFaces: .given(FontCascades(regular: cascade)), shapeCache: shapeCache)
    }

    private init(cascade: FontCascade, styledFaces: StyledFaces, shapeCache: ShapeCache?) {
        self.cascade = cascade
        self.styledFaces = styledFaces
        self.scaledFonts = ScaledFontCache(faces: cascade.fonts, capacity: Self.fontSizeCapacity)
        let digits: HexBoxDigitFaces.Source = switch styledFaces {
        case .given(let cascades): .given(cascades)
        case .bundled(let folder): .bundled(regular: cascade, folder: folder)
        }
        self.preparer = Preparer(cascade: cascade, shapeCache: shapeCache, hexBoxDigits: HexBoxDigitFaces(digits))
        // The break analysis's shared set-up (once per process), here rather than in the first text,
        // where other threads' first texts would wait for it (the batch makes its measurer on a
        // thread of its own while it reads its input).
        cub_prepare()
    }

    /// Loads the line-break dictionaries that the South-East Asian scripts (Thai, Lao, Myanmar, Khmer
    /// and their neighbours) in `utf8` will need in the line-breaking modes `modes`, as the first text
    /// of each script would: ICU builds each dictionary's character sets on first use (about a
    /// millisecond for Thai; the browser modes use them) and libthai reads its trie (``LineBreaking/pango``,
    /// Thai only), under a lock the first text of that script on every thread waits on. A batch calls
    /// this with its first input before it waits for its measurer (with the bundled fonts, loading on
    /// another thread meanwhile), so that no text pays for it.
    ///
    /// - Parameters:
    ///   - utf8: Text, or input holding text (JSON lines); at most the first 64 KiB are read, and text
    ///     written as JSON escapes is not seen.
    ///   - modes: The line-breaking modes the texts will be measured in.
    /// - Complexity: O(*n*) byte comparisons, plus about a millisecond per dictionary found for the
    ///   first time in the process.
    package static func prepareLineBreakDictionaries(for utf8: UnsafeBufferPointer<UInt8>, modes: Set<LineBreaking>) {
        guard let base = utf8.baseAddress, !utf8.isEmpty else { return }
        var engines: Int32 = 0
        if modes.contains(.pango) { engines |= Int32(CUB_DICTIONARIES_PANGO) }
        if modes.contains(.browser) || modes.contains(.browserStrict) { engines |= Int32(CUB_DICTIONARIES_ICU) }
        _ = base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
            cub_prepare_dictionaries($0, Int32(clamping: utf8.count), engines)
        }
    }

    /// How the cache of shaped pieces has done: pieces found and shaped, runs that had to be shaped
    /// whole because a new piece interacted with a cached neighbour, and stretches of new pieces
    /// shaped again with their neighbours instead.
    public var shapingStatistics: ShapingStatistics {
        let statistics = preparer.shapeCache?.statistics ?? ShapeCache.Statistics()
        return ShapingStatistics(pieceHits: statistics.hits, pieceMisses: statistics.misses,
                                 runsShapedWhole: statistics.runsShapedWhole,
                                 stretchesWidened: statistics.stretchesWidened, spanHits: statistics.spanHits,
                                 piecesResized: statistics.resized)
    }

    /// Shapes and analyzes `text` once; the result lays out at any width by arithmetic alone.
    ///
    /// - Parameters:
    ///   - text: The text to prepare.
    ///   - style: The size and line height to shape with, and the line limit layouts apply.
    /// - Returns: The prepared text; lay it out with ``PreparedText/layout(width:)``.
    /// - Throws: A ``TextMeasureError`` for a value of `style` outside ``MeasurementLimits``,
    ///   ``TextMeasureError/textTooLong(byteCount:)`` for a text longer than
    ///   ``MeasurementLimits/textBytes``, or ``TextMeasureError/unicodeAnalysisFailed(code:)`` when ICU
    ///   fails.
    /// - Complexity: O(*n*) in the text's length: Unicode analysis and shaping (pieces found in the
    ///   shape cache are not shaped again). This is the expensive part of measuring.
    public func prepare(_ text: String, style: TextStyle) throws(TextMeasureError) -> PreparedText {
        try style.validate()
        // The preparation uses the fonts' raw pointers: hold the fonts until it is done, whatever the
        // cache of sizes evicts meanwhile.
        let fonts = fonts(for: style)
        return try withExtendedLifetime(fonts) { () throws(TextMeasureError) -> PreparedText in
            try preparer.prepare(text, style: style, fonts: fonts)
        }
    }

    /// Shapes and analyzes a styled text once; the result lays out at any width by arithmetic alone.
    ///
    /// - Parameters:
    ///   - text: The text and its spans (see ``StyledText`` for how overlapping spans combine).
    ///   - style: The size of the text outside sized spans, the line height (a multiple of the style's
    ///     size), the line limit and the break rules.
    /// - Returns: The prepared text; lay it out with ``PreparedText/layout(width:)``.
    /// - Throws: The errors of ``prepare(_:style:)-(String,_)``; ``TextMeasureError/tooManySpans(count:)``,
    ///   ``TextMeasureError/invalidSpanRange(span:start:end:scalarCount:)`` or
    ///   ``TextMeasureError/invalidSpanSize(span:size:)`` for spans out of range; or
    ///   ``TextMeasureError/fontsUnavailable(_:)`` when the fonts of a styled face cannot be loaded.
    /// - Complexity: That of plain text, plus O(*s* log *s*) in the spans; a text with spans shapes
    ///   each styled stretch with its own fonts. A text whose spans style nothing prepares as plain text.
    public func prepare(_ text: StyledText, style: TextStyle) throws(TextMeasureError) -> PreparedText {
        try style.validate()
        try MeasurementLimits.check(textByteCount: text.text.utf8.count)
        var string = text.text
        let resolved: Result<StyleRuns?, TextMeasureError> = string.withUTF8 { bytes in
            Result { () throws(TextMeasureError) in try StyleRuns.resolve(text.spans, utf8: bytes, size: style.size) }
        }
        let runs = try resolved.get()
        guard let runs else {
            let fonts = fonts(for: style)
            return try withExtendedLifetime(fonts) { () throws(TextMeasureError) -> PreparedText in
                try preparer.prepare(string, spans: text.spans, style: style, fonts: fonts)
            }
        }
        let styled = StyledPreparation(runs: runs, table: try styledFonts(), breaking: style.breaking)
        return try withExtendedLifetime(styled.styles) { () throws(TextMeasureError) -> PreparedText in
            try preparer.prepare(string, spans: text.spans, style: style, fonts: styled.plainFonts, styled: styled)
        }
    }

    /// Measures a styled text at `width` pixels.
    ///
    /// - Parameters:
    ///   - text: The text and its spans.
    ///   - style: Size, line height, line limit and break rules (see ``prepare(_:style:)-(StyledText,_)``).
    ///   - width: The width to wrap at, in pixels.
    /// - Returns: The lines, height, truncation and the widths over which they hold.
    /// - Throws: ``TextMeasureError/invalidWidth(_:)`` for a width outside ``MeasurementLimits/width``,
    ///   or an error of ``prepare(_:style:)-(StyledText,_)``.
    /// - Complexity: That of ``prepare(_:style:)-(StyledText,_)``, then a layout.
    public func measure(_ text: StyledText, style: TextStyle, width: Double) throws(TextMeasureError) -> TextMeasurement {
        try MeasurementLimits.check(width: width)
        return try prepare(text, style: style).layout(width: width)
    }

    /// Every face styled text is drawn with, the regular cascade's first: what a ``MeasurementStore``
    /// is told styled measurements are made with, so that their keys cover every face's file.
    ///
    /// - Throws: ``TextMeasureError/fontsUnavailable(_:)`` when a bundled face cannot be loaded.
    package func styledFaceCascade() throws(TextMeasureError) -> FontCascade {
        FontCascade(loaded: try styledFonts().faces)
    }

    /// The table of every face's fonts, made on the first styled text.
    ///
    /// - Throws: ``TextMeasureError/fontsUnavailable(_:)`` when a bundled face cannot be loaded.
    func styledFonts() throws(TextMeasureError) -> StyledFontTable {
        if let table = styledFontTable.withLock({ $0 }) { return table }
        let cascades: FontCascades
        switch styledFaces {
        case .given(let given): cascades = given
        case .bundled(let folder):
            do throws(FontError) {
                func cascade(_ names: [String]) throws(FontError) -> FontCascade {
                    try FontCascade(files: names.map { FontFile(path: folder + "/" + $0) })
                }
                cascades = FontCascades(regular: self.cascade, bold: try cascade(BundledFonts.boldFileNames),
                                        italic: try cascade(BundledFonts.italicFileNames),
                                        boldItalic: try cascade(BundledFonts.boldItalicFileNames),
                                        monospace: try cascade(BundledFonts.monospaceFileNames),
                                        monospaceBold: try cascade(BundledFonts.monospaceBoldFileNames))
            } catch {
                throw .fontsUnavailable(error)
            }
        }
        // Made outside the lock (it validates files); if two threads race, the first stored wins.
        let made = StyledFontTable(cascades, regular: preparer.selector, browserRegular: preparer.browserSelector,
                                   sizeCapacity: Self.fontSizeCapacity)
        return styledFontTable.withLock { stored in
            if let stored { return stored }
            stored = made
            return made
        }
    }

    /// The faces of hex boxes' digits (see ``HexBoxFont``).
    var hexBoxDigits: HexBoxDigitFaces { preparer.hexBoxDigits }

    /// The most font sizes a measurer keeps HarfBuzz fonts for (least recently used evicted first).
    public static let fontSizeCapacity = 64

    /// The cascade's fonts for `style`'s size and mode, primary first (each made on its first use at
    /// that size; see ``fontSizeCapacity``). The caller holds the object while it uses its fonts'
    /// pointers.
    func fonts(for style: TextStyle) -> ScaledFonts {
        scaledFonts.fonts(scale: style.scale, strikeAdvances: style.breaking.isBrowser)
    }

    /// Measures `text` in `style` at `width` pixels: lines, height, truncation and the range of widths
    /// over which the result holds.
    ///
    /// - Parameters:
    ///   - text: The text to measure.
    ///   - style: Size, line height and line limit.
    ///   - width: The width to wrap at, in pixels.
    /// - Returns: The lines, height, truncation and the widths over which they hold.
    /// - Throws: ``TextMeasureError/invalidWidth(_:)`` for a width outside ``MeasurementLimits/width``
    ///   (checked before any shaping), or an error of ``prepare(_:style:)-(String,_)``.
    /// - Complexity: O(*n*) in the text's length. To lay one text out at several widths, prepare it
    ///   once and call ``PreparedText/layout(width:)`` for each.
    public func measure(_ text: String, style: TextStyle, width: Double) throws(TextMeasureError) -> TextMeasurement {
        try MeasurementLimits.check(width: width)   // refuse a bad width before shaping anything
        return try prepare(text, style: style).layout(width: width)
    }

    /// The height of a line of the primary font alone in `style`, in pixels: an empty line's, and with
    /// a fixed or multiple line height every line's (see ``PreparedText/lineHeight``). With a natural
    /// line height, lines drawn with taller fallback fonts are taller (``TextMeasurement/Line/height``).
    ///
    /// - Parameter style: The style; its size, line height and line-breaking engine are used.
    /// - Returns: The line height in pixels.
    /// - Throws: A ``TextMeasureError`` for a value of `style` outside ``MeasurementLimits``.
    public func lineHeight(for style: TextStyle) throws(TextMeasureError) -> Double {
        try style.validate()
        let fonts = fonts(for: style)
        return withExtendedLifetime(fonts) { Preparer.lineHeights(style, fonts: fonts).emptyLineHeight }
    }

    /// Typical and widest advances per script for this cascade, built on first use.
    var advanceProfile: AdvanceProfile {
        if let profile = profile.withLock({ $0 }) { return profile }
        // Outside the lock: it measures.
        let built = AdvanceProfile(fonts: cascade.fonts) { try? measure($0, style: TextStyle(size: 1000), width: 1e9) }
        return profile.withLock { stored in
            if let stored { return stored }
            stored = built
            return built
        }
    }
}

/// Counters of a measurer's shaped-piece cache.
public struct ShapingStatistics: Hashable, Sendable {
    /// Pieces (words, ideographs) found in the cache; the characters of a new number, put together
    /// from the cache, count one by one.
    public var pieceHits: Int
    /// Pieces shaped.
    public var pieceMisses: Int
    /// Runs shaped as a whole because new text interacted with cached neighbours.
    public var runsShapedWhole: Int
    /// Stretches of new text that interacted with a cached neighbour and were shaped again, taking
    /// the neighbour in, instead of shaping their run whole.
    public var stretchesWidened: Int = 0
    /// Spans found in the cache: text that is not cached piece by piece (a word HarfBuzz kerns across
    /// its soft hyphens, a phrase of Thai or Arabic whose words it does not shape apart, a word over
    /// 32 bytes), cached from one join HarfBuzz marked safe to the next. Their pieces count as misses.
    public var spanHits: Int = 0
    /// Pieces not found at their size but put together, without shaping, from their glyphs shaped at
    /// another size: words in which no glyph is kerned or otherwise positioned (they count as misses
    /// too).
    public var piecesResized: Int = 0

    /// `pieceHits / (pieceHits + pieceMisses)`, or 0 before any.
    public var hitRate: Double {
        pieceHits + pieceMisses == 0 ? 0 : Double(pieceHits) / Double(pieceHits + pieceMisses)
    }
}
