#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A set of bits addressed by 64-bit hashes, one bit per hash (others share it), that only ever get
/// set: a Bloom filter with one hash function. A clear bit says that no hash leading to it was ever
/// added; a set bit says only "maybe". The shaped-word cache asks it before a look-up that mostly
/// misses (a piece at another size, a span starting with a piece), so that a miss costs a load
/// instead of a lock and a probe.
///
/// Bits are never cleared (an entry evicted from its table leaves its bit set): the longer a process
/// runs, the more bits are set and the more often the look-up is made anyway, never a wrong answer.
///
/// Thread safety: any number of threads at once. Bits are atomics, read and set relaxed: a thread that
/// misses a bit another has just set only makes the look-up it would have made before the other's
/// store, whose result the caller does not depend on for correctness.
final class HashFilter: @unchecked Sendable {
    // @unchecked: `words` points to atomics only.
    /// `calloc`'s memory: a page is touched only when a bit in it is set.
    private let words: UnsafeMutablePointer<Atomic<UInt64>>
    private let wordMask: Int

    /// A filter of `wordCount` (a power of two) 64-bit words.
    init(wordCount: Int) {
        precondition(wordCount > 0 && wordCount & (wordCount - 1) == 0, "a power of two words")
        wordMask = wordCount - 1
        // All zero bits are an `Atomic<UInt64>` of 0.
        words = calloc(wordCount, MemoryLayout<UInt64>.stride)!
            .bindMemory(to: Atomic<UInt64>.self, capacity: wordCount)
    }

    deinit {
        free(words)
    }

    @inline(__always)
    private func bit(_ hash: UInt64) -> (word: Int, mask: UInt64) {
        (Int(truncatingIfNeeded: hash >> 6) & wordMask, 1 << (hash & 63))
    }

    /// Whether `hash` may have been added (false: certainly not).
    @inline(__always)
    func mayContain(_ hash: UInt64) -> Bool {
        let (word, mask) = bit(hash)
        return words[word].load(ordering: .relaxed) & mask != 0
    }

    /// Adds `hash`.
    @inline(__always)
    func insert(_ hash: UInt64) {
        let (word, mask) = bit(hash)
        // Most stores set a bit already set: a load spares writing a cache line other threads read.
        if words[word].load(ordering: .relaxed) & mask == 0 {
            words[word].bitwiseOr(mask, ordering: .relaxed)
        }
    }
}
