import Testing
import TextMeasureSupport

@Suite("LRU dictionary groups")
struct LRUDictionaryGroupTests {
    typealias Colliding = LRUDictionaryTests.Colliding

    /// Random grouped and ungrouped insertions, moves between groups, look-ups, removals, evictions
    /// and group drains, checked step by step against a plain model (an array ordered by recency, each
    /// entry with its group).
    @Test(arguments: [1, 5, 64])
    func matchesAModelUnderRandomOperations(capacity: Int) {
        var lru = LRUDictionary<Colliding, Int>(capacity: capacity, reserving: capacity)
        var model: [(key: Colliding, value: Int, group: Int?)] = []   // most recent last
        var rng = SplitMix(seed: 0x6A0 &+ UInt64(capacity))
        let groups = 0..<5
        for step in 0..<20_000 {
            let key = Colliding(id: Int(rng.next() % 120), bucket: Int(rng.next() % 7))
            switch rng.next() % 8 {
            case 0, 1, 2:
                let group: Int? = rng.next() % 5 == 0 ? nil : Int(rng.next() % 5)
                let evicted = lru.set(step, for: key, hash: key.bucket, group: group)
                var expectedEvicted: [Colliding] = []
                if let index = model.firstIndex(where: { $0.key == key }) {
                    model.remove(at: index)
                } else if model.count >= capacity {
                    expectedEvicted.append(model.removeFirst().key)
                }
                model.append((key, step, group))
                #expect(evicted.map(\.key) == expectedEvicted)
            case 3:
                // An ungrouped `set` of a grouped key takes it out of its group; a key not held goes in
                // by `insertNew` one time in two, taking the node of the oldest entry (grouped or not).
                if let index = model.firstIndex(where: { $0.key == key }) {
                    lru.set(step, for: key, hash: key.bucket)
                    model.remove(at: index)
                } else {
                    let evicted = step % 2 == 0 ? lru.insertNew(step, for: key, hash: key.bucket)?.key
                        : lru.set(step, for: key, hash: key.bucket).first?.key
                    let expected = model.count >= capacity ? model.removeFirst().key : nil
                    #expect(evicted == expected)
                }
                model.append((key, step, nil))
            case 4:
                let expected = model.firstIndex(where: { $0.key == key })
                #expect(lru.value(for: key, hash: key.bucket) == expected.map { model[$0].value })
                if let expected { model.append(model.remove(at: expected)) }
            case 5:
                let expected = model.firstIndex(where: { $0.key == key })
                #expect(lru.removeValue(for: key, hash: key.bucket) == expected.map { model[$0].value })
                if let expected { model.remove(at: expected) }
            case 6:
                if rng.next() % 10 == 0 {
                    let group = Int(rng.next() % 5)
                    var removed: [Colliding] = []
                    while let entry = lru.removeNewest(inGroup: group) { removed.append(entry.key) }
                    // Newest filed first: the group's entries in the order they were filed, reversed.
                    #expect(Set(removed) == Set(model.filter { $0.group == group }.map(\.key)))
                    #expect(removed.count == model.count { $0.group == group })
                    model.removeAll { $0.group == group }
                }
            default:
                if rng.next() % 200 == 0 {
                    lru.removeAll()
                    model.removeAll()
                }
            }
            #expect(lru.count == model.count)
            for group in groups { #expect(lru.count(inGroup: group) == model.count { $0.group == group }) }
        }
        #expect(lru.keysByRecency == model.reversed().map(\.key))
        for (key, value, _) in model { #expect(lru.peek(key, hash: key.bucket) == value) }
    }

    /// A group's entries come out newest filed first, and draining one group leaves the others whole.
    @Test func drainingAGroupTakesOnlyItsEntries() {
        var lru = LRUDictionary<Int, String>(capacity: 100)
        for i in 0..<30 { lru.set("\(i)", for: i, hash: i.hashValue, group: i % 3) }
        var drained: [Int] = []
        while let entry = lru.removeNewest(inGroup: 1) { drained.append(entry.key) }
        #expect(drained == Array(stride(from: 28, through: 1, by: -3)))
        #expect(lru.count == 20 && lru.count(inGroup: 0) == 10 && lru.count(inGroup: 2) == 10)
        #expect(lru.count(inGroup: 1) == 0 && lru.removeNewest(inGroup: 1) == nil)
        #expect(lru.keysByRecency == (0..<30).reversed().filter { $0 % 3 != 1 })
        // The freed group slot serves a new group.
        lru.set("x", for: 100, hash: 100.hashValue, group: 7)
        #expect(lru.count(inGroup: 7) == 1 && lru.peek(100) == "x")
    }
}
