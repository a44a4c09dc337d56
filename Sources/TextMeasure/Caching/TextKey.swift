#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A string compared and hashed by its UTF-8 bytes: much cheaper than `String`'s own `Hashable`,
/// which normalizes non-ASCII text to NFC first. Canonically equivalent but differently encoded texts
/// are different keys, which for caches costs at most a miss (and they may shape differently anyway).
///
/// The hash is computed once, when the key is made, so a key used in several caches is hashed once.
public struct TextKey: Hashable, Sendable {
    /// The text, in contiguous UTF-8 storage.
    public let text: String
    /// The hash of the text's UTF-8 bytes, computed when the key was made.
    let hash: Int

    /// Makes the key of `text`, hashing its UTF-8 bytes.
    ///
    /// - Parameter text: The text; copied to contiguous UTF-8 storage if it is not there already.
    /// - Complexity: O(*n*) in the text's UTF-8 length.
    public init(_ text: String) {
        var text = text
        text.makeContiguousUTF8()
        self.text = text
        var hasher = Hasher()
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { for byte in text.utf8 { hasher.combine(byte) } }
        hash = hasher.finalize()
    }

    /// Whether two keys hold the same UTF-8 bytes.
    ///
    /// - Parameters:
    ///   - lhs: A key.
    ///   - rhs: Another key.
    /// - Returns: `true` when the texts' UTF-8 bytes are equal.
    /// - Complexity: O(1) when the hashes or lengths differ; otherwise O(*n*) in the UTF-8 length.
    public static func == (lhs: TextKey, rhs: TextKey) -> Bool {
        guard lhs.hash == rhs.hash, lhs.text.utf8.count == rhs.text.utf8.count else { return false }
        let equal = lhs.text.utf8.withContiguousStorageIfAvailable { left in
            rhs.text.utf8.withContiguousStorageIfAvailable { right in
                left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
        return (equal ?? nil) ?? lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    /// Feeds the hash computed when the key was made into `hasher`.
    ///
    /// - Parameter hasher: The hasher to combine into.
    /// - Complexity: O(1).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
