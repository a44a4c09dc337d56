import TestSupport
import Testing
@testable import ListLayout

/// Batches of edits (``OffsetTreeBatch``, ``OffsetTree/apply(_:entries:strategy:)``) against the
/// same batch replayed on a plain array the way UIKit replays it, edit by edit and in one pass.
@Suite("Offset tree batches")
struct OffsetTreeBatchTests {
    typealias Entry = OffsetTree.Entry

    /// A random batch over `count` entries, replayed on a plain array as UIKit does: removals at old
    /// indexes, descending; insertions at new indexes, ascending; then entries set at new indexes.
    struct RandomBatch {
        var batch = OffsetTreeBatch()
        var expected: [Entry]

        init(_ old: [Entry], removing removeRate: Double, inserting inserted: Int, setting setRate: Double,
             _ rng: inout SplitMix64) {
            // Removals: runs of entries, a few long ones.
            var removed: [Range<Int>] = []
            var index = 0
            while index < old.count {
                if Double.random(in: 0..<1, using: &rng) < removeRate {
                    let length = Int.random(in: 0..<10, using: &rng) == 0
                        ? Int.random(in: 1...300, using: &rng) : Int.random(in: 1...3, using: &rng)
                    let range = index..<min(old.count, index + length)
                    removed.append(range)
                    index = range.upperBound + 1
                } else {
                    index += 1
                }
            }
            var model = old
            for range in removed.reversed() { model.removeSubrange(range) }
            // Insertions at distinct new indexes, both ends now and then.
            let total = model.count + inserted
            var newIndexes = Set<Int>()
            if inserted > 0 && Bool.random(using: &rng) { newIndexes.insert(0) }
            if inserted > 1 && Bool.random(using: &rng) { newIndexes.insert(total - 1) }
            while newIndexes.count < inserted { newIndexes.insert(Int.random(in: 0..<total, using: &rng)) }
            var insertions = newIndexes.sorted().map { ($0, OffsetTreeTests.randomEntry(&rng)) }
            insertions.shuffle(using: &rng)   // the batch takes them in any order
            for (index, entry) in insertions.sorted(by: { $0.0 < $1.0 }) { model.insert(entry, at: index) }
            var sets: [(Int, Entry)] = []
            for index in model.indices where Double.random(in: 0..<1, using: &rng) < setRate {
                sets.append((index, OffsetTreeTests.randomEntry(&rng)))
            }
            for (index, entry) in sets { model[index] = entry }
            expected = model

            for range in removed.shuffled(using: &rng) { batch.remove(range) }
            for (index, entry) in insertions { batch.insert(entry, at: index) }
            for (index, entry) in sets.shuffled(using: &rng) { batch.set(entry, at: index) }
        }
    }

    static let strategies: [OffsetTree.BatchStrategy] = [.oneByOne, .onePass, .automatic]

    /// Random mixes on trees from empty to thousands of entries (one leaf, two levels, three), with
    /// sparse and dense edits: every strategy gives the plain array's entries, offsets and marks.
    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"), arguments: [0, 1, 40, 129, 700, 6_000])
    func randomBatchesMatchAPlainArray(size: Int) {
        var rng = SplitMix64(seed: 0xBA7C4 &+ UInt64(size))
        for round in 0..<(size > 1_000 ? 40 : 150) {
            let old = (0..<size).map { _ in OffsetTreeTests.randomEntry(&rng) }
            let dense = round % 3 == 0
            let random = RandomBatch(old, removing: dense ? 0.2 : 0.01, inserting: Int.random(in: 0...(dense ? size / 4 + 8 : 6), using: &rng),
                                     setting: dense ? 0.2 : 0.005, &rng)
            let (edits, entries) = random.batch.edits()
            for strategy in Self.strategies {
                var tree = OffsetTree(old)
                tree.apply(edits, entries: entries, strategy: strategy)
                OffsetTreeTests.expectMatches(tree, random.expected, &rng)
            }
        }
    }

    /// Edge cases: everything removed, everything replaced, an empty tree filled, an insertion larger
    /// than the tree, removals spanning many leaves, edits at both ends.
    @Test func edgeCases() {
        var rng = SplitMix64(seed: 7)
        func entries(_ count: Int) -> [Entry] { (0..<count).map { _ in OffsetTreeTests.randomEntry(&rng) } }
        for size in [1, 31, 128, 129, 1_000, 20_000] {
            let old = entries(size)
            var cases: [(OffsetTreeBatch, [Entry])] = []

            var all = OffsetTreeBatch()
            all.remove(0..<size)
            cases.append((all, []))

            var replaced = OffsetTreeBatch()
            replaced.remove(0..<size)
            let fresh = entries(size / 2 + 1)
            for (index, entry) in fresh.enumerated() { replaced.insert(entry, at: index) }
            cases.append((replaced, fresh))

            var ends = OffsetTreeBatch()
            let first = entries(3), last = entries(2)
            ends.remove(0..<1)
            if size > 1 { ends.remove(size - 1..<size) }
            var endsModel = Array(old.dropFirst().dropLast(size > 1 ? 1 : 0))
            endsModel.insert(contentsOf: first, at: 0)
            endsModel.append(contentsOf: last)
            for (index, entry) in first.enumerated() { ends.insert(entry, at: index) }
            for (index, entry) in last.enumerated() { ends.insert(entry, at: endsModel.count - last.count + index) }
            let set = entries(1)[0]
            ends.set(set, at: 0)
            endsModel[0] = set
            cases.append((ends, endsModel))

            var large = OffsetTreeBatch()
            let many = entries(2 * size + 300)
            let at = size / 3
            for (index, entry) in many.enumerated() { large.insert(entry, at: at + index) }
            var largeModel = old
            largeModel.insert(contentsOf: many, at: at)
            cases.append((large, largeModel))

            if size > 10 {
                let entry = entries(1)[0]
                var spanningModel = old
                spanningModel.removeSubrange(3..<size - 3)
                var spanning = OffsetTreeBatch()
                spanning.remove(3..<size - 3)
                spanning.insert(entry, at: 3)
                spanningModel.insert(entry, at: 3)
                cases.append((spanning, spanningModel))
            }

            for (batch, expected) in cases {
                let (edits, batchEntries) = batch.edits()
                for strategy in Self.strategies {
                    var tree = OffsetTree(old)
                    tree.apply(edits, entries: batchEntries, strategy: strategy)
                    OffsetTreeTests.expectMatches(tree, expected, &rng)
                }
            }
        }
        var empty = OffsetTree()
        var batch = OffsetTreeBatch()
        let two = entries(2)
        batch.insert(two[0], at: 0)
        batch.insert(two[1], at: 1)
        batch.set(two[0], at: 1)
        let (edits, batchEntries) = batch.edits()
        empty.apply(edits, entries: batchEntries, strategy: .onePass)
        OffsetTreeTests.expectMatches(empty, [two[0], two[0]], &rng)
    }

    /// A tree edited by many batches in a row stays valid and keeps matching the array (leaves merged
    /// and cut again and again).
    @Test func batchesInARow() {
        var rng = SplitMix64(seed: 0x5EC0)
        var model = (0..<3_000).map { _ in OffsetTreeTests.randomEntry(&rng) }
        var tree = OffsetTree(model)
        for round in 0..<200 {
            let random = RandomBatch(model, removing: round % 2 == 0 ? 0.05 : 0.002,
                                     inserting: Int.random(in: 0...(round % 2 == 0 ? 50 : 200), using: &rng),
                                     setting: 0.01, &rng)
            let (edits, entries) = random.batch.edits()
            tree.apply(edits, entries: entries, strategy: round % 5 == 0 ? .oneByOne : .onePass)
            model = random.expected
            if round % 20 == 0 { OffsetTreeTests.expectMatches(tree, model, &rng) }
        }
        OffsetTreeTests.expectMatches(tree, model, &rng)
    }
}
