#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A set of bits addressed by 64-bit hashes, one bit per hash (others share it): a Bloom filter with
/// one hash function. A clear bit says that no hash leading to it was added since the filter was last
/// refilled; a set bit says only "maybe". The shaped-word cache asks it before a look-up that mostly
/// misses (a piece never stored, a piece at another size, a span starting with a piece), so that a
/// miss costs a load instead of a lock and a probe.
///
/// Bits are not cleared one by one (an entry evicted from its owner's table leaves its bit set), so a
/// long-running process sets more and more of them, and a filter with most bits set answers "maybe"
/// to everything. So `insert` reports when half of the bits that were clear after the last refill
/// have been set since, and the owner then refills the filter: ``beginRefill()`` clears it, the owner
/// adds the hashes its table holds now, ``endRefill()`` takes the new count. Between the two, and for
/// an insert that races with the clearing, a hash its table holds may read as absent: the owner's
/// look-up then misses and it computes and stores the value again, so the filter may only ever cost
/// work, never give a wrong answer (the owner's tables, not the filter, hold the values).
///
/// The count is kept for the filter's first sixty-fourth only, where hashes land as evenly as in the
/// rest: one shared counter updated by every new bit would be written by all cores.
///
/// Thread safety: any number of threads at once. Bits are atomics, read and set relaxed: a thread that
/// misses a bit another has just set only makes the look-up it would have made before the other's
/// store, whose result the caller does not depend on for correctness. One refill runs at a time.
final class HashFilter: @unchecked Sendable {
    // @unchecked: `words` points to atomics only.
    /// `calloc`'s memory: a page is touched only when a bit in it is set (until a refill clears them
    /// all).
    private let words: UnsafeMutablePointer<Atomic<UInt64>>
    private let wordMask: Int
    /// The words whose set bits are counted: the first `sampleWords`.
    private let sampleWords: Int
    /// Bits set in the counted words (may be a little off while a refill clears them; ``endRefill()``
    /// counts them afresh).
    private let sampleBitsSet = Atomic<Int>(0)
    /// The count of `sampleBitsSet` at which a refill is due.
    private let refillAt: Atomic<Int>
    private let refilling = Atomic<Bool>(false)
    private let refillCount = Atomic<Int>(0)

    /// A filter of `wordCount` (a power of two) 64-bit words.
    init(wordCount: Int) {
        precondition(wordCount > 0 && wordCount & (wordCount - 1) == 0, "a power of two words")
        wordMask = wordCount - 1
        sampleWords = max(1, wordCount / 64)
        refillAt = Atomic(sampleWords * 64 / 2)
        // All zero bits are an `Atomic<UInt64>` of 0.
        words = calloc(wordCount, MemoryLayout<UInt64>.stride)!
            .bindMemory(to: Atomic<UInt64>.self, capacity: wordCount)
    }

    deinit {
        free(words)
    }

    /// Refills done (see ``beginRefill()``).
    var refills: Int { refillCount.load(ordering: .relaxed) }

    /// The share of the counted bits that are set, 0...1.
    var density: Double {
        Double(sampleBitsSet.load(ordering: .relaxed)) / Double(sampleWords * 64)
    }

    @inline(__always)
    private func bit(_ hash: UInt64) -> (word: Int, mask: UInt64) {
        (Int(truncatingIfNeeded: hash >> 6) & wordMask, 1 << (hash & 63))
    }

    /// Whether `hash` may have been added (false: not since the last refill, except for an insert
    /// that raced with a refill's clearing).
    @inline(__always)
    func mayContain(_ hash: UInt64) -> Bool {
        let (word, mask) = bit(hash)
        return words[word].load(ordering: .relaxed) & mask != 0
    }

    /// Adds `hash`.
    ///
    /// - Returns: Whether a refill is due: half of the bits clear after the last refill are set now.
    ///   Several threads may be told so at once; ``beginRefill()`` lets one of them refill, and
    ///   ``isRefillDue`` tells a thread whether one still is.
    @inline(__always)
    @discardableResult
    func insert(_ hash: UInt64) -> Bool {
        let (word, mask) = bit(hash)
        // Most stores set a bit already set: a load spares writing a cache line other threads read.
        guard words[word].load(ordering: .relaxed) & mask == 0 else { return false }
        let before = words[word].bitwiseOr(mask, ordering: .relaxed).oldValue
        guard word < sampleWords, before & mask == 0 else { return false }
        return countSampleBit()
    }

    @inline(never)
    private func countSampleBit() -> Bool {
        sampleBitsSet.add(1, ordering: .relaxed).newValue >= refillAt.load(ordering: .relaxed)
            && !refilling.load(ordering: .relaxed)
    }

    /// Whether a refill is due now. A thread told so by ``insert(_:)`` asks again before it refills:
    /// another thread may have refilled since.
    var isRefillDue: Bool {
        sampleBitsSet.load(ordering: .relaxed) >= refillAt.load(ordering: .relaxed)
    }

    /// Claims the refill and clears every bit; the caller then inserts the hashes its table holds and
    /// calls ``endRefill()``. Returns false, doing nothing, when another thread is refilling.
    ///
    /// - Complexity: O(*n*) in the filter's words.
    func beginRefill() -> Bool {
        guard refilling.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            return false
        }
        for word in 0...wordMask { words[word].store(0, ordering: .relaxed) }
        sampleBitsSet.store(0, ordering: .relaxed)
        return true
    }

    /// Ends the refill begun by ``beginRefill()``: counts the bits set now and puts the next refill
    /// where half of the rest are set too. A filter whose table fills it leaves no clear bit to count,
    /// so it is never refilled again, however often it is told of new hashes.
    ///
    /// - Complexity: O(*n*) in the counted words (a sixty-fourth of the filter).
    func endRefill() {
        var set = 0
        for word in 0..<sampleWords { set += words[word].load(ordering: .relaxed).nonzeroBitCount }
        let bits = sampleWords * 64
        sampleBitsSet.store(set, ordering: .relaxed)
        // The next refill once half of the still clear bits are set; never sooner than one more bit.
        refillAt.store(max(set + 1, set + (bits - set) / 2), ordering: .relaxed)
        refillCount.add(1, ordering: .relaxed)
        refilling.store(false, ordering: .releasing)
    }
}
