/// SHA-256 (FIPS 180-4), for the store's keys: font file contents and texts. Small and dependency-free
/// (swift-crypto would build BoringSSL for one hash); checked against the standard's test vectors.
///
/// Value semantics; not shared between threads (each digest is a local value).
struct SHA256 {
    private typealias Words = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    private var state: Words =
        (0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19)
    /// The bytes of an unfinished block: 64 bytes inline (a copy of a hasher is a copy of its state,
    /// so a hasher that has taken a common prefix can be copied and continued, with no allocation).
    private var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var blockCount = 0
    private var length: UInt64 = 0

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    init() {}

    /// Adds `bytes` to the message.
    ///
    /// - Complexity: O(*n*).
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let count = bytes.count
        length &+= UInt64(count)
        var index = 0
        if blockCount > 0 {
            let taken = min(64 - blockCount, count)
            let offset = blockCount
            withUnsafeMutableBytes(of: &block) { $0.baseAddress!.advanced(by: offset).copyMemory(from: base, byteCount: taken) }
            blockCount += taken
            index = taken
            guard blockCount == 64 else { return }
            let full = block
            withUnsafeBytes(of: full) { compress($0.baseAddress!) }
            blockCount = 0
        }
        while count - index >= 64 {
            compress(base + index)
            index += 64
        }
        if index < count {
            withUnsafeMutableBytes(of: &block) { $0.baseAddress!.copyMemory(from: base + index, byteCount: count - index) }
            blockCount = count - index
        }
    }

    /// Adds `bytes` to the message.
    mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// Adds an integer, little-endian.
    mutating func update<Integer: FixedWidthInteger>(integer: Integer) {
        withUnsafeBytes(of: integer.littleEndian) { update($0) }
    }

    /// The digest (32 bytes) of everything added.
    consuming func finalize() -> [UInt8] {
        let bitLength = (length &* 8).bigEndian
        // 0x80, zeros up to 56 mod 64, the length in bits (big-endian): one or two blocks.
        let used = blockCount
        var padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                      UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let paddingCount = (used < 56 ? 56 - used : 120 - used) + 8
        withUnsafeMutableBytes(of: &padding) { bytes in
            bytes[0] = 0x80
            bytes.storeBytes(of: bitLength, toByteOffset: paddingCount - 8, as: UInt64.self)
        }
        let savedLength = length
        withUnsafeBytes(of: padding) { update(UnsafeRawBufferPointer(rebasing: $0[..<paddingCount])) }
        length = savedLength
        let words = state
        return [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            withUnsafeBytes(of: (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian,
                                 words.4.bigEndian, words.5.bigEndian, words.6.bigEndian, words.7.bigEndian)) {
                for index in 0..<32 { out[index] = $0[index] }
            }
            count = 32
        }
    }

    /// The digest of `bytes`.
    static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// One 64-byte block at `chunk` into the state (FIPS 180-4, 6.2.2).
    private mutating func compress(_ chunk: UnsafeRawPointer) {
        state = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { buffer in
            let w = buffer.baseAddress!
            for t in 0..<16 {
                w[t] = UInt32(bigEndian: chunk.loadUnaligned(fromByteOffset: t &* 4, as: UInt32.self))
            }
            for t in 16..<64 {
                let w15 = w[t &- 15], w2 = w[t &- 2]
                let s0 = w15.rotatedRight(7) ^ w15.rotatedRight(18) ^ (w15 &>> 3)
                let s1 = w2.rotatedRight(17) ^ w2.rotatedRight(19) ^ (w2 &>> 10)
                w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.k.withUnsafeBufferPointer { k in
                let k = k.baseAddress!
                for t in 0..<64 {
                    let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choice &+ k[t] &+ w[t]
                    let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ s0 &+ majority)
                }
            }
            return (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                    state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
        }
    }
}

extension UInt32 {
    /// Rotation by a constant: masking shifts, which compile to one `ror`.
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { (self &>> count) | (self &<< (32 &- count)) }
}
