import CFreeType
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Answers "which font of the cascade draws this character?" with a table built once per cascade from
/// each font's character map (`hb_face_collect_unicodes`): no cmap look-ups, no locks, while itemizing.
///
/// Thread safety: immutable after `init` (the tables are written only there, then only read).
final class FontSelector: @unchecked Sendable {
    let fonts: [FontFace]
    /// For scalars below `tableLimit`: 1 + the index of the first font covering it, or 0 for none.
    /// Unmanaged memory, freed in `deinit`: reading it touches no reference count (threads reading an
    /// array stored in a shared object would contend on the array's). It comes zero-filled from
    /// `calloc` (fresh pages, for a table this size), so only the pages fonts cover are ever written.
    private let firstFont: UnsafeMutableBufferPointer<UInt8>
    /// The color fonts (for emoji presentation), by index in the cascade.
    private let colorFonts: [Int]
    /// Planes 0 and 1 (BMP and SMP) hold every character the bundled fonts cover.
    private static let tableLimit: UInt32 = 0x20000

    init(cascade: FontCascade) {
        fonts = cascade.fonts
        colorFonts = cascade.fonts.indices.filter { cascade.fonts[$0].isColor }
        guard let memory = calloc(Int(Self.tableLimit), 1) else { fatalError("out of memory for the font selector") }
        let first = UnsafeMutableBufferPointer(start: memory.assumingMemoryBound(to: UInt8.self),
                                               count: Int(Self.tableLimit))
        // Later fonts first, so that earlier ones overwrite them.
        for (index, font) in cascade.fonts.enumerated().reversed() {
            let set = hb_set_create()
            defer { hb_set_destroy(set) }
            hb_face_collect_unicodes(font.face, set)
            let value = UInt8(min(index + 1, 255))
            // In batches: a CJK font covers tens of thousands of characters.
            var batch = [hb_codepoint_t](repeating: 0, count: 1024)
            var last = hb_codepoint_t.max   // HB_SET_VALUE_INVALID: start before the first
            scan: while true {
                let count = Int(hb_set_next_many(set, last, &batch, UInt32(batch.count)))
                guard count > 0 else { break }
                for codepoint in batch[..<count] {
                    guard codepoint < Self.tableLimit else { break scan }
                    first[Int(codepoint)] = value
                }
                last = batch[count - 1]
            }
        }
        firstFont = first
    }

    deinit {
        free(firstFont.baseAddress)
    }

    /// The first font covering `scalar`, or nil.
    @inline(__always)
    func firstCovering(_ scalar: UInt32) -> Int? {
        if scalar < Self.tableLimit {
            let value = firstFont[Int(scalar)]
            return value == 0 ? nil : Int(value) - 1
        }
        return fonts.firstIndex { $0.covers(scalar) }
    }

    /// The first color font covering `scalar`, or nil (emoji are rare: a cmap look-up per color font).
    func firstColorCovering(_ scalar: UInt32) -> Int? {
        colorFonts.first { fonts[$0].covers(scalar) }
    }
}
