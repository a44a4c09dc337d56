import TextMeasureSupport
import CHarfBuzzFreeType

/// A cascade's HarfBuzz fonts at one scale, each made the first time it is asked for: shaping a
/// Latin text at a new size makes the primary font's `hb_font_t` only, not one per font of the cascade.
///
/// What ``ScaledFontCache`` keeps per size, and what a preparation holds while it shapes: the fonts
/// made are owned by this object, so a font's ``HBFont/handle`` stays valid for as long as the object
/// is held, whatever the cache evicts meanwhile.
///
/// Thread safety: `Sendable`; any number of threads at once, with no lock. Each font is made at most
/// once per thread that finds it missing and published through a ``LazyReference`` (two threads
/// missing it at once each make one; one is kept, the other freed at once).
final class ScaledFonts: RandomAccessCollection, @unchecked Sendable {
    // @unchecked: `faces` and `scale` are constants; `slots` is fixed-size memory of LazyReferences
    // (atomics), written only through them, and freed in deinit when no thread can reach it.
    /// The cascade's faces, primary first.
    let faces: [FontFace]
    /// The scale (pixels × `TextStyle.unitsPerPixel`).
    let scale: Int32
    /// Whether faces of bitmap strikes advance as their strikes do (the browser modes, see
    /// ``StrikeAdvances``).
    let strikeAdvances: Bool
    /// One reference per face, in cascade order.
    private let slots: UnsafeMutablePointer<LazyReference<HBFont>>
    /// The hex-box fonts made (rare: only runs holding a character their font lacks need one), by
    /// face index and digit face (see ``hexBoxFont(at:digits:)``).
    private let hexBoxFonts = Locked<[UInt64: HexBoxFont]>([:])

    /// The fonts of `faces` at `scale`, none made yet; with `strikeAdvances`, faces of bitmap strikes
    /// advance as their strikes do.
    ///
    /// - Complexity: O(*n*) in the number of faces, for an allocation of *n* empty references.
    init(faces: [FontFace], scale: Int32, strikeAdvances: Bool = false) {
        self.faces = faces
        self.scale = scale
        self.strikeAdvances = strikeAdvances
        slots = .allocate(capacity: faces.count)
        for index in faces.indices { (slots + index).initialize(to: LazyReference()) }
    }

    deinit {
        slots.deinitialize(count: faces.count)   // releases the fonts made
        slots.deallocate()
    }

    var startIndex: Int { 0 }
    var endIndex: Int { faces.count }

    /// The font of face `index` at this scale, made on first use.
    ///
    /// - Complexity: O(1): one atomic load once made; making it creates an `hb_font_t` and reads the
    ///   face's metrics.
    subscript(index: Int) -> HBFont {
        withFont(index) { $0 }
    }

    /// The pointer and identity of face `index`'s font at this scale, made on first use, without
    /// touching a reference count: valid for as long as this object is held.
    ///
    /// - Complexity: O(1), as ``subscript(_:)``.
    @inline(__always)
    func handle(at index: Int) -> HBFont.Handle {
        withFont(index) { $0.handle }
    }

    /// The baselines of face `index`'s font at this scale for a run of `script` (see ``Baselines``),
    /// without touching a reference count.
    ///
    /// - Complexity: O(1), as ``subscript(_:)``, for a face without a `BASE` table.
    @inline(__always)
    func baselines(at index: Int, for script: hb_script_t) -> Baselines {
        withFont(index) { $0.baselines(for: script) }
    }

    /// Whether face `index`'s font at this scale has been made.
    func isMade(_ index: Int) -> Bool {
        slots[index].madeObject != nil
    }

    /// Face `index`'s font at this scale drawing the characters it lacks as Pango's hex boxes, with
    /// `digits`' digits (see ``HexBoxFont``); made on first use and kept with this object.
    ///
    /// - Complexity: O(1) under a lock once made; making it reads sixteen glyphs' extents.
    func hexBoxFont(at index: Int, digits: FontFace) -> HexBoxFont {
        let key = UInt64(index) << 32 | UInt64(digits.id)
        if let font = hexBoxFonts.withLock({ $0[key] }) { return font }
        let made = HexBoxFont(parent: self[index], digits: digits)
        return hexBoxFonts.withLock { fonts in
            if let font = fonts[key] { return font }
            fonts[key] = made
            return made
        }
    }

    @inline(__always)
    private func withFont<R>(_ index: Int, _ body: (HBFont) -> R) -> R {
        precondition(index >= 0 && index < faces.count, "font index out of range")
        return slots[index].withObject(orMake: { HBFont(face: faces[index], scale: scale, strikeAdvances: strikeAdvances) },
                                      body)
    }
}
