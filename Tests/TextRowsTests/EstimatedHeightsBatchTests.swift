import Foundation
import Testing
import TestSupport
@testable import TextRows
@testable import ListLayout
import TextMeasure

/// `HeightCache.estimatedHeights(for:width:conservative:)` runs on all cores and skips look-ups in an
/// empty cache: its answers must be the single-row answers, and the conservative ones must never be
/// below a row's measured height.
@Suite("Batch estimates of row layouts")
struct EstimatedHeightsBatchTests {
    /// Two-block chat rows from the corpus's words, the same on every run.
    static func messages(_ count: Int) -> [Message] {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 { url.deleteLastPathComponent() }
        let corpus = Corpus.load(from: url.appendingPathComponent("Corpus/multilingual.txt").path) ?? []
        let words = corpus.flatMap { $0.split(separator: " ") }.map(String.init)
        var random = SplitMix64(seed: 35)
        return (0..<count).map { _ in
            let length = Int.random(in: 1...40, using: &random)
            let body = (0..<length).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
            return Message(author: words.randomElement(using: &random)!, body: body,
                           hasImage: Int.random(in: 0..<5, using: &random) == 0)
        }
    }

    @Test(arguments: [160.0, 390.0, 720.0])
    func batchEstimatesAreTheSingleRowEstimatesAndNeverUndercount(width: Double) throws {
        let rows = Self.messages(9_000)   // more than two blocks of 4,096: spread over the cores
        let cache = try HeightCache(layout: RowLayoutTests.layout, measurer: RowLayoutTests.measurer)
        let expected = cache.estimatedHeights(for: rows, width: width)
        let bounds = cache.estimatedHeights(for: rows, width: width, conservative: true)
        var mismatches = 0, undercounts = 0
        // Every row, or every 8th in the ThreadSanitizer run, where the batches above are what is checked.
        for index in stride(from: 0, to: rows.count, by: ThreadSanitizerRun.size(1, sanitized: 8)) {
            let row = rows[index]
            if expected[index] != cache.estimatedHeight(for: row, width: width) { mismatches += 1 }
            if bounds[index] != cache.estimatedHeight(for: row, width: width, conservative: true) { mismatches += 1 }
        }
        // Measured rows (every 20th): the bound holds, and a cached row's batch estimate is its height.
        let measured = stride(from: 0, to: rows.count, by: 20).map { rows[$0] }
        let heights = cache.prefetch(measured, width: width)
        for index in measured.indices where bounds[index * 20] < heights[index] { undercounts += 1 }
        let again = cache.estimatedHeights(for: measured, width: width)
        #expect(again == heights)
        #expect(mismatches == 0)
        #expect(undercounts == 0)
    }
}
