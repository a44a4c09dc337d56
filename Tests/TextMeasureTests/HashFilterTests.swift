import Synchronization
import Testing
import TestSupport
@testable import TextMeasure

@Suite("Hash filters and their refills")
struct HashFilterTests {
    /// A hash that lands on bit `bit` of word `word` (of a filter of at least `word + 1` words).
    private static func hash(word: Int, bit: Int) -> UInt64 { UInt64(word) << 6 | UInt64(bit) }

    /// With 64 words, the first word's 64 bits are counted: a refill is due at the 32nd set there,
    /// and bits in other words do not count.
    @Test func aRefillIsDueOnceHalfTheCountedBitsAreSet() {
        let filter = HashFilter(wordCount: 64)
        for word in 1..<64 { #expect(!filter.insert(Self.hash(word: word, bit: 5))) }
        for bit in 0..<31 { #expect(!filter.insert(Self.hash(word: 0, bit: bit)), "bit \(bit)") }
        // Setting a bit already set does not count.
        #expect(!filter.insert(Self.hash(word: 0, bit: 3)))
        #expect(!filter.isRefillDue)
        #expect(filter.insert(Self.hash(word: 0, bit: 31)))
        #expect(filter.isRefillDue)
        #expect(filter.density == 0.5)
        for bit in 0..<32 { #expect(filter.mayContain(Self.hash(word: 0, bit: bit))) }
        #expect(!filter.mayContain(Self.hash(word: 0, bit: 40)))
        #expect(filter.mayContain(Self.hash(word: 7, bit: 5)))
        #expect(filter.refills == 0)
    }

    /// A refill clears every bit, lets one thread in at a time, and puts the next refill where half
    /// of the bits still clear after it are set.
    @Test func aRefillClearsAndCountsAgain() {
        let filter = HashFilter(wordCount: 64)
        for bit in 0..<40 { filter.insert(Self.hash(word: 0, bit: bit)) }
        filter.insert(Self.hash(word: 9, bit: 1))
        #expect(filter.beginRefill())
        #expect(!filter.beginRefill(), "a second refill while one runs")
        #expect(!filter.mayContain(Self.hash(word: 0, bit: 0)))
        #expect(!filter.mayContain(Self.hash(word: 9, bit: 1)))
        // While refilling, no refill is reported due, even past the count that made it due.
        for bit in 0..<40 { #expect(!filter.insert(Self.hash(word: 0, bit: bit)), "bit \(bit)") }
        filter.endRefill()
        #expect(filter.refills == 1)
        #expect(filter.density == 40.0 / 64)
        // A thread told before this refill that one was due finds none due now.
        #expect(!filter.isRefillDue)
        // 40 set, 24 clear: due again at 40 + 12 = 52 set.
        for bit in 40..<51 { #expect(!filter.insert(Self.hash(word: 0, bit: bit)), "bit \(bit)") }
        #expect(filter.insert(Self.hash(word: 0, bit: 51)))
        #expect(filter.isRefillDue)
        #expect(filter.beginRefill())
        filter.endRefill()
        #expect(filter.refills == 2)
    }

    /// A filter its owner's table leaves with one clear bit is due again at that bit, not sooner;
    /// refilled full, it is never due again (a refill would only set every bit once more), however
    /// many hashes follow.
    @Test func aFilterLeftNearlyFullIsDueOnlyAtItsLastBit() {
        let filter = HashFilter(wordCount: 1)
        #expect(filter.beginRefill())
        for bit in 0..<63 { filter.insert(Self.hash(word: 0, bit: bit)) }
        filter.endRefill()
        #expect(filter.density == 63.0 / 64)
        for bit in 0..<63 { #expect(!filter.insert(Self.hash(word: 0, bit: bit))) }
        #expect(filter.insert(Self.hash(word: 0, bit: 63)))
        #expect(filter.beginRefill())
        for bit in 0..<64 { filter.insert(Self.hash(word: 0, bit: bit)) }
        filter.endRefill()
        #expect(filter.density == 1)
        var generator = SplitMix64(seed: 0x46554C4C)
        for _ in 0..<1_000 { #expect(!filter.insert(generator.next())) }
        #expect(!filter.isRefillDue)
        #expect(filter.refills == 2)
    }

    /// Several threads insert into a small filter and refill it whenever told to, each re-adding
    /// its own last few hashes (as an owner re-adds what its table holds): no thread's refill
    /// overlaps another's, refills happen, and after the last one every re-added hash is there.
    @Test func concurrentInsertsAndRefills() async {
        let filter = HashFilter(wordCount: 4)
        let threads = 4
        let refills = RefillCounters()
        let kept = await withTaskGroup(of: [UInt64].self) { group in
            for thread in 0..<threads {
                group.addTask {
                    var generator = SplitMix64(seed: UInt64(thread + 1))
                    var recent: [UInt64] = []
                    for _ in 0..<20_000 {
                        let value = generator.next()
                        recent.append(value)
                        if recent.count > 8 { recent.removeFirst() }
                        if filter.insert(value), filter.beginRefill() {
                            if refills.running.add(1, ordering: .relaxed).oldValue != 0 { refills.overlaps.add(1, ordering: .relaxed) }
                            for hash in recent { filter.insert(hash) }
                            refills.running.subtract(1, ordering: .relaxed)
                            filter.endRefill()
                        }
                    }
                    return recent
                }
            }
            var all: [UInt64] = []
            for await recent in group { all += recent }
            return all
        }
        #expect(filter.refills > 0)
        #expect(refills.overlaps.load(ordering: .relaxed) == 0)
        #expect(filter.beginRefill())
        for hash in kept { filter.insert(hash) }
        filter.endRefill()
        for hash in kept { #expect(filter.mayContain(hash)) }
    }

    /// A measurer whose shape cache has tiny tables and tiny filters, refilled again and again while
    /// the held-out corpus goes through at two sizes: every measurement equals shaping afresh, and
    /// pieces are still found in the cache between the refills.
    @Test func measurementsThroughRefilledFiltersEqualUncachedOnes() throws {
        let cascade = Fixtures.measurer.cascade
        let cache = ShapeCache(capacity: 64, filterWords: 2)
        let measurer = TextMeasurer(cascade: cascade, shapeCache: cache)
        let uncached = TextMeasurer(cascade: cascade, shapeCacheCapacity: 0)
        let texts = Array(Fixtures.corpus(named: "held-out.txt").prefix(600))
        for size in [15.0, 13] {
            let style = TextStyle(size: size)
            for text in texts {
                #expect(try measurer.measure(text, style: style, width: 160) == uncached.measure(text, style: style, width: 160),
                        "\(size) px: \(text)")
            }
        }
        // The plain-piece filter is refilled in the same pass as the stored-piece one, so its count
        // follows that one's; the span filter has a trigger of its own.
        let refills = cache.filterRefills
        #expect(refills.storedPieces > 10)
        #expect(refills.plainPieces >= refills.storedPieces)
        #expect(refills.spanStarts > 0)
        #expect(measurer.shapingStatistics.pieceHits > 0)
    }

    /// As above, from four tasks at once (under `swift test --sanitize=thread`, the refills race with
    /// look-ups and stores on other threads).
    @Test func concurrentMeasurementsThroughRefilledFiltersEqualUncachedOnes() async throws {
        let cascade = Fixtures.measurer.cascade
        let cache = ShapeCache(capacity: 64, filterWords: 2)
        let measurer = TextMeasurer(cascade: cascade, shapeCache: cache)
        let uncached = TextMeasurer(cascade: cascade, shapeCacheCapacity: 0)
        let texts = Array(Fixtures.corpus(named: "held-out.txt").prefix(300))
        let style = TextStyle(size: 15)
        let expected = try texts.map { try uncached.measure($0, style: style, width: 160) }
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<4 {
                group.addTask {
                    // Each task starts elsewhere in the list, so that they store and refill at once.
                    var mismatches = 0
                    for step in texts.indices {
                        let index = (step + task * texts.count / 4) % texts.count
                        if try measurer.measure(texts[index], style: style, width: 160) != expected[index] { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(cache.filterRefills.storedPieces > 0)
    }
}

/// Refills running now, and refills that began while another ran.
private final class RefillCounters: Sendable {
    let running = Atomic<Int>(0)
    let overlaps = Atomic<Int>(0)
}
