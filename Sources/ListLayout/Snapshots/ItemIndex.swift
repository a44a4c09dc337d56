/// The identifier index of a ``ListSnapshot``: from an item identifier to its flat position (the
/// number of items before it, all sections counted in order).
///
/// Open addressing with linear probing, at most half full. A bucket is one `UInt64`: the hash's high
/// bits (a tag) above 1 + the position (32 bits, more for a snapshot of 2³² items or more); 0 is empty.
/// Identifiers are stored once more, by position, so a probe whose tag matches confirms with one read.
/// For 100,000 items that is 2 MiB of buckets plus the identifiers, against about 6 MiB for a
/// `Dictionary<ID, ItemPath>`, and one cache line touched per probe instead of three, which is what
/// building a snapshot and looking identifiers up cost.
///
/// Append-only: built once by the snapshot's initializer, then read. A value type of two arrays;
/// `Sendable` when identifiers are.
@usableFromInline
struct ItemIndex<ID: Hashable & Sendable>: Sendable {
    @usableFromInline var buckets: [UInt64] = []
    /// Identifiers by position.
    @usableFromInline var ids: [ID] = []
    /// The low bits of a bucket, which hold 1 + the position; the rest hold the tag.
    @usableFromInline var entryMask: UInt64 = 0xFFFF_FFFF

    /// An empty index.
    @inlinable
    init() {}

    /// An empty index with room for `capacity` identifiers, the most it may ever hold.
    @inlinable
    init(capacity: Int) {
        guard capacity > 0 else { return }
        ids.reserveCapacity(capacity)
        var count = 8
        while count < 2 * capacity { count <<= 1 }
        buckets = Array(repeating: 0, count: count)
        let entryBits = Swift.max(32, UInt.bitWidth - UInt(capacity).leadingZeroBitCount)
        entryMask = entryBits >= 64 ? ~0 : (1 << UInt64(entryBits)) - 1
    }

    /// The number of identifiers held.
    @inlinable
    var count: Int { ids.count }

    /// Adds `id` at the next position (``count``), unless the index already holds it.
    ///
    /// - Returns: `false`, with nothing changed, when `id` is already there.
    /// - Complexity: O(1) expected. The index must hold fewer identifiers than its capacity.
    @inlinable
    mutating func append(_ id: ID) -> Bool {
        let hash = UInt64(UInt(bitPattern: id.hashValue))
        let tag = hash & ~entryMask
        let bucket = buckets.withUnsafeBufferPointer { buckets in
            let mask = buckets.count &- 1
            var bucket = Int(truncatingIfNeeded: hash) & mask
            while true {
                let value = buckets[bucket]
                if value == 0 { return bucket }
                if value & ~entryMask == tag && ids[Int(truncatingIfNeeded: value & entryMask) &- 1] == id {
                    return -1
                }
                bucket = (bucket &+ 1) & mask
            }
        }
        guard bucket >= 0 else { return false }
        ids.append(id)
        buckets[bucket] = tag | UInt64(ids.count)
        return true
    }

    /// The position of `id`, or `nil` when the index does not hold it.
    ///
    /// - Complexity: O(1) expected.
    @inlinable
    func position(of id: ID) -> Int? {
        guard !buckets.isEmpty else { return nil }
        let hash = UInt64(UInt(bitPattern: id.hashValue))
        let tag = hash & ~entryMask
        return buckets.withUnsafeBufferPointer { buckets in
            let mask = buckets.count &- 1
            var bucket = Int(truncatingIfNeeded: hash) & mask
            while true {
                let value = buckets[bucket]
                if value == 0 { return nil }
                if value & ~entryMask == tag {
                    let position = Int(truncatingIfNeeded: value & entryMask) &- 1
                    if ids[position] == id { return position }
                }
                bucket = (bucket &+ 1) & mask
            }
        }
    }
}
