/// A dictionary with a capacity that evicts its least recently used entry: O(1) look-up, insertion,
/// promotion and eviction.
///
/// Entries live in a dense array of nodes linked into a recency list, indexed by a ``HashIndex`` rather
/// than a `Dictionary`: a key is stored once, in its node, and each bucket costs 8 bytes, so a cache of
/// large keys neither doubles its memory nor copies its keys when the index grows. Removing an entry
/// moves the last node into its place, so a removed key and value are released at once: a cache of
/// large values (prepared texts) holds nothing beyond its entries.
///
/// An entry may also be filed in a group (a cache's entries at one width, say): each group links its
/// entries in a list of its own, so emptying a group (``removeNewest(inGroup:)``) costs O(its entries), not a pass
/// over the whole dictionary.
///
/// Not thread-safe by itself: the caches that use it guard it with a ``Locked``. Not package API:
/// `package` and inlinable, like ``Locked``, so that generic caches built on it in the package's other
/// modules are specialized where they are used.
@usableFromInline
package struct LRUDictionary<Key, Value> {
    @usableFromInline
    package struct Node {
        @usableFromInline package var key: Key
        @usableFromInline package var value: Value
        @usableFromInline package var hash: Int
        @usableFromInline var newer: Int32
        @usableFromInline var older: Int32
        /// The slot of the entry's group (see `subscript(group:)`), or -1 for none.
        @usableFromInline var group: Int32 = -1
        /// The neighbours in the group's list, -1 at its ends.
        @usableFromInline var groupNewer: Int32 = -1
        @usableFromInline var groupOlder: Int32 = -1

        @inlinable
        package init(key: Key, value: Value, hash: Int, newer: Int32, older: Int32) {
            self.key = key
            self.value = value
            self.hash = hash
            self.newer = newer
            self.older = older
        }
    }

    /// A group of entries: its identifier, the newest entry filed in it and how many are.
    /// A slot whose count is 0 is free for another group.
    @usableFromInline
    package struct Group {
        @usableFromInline var id: Int
        @usableFromInline var newest: Int32
        @usableFromInline var count: Int

        @inlinable
        package init(id: Int) {
            self.id = id
            newest = -1
            count = 0
        }
    }

    /// The entries, in no particular order (the recency list links them).
    @usableFromInline package var nodes: [Node] = []
    @usableFromInline package var index = HashIndex()
    @usableFromInline package var newest: Int32 = -1
    @usableFromInline package var oldest: Int32 = -1
    /// The groups' slots (few: found by a linear search, the slot found last tried first). The
    /// first is kept inline, so that a dictionary with one group allocates nothing for it; the others
    /// are slots 1, 2, … (see `subscript(group:)`).
    @usableFromInline package var firstGroup = Group(id: 0)
    @usableFromInline package var otherGroups: [Group] = []
    @usableFromInline package var lastGroup = 0

    /// The most entries kept; inserting beyond it evicts the least recently used.
    @usableFromInline package var capacity: Int {
        didSet { while count > capacity { _ = removeOldest() } }
    }

    /// The largest capacity a dictionary may have: its nodes are numbered with `Int32`s, with room
    /// to spare for the index. Callers whose capacity comes from their own callers clamp it to this
    /// (or to a smaller maximum of their own) rather than pass it on.
    @inlinable package static var maximumCapacity: Int { Int(Int32.max) / 4 - 1 }

    /// An empty dictionary holding at most `capacity` entries (1 to ``maximumCapacity``: a
    /// precondition); `reserving` entries' storage is allocated up front (the operating system maps
    /// its pages as they are first written, so an unused reservation costs address space, not memory).
    @inlinable
    package init(capacity: Int, reserving reserved: Int = 0) {
        precondition(capacity > 0, "an LRU dictionary needs a capacity of at least 1")
        precondition(capacity <= Self.maximumCapacity, "an LRU dictionary holds fewer than 2^29 entries")
        self.capacity = capacity
        let reserved = min(reserved, capacity)
        if reserved > 0 {
            nodes.reserveCapacity(reserved)
            index = HashIndex(reserving: reserved)
        }
    }

    @inlinable
    package var count: Int { nodes.count }

    /// Removes and returns the least recently used entry.
    @inlinable
    package mutating func removeOldest() -> (key: Key, value: Value)? {
        guard oldest >= 0 else { return nil }
        return removeNode(oldest)
    }

    /// Takes node `slot` out of the index and the recency list and returns its key and value; the last
    /// node moves into its place (renumbered in the index and the list), so nothing stays behind.
    @inlinable @discardableResult
    package mutating func removeNode(_ slot: Int32) -> (key: Key, value: Value) {
        removeFromIndex(slot)
        unlink(slot)
        unlinkFromGroup(slot)
        let last = Int32(nodes.count - 1)
        if slot != last {
            // Moved, not copied: `swapAt` copied the nodes (retaining and releasing their keys),
            // most of a removal's cost.
            nodes.withUnsafeMutableBufferPointer { nodes in swap(&nodes[Int(slot)], &nodes[Int(last)]) }
            index.renumber(hash: nodes[Int(slot)].hash, from: Int(last), to: Int(slot))
            let newer = nodes[Int(slot)].newer, older = nodes[Int(slot)].older
            if newer >= 0 { nodes[Int(newer)].older = slot } else { newest = slot }
            if older >= 0 { nodes[Int(older)].newer = slot } else { oldest = slot }
            let group = nodes[Int(slot)].group
            if group >= 0 {
                let groupNewer = nodes[Int(slot)].groupNewer, groupOlder = nodes[Int(slot)].groupOlder
                if groupNewer >= 0 { nodes[Int(groupNewer)].groupOlder = slot } else { self[group: Int(group)].newest = slot }
                if groupOlder >= 0 { nodes[Int(groupOlder)].groupNewer = slot }
            }
        }
        let removed = nodes.removeLast()
        return (removed.key, removed.value)
    }

    @inlinable
    package mutating func removeAll() {
        nodes.removeAll()
        index.removeAll()
        newest = -1
        oldest = -1
        firstGroup = Group(id: 0)
        otherGroups.removeAll()
        lastGroup = 0
    }

    /// Removes the entry filed last in `group` and returns it; `nil` when the group holds none. Called
    /// until `nil`, it empties the group in O(its entries), whatever the dictionary's size.
    ///
    /// - Parameter group: The group to take an entry from.
    /// - Returns: The removed entry's key and value.
    /// - Complexity: O(1), plus a search of the groups when `group` is not the one used last.
    @inlinable
    package mutating func removeNewest(inGroup group: Int) -> (key: Key, value: Value)? {
        guard let found = existingGroupSlot(for: group) else { return nil }
        lastGroup = found
        return removeNode(self[group: found].newest)
    }

    /// How many entries are filed in `group`.
    ///
    /// - Parameter group: The group.
    /// - Returns: Its entries' count, 0 for a group never used or emptied.
    /// - Complexity: O(1), plus a search of the groups when `group` is not the one used last.
    @inlinable
    package func count(inGroup group: Int) -> Int {
        existingGroupSlot(for: group).map { self[group: $0].count } ?? 0
    }

    /// Removes every entry whose key matches; returns their keys. O(n).
    @inlinable @discardableResult
    package mutating func removeAll(where shouldRemove: (Key) -> Bool) -> [Key] {
        var removed: [Key] = []
        var slot = newest
        while slot >= 0 {
            var next = nodes[Int(slot)].older
            if shouldRemove(nodes[Int(slot)].key) {
                let last = Int32(nodes.count - 1)
                removed.append(removeNode(slot).key)
                if next == last { next = slot }   // the last node moved into the removed one's place
            }
            slot = next
        }
        return removed
    }

    /// The most recently used key.
    @inlinable
    package var newestKey: Key? { newest >= 0 ? nodes[Int(newest)].key : nil }

    /// The first key, from most to least recently used, for which `body` returns a value; that value.
    @inlinable
    package func firstByRecency<R>(_ body: (Key) -> R?) -> R? {
        var slot = newest
        while slot >= 0 {
            if let result = body(nodes[Int(slot)].key) { return result }
            slot = nodes[Int(slot)].older
        }
        return nil
    }

    /// Keys from most to least recently used.
    @inlinable
    package var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = newest
        while slot >= 0 {
            keys.append(nodes[Int(slot)].key)
            slot = nodes[Int(slot)].older
        }
        return keys
    }

    // MARK: The index

    /// Takes node `slot` out of the index. The other nodes' hashes are read through a buffer pointer:
    /// a closure reading `nodes[$0].hash` captured the dictionary, which was copied for it (its
    /// arrays retained and released) at every removal.
    @inlinable
    package mutating func removeFromIndex(_ slot: Int32) {
        let hash = nodes[Int(slot)].hash
        nodes.withUnsafeBufferPointer { nodes in
            index.remove(hash: hash, entry: Int(slot), hashOf: { nodes[$0].hash })
        }
    }

    @inlinable
    package mutating func rebuildIndex() {
        var entries: [(hash: Int, entry: Int)] = []
        entries.reserveCapacity(nodes.count)
        var slot = newest
        while slot >= 0 {
            entries.append((nodes[Int(slot)].hash, Int(slot)))
            slot = nodes[Int(slot)].older
        }
        index.rebuild(forCount: nodes.count, entries: entries)
    }

    // MARK: The groups

    @inlinable
    package var groupSlots: Int { 1 + otherGroups.count }

    /// The group in `slot`.
    @inlinable
    package subscript(group slot: Int) -> Group {
        get { slot == 0 ? firstGroup : otherGroups[slot - 1] }
        set {
            if slot == 0 { firstGroup = newValue } else { otherGroups[slot - 1] = newValue }
        }
    }

    /// The slot of `group` if it holds entries.
    @inlinable
    package func existingGroupSlot(for group: Int) -> Int? {
        if lastGroup < groupSlots, self[group: lastGroup].id == group, self[group: lastGroup].count > 0 {
            return lastGroup
        }
        return (0..<groupSlots).first { self[group: $0].id == group && self[group: $0].count > 0 }
    }

    /// The slot of `group`, taking a free one (or a new one) if it holds no entries yet.
    @inlinable
    package mutating func groupSlot(for group: Int) -> Int32 {
        let slot = existingGroupSlot(for: group) ?? {
            if let free = (0..<groupSlots).first(where: { self[group: $0].count == 0 }) {
                self[group: free] = Group(id: group)
                return free
            }
            otherGroups.append(Group(id: group))
            return groupSlots - 1
        }()
        lastGroup = slot
        return Int32(slot)
    }

    /// Files node `slot` (in no group) as the newest of group slot `group`.
    @inlinable
    package mutating func link(_ slot: Int32, toGroup group: Int32) {
        let newest = self[group: Int(group)].newest
        nodes[Int(slot)].group = group
        nodes[Int(slot)].groupNewer = -1
        nodes[Int(slot)].groupOlder = newest
        if newest >= 0 { nodes[Int(newest)].groupNewer = slot }
        self[group: Int(group)].newest = slot
        self[group: Int(group)].count += 1
    }

    /// Takes node `slot` out of its group's list, if it is in one.
    @inlinable
    package mutating func unlinkFromGroup(_ slot: Int32) {
        let group = nodes[Int(slot)].group
        guard group >= 0 else { return }
        let newer = nodes[Int(slot)].groupNewer, older = nodes[Int(slot)].groupOlder
        if newer >= 0 { nodes[Int(newer)].groupOlder = older } else { self[group: Int(group)].newest = older }
        if older >= 0 { nodes[Int(older)].groupNewer = newer }
        self[group: Int(group)].count -= 1
        nodes[Int(slot)].group = -1
        nodes[Int(slot)].groupNewer = -1
        nodes[Int(slot)].groupOlder = -1
    }

    // MARK: The recency list

    @inlinable
    package mutating func promote(_ slot: Int32) {
        guard slot != newest else { return }
        unlink(slot)
        nodes[Int(slot)].older = newest
        nodes[Int(slot)].newer = -1
        if newest >= 0 { nodes[Int(newest)].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    @inlinable
    package mutating func unlink(_ slot: Int32) {
        let newer = nodes[Int(slot)].newer, older = nodes[Int(slot)].older
        if newer >= 0 { nodes[Int(newer)].older = older } else { newest = older }
        if older >= 0 { nodes[Int(older)].newer = newer } else { oldest = newer }
    }
}

/// The look-ups by key, which need `Key: Hashable`. The type itself does not: a generic type's
/// requirements are checked when the runtime first makes its metadata, and the first check of a
/// conformance scans every conformance of the (statically linked) binary, at start-up, once per
/// dictionary type (see ``ClockTable``). Requirements on methods are resolved where
/// they are compiled.
extension LRUDictionary where Key: Hashable {
    // Every look-up takes the key's hash: `key.hashValue`, or with `hash:` one the caller computes
    // more cheaply (a key that holds an already hashed part). One dictionary is used with one of the
    // two throughout, never both.

    /// The value for `key`, marking it most recently used.
    @inlinable
    package mutating func value(for key: Key) -> Value? {
        value(for: key, hash: key.hashValue)
    }

    /// The value for `key` filed under `hash`, marking it most recently used.
    @inlinable
    package mutating func value(for key: Key, hash: Int) -> Value? {
        guard let slot = find(key, hash: hash).node else { return nil }
        promote(slot)
        return nodes[Int(slot)].value
    }

    /// The value for `key` without changing its recency.
    @inlinable
    package func peek(_ key: Key) -> Value? {
        peek(key, hash: key.hashValue)
    }

    /// The value for `key` filed under `hash`, without changing its recency.
    @inlinable
    package func peek(_ key: Key, hash: Int) -> Value? {
        find(key, hash: hash).node.map { nodes[Int($0)].value }
    }

    /// Stores `value` for `key` as the most recently used entry; returns the entries evicted to make room.
    @inlinable @discardableResult
    package mutating func set(_ value: Value, for key: Key) -> [(key: Key, value: Value)] {
        set(value, for: key, hash: key.hashValue)
    }

    /// Stores `value` for `key` under `hash` as the most recently used entry; returns the entries
    /// evicted to make room.
    @inlinable @discardableResult
    package mutating func set(_ value: Value, for key: Key, hash: Int) -> [(key: Key, value: Value)] {
        set(value, for: key, hash: hash, group: nil)
    }

    /// Stores `value` for `key` under `hash` as the most recently used entry, filed in `group` (or in
    /// none); returns the entries evicted to make room.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key.
    ///   - hash: The key's hash, as every other look-up of this dictionary computes it.
    ///   - group: The group to file the entry in (moved there if it was in another), or `nil` for none.
    /// - Returns: The entries evicted to make room, least recently used first.
    /// - Complexity: O(1) amortized, plus a search of the groups when `group` is not the one used last.
    @inlinable @discardableResult
    package mutating func set(_ value: Value, for key: Key, hash: Int, group: Int?) -> [(key: Key, value: Value)] {
        let found = find(key, hash: hash)
        if let slot = found.node {
            nodes[Int(slot)].value = value
            promote(slot)
            let old = nodes[Int(slot)].group
            if old >= 0 ? self[group: Int(old)].id != group : group != nil {
                unlinkFromGroup(slot)
                if let group { link(slot, toGroup: groupSlot(for: group)) }
            }
            return []
        }
        var evicted: [(key: Key, value: Value)] = []
        while count >= capacity, let old = removeOldest() { evicted.append(old) }
        nodes.append(Node(key: key, value: value, hash: hash, newer: -1, older: newest))
        let slot = Int32(nodes.count - 1)
        if let group { link(slot, toGroup: groupSlot(for: group)) }
        if newest >= 0 { nodes[Int(newest)].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
        if index.needsGrowth(forCount: nodes.count) {
            rebuildIndex()
        } else if evicted.isEmpty {
            index.insert(hash: hash, entry: Int(slot), at: found.bucket)
        } else {
            // Evictions may have shifted buckets since the look-up found an empty one.
            index.insert(hash: hash, entry: Int(slot))
        }
        return evicted
    }

    /// Stores `value` for `key`, which the dictionary does not hold, under `hash` as the most recently
    /// used entry, in no group. A full dictionary gives it the node of its least recently used entry,
    /// which is returned: no array of evictions, and no node moved or appended.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key; the dictionary must not hold it (look it up first).
    ///   - hash: The key's hash, as every other look-up of this dictionary computes it.
    /// - Returns: The entry evicted to make room, or nil when there was room.
    /// - Complexity: O(1) amortized.
    @inlinable
    package mutating func insertNew(_ value: Value, for key: Key, hash: Int) -> (key: Key, value: Value)? {
        assert(find(key, hash: hash).node == nil, "insertNew(_:for:hash:) of a key the dictionary holds")
        guard count >= capacity, oldest >= 0 else {
            set(value, for: key, hash: hash)   // room: appended, nothing evicted
            return nil
        }
        let slot = oldest
        removeFromIndex(slot)
        unlink(slot)
        unlinkFromGroup(slot)
        var key = key, value = value
        nodes.withUnsafeMutableBufferPointer { nodes in
            swap(&nodes[Int(slot)].key, &key)
            swap(&nodes[Int(slot)].value, &value)
            nodes[Int(slot)].hash = hash
        }
        nodes[Int(slot)].older = newest
        nodes[Int(slot)].newer = -1
        if newest >= 0 { nodes[Int(newest)].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
        index.insert(hash: hash, entry: Int(slot))
        return (key, value)
    }

    /// Removes the entry for `key`, returning its value.
    @inlinable @discardableResult
    package mutating func removeValue(for key: Key) -> Value? {
        removeValue(for: key, hash: key.hashValue)
    }

    /// Removes the entry for `key` filed under `hash`, returning its value.
    @inlinable @discardableResult
    package mutating func removeValue(for key: Key, hash: Int) -> Value? {
        guard let slot = find(key, hash: hash).node else { return nil }
        return removeNode(slot).value
    }

    /// The node holding `key`, and the bucket where it is (or the empty bucket where it would go).
    @inlinable
    package func find(_ key: Key, hash: Int) -> (node: Int32?, bucket: Int) {
        let found = index.find(hash: hash) { nodes[$0].hash == hash && nodes[$0].key == key }
        return (found.entry.map { Int32($0) }, found.bucket)
    }
}

// A value of arrays, sendable whenever its keys and values are.
extension LRUDictionary: Sendable where Key: Sendable, Value: Sendable {}
extension LRUDictionary.Node: Sendable where Key: Sendable, Value: Sendable {}
extension LRUDictionary.Group: Sendable {}
