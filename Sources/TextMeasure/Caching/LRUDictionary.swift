/// A dictionary with a capacity that evicts its least recently used entry: O(1) look-up, insertion,
/// promotion and eviction (a slab of nodes linked into a recency list, indexed by a hash table).
///
/// Not thread-safe by itself: the caches that use it guard it with a ``Locked``. Public and inlinable,
/// like ``Locked``, so that generic caches built on it are specialized where they are used.
public struct LRUDictionary<Key: Hashable, Value> {
    @usableFromInline
    struct Node {
        @usableFromInline var key: Key
        @usableFromInline var value: Value
        @usableFromInline var newer: Int
        @usableFromInline var older: Int

        @inlinable
        init(key: Key, value: Value, newer: Int, older: Int) {
            self.key = key
            self.value = value
            self.newer = newer
            self.older = older
        }
    }

    @usableFromInline var nodes: [Node] = []
    @usableFromInline var free: [Int] = []
    @usableFromInline var index: [Key: Int] = [:]
    @usableFromInline var newest = -1
    @usableFromInline var oldest = -1

    /// The most entries kept; inserting beyond it evicts the least recently used.
    public var capacity: Int {
        didSet { while count > capacity { _ = removeOldest() } }
    }

    /// An empty dictionary holding at most `capacity` entries; `reserving` entries' storage is
    /// allocated up front (growing by doubling later briefly holds both the old and the new storage).
    @inlinable
    public init(capacity: Int, reserving reserved: Int = 0) {
        precondition(capacity > 0, "an LRU dictionary needs a capacity of at least 1")
        self.capacity = capacity
        if reserved > 0 {
            nodes.reserveCapacity(min(reserved, capacity))
            index.reserveCapacity(min(reserved, capacity))
        }
    }

    @inlinable
    public var count: Int { index.count }

    /// The value for `key`, marking it most recently used.
    @inlinable
    public mutating func value(for key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        promote(slot)
        return nodes[slot].value
    }

    /// The value for `key` without changing its recency.
    @inlinable
    public func peek(_ key: Key) -> Value? {
        index[key].map { nodes[$0].value }
    }

    /// Stores `value` for `key` as the most recently used entry; returns the entries evicted to make room.
    @inlinable @discardableResult
    public mutating func set(_ value: Value, for key: Key) -> [(key: Key, value: Value)] {
        if let slot = index[key] {
            nodes[slot].value = value
            promote(slot)
            return []
        }
        var evicted: [(key: Key, value: Value)] = []
        while count >= capacity, let old = removeOldest() { evicted.append(old) }
        let node = Node(key: key, value: value, newer: -1, older: newest)
        let slot: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
        index[key] = slot
        return evicted
    }

    /// Removes the entry for `key`, returning its value.
    @inlinable @discardableResult
    public mutating func removeValue(for key: Key) -> Value? {
        guard let slot = index.removeValue(forKey: key) else { return nil }
        unlink(slot)
        free.append(slot)
        return nodes[slot].value
    }

    /// Removes and returns the least recently used entry.
    @inlinable
    public mutating func removeOldest() -> (key: Key, value: Value)? {
        guard oldest >= 0 else { return nil }
        let node = nodes[oldest]
        removeValue(for: node.key)
        return (node.key, node.value)
    }

    @inlinable
    public mutating func removeAll() {
        nodes.removeAll()
        free.removeAll()
        index.removeAll()
        newest = -1
        oldest = -1
    }

    /// Removes every entry whose key matches; returns their keys. O(n).
    @inlinable @discardableResult
    public mutating func removeAll(where shouldRemove: (Key) -> Bool) -> [Key] {
        var removed: [Key] = []
        var slot = newest
        while slot >= 0 {
            let next = nodes[slot].older
            if shouldRemove(nodes[slot].key) {
                removed.append(nodes[slot].key)
                removeValue(for: nodes[slot].key)
            }
            slot = next
        }
        return removed
    }

    /// The most recently used key.
    @inlinable
    public var newestKey: Key? { newest >= 0 ? nodes[newest].key : nil }

    /// The first key, from most to least recently used, for which `body` returns a value; that value.
    @inlinable
    public func firstByRecency<R>(_ body: (Key) -> R?) -> R? {
        var slot = newest
        while slot >= 0 {
            if let result = body(nodes[slot].key) { return result }
            slot = nodes[slot].older
        }
        return nil
    }

    /// Keys from most to least recently used.
    @inlinable
    public var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = newest
        while slot >= 0 {
            keys.append(nodes[slot].key)
            slot = nodes[slot].older
        }
        return keys
    }

    @inlinable
    mutating func promote(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        let node = nodes[slot]
        if node.newer >= 0 { nodes[node.newer].older = node.older } else { newest = node.older }
        if node.older >= 0 { nodes[node.older].newer = node.newer } else { oldest = node.newer }
    }
}
