import TextMeasureSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Answers "which font of the cascade draws this character?", remembering each answer, so that the
/// first look-up of a character asks the fonts' character maps and every later one reads a byte.
///
/// The answers are found on demand, not built up front: a character's answer asks the fonts in
/// cascade order, stopping at the first that covers it, and each font asked is loaded then (see
/// ``FontFace``). So a Latin text loads the primary font only, and a CJK character loads the fonts
/// before the CJK fallback (they must be asked whether they cover it) and the fallback itself, but
/// not the fonts after it. Building the whole table from every font's character map
/// (`hb_face_collect_unicodes`) would read the CJK and Hangul fonts' tens of thousands of characters
/// for every measurer, whatever the text.
///
/// Thread safety: `Sendable`; any number of threads at once, with no lock. An answer depends only on
/// the cascade (immutable), so threads that find the same character unknown at the same moment compute
/// the same answer and store the same byte: the table's bytes are atomics, read and written with
/// relaxed ordering (plain loads and stores on x86-64 and arm64), and publish nothing else (the fonts
/// publish their own loaded state, see ``LazyReference``).
final class FontSelector: @unchecked Sendable {
    // @unchecked: `fonts` and `colorFonts` are constants; the table is only reached through atomics.
    let fonts: [FontFace]
    /// For scalars below `tableLimit`: 0 while unknown, ``noFont`` when no font covers it, else 1 +
    /// the index of the first font covering it. Unmanaged memory, freed in `deinit`: reading it
    /// touches no reference count (threads reading an array stored in a shared object would contend
    /// on the array's). It comes zero-filled from `calloc` (fresh pages, for a table this size), so
    /// only the pages of characters looked up are ever written.
    private let firstFont: UnsafeMutablePointer<Atomic<UInt8>>
    /// The color fonts (for emoji presentation), by index in the cascade.
    private let colorFonts: [Int]
    /// Whether a font also draws a character it has no glyph for but whose canonical decomposition it
    /// draws (see ``FontFace/draws(_:)``): Blink's choice, which keeps the first font whose shaping
    /// shows no missing glyph, and HarfBuzz decomposes what a font lacks (Droid Sans Fallback draws
    /// the Hangul syllable "같", which it lacks, as "가" and "ᇀ"). Pango asks fontconfig's coverage,
    /// the character map alone.
    let decomposes: Bool
    /// Planes 0 and 1 (BMP and SMP) hold every character the bundled fonts cover.
    private static let tableLimit: UInt32 = 0x20000
    /// The table's value for a character no font covers.
    private static let noFont: UInt8 = 255
    /// Fonts at this index or later are not remembered in the table (a byte holds 1 + the index, and
    /// 0 and 255 are taken); they are asked again each time (no real cascade has 254 fonts).
    private static let rememberedFonts = 254

    /// A selector for `cascade`, Blink's (`decomposes`) or Pango's. Loads no font.
    ///
    /// - Complexity: O(*n*) in the cascade's fonts; the table's memory is reserved, not touched.
    init(cascade: FontCascade, decomposes: Bool = false) {
        fonts = cascade.fonts
        self.decomposes = decomposes
        colorFonts = cascade.fonts.indices.filter { cascade.fonts[$0].isColor }
        guard let memory = calloc(Int(Self.tableLimit), MemoryLayout<Atomic<UInt8>>.stride) else {
            fatalError("out of memory for the font selector")
        }
        // An Atomic<UInt8> is laid out as the UInt8 it holds, so zero bytes are atomics holding 0.
        firstFont = memory.bindMemory(to: Atomic<UInt8>.self, capacity: Int(Self.tableLimit))
    }

    deinit {
        free(firstFont)   // trivially destroyed: nothing to deinitialize
    }

    /// The first font covering `scalar`, or nil.
    ///
    /// - Complexity: O(1) for a character looked up before (one byte read); otherwise one `cmap`
    ///   look-up per font until one covers it, loading each font asked that was not loaded yet.
    @inline(__always)
    func firstCovering(_ scalar: UInt32) -> Int? {
        if scalar < Self.tableLimit {
            let value = firstFont[Int(scalar)].load(ordering: .relaxed)
            if value != 0 { return value == Self.noFont ? nil : Int(value) - 1 }
            return remember(scalar)
        }
        return fonts.firstIndex { covers($0, scalar) }
    }

    /// Whether `font` draws `scalar` for this selector (see ``decomposes``).
    @inline(__always)
    func covers(_ font: FontFace, _ scalar: UInt32) -> Bool {
        decomposes ? font.draws(scalar) : font.covers(scalar)
    }

    /// Finds the first font covering `scalar` (below `tableLimit`) and stores the answer.
    @inline(never)
    private func remember(_ scalar: UInt32) -> Int? {
        let index = fonts.firstIndex { covers($0, scalar) }
        if let index, index >= Self.rememberedFonts { return index }
        firstFont[Int(scalar)].store(index.map { UInt8($0 + 1) } ?? Self.noFont, ordering: .relaxed)
        return index
    }

    /// The first color font covering `scalar`, or nil (emoji are rare: a cmap look-up per color font).
    func firstColorCovering(_ scalar: UInt32) -> Int? {
        colorFonts.first { fonts[$0].covers(scalar) }
    }
}
