
/// A hash table for keys that come with a hash their owner already has: `HeightCache`'s measurements
/// under way (filed under `Key.entryHash`) and its entry counts per model (filed under the model's
/// hash, itself already SipHash).
///
/// A `Dictionary` hashed every key again with SipHash, at each claim, look-up and removal, and an
/// ``LRUDictionary`` kept a recency order nobody read. Here the entries live in a dense array found
/// through a `HashIndex`; removing one moves the last into its place.
///
/// Not thread-safe by itself: held in the cache's locked state. Inlinable, so that it is specialized
/// for the cache's key type where the cache is.
@usableFromInline
package struct HashTable<Key: Equatable, Value> {
    @usableFromInline
    package struct Entry {
        @usableFromInline package var hash: Int
        @usableFromInline package var key: Key
        @usableFromInline package var value: Value

        @inlinable
        package init(hash: Int, key: Key, value: Value) {
            self.hash = hash
            self.key = key
            self.value = value
        }
    }

    /// The entries, in no particular order.
    @usableFromInline package var entries: [Entry] = []
    @usableFromInline package var index = HashIndex()

    @inlinable
    package init() {}

    /// The entry holding `key` (filed under `hash`), and the bucket where it is (or the empty bucket
    /// where it would go).
    @inlinable
    package func find(_ key: Key, hash: Int) -> (entry: Int?, bucket: Int) {
        index.find(hash: hash) { entries[$0].hash == hash && entries[$0].key == key }
    }

    /// Adds `value` for `key`, which the table does not hold; `bucket` is the one `find` returned for
    /// it, with no change to the table since.
    @inlinable
    package mutating func insert(_ value: Value, for key: Key, hash: Int, at bucket: Int) {
        entries.append(Entry(hash: hash, key: key, value: value))
        if index.needsGrowth(forCount: entries.count) {
            let recorded = entries.indices.map { (hash: entries[$0].hash, entry: $0) }
            index.rebuild(forCount: entries.count, entries: recorded)
        } else {
            index.insert(hash: hash, entry: entries.count - 1, at: bucket)
        }
    }

    /// Removes the entry for `key` filed under `hash`, returning its value.
    @inlinable
    package mutating func removeValue(for key: Key, hash: Int) -> Value? {
        guard let slot = find(key, hash: hash).entry else { return nil }
        return remove(at: slot)
    }

    /// Removes entry `slot` (as `find` returned it), returning its value.
    @inlinable
    package mutating func remove(at slot: Int) -> Value {
        index.remove(hash: entries[slot].hash, entry: slot, hashOf: { entries[$0].hash })
        let last = entries.count - 1
        if slot != last {
            // Moved, not copied (a copy would retain and release the key).
            entries.withUnsafeMutableBufferPointer { entries in swap(&entries[slot], &entries[last]) }
            index.renumber(hash: entries[slot].hash, from: last, to: slot)
        }
        return entries.removeLast().value
    }

    /// Removes every entry.
    @inlinable
    package mutating func removeAll() {
        entries.removeAll()
        index.removeAll()
    }

    /// Calls `body` with every key and its value, which it may change.
    @inlinable
    package mutating func updateEach(_ body: (Key, inout Value) -> Void) {
        for slot in entries.indices { body(entries[slot].key, &entries[slot].value) }
    }
}

// An array and an index: sendable whenever the keys and values are.
extension HashTable: Sendable where Key: Sendable, Value: Sendable {}
extension HashTable.Entry: Sendable where Key: Sendable, Value: Sendable {}
