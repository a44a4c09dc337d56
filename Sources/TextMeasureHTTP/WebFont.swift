/// A font file as browsers accept it as a web font (`@font-face`).
///
/// Browsers run downloaded fonts through a sanitizer (Chromium and Firefox: the OpenType Sanitizer),
/// which refuses a file with a table it cannot vouch for. NanumGothic.ttf, a bundled font, carries
/// Microsoft VTT's private source tables (`TSI0`, `TSI1`, `TSI2`, `TSI3`, `TSI5`), one of them empty,
/// and Chromium rejects it ("OTS parsing error: TSI3: zero-length table"). Those tables hold hinting
/// sources only (no metrics, glyphs or layout), so the copy served leaves them out and is drawn and
/// measured exactly as the file itself; `Tools/chromium-reference` serves its fonts the same way.
///
/// Thread safety: stateless; `Sendable`.
package enum WebFont {
    /// Tables left out of a served font: VTT's hinting sources.
    static let droppedTables: Set<UInt32> = ["TSI0", "TSI1", "TSI2", "TSI3", "TSI5"].map(tag).reduce(into: []) { $0.insert($1) }

    /// Whether a font file whose first bytes are `header` has tables ``servable(_:)`` leaves out.
    ///
    /// - Parameter header: At least the file's table directory (12 + 16 × its table count bytes);
    ///   fewer bytes, or bytes that are not an sfnt table directory, give false.
    package static func needsCleaning(header: [UInt8]) -> Bool {
        guard let count = tableCount(header), header.count >= 12 + 16 * count else { return false }
        return (0..<count).contains { droppedTables.contains(read32(header, 12 + 16 * $0)) }
    }

    /// The length of the table directory of a font file whose first 12 bytes (at least) are `header`:
    /// what ``needsCleaning(header:)`` reads; nil when the bytes do not start an sfnt.
    package static func tableDirectoryLength(header: [UInt8]) -> Int? {
        tableCount(header).map { 12 + 16 * $0 }
    }

    /// `font` without the tables browsers reject (see the type), or `font` itself when it has none or is
    /// not a single TrueType/OpenType font (a collection, WOFF).
    ///
    /// The other tables keep their bytes and checksums; they are laid out again in tag order, 4-byte
    /// aligned, and `head.checkSumAdjustment` is computed anew for the whole file, as the OpenType
    /// specification asks.
    ///
    /// - Parameter font: A font file's bytes.
    /// - Returns: The bytes to serve.
    /// - Complexity: O(*n*) in the file's size.
    package static func servable(_ font: [UInt8]) -> [UInt8] {
        guard let count = tableCount(font), font.count >= 12 + 16 * count else { return font }
        var kept: [(tag: UInt32, checksum: UInt32, offset: Int, length: Int)] = []
        for index in 0..<count {
            let record = 12 + 16 * index
            let entry = (tag: read32(font, record), checksum: read32(font, record + 4),
                         offset: Int(read32(font, record + 8)), length: Int(read32(font, record + 12)))
            guard entry.offset + entry.length <= font.count else { return font }
            if !droppedTables.contains(entry.tag) { kept.append(entry) }
        }
        guard kept.count < count else { return font }
        kept.sort { $0.tag < $1.tag }

        let tables = kept.count
        var selector = 0
        while 2 << selector <= tables { selector += 1 }
        let searchRange = 16 << selector
        var out: [UInt8] = Array(font[0..<4])
        out.reserveCapacity(font.count)
        for value in [tables, searchRange, selector, tables * 16 - searchRange] { append16(&out, value) }
        var offset = 12 + 16 * tables
        var headOffset: Int?
        for table in kept {
            append32(&out, table.tag)
            append32(&out, table.checksum)
            append32(&out, UInt32(offset))
            append32(&out, UInt32(table.length))
            if table.tag == tag("head") { headOffset = offset }
            offset += (table.length + 3) & ~3
        }
        for table in kept {
            out += font[table.offset..<table.offset + table.length]
            out += repeatElement(0, count: (4 - table.length % 4) % 4)
        }
        if let head = headOffset, head + 12 <= out.count {
            // checkSumAdjustment = 0xB1B0AFBA − the checksum of the whole file with it set to 0.
            for byte in head + 8..<head + 12 { out[byte] = 0 }
            var sum: UInt32 = 0
            for word in stride(from: 0, to: out.count, by: 4) { sum &+= read32(out, word) }
            let adjustment = 0xB1B0_AFBA &- sum
            for (index, shift) in [24, 16, 8, 0].enumerated() { out[head + 8 + index] = UInt8(truncatingIfNeeded: adjustment >> shift) }
        }
        return out
    }

    /// The table count of an sfnt (TrueType `0x00010000` or `true`, OpenType `OTTO`), or nil.
    private static func tableCount(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 12 else { return nil }
        let version = read32(bytes, 0)
        guard version == 0x0001_0000 || version == tag("true") || version == tag("OTTO") else { return nil }
        return Int(bytes[4]) << 8 | Int(bytes[5])
    }

    private static func tag(_ name: String) -> UInt32 {
        name.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A big-endian 32-bit number at `offset`; bytes past the end count as 0 (a table's last word).
    private static func read32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { value, index in
            value << 8 | UInt32(offset + index < bytes.count ? bytes[offset + index] : 0)
        }
    }

    private static func append16(_ out: inout [UInt8], _ value: Int) {
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }

    private static func append32(_ out: inout [UInt8], _ value: UInt32) {
        for shift in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}
