/// A bounded hash table that evicts with the CLOCK approximation of least-recently-used: a hit sets
/// its entry's "referenced" bit; to make room, a hand sweeps the entries, clearing set bits and
/// evicting the first entry found clear.
///
/// The shaped-piece cache looks up tens of thousands of small entries per second from several threads.
/// An exact LRU (``LRUDictionary``) relinks three list nodes on every hit, each a likely cache miss in
/// a table of megabytes, and all of it inside the lock the threads share. Here a hit writes one bit in
/// the entry it already read. Buckets hold a 32-bit tag of the hash next to the entry number, so a probe
/// past a colliding bucket reads no entry.
///
/// Callers pass each key's hash (the piece keys carry theirs). Not thread-safe by itself: guarded by a
/// ``Locked`` where shared.
struct ClockTable<Key: Equatable, Value> {
    private struct Entry {
        var hash: Int
        var referenced: Bool
        var key: Key
        var value: Value
    }

    let capacity: Int
    /// Entries in insertion order until full; then an evicted entry's place takes the new one.
    private var entries: [Entry] = []
    /// 0 for an empty bucket, else the hash's high 32 bits, then 1 + the entry's index. A power of two
    /// in size, at least twice the entry count (short probes).
    private var buckets: [UInt64] = []
    private var hand = 0

    /// A table of at most `capacity` entries, whose storage is reserved now (pages are mapped as
    /// entries fill them).
    init(capacity: Int) {
        precondition(capacity > 0 && capacity < Int(UInt32.max) / 4, "a clock table holds 1 to 2^30 entries")
        self.capacity = capacity
        entries.reserveCapacity(capacity)
    }

    var count: Int { entries.count }

    /// The value for `key` (whose hash is `hash`), marking it referenced.
    mutating func value(for key: Key, hash: Int) -> Value? {
        guard let index = find(key, hash: hash).entry else { return nil }
        if !entries[index].referenced { entries[index].referenced = true }
        return entries[index].value
    }

    /// Stores `value` for `key`, evicting an entry not referenced since the hand last passed it if the
    /// table is full.
    mutating func set(_ value: Value, for key: Key, hash: Int) {
        let found = find(key, hash: hash)
        if let index = found.entry {
            entries[index].value = value
            entries[index].referenced = true
            return
        }
        let entry = Entry(hash: hash, referenced: false, key: key, value: value)
        if entries.count < capacity {
            entries.append(entry)
            if buckets.count < 2 * entries.count {
                rebuild(bucketCount: max(1_024, buckets.count * 2))
            } else {
                buckets[found.bucket] = Self.bucket(hash: hash, index: entries.count - 1)
            }
            return
        }
        while entries[hand].referenced {
            entries[hand].referenced = false
            hand = (hand + 1) % entries.count
        }
        let victim = hand
        hand = (hand + 1) % entries.count
        removeBucket(of: victim)
        entries[victim] = entry
        insertBucket(hash: hash, index: victim)
    }

    // MARK: Buckets

    private static func bucket(hash: Int, index: Int) -> UInt64 {
        UInt64(UInt(bitPattern: hash) >> 32) << 32 | UInt64(index + 1)
    }

    private func find(_ key: Key, hash: Int) -> (entry: Int?, bucket: Int) {
        guard !buckets.isEmpty else { return (nil, 0) }
        let mask = buckets.count - 1
        let tag = UInt64(UInt(bitPattern: hash) >> 32)
        var bucket = hash & mask
        while true {
            let value = buckets[bucket]
            if value == 0 { return (nil, bucket) }
            if value >> 32 == tag {
                let index = Int(truncatingIfNeeded: value & 0xFFFF_FFFF) - 1
                if entries[index].hash == hash && entries[index].key == key { return (index, bucket) }
            }
            bucket = (bucket + 1) & mask
        }
    }

    private mutating func insertBucket(hash: Int, index: Int) {
        let mask = buckets.count - 1
        var bucket = hash & mask
        while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = Self.bucket(hash: hash, index: index)
    }

    /// Empties the bucket of entry `index`, moving later buckets of the same probe sequences back so
    /// that no look-up stops early at the hole (linear probing's backward-shift deletion).
    private mutating func removeBucket(of index: Int) {
        let mask = buckets.count - 1
        let target = Self.bucket(hash: entries[index].hash, index: index)
        var hole = entries[index].hash & mask
        while buckets[hole] != target { hole = (hole + 1) & mask }
        var next = hole
        while true {
            next = (next + 1) & mask
            let value = buckets[next]
            if value == 0 { break }
            let home = entries[Int(truncatingIfNeeded: value & 0xFFFF_FFFF) - 1].hash & mask
            // The bucket at `next` may move into the hole unless its home lies in (hole, next].
            if (next - home) & mask >= (next - hole) & mask {
                buckets[hole] = value
                hole = next
            }
        }
        buckets[hole] = 0
    }

    private mutating func rebuild(bucketCount: Int) {
        buckets = Array(repeating: 0, count: bucketCount)
        for index in entries.indices { insertBucket(hash: entries[index].hash, index: index) }
    }
}
