/// Minimal UTF-8 decoding over bytes that came from a Swift `String` (so they are valid UTF-8).
@usableFromInline
package enum UTF8Decoding {
    /// The scalar starting at `offset` and its length in bytes.
    @inlinable @inline(__always)
    package static func scalar(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> (value: UInt32, length: Int) {
        let b0 = UInt32(bytes[offset])
        if b0 < 0x80 { return (b0, 1) }
        if b0 < 0xE0 {
            return ((b0 & 0x1F) << 6 | UInt32(bytes[offset + 1] & 0x3F), 2)
        }
        if b0 < 0xF0 {
            return ((b0 & 0x0F) << 12 | UInt32(bytes[offset + 1] & 0x3F) << 6 | UInt32(bytes[offset + 2] & 0x3F), 3)
        }
        return ((b0 & 0x07) << 18 | UInt32(bytes[offset + 1] & 0x3F) << 12
                    | UInt32(bytes[offset + 2] & 0x3F) << 6 | UInt32(bytes[offset + 3] & 0x3F), 4)
    }
}
