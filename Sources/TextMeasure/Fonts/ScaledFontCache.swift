/// A cascade's HarfBuzz fonts at the sizes used most recently: at most `capacity` sizes, the least
/// recently used evicted first, so that a stream of ever new sizes (a batch of 5,000 distinct sizes)
/// holds a bounded number of `hb_font_t`s instead of one per size forever.
///
/// An evicted size's fonts are freed as soon as nothing else holds them: ``fonts(scale:)`` returns
/// the ``HBFont`` objects themselves, and a preparation holds them while it shapes, so no code ever
/// uses a freed `hb_font_t`. Shaped text is cached by ``HBFont/ID`` (face id and scale), never by
/// address, so a size made again after eviction finds its shaped words.
///
/// Bound: fonts alive for this cache ≤ `capacity` × the cascade's faces, plus those of preparations in
/// flight (each holds one size) and of threads that missed the same size at once (each makes the
/// cascade's fonts outside the lock; one set is kept). An `hb_font_t` takes under a kilobyte.
///
/// Thread safety: any number of threads at once; one lock, taken once per look-up and once more to
/// store a new size. Fonts are made and freed outside it.
final class ScaledFontCache: Sendable {
    /// The cascade's faces, primary first.
    let faces: [FontFace]
    /// The most sizes kept.
    let capacity: Int
    private let table: Locked<LRUDictionary<Int32, [HBFont]>>

    /// A cache of `faces`' fonts for at most `capacity` sizes (at least 1).
    init(faces: [FontFace], capacity: Int) {
        self.faces = faces
        self.capacity = max(1, capacity)
        table = Locked(LRUDictionary(capacity: self.capacity))
    }

    /// The cascade's fonts at `scale` (pixels × `TextStyle.unitsPerPixel`), primary first, made on first use of the size.
    /// Hold the returned array for as long as any of its fonts' pointers is used.
    ///
    /// - Complexity: O(1) for a size kept; O(faces) to make a new size's fonts.
    func fonts(scale: Int32) -> [HBFont] {
        if let fonts = table.withLock({ $0.value(for: scale) }) { return fonts }
        let made = faces.map { HBFont(face: $0, scale: scale) }
        // The evicted size's fonts are returned out of the lock and freed after it is released.
        let (fonts, _) = table.withLock { table -> ([HBFont], [(key: Int32, value: [HBFont])]) in
            if let existing = table.value(for: scale) { return (existing, []) }   // another thread won
            return (made, table.set(made, for: scale))
        }
        return fonts
    }

    /// Sizes kept now (at most ``capacity``).
    var count: Int { table.withLock { $0.count } }
}
