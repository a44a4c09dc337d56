import Testing
@testable import ListLayout

/// `HeightCache`'s capacities: one beyond the documented maximum is taken as the maximum, never a trap.
@Suite("HeightCache capacity")
struct HeightCacheCapacityTests {
    @Test(arguments: [1 << 28, (1 << 28) + 1, 1 << 29, Int(Int32.max), Int.max])
    func aCapacityBeyondTheMaximumIsTheMaximum(capacity: Int) {
        let cache = HeightCache<Int>(capacity: capacity, retainedWidths: capacity) { model, _ in Double(model) }
        #expect(cache.capacity == HeightCache<Int>.maximumCapacity)
        #expect(cache.retainedWidths == HeightCache<Int>.maximumCapacity)
        #expect(HeightCache<Int>.maximumCapacity == 268_435_456)
        // It works as any cache does.
        #expect(cache.height(for: 7, width: 320) == 7)
        #expect(cache.height(for: 7, width: 320) == 7)
        #expect(cache.statistics.hits == 1 && cache.statistics.misses == 1)
    }

    @Test func aCapacityWithinTheRangeIsKept() {
        let cache = HeightCache<Int>(capacity: 3, retainedWidths: 2) { model, _ in Double(model) }
        #expect(cache.capacity == 3 && cache.retainedWidths == 2)
        for model in 0..<5 { _ = cache.height(for: model, width: 100) }
        #expect(cache.statistics.entries == 3)
    }

    @Test func aListOfTheLargestCapacityWorks() {
        let list = ListHeights<String, Row>(width: 390, capacity: .max) { row, _ in row.height }
        #expect(list.totalHeight == 0)
    }

    struct Row: Identifiable, Hashable, Sendable {
        var id: Int
        var height: Double
    }
}
