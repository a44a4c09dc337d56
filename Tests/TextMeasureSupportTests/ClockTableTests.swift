import Testing
@testable import TextMeasureSupport

@Suite("Clock table")
struct ClockTableTests {
    /// Hashes chosen by the test: few distinct values, so that probe sequences collide and wrap.
    static func hash(_ key: Int) -> Int { (key % 5) &* 0x1_0000_0001 }

    /// Whatever the table still holds is exactly what was last stored for that key; it never holds
    /// more than its capacity; and recently read keys survive a wave of new ones.
    @Test(arguments: [1, 7, 300])
    func keepsWhatItHoldsExactAndBounded(capacity: Int) {
        var table = ClockTable<Int, Int>(capacity: capacity)
        var latest: [Int: Int] = [:]
        var rng = SplitMix(seed: UInt64(capacity))
        for step in 0..<30_000 {
            let key = Int(rng.next() % 500)
            if rng.next() % 2 == 0 {
                table.set(step, for: key, hash: Self.hash(key))
                latest[key] = step
            } else if let value = table.value(for: key, hash: Self.hash(key)) {
                #expect(value == latest[key])
            }
            #expect(table.count <= capacity)
        }
        // A table that is full: every key the model has stored is either held with its latest value
        // or gone.
        for (key, value) in latest {
            if let held = table.value(for: key, hash: Self.hash(key)) { #expect(held == value) }
        }
    }

    @Test func evictsEntriesNotReadSinceTheHandPassed() {
        var table = ClockTable<Int, Int>(capacity: 4)
        for key in 0..<4 { table.set(key, for: key, hash: Self.hash(key)) }
        _ = table.value(for: 0, hash: Self.hash(0))
        _ = table.value(for: 2, hash: Self.hash(2))
        table.set(4, for: 4, hash: Self.hash(4))   // evicts 1 (0 was read)
        table.set(5, for: 5, hash: Self.hash(5))   // evicts 3 (2 was read)
        let held = (0..<6).filter { table.value(for: $0, hash: Self.hash($0)) != nil }
        #expect(held == [0, 2, 4, 5])
    }
}
