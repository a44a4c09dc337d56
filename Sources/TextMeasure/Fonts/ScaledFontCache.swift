import TextMeasureSupport

/// A cascade's HarfBuzz fonts at the sizes used most recently: at most `capacity` sizes, the least
/// recently used evicted first, so that a stream of ever new sizes (a batch of 5,000 distinct sizes)
/// holds a bounded number of `hb_font_t`s instead of one per size forever.
///
/// A size's fonts are a ``ScaledFonts``, which makes each face's font when it is first asked for:
/// a new size costs one allocation here, and then a font for each face a text at that size is shaped
/// with (the primary only, for Latin text).
///
/// An evicted size's fonts are freed as soon as nothing else holds them: ``fonts(scale:strikeAdvances:)`` returns
/// the ``ScaledFonts`` object itself, and a preparation holds it while it shapes, so no code ever
/// uses a freed `hb_font_t`. Shaped text is cached by ``HBFont/ID`` (face id and scale), never by
/// address, so a size made again after eviction finds its shaped words.
///
/// Bound: fonts alive for this cache ≤ `capacity` × the cascade's faces, plus those of preparations in
/// flight (each holds one size) and of threads that missed the same size at once (each makes a
/// `ScaledFonts` outside the lock; one is kept). An `hb_font_t` takes under a kilobyte.
///
/// Thread safety: any number of threads at once; one lock, taken once per look-up and once more to
/// store a new size. Fonts are made and freed outside it.
final class ScaledFontCache: Sendable {
    /// The cascade's faces, primary first.
    let faces: [FontFace]
    /// The most sizes kept.
    let capacity: Int
    /// By scale, and in the upper half whether faces of bitmap strikes advance as their strikes do.
    private let table: Locked<LRUDictionary<Int64, ScaledFonts>>

    /// A cache of `faces`' fonts for at most `capacity` sizes (at least 1).
    init(faces: [FontFace], capacity: Int) {
        self.faces = faces
        self.capacity = max(1, capacity)
        table = Locked(LRUDictionary(capacity: self.capacity))
    }

    /// The cascade's fonts at `scale` (pixels × `TextStyle.unitsPerPixel`), primary first, each made
    /// when first asked for; with `strikeAdvances` (the browser modes), faces of bitmap strikes advance
    /// as their strikes do (see ``StrikeAdvances``). Hold the returned object for as long as any of
    /// its fonts' pointers is used.
    ///
    /// - Complexity: O(1) for a size kept; O(faces) to set up a new size (no font is made then).
    func fonts(scale: Int32, strikeAdvances: Bool = false) -> ScaledFonts {
        let key = Int64(scale) | (strikeAdvances ? 1 << 32 : 0)
        if let fonts = table.withLock({ $0.value(for: key) }) { return fonts }
        let made = ScaledFonts(faces: faces, scale: scale, strikeAdvances: strikeAdvances)
        // The evicted size's fonts are returned out of the lock and freed after it is released.
        let (fonts, _) = table.withLock { table -> (ScaledFonts, [(key: Int64, value: ScaledFonts)]) in
            if let existing = table.value(for: key) { return (existing, []) }   // another thread won
            return (made, table.set(made, for: key))
        }
        return fonts
    }

    /// Sizes kept now (at most ``capacity``).
    var count: Int { table.withLock { $0.count } }
}
