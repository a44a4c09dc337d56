/// A bounded hash table that evicts with the CLOCK approximation of least-recently-used: a hit sets
/// its entry's "referenced" bit; to make room, a hand sweeps the entries, clearing set bits and
/// evicting the first entry found clear.
///
/// The shaped-piece cache looks up tens of thousands of small entries per second from several threads.
/// An exact LRU (``LRUDictionary``) relinks three list nodes on every hit, each a likely cache miss in
/// a table of megabytes, and all of it inside the lock the threads share. Here a hit writes one bit in
/// the entry it already read. Entries are found through a ``HashIndex``.
///
/// Callers pass each key's hash (the piece keys carry theirs). Not thread-safe by itself: guarded by a
/// ``Locked`` where shared.
///
/// The look-ups need `Key: Equatable`, the type does not: a generic type's requirements are checked
/// when the runtime first makes its metadata, and a conformance check the first time scans every
/// conformance of the (statically linked) binary, at start-up, once per table type. Requirements on the methods are resolved where they are compiled.
@usableFromInline
package struct ClockTable<Key, Value> {
    @usableFromInline
    struct Entry {
        @usableFromInline var hash: Int
        @usableFromInline var referenced: Bool
        @usableFromInline var key: Key
        @usableFromInline var value: Value

        @inlinable
        init(hash: Int, referenced: Bool, key: Key, value: Value) {
            self.hash = hash
            self.referenced = referenced
            self.key = key
            self.value = value
        }
    }

    @usableFromInline package let capacity: Int
    /// Look-ups that found their key, and those that did not.
    @usableFromInline package internal(set) var hits = 0
    @usableFromInline package internal(set) var misses = 0
    /// Entries in insertion order until full; then an evicted entry's place takes the new one.
    @usableFromInline var entries: [Entry] = []
    @usableFromInline var index = HashIndex()
    @usableFromInline var hand = 0

    /// A table of at most `capacity` entries, whose storage is reserved now (pages are mapped as
    /// entries fill them).
    package init(capacity: Int) {
        precondition(capacity > 0 && capacity < Int(UInt32.max) / 4, "a clock table holds 1 to 2^30 entries")
        self.capacity = capacity
        entries.reserveCapacity(capacity)
    }

    @inlinable package var count: Int { entries.count }

    /// Calls `body` with each entry's key and value, in no particular order.
    ///
    /// - Parameter body: Called once per entry.
    /// - Complexity: O(*n*) in the entries.
    @inlinable
    package func forEach(_ body: (Key, Value) -> Void) {
        for entry in entries { body(entry.key, entry.value) }
    }
}

extension ClockTable where Key: Equatable {
    /// The value for `key` (whose hash is `hash`), marking it referenced.
    @inlinable
    package mutating func value(for key: Key, hash: Int) -> Value? {
        guard let slot = find(key, hash: hash).entry else {
            misses += 1
            return nil
        }
        hits += 1
        if !entries[slot].referenced { entries[slot].referenced = true }
        return entries[slot].value
    }

    /// The value for `key` (whose hash is `hash`), marking it referenced, without counting a hit or a
    /// miss: for a second look-up on behalf of one already counted.
    @inlinable
    package mutating func uncountedValue(for key: Key, hash: Int) -> Value? {
        guard let slot = find(key, hash: hash).entry else { return nil }
        if !entries[slot].referenced { entries[slot].referenced = true }
        return entries[slot].value
    }

    /// Stores `value` for `key`, evicting an entry not referenced since the hand last passed it if the
    /// table is full.
    @inlinable
    package mutating func set(_ value: Value, for key: Key, hash: Int) {
        let found = find(key, hash: hash)
        if let slot = found.entry {
            entries[slot].value = value
            entries[slot].referenced = true
            return
        }
        let entry = Entry(hash: hash, referenced: false, key: key, value: value)
        if entries.count < capacity {
            entries.append(entry)
            if index.needsGrowth(forCount: entries.count) {
                let recorded = entries.indices.map { (hash: entries[$0].hash, entry: $0) }
                index.rebuild(forCount: max(512, 2 * entries.count), entries: recorded)
            } else {
                index.insert(hash: hash, entry: entries.count - 1, at: found.bucket)
            }
            return
        }
        while entries[hand].referenced {
            entries[hand].referenced = false
            hand = (hand + 1) % entries.count
        }
        let victim = hand
        hand = (hand + 1) % entries.count
        index.remove(hash: entries[victim].hash, entry: victim, hashOf: { entries[$0].hash })
        entries[victim] = entry
        index.insert(hash: hash, entry: victim)
    }

    @inlinable
    func find(_ key: Key, hash: Int) -> (entry: Int?, bucket: Int) {
        index.find(hash: hash) { entries[$0].hash == hash && entries[$0].key == key }
    }
}

// A value of arrays, sendable whenever its keys and values are.
extension ClockTable: Sendable where Key: Sendable, Value: Sendable {}
extension ClockTable.Entry: Sendable where Key: Sendable, Value: Sendable {}
