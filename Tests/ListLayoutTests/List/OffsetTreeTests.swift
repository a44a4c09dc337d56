import TestSupport
import Testing
@testable import ListLayout

@Suite("Offset tree")
struct OffsetTreeTests {
    typealias Entry = OffsetTree.Entry

    static func randomEntry(_ rng: inout SplitMix64) -> Entry {
        let kinds: [OffsetTree.Kind] = [.item, .item, .item, .estimatedItem, .header, .footer]
        // One entry in eight has height 0 (an empty header, say): it must hold no offset.
        let height: Int64 = Int.random(in: 0..<8, using: &rng) == 0 ? 0 : Int64.random(in: 1...200_000, using: &rng)
        return Entry(height: height, kind: kinds.randomElement(using: &rng)!)
    }

    /// Checks every query against a plain array.
    static func expectMatches(_ tree: OffsetTree, _ model: [Entry], _ rng: inout SplitMix64) {
        #expect(tree.validate())
        #expect(tree.count == model.count)
        #expect(tree.entries == model)
        var offsets: [Int64] = [0]
        var marks = [0]
        for entry in model {
            offsets.append(offsets.last! + entry.height)
            marks.append(marks.last! + (entry.kind == .header ? 1 : 0))
        }
        #expect(tree.total == offsets.last!)
        #expect(tree.marks == marks.last!)
        let step = max(1, model.count / 300)
        for index in stride(from: 0, through: model.count, by: step) {
            #expect(tree.offset(of: index) == offsets[index])
            #expect(tree.markCount(before: index) == marks[index])
            if index < model.count {
                #expect(tree.entry(at: index) == model[index])
                if model[index].height > 0 {
                    #expect(tree.index(containing: offsets[index]) == index)
                    #expect(tree.index(containing: offsets[index + 1] - 1) == index)
                }
            }
        }
        for _ in 0..<200 where tree.total > 0 {
            let y = Int64.random(in: 0..<tree.total, using: &rng)
            let index = tree.index(containing: y)!
            #expect(offsets[index] <= y && y < offsets[index + 1])
        }
        #expect(tree.index(containing: -1) == nil)
        #expect(tree.index(containing: tree.total) == nil)
        let headers = model.indices.filter { model[$0].kind == .header }
        for (mark, index) in headers.enumerated() where mark % step == 0 {
            #expect(tree.indexOfMark(mark) == index)
        }
        #expect(tree.indexOfMark(headers.count) == model.count)
    }

    @Test func randomEditsMatchAPlainArray() {
        var rng = SplitMix64(seed: 42)
        var model = (0..<5_000).map { _ in Self.randomEntry(&rng) }
        var tree = OffsetTree(model)
        Self.expectMatches(tree, model, &rng)
        for round in 0..<1_500 {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0:
                let index = Int.random(in: 0...model.count, using: &rng)
                let entry = Self.randomEntry(&rng)
                tree.insert(entry, at: index)
                model.insert(entry, at: index)
            case 1:
                let k = Int.random(in: 1...(round % 50 == 0 ? 2_000 : 60), using: &rng)
                let index = Int.random(in: 0...model.count, using: &rng)
                let entries = (0..<k).map { _ in Self.randomEntry(&rng) }
                tree.insert(contentsOf: entries, at: index)
                model.insert(contentsOf: entries, at: index)
            case 2 where !model.isEmpty:
                let index = Int.random(in: 0..<model.count, using: &rng)
                #expect(tree.remove(at: index) == model.remove(at: index))
            case 3 where !model.isEmpty:
                let lower = Int.random(in: 0..<model.count, using: &rng)
                let upper = min(model.count, lower + Int.random(in: 0...(round % 50 == 1 ? 3_000 : 80), using: &rng))
                #expect(tree.removeSubrange(lower..<upper) == Array(model[lower..<upper]))
                model.removeSubrange(lower..<upper)
            case 4 where !model.isEmpty, 5 where !model.isEmpty:
                let index = Int.random(in: 0..<model.count, using: &rng)
                let entry = Self.randomEntry(&rng)
                #expect(tree.setEntry(entry, at: index) == model[index])
                model[index] = entry
            default:
                break
            }
            if round % 100 == 0 { Self.expectMatches(tree, model, &rng) }
        }
        Self.expectMatches(tree, model, &rng)
    }

    @Test func growsFromEmptyAndShrinksToEmpty() {
        var rng = SplitMix64(seed: 7)
        var tree = OffsetTree()
        var model: [Entry] = []
        for _ in 0..<20_000 {
            let entry = Self.randomEntry(&rng)
            let index = Int.random(in: 0...model.count, using: &rng)
            tree.insert(entry, at: index)
            model.insert(entry, at: index)
        }
        Self.expectMatches(tree, model, &rng)
        while !model.isEmpty {
            let index = Int.random(in: 0..<model.count, using: &rng)
            #expect(tree.remove(at: index) == model.remove(at: index))
            if model.count % 2_500 == 0 { Self.expectMatches(tree, model, &rng) }
        }
        #expect(tree.count == 0 && tree.total == 0)
        #expect(tree.index(containing: 0) == nil)
    }

    @Test func zeroHeightEntriesHoldNoOffset() {
        let tree = OffsetTree([Entry(height: 0, kind: .header), Entry(height: 10, kind: .item),
                               Entry(height: 0, kind: .item), Entry(height: 5, kind: .footer)])
        #expect(tree.index(containing: 0) == 1)
        #expect(tree.index(containing: 9) == 1)
        #expect(tree.index(containing: 10) == 3)
        #expect(tree.index(containing: 15) == nil)
        #expect(tree.offset(of: 2) == 10 && tree.offset(of: 3) == 10)
    }

    @Test func forEachStartsAnywhereAndStops() {
        let model = (0..<1_000).map { Entry(height: Int64($0), kind: .item) }
        let tree = OffsetTree(model)
        var seen: [Int] = []
        tree.forEach(from: 517) { index, entry in
            #expect(entry == model[index])
            seen.append(index)
            return seen.count < 300
        }
        #expect(seen == Array(517..<817))
    }
}
