import Testing
import TextMeasureSupport

@Suite("LRU dictionary")
struct LRUDictionaryTests {
    /// A key whose hash is chosen by the test, so that probe sequences collide and wrap around.
    struct Colliding: Hashable {
        var id: Int
        var bucket: Int
        func hash(into hasher: inout Hasher) { hasher.combine(bucket) }
    }

    /// Random operations checked step by step against a plain model (an array ordered by recency);
    /// with `callersHash`, through the look-ups that take the hash from the caller (here the bucket
    /// itself, not `hashValue`).
    @Test(arguments: [1, 3, 64], [false, true])
    func matchesAModelUnderRandomOperations(capacity: Int, callersHash: Bool) {
        var lru = LRUDictionary<Colliding, Int>(capacity: capacity, reserving: capacity / 2)
        func hash(_ key: Colliding) -> Int { callersHash ? key.bucket : key.hashValue }
        var model: [(key: Colliding, value: Int)] = []   // most recent last
        var rng = SplitMix(seed: UInt64(capacity))
        for step in 0..<20_000 {
            // Few distinct hash values, so that most keys share probe sequences.
            let key = Colliding(id: Int(rng.next() % 150), bucket: Int(rng.next() % 7))
            switch rng.next() % 6 {
            case 0, 1:
                let held = model.firstIndex(where: { $0.key == key })
                // A key not held goes in by `insertNew` one time in two (its node is the oldest's when full).
                let evicted = held == nil && step % 2 == 1
                    ? lru.insertNew(step, for: key, hash: hash(key)).map { [$0] } ?? []
                    : lru.set(step, for: key, hash: hash(key))
                var expectedEvicted: [(key: Colliding, value: Int)] = []
                if let held {
                    model.remove(at: held)
                } else if model.count >= capacity {
                    expectedEvicted.append(model.removeFirst())
                }
                model.append((key, step))
                #expect(evicted.map(\.key) == expectedEvicted.map(\.key))
                #expect(evicted.map(\.value) == expectedEvicted.map(\.value))
            case 2:
                let expected = model.firstIndex(where: { $0.key == key })
                #expect(lru.value(for: key, hash: hash(key)) == expected.map { model[$0].value })
                if let expected { model.append(model.remove(at: expected)) }
            case 3:
                #expect(lru.peek(key, hash: hash(key)) == model.first(where: { $0.key == key })?.value)
            case 4:
                let expected = model.firstIndex(where: { $0.key == key })
                #expect(lru.removeValue(for: key, hash: hash(key)) == expected.map { model[$0].value })
                if let expected { model.remove(at: expected) }
            default:
                if rng.next() % 50 == 0 {
                    let removed = lru.removeAll(where: { $0.id % 3 == 0 })
                    #expect(Set(removed) == Set(model.map(\.key).filter { $0.id % 3 == 0 }))
                    model.removeAll(where: { $0.key.id % 3 == 0 })
                }
            }
            #expect(lru.count == model.count)
        }
        #expect(lru.keysByRecency == model.reversed().map(\.key))
        #expect(lru.newestKey == model.last?.key)
        for (key, value) in model { #expect(lru.peek(key, hash: hash(key)) == value) }
    }

    @Test func shrinkingTheCapacityEvictsTheOldest() {
        var lru = LRUDictionary<Int, Int>(capacity: 10)
        for i in 0..<10 { lru.set(i, for: i) }
        _ = lru.value(for: 0)
        lru.capacity = 3
        #expect(lru.keysByRecency == [0, 9, 8])
        lru.removeAll()
        #expect(lru.count == 0 && lru.peek(9) == nil)
        lru.set(1, for: 1)
        #expect(lru.value(for: 1) == 1)
    }
}

/// A small deterministic generator (the tests must not depend on the run).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
