import Testing
import TextMeasureSupport
@testable import TextMeasure

/// `PreparedTextCache`'s count and byte bounds.
@Suite("Prepared-text cache")
struct PreparedTextCacheTests {
    static let style = TextStyle(size: 15)

    /// Distinct texts of `words` words each.
    static func texts(_ count: Int, words: Int) -> [String] {
        (0..<count).map { index in
            (0..<words).map { "word\(index)x\($0 % 17)" }.joined(separator: " ")
        }
    }

    @Test func byteCountCountsSegmentsClustersAndText() throws {
        let text = Self.texts(1, words: 200)[0]
        let prepared = try Fixtures.measurer.prepare(text, style: Self.style)
        #expect(prepared.byteCount >= text.utf8.count + prepared.clusters.count * MemoryLayout<PreparedCluster>.stride
                    + prepared.segments.count * MemoryLayout<Segment>.stride)
        // A text's prepared form is tens of times its bytes, as the documentation says.
        #expect(prepared.byteCount > 10 * text.utf8.count && prepared.byteCount < 60 * text.utf8.count)
    }

    @Test func heldBytesNeverExceedTheBudget() throws {
        let texts = Self.texts(60, words: 40)
        let oneText = try Fixtures.measurer.prepare(texts[0], style: Self.style).byteCount
        let budget = 5 * oneText + oneText / 2   // room for about five
        let cache = PreparedTextCache(measurer: Fixtures.measurer, capacity: 1_000, maximumBytes: budget)
        for text in texts {
            let result = try cache.measure(text, style: Self.style, width: 300)
            #expect(result == (try Fixtures.measurer.measure(text, style: Self.style, width: 300)))
            let statistics = cache.statistics
            #expect(statistics.bytes <= budget)
            #expect(statistics.entries <= 6)
        }
        let statistics = cache.statistics
        #expect(statistics.entries >= 4)
        #expect(statistics.evictions == texts.count - statistics.entries)
        #expect(statistics.oversized == 0)
        // The most recent text is held, the first long gone.
        _ = try cache.prepared(texts.last!, style: Self.style)
        _ = try cache.prepared(texts[0], style: Self.style)
        #expect(cache.statistics.hits == 1)
    }

    @Test func heldBytesAreTheSumOfTheHeldTexts() throws {
        let texts = Self.texts(10, words: 30)
        let cache = PreparedTextCache(measurer: Fixtures.measurer, capacity: 4)
        var prepared: [PreparedText] = []
        for text in texts { prepared.append(try cache.prepared(text, style: Self.style)) }
        #expect(cache.statistics.entries == 4)
        #expect(cache.statistics.bytes == prepared.suffix(4).map(\.byteCount).reduce(0, +))
        cache.removeAll()
        #expect(cache.statistics.bytes == 0 && cache.statistics.entries == 0)
    }

    /// Both bounds at once: a new text takes the oldest one's place at the count bound, and the byte
    /// bound may evict more. What is held is always the most recent texts that fit, their bytes summed
    /// exactly, and every text not held was counted as evicted.
    @Test func countAndByteBoundsTogether() throws {
        // Texts of one to six times a unit, so that a large one needs several small ones evicted.
        let texts = (0..<40).map { index in Self.texts(1, words: 8 * (1 + index * 7 % 6))[0] + " \(index)" }
        let sizes = try texts.map { try Fixtures.measurer.prepare($0, style: Self.style).byteCount }
        let budget = sizes.max()! * 2
        let cache = PreparedTextCache(measurer: Fixtures.measurer, capacity: 5, maximumBytes: budget)
        var held: [Int] = []   // the model: indices of the texts held, most recent last
        for (index, text) in texts.enumerated() {
            _ = try cache.prepared(text, style: Self.style)
            held.append(index)
            if held.count > 5 { held.removeFirst() }
            while held.map({ sizes[$0] }).reduce(0, +) > budget { held.removeFirst() }
            let statistics = cache.statistics
            #expect(statistics.entries == held.count)
            #expect(statistics.bytes == held.map { sizes[$0] }.reduce(0, +))
            #expect(statistics.evictions == index + 1 - held.count)
        }
        // The held texts are found; the one evicted last is not.
        let hits = cache.statistics.hits
        for index in held { _ = try cache.prepared(texts[index], style: Self.style) }
        #expect(cache.statistics.hits == hits + held.count)
        _ = try cache.prepared(texts[held[0] - 1], style: Self.style)
        #expect(cache.statistics.hits == hits + held.count)
    }

    /// Hits a caller counts for texts it reused itself (the batch's repeated lines) add to the hits.
    @Test func countedHitsAddToTheHits() throws {
        let cache = PreparedTextCache(measurer: Fixtures.measurer, capacity: 4)
        _ = try cache.prepared("Hello", style: Self.style)
        _ = try cache.prepared("Hello", style: Self.style)
        cache.countHits(5)
        let statistics = cache.statistics
        #expect(statistics.hits == 6 && statistics.misses == 1 && statistics.entries == 1)
    }

    @Test func aTextLargerThanTheBudgetIsMeasuredButNotKept() throws {
        let small = "A short row."
        let large = Self.texts(1, words: 2_000)[0]
        let budget = 8 * 1024
        #expect(try Fixtures.measurer.prepare(large, style: Self.style).byteCount > budget)
        let cache = PreparedTextCache(measurer: Fixtures.measurer, capacity: 10, maximumBytes: budget)
        _ = try cache.measure(small, style: Self.style, width: 200)
        for width in [200.0, 320, 200] {
            let result = try cache.measure(large, style: Self.style, width: width)
            #expect(result == (try Fixtures.measurer.measure(large, style: Self.style, width: width)))
        }
        let statistics = cache.statistics
        #expect(statistics.oversized == 3)
        #expect(statistics.misses == 4)
        #expect(statistics.entries == 1)   // the small text stays: nothing was evicted for the large one
        #expect(statistics.evictions == 0)
        #expect(statistics.bytes <= budget)
    }

    @Test func aZeroBudgetKeepsNothing() throws {
        let cache = PreparedTextCache(measurer: Fixtures.measurer, capacity: 10, maximumBytes: 0)
        for _ in 0..<3 { _ = try cache.measure("Hello", style: Self.style, width: 100) }
        #expect(cache.statistics.entries == 0 && cache.statistics.misses == 3 && cache.statistics.oversized == 3)
    }

    /// Tasks measuring overlapping texts through one small cache at once: every result equals direct
    /// measuring, and the cache ends within both bounds. Run under `swift test --sanitize=thread`.
    @Test func concurrentUseStaysWithinBothBounds() async throws {
        let texts = Self.texts(40, words: 25)
        let oneText = try Fixtures.measurer.prepare(texts[0], style: Self.style).byteCount
        let budget = 8 * oneText
        let cache = PreparedTextCache(measurer: Fixtures.measurer, capacity: 12, maximumBytes: budget)
        let widths = [150.0, 260, 410]
        let expected = try texts.map { text in
            try widths.map { try Fixtures.measurer.measure(text, style: Self.style, width: $0) }
        }
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var mismatches = 0
                    for step in 0..<150 {
                        let text = (step * 5 + task * 3) % texts.count, width = (step + task) % widths.count
                        let result = try cache.measure(texts[text], style: Self.style, width: widths[width])
                        if result != expected[text][width] { mismatches += 1 }
                        if cache.statistics.bytes > budget { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        let statistics = cache.statistics
        #expect(statistics.bytes <= budget && statistics.entries <= 12)
        #expect(statistics.hits + statistics.misses == 8 * 150)
    }
}

import Dispatch

/// Evicted texts go back to the thread that prepared them, to be freed there.
@Suite("Prepared-text cache: freeing on the preparing thread")
struct PreparedTextCacheFreeingTests {
    static let style = TextStyle(size: 15)

    /// Runs `body` on a thread of Dispatch's (never the calling one) and returns its result.
    static func elsewhere<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let outcome = Result { try body() }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// A text this thread prepared and another thread evicted waits for this thread's next stored
    /// text; a text the evicting thread prepared itself is freed at once. Evictions count either way,
    /// and what the cache holds is unchanged by the waiting.
    @Test func anEvictedTextWaitsForItsThread() throws {
        let texts = PreparedTextCacheTests.texts(4, words: 12)
        let cache = PreparedTextCache(measurer: Fixtures.measurer, capacity: 1)
        let first = try cache.prepared(texts[0], style: Self.style).byteCount   // made here
        let third = try Self.elsewhere { () throws -> Int in
            _ = try cache.prepared(texts[1], style: Self.style)   // evicts the first, made here: it waits
            #expect(cache.waitingToBeFreed == (1, first))
            let third = try cache.prepared(texts[2], style: Self.style).byteCount   // evicts its own text
            #expect(cache.waitingToBeFreed == (1, first))
            return third
        }
        #expect(cache.statistics.evictions == 2)
        #expect(cache.statistics.entries == 1)
        // This thread stores a text: it frees the first, and the third (made elsewhere) now waits.
        _ = try cache.prepared(texts[3], style: Self.style)
        #expect(cache.waitingToBeFreed == (1, third))
        #expect(cache.statistics.evictions == 3)
        cache.removeAll()
        #expect(cache.waitingToBeFreed == (0, 0))
    }

    /// However many texts another thread evicts, at most 64 wait, and at most a sixteenth of the byte
    /// budget; `removeAll()` frees them too.
    @Test func waitingIsBounded() throws {
        let texts = PreparedTextCacheTests.texts(300, words: 6)
        let cache = PreparedTextCache(measurer: Fixtures.measurer, capacity: 4)
        for text in texts.prefix(150) { _ = try cache.prepared(text, style: Self.style) }   // made here
        try Self.elsewhere {
            for text in texts.suffix(150) { _ = try cache.prepared(text, style: Self.style) }
        }
        let waiting = cache.waitingToBeFreed
        #expect(waiting.count == 4)   // only the four this thread's texts held when the other began
        #expect(cache.statistics.evictions == 296)

        // A hundred texts made here, all evicted elsewhere: 64 wait, the rest the other thread frees.
        let many = PreparedTextCache(measurer: Fixtures.measurer, capacity: 100)
        for text in texts.prefix(100) { _ = try many.prepared(text, style: Self.style) }
        try Self.elsewhere {
            for text in texts.suffix(100) {
                _ = try many.prepared(text, style: Self.style)
                #expect(many.waitingToBeFreed.count <= 64)
            }
        }
        #expect(many.waitingToBeFreed.count == 64)
        #expect(many.statistics.evictions == 100)
        let tight = PreparedTextCache(measurer: Fixtures.measurer, capacity: 100, maximumBytes: 16 * 4_096)
        for text in texts.prefix(100) { _ = try tight.prepared(text, style: Self.style) }
        try Self.elsewhere {
            for text in texts.suffix(100) {
                _ = try tight.prepared(text, style: Self.style)
                #expect(tight.waitingToBeFreed.bytes <= 4_096)
            }
        }
        #expect(tight.waitingToBeFreed.count > 0)
        many.removeAll()
        #expect(many.waitingToBeFreed == (0, 0))
    }
}
