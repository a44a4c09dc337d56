import Crypto

/// SHA-256 for the store's keys (font file contents, styles and texts), through swift-crypto's
/// `Crypto.SHA256`: BoringSSL's implementation on Linux (with the CPU's SHA instructions where it has
/// them), CryptoKit's on Apple platforms. This type keeps the store's few call sites to bytes in,
/// 32 bytes out; docs/sha256.md compares it with the hand-written implementation it replaced.
///
/// Value semantics: a copy of a hasher that has taken a common prefix goes on from that prefix
/// (StoreKey hashes each key's first block once); not shared between threads.
struct SHA256 {
    private var hasher = Crypto.SHA256()

    init() {}

    /// Adds `bytes` to the message.
    ///
    /// - Complexity: O(*n*).
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
    }

    /// Adds `bytes` to the message.
    ///
    /// - Complexity: O(*n*).
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
        Array(hasher.finalize())
    }

    /// The digest of `bytes`.
    ///
    /// - Complexity: O(*n*).
    static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }
}
