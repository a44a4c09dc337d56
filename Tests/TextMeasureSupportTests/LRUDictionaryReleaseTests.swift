import Testing
import TextMeasureSupport

/// A removed entry's key and value are released at once, not kept until its slot is reused: a cache
/// bounded by bytes must not hold evicted values.
@Suite("LRU dictionary releases what it removes")
struct LRUDictionaryReleaseTests {
    /// Counts live instances of itself.
    final class Tracked {
        final class Counter { var live = 0 }
        let counter: Counter
        init(_ counter: Counter) {
            self.counter = counter
            counter.live += 1
        }
        deinit { counter.live -= 1 }
    }

    @Test func everyWayOfRemovingReleasesTheValue() {
        let counter = Tracked.Counter()
        var lru = LRUDictionary<Int, Tracked>(capacity: 8)
        for key in 0..<8 { lru.set(Tracked(counter), for: key) }
        #expect(counter.live == 8)
        _ = lru.removeOldest()
        #expect(counter.live == 7)
        _ = lru.removeValue(for: 5)
        #expect(counter.live == 6)
        _ = lru.removeAll(where: { $0 % 2 == 0 })
        #expect(counter.live == 3)   // 1, 3, 7 remain
        lru.set(Tracked(counter), for: 100)
        lru.set(Tracked(counter), for: 101)
        #expect(counter.live == 5)
        lru.capacity = 2
        #expect(counter.live == 2)
        #expect(lru.keysByRecency == [101, 100])
        // The entry `insertNew` evicts is handed back, and released with it.
        do {
            let evicted = lru.insertNew(Tracked(counter), for: 102, hash: 102.hashValue)
            #expect(evicted?.key == 100)
            #expect(counter.live == 3)
        }
        #expect(counter.live == 2)
        #expect(lru.keysByRecency == [102, 101])
        lru.removeAll()
        #expect(counter.live == 0)
    }

    /// Random removals interleaved with look-ups: the dictionary stays consistent while nodes move.
    @Test func removalsKeepEveryOtherEntryReachable() {
        var lru = LRUDictionary<Int, Int>(capacity: 50)
        var model: [Int: Int] = [:]
        var rng = SplitMix(seed: 7)
        for step in 0..<20_000 {
            let key = Int(rng.next() % 80)
            switch rng.next() % 4 {
            case 0:
                if lru.count >= 50, model[key] == nil, let oldest = lru.keysByRecency.last { model[oldest] = nil }
                lru.set(step, for: key)
                model[key] = step
            case 1:
                #expect(lru.removeValue(for: key) == model.removeValue(forKey: key))
            case 2:
                #expect(lru.peek(key) == model[key])
            default:
                if step % 97 == 0 {
                    lru.removeAll(where: { $0 % 5 == step % 5 })
                    model = model.filter { $0.key % 5 != step % 5 }
                }
            }
            #expect(lru.count == model.count)
        }
        for (key, value) in model { #expect(lru.peek(key) == value) }
    }
}
