/// An open-addressing hash index from hashes to entry numbers, for tables that store their entries in
/// an array of their own (``LRUDictionary``, ``ClockTable``): linear probing, backward-shift deletion.
///
/// A bucket holds the hash's high 32 bits (a tag) beside 1 + the entry number, 8 bytes in all, so a key
/// is stored once, in its entry, and a probe past a colliding bucket reads no entry. The table is a
/// power of two in size, at least twice the number of entries (short probes).
///
/// Usable from inlinable code so that ``LRUDictionary`` (package, inlinable) can be built on it, and
/// `package` so that `HeightCache`'s table of measurements under way can be too.
@usableFromInline
package struct HashIndex: Sendable {
    @usableFromInline package var buckets: [UInt64] = []

    @inlinable
    package init() {}

    /// An index with room for `count` entries before it grows.
    @inlinable
    package init(reserving count: Int) {
        if count > 0 { buckets = Array(repeating: 0, count: Self.bucketCount(for: count)) }
    }

    /// Buckets for `count` entries.
    @inlinable
    package static func bucketCount(for count: Int) -> Int {
        var buckets = 8
        while buckets < 2 * count { buckets <<= 1 }
        return buckets
    }

    @inlinable
    package static func bucket(hash: Int, entry: Int) -> UInt64 {
        UInt64(UInt(bitPattern: hash) >> 32) << 32 | UInt64(entry + 1)
    }

    /// The entry with `hash` for which `isMatch` holds, and the bucket where it is (or the empty bucket
    /// where it would go).
    @inlinable
    package func find(hash: Int, where isMatch: (Int) -> Bool) -> (entry: Int?, bucket: Int) {
        guard !buckets.isEmpty else { return (nil, 0) }
        let mask = buckets.count - 1
        let tag = UInt64(UInt(bitPattern: hash) >> 32)
        var bucket = hash & mask
        while true {
            let value = buckets[bucket]
            if value == 0 { return (nil, bucket) }
            if value >> 32 == tag {
                let entry = Int(truncatingIfNeeded: value & 0xFFFF_FFFF) - 1
                if isMatch(entry) { return (entry, bucket) }
            }
            bucket = (bucket + 1) & mask
        }
    }

    /// Whether adding one more entry to `count` needs `rebuild`.
    @inlinable
    package func needsGrowth(forCount count: Int) -> Bool {
        buckets.count < Self.bucketCount(for: count)
    }

    /// Records `entry` in `bucket`, an empty bucket `find` returned with no change to the index since.
    @inlinable
    package mutating func insert(hash: Int, entry: Int, at bucket: Int) {
        buckets[bucket] = Self.bucket(hash: hash, entry: entry)
    }

    /// Records `entry` under `hash`, probing for an empty bucket.
    @inlinable
    package mutating func insert(hash: Int, entry: Int) {
        let mask = buckets.count - 1
        var bucket = hash & mask
        while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = Self.bucket(hash: hash, entry: entry)
    }

    /// Records under its new number `new` the entry recorded under `hash` as `old` (its table moved it).
    @inlinable
    package mutating func renumber(hash: Int, from old: Int, to new: Int) {
        let mask = buckets.count - 1
        let target = Self.bucket(hash: hash, entry: old)
        var bucket = hash & mask
        while buckets[bucket] != target { bucket = (bucket + 1) & mask }
        buckets[bucket] = Self.bucket(hash: hash, entry: new)
    }

    /// Removes `entry` (recorded under `hash`), moving later buckets of the same probe sequences back so
    /// that no look-up stops early at the hole. `hashOf` gives the hash of any recorded entry.
    @inlinable
    package mutating func remove(hash: Int, entry: Int, hashOf: (Int) -> Int) {
        let mask = buckets.count - 1
        let target = Self.bucket(hash: hash, entry: entry)
        var hole = hash & mask
        while buckets[hole] != target { hole = (hole + 1) & mask }
        var next = hole
        while true {
            next = (next + 1) & mask
            let value = buckets[next]
            if value == 0 { break }
            let home = hashOf(Int(truncatingIfNeeded: value & 0xFFFF_FFFF) - 1) & mask
            // The bucket at `next` may move into the hole unless its home lies in (hole, next].
            if (next - home) & mask >= (next - hole) & mask {
                buckets[hole] = value
                hole = next
            }
        }
        buckets[hole] = 0
    }

    /// Makes room for `count` entries and records `entries` (entry numbers with their hashes) afresh.
    @inlinable
    package mutating func rebuild(forCount count: Int, entries: some Sequence<(hash: Int, entry: Int)>) {
        buckets = Array(repeating: 0, count: Self.bucketCount(for: count))
        for (hash, entry) in entries { insert(hash: hash, entry: entry) }
    }

    @inlinable
    package mutating func removeAll() {
        buckets.removeAll()
    }
}
