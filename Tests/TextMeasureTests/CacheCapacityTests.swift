import Testing
@testable import TextMeasure

/// Cache capacities given to the public initializers: one beyond the documented maximum is taken as
/// the maximum, never a trap (they were preconditions, and an overflow in the shape cache).
@Suite("Cache capacities")
struct CacheCapacityTests {
    static let beyond = [(1 << 28) + 1, 1 << 29, Int(Int32.max), Int.max]

    @Test(arguments: beyond)
    func aPreparedTextCacheBeyondTheMaximumHoldsTheMaximum(capacity: Int) throws {
        let cache = PreparedTextCache(measurer: Fixtures.measurer, capacity: capacity)
        #expect(cache.capacity == PreparedTextCache.maximumCapacity)
        #expect(PreparedTextCache.maximumCapacity == 268_435_456)
        let first = try cache.measure("Hello, world", style: TextStyle(size: 15), width: 200)
        let again = try cache.measure("Hello, world", style: TextStyle(size: 15), width: 100)
        #expect(first.lineCount == 1 && again.lineCount >= 1)
        #expect(cache.statistics.hits == 1 && cache.statistics.misses == 1)
    }

    @Test func aPreparedTextCacheKeepsCapacitiesInItsRange() {
        #expect(PreparedTextCache(measurer: Fixtures.measurer, capacity: 0).capacity == 1)
        #expect(PreparedTextCache(measurer: Fixtures.measurer, capacity: -5).capacity == 1)
        #expect(PreparedTextCache(measurer: Fixtures.measurer, capacity: 1 << 28).capacity == 1 << 28)
    }

    @Test(arguments: [TextMeasurer.maximumShapeCacheCapacity + 1, 1 << 40, Int.max])
    func aShapeCacheBeyondTheMaximumWorks(capacity: Int) throws {
        #expect(TextMeasurer.maximumShapeCacheCapacity == 4_194_304)
        let cascade = Fixtures.measurer.cascade
        for measurer in [TextMeasurer(cascades: FontCascades(regular: cascade), shapeCacheCapacity: capacity),
                         TextMeasurer(cascade: cascade, shapeCacheCapacity: capacity)] {
            let expected = try Fixtures.measurer.measure("Hello, world — 你好", style: TextStyle(size: 15), width: 80)
            let measured = try measurer.measure("Hello, world — 你好", style: TextStyle(size: 15), width: 80)
            #expect(measured.height == expected.height && measured.lineCount == expected.lineCount)
            _ = try measurer.measure("Hello, world — 你好", style: TextStyle(size: 15), width: 80)
            #expect(measurer.shapingStatistics.pieceHits > 0)
        }
    }

    @Test func aNegativeShapeCacheCapacityTurnsTheCacheOff() throws {
        let measurer = TextMeasurer(cascade: Fixtures.measurer.cascade, shapeCacheCapacity: Int.min)
        _ = try measurer.measure("Hello, world", style: TextStyle(size: 15), width: 80)
        _ = try measurer.measure("Hello, world", style: TextStyle(size: 15), width: 80)
        #expect(measurer.shapingStatistics.pieceHits == 0)
    }
}
