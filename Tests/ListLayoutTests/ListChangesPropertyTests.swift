import TestSupport
import Testing
import ListLayout

/// Random snapshot pairs with sections, and everything a batch can hold.
struct ListPairGenerator {
    var rng: SplitMix64
    private var nextItem = 0
    private var nextSection = 0
    /// Few distinct texts, so different items often have equal contents.
    private static let texts = ["", "a", "b", "hello", "a"]

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func text() -> String { Self.texts.randomElement(using: &rng)! }

    mutating func newPost() -> Post {
        nextItem += 1
        return Post(nextItem, text())
    }

    mutating func newSectionID() -> String {
        nextSection += 1
        return "s\(nextSection)"
    }

    /// A random snapshot: sometimes none, sometimes empty sections.
    mutating func snapshot() -> [ListSection<String, Post>] {
        let sections = chance(0.05) ? 0 : int(1...6)
        return (0..<sections).map { _ in
            let count = chance(0.15) ? 0 : int(1...12)
            return ListSection(id: newSectionID(), items: (0..<count).map { _ in newPost() })
        }
    }

    /// An old snapshot and a new one made from it: sections deleted, inserted and moved; items deleted,
    /// inserted, moved inside and across sections (also out of deleted sections and into new ones), and
    /// edited. One pair in ten is two unrelated-looking snapshots over a shared pool of identifiers.
    mutating func pair() -> (old: [ListSection<String, Post>], new: [ListSection<String, Post>]) {
        let old = snapshot()
        if chance(0.1) {
            // Shuffle the same identifiers into a different number of sections, dropping some.
            var sectionIDs = old.map(\.id) + (0..<int(0...2)).map { _ in newSectionID() }
            sectionIDs.shuffle(using: &rng)
            sectionIDs = Array(sectionIDs.prefix(int(0...sectionIDs.count)))
            var new = sectionIDs.map { ListSection<String, Post>(id: $0, items: []) }
            guard !new.isEmpty else { return (old, new) }
            for post in old.flatMap(\.items).shuffled(using: &rng) where chance(0.8) {
                var post = post
                if chance(0.3) { post.text = text() }
                new[int(0...new.count - 1)].items.append(post)
            }
            return (old, new)
        }
        var new = old.filter { _ in !chance(0.2) }
        let survivors = Set(new.map(\.id))
        var floating: [Post] = []
        for s in new.indices { new[s].items = [] }
        var newIndex: [String: Int] = [:]
        for (s, section) in new.enumerated() { newIndex[section.id] = s }
        for section in old {
            for post in section.items where !chance(0.15) {
                if survivors.contains(section.id) && chance(0.85) {
                    new[newIndex[section.id]!].items.append(post)
                } else {
                    floating.append(post)
                }
            }
        }
        // Inserted sections (some empty) and section moves.
        for _ in 0..<int(0...2) {
            new.insert(ListSection(id: newSectionID(), items: chance(0.5) ? [] : [newPost()]), at: int(0...new.count))
        }
        if new.count > 1 && chance(0.5) {
            for _ in 0..<int(1...3) {
                let section = new.remove(at: int(0...new.count - 1))
                new.insert(section, at: int(0...new.count))
            }
        }
        guard !new.isEmpty else { return (old, new) }
        // Items that changed section, or whose section went away.
        for post in floating {
            let s = int(0...new.count - 1)
            new[s].items.insert(post, at: int(0...new[s].items.count))
        }
        // Moves inside a section.
        if chance(0.4) {
            for _ in 0..<int(1...4) {
                let s = int(0...new.count - 1)
                guard !new[s].items.isEmpty else { continue }
                let post = new[s].items.remove(at: int(0...new[s].items.count - 1))
                new[s].items.insert(post, at: int(0...new[s].items.count))
            }
        }
        // New items, then edits.
        for _ in 0..<int(0...4) {
            let s = int(0...new.count - 1)
            new[s].items.insert(newPost(), at: int(0...new[s].items.count))
        }
        for s in new.indices {
            for i in new[s].items.indices where chance(0.2) { new[s].items[i].text = text() }
        }
        return (old, new)
    }
}

/// The length of a longest increasing subsequence, by the O(n²) textbook recurrence: an independent
/// check on the patience sorting the diff uses.
func longestIncreasingLength(_ values: [Int]) -> Int {
    var best = [Int](repeating: 1, count: values.count)
    for k in values.indices {
        for j in 0..<k where values[j] < values[k] { best[k] = max(best[k], best[j] + 1) }
    }
    return best.max() ?? 0
}

/// Every promise of `changes(from:)` checked against an independent computation.
func verify(_ changes: ListChanges, from old: PostSnapshot, to new: PostSnapshot,
            sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    var ok = true
    func check(_ condition: Bool, _ what: @autoclosure () -> String) {
        if !condition {
            ok = false
            Issue.record("\(what())\nold: \(old.sections)\nnew: \(new.sections)\n\(changes)", sourceLocation: sourceLocation)
        }
    }
    // UIKit accepts it and it replays to the new snapshot.
    do {
        let replayed = try UIKitBatchSimulator.replay(changes, on: old, dataSource: new)
        check(replayed == .init(new), "replay differs: \(replayed)")
    } catch {
        check(false, "UIKit would reject: \(error)")
        return false
    }

    // Sections: exactly the ones gone and the ones new; moves minimal.
    let oldSections = old.sections.map(\.id)
    let newSections = new.sections.map(\.id)
    check(changes.deletedSections == oldSections.indices.filter { new.sectionIndex(of: oldSections[$0]) == nil },
          "deletedSections")
    check(changes.insertedSections == newSections.indices.filter { old.sectionIndex(of: newSections[$0]) == nil },
          "insertedSections")
    let survivingOrder = newSections.compactMap { old.sectionIndex(of: $0) }
    check(changes.movedSections.count == survivingOrder.count - longestIncreasingLength(survivingOrder),
          "section moves not minimal")
    check(changes.movedSections.map(\.to) == changes.movedSections.map(\.to).sorted(), "section moves unsorted")

    // Items: which should be deleted, inserted, updated; how many must move.
    func survives(oldSection s: Int) -> Bool { new.sectionIndex(of: oldSections[s]) != nil }
    func survives(newSection s: Int) -> Bool { old.sectionIndex(of: newSections[s]) != nil }
    var deleted: [ItemPath] = []
    for (s, section) in old.sections.enumerated() where survives(oldSection: s) {
        for (i, post) in section.items.enumerated() {
            let there = new.indexPath(of: post.id)
            if there == nil || !survives(newSection: there!.section) { deleted.append(ItemPath(section: s, item: i)) }
        }
    }
    var inserted: [ItemPath] = []
    var updated: [ItemPath] = []
    var crossSection = 0
    var staying: [Int: [Int]] = [:]   // new section → old item indexes of items staying in it, new order
    for (s, section) in new.sections.enumerated() where survives(newSection: s) {
        for (i, post) in section.items.enumerated() {
            let path = ItemPath(section: s, item: i)
            guard let from = old.indexPath(of: post.id), survives(oldSection: from.section) else {
                inserted.append(path)
                continue
            }
            if old.item(at: from) != post { updated.append(path) }
            if oldSections[from.section] == newSections[s] {
                staying[s, default: []].append(from.item)
            } else {
                crossSection += 1
            }
        }
    }
    check(changes.deletedItems == deleted, "deletedItems: expected \(deleted)")
    check(changes.insertedItems == inserted, "insertedItems: expected \(inserted)")
    check(changes.updatedItems == updated, "updatedItems: expected \(updated)")
    let minimalMoves = crossSection + staying.values.reduce(0) { $0 + $1.count - longestIncreasingLength($1) }
    check(changes.movedItems.count == minimalMoves, "item moves: expected \(minimalMoves)")
    check(changes.movedItems.map(\.to) == changes.movedItems.map(\.to).sorted(), "item moves unsorted")
    for move in changes.movedItems {
        let id = old.item(at: move.from).id
        check(new.item(at: move.to).id == id, "move \(move) joins two items")
    }
    check(changes.isEmpty == (old == new), "isEmpty")
    return ok
}

@Suite("ListChanges: random snapshot pairs")
struct ListChangesPropertyTests {
    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"))
    func tenThousandRandomPairsReplayAndKeepEveryRule() throws {
        var generator = ListPairGenerator(seed: 0x5EED_1157)
        var failures = 0
        var totals = (sections: 0, items: 0, moves: 0, sectionMoves: 0, updates: 0)
        for round in 0..<10_000 {
            let (oldSections, newSections) = generator.pair()
            let old = try PostSnapshot(sections: oldSections)
            let new = try PostSnapshot(sections: newSections)
            let changes = new.changes(from: old)
            totals.sections += changes.deletedSections.count + changes.insertedSections.count
            totals.items += changes.deletedItems.count + changes.insertedItems.count
            totals.moves += changes.movedItems.count
            totals.sectionMoves += changes.movedSections.count
            totals.updates += changes.updatedItems.count
            if !verify(changes, from: old, to: new) { failures += 1 }
            if failures > 3 { break }
            // The reverse direction too, for one pair in four (keeps the test at a few seconds in debug).
            if round % 4 == 0 && !verify(old.changes(from: new), from: new, to: old) { failures += 1 }
        }
        // The generator really produced every kind of change.
        #expect(totals.sections > 1_000 && totals.items > 10_000 && totals.moves > 1_000
                && totals.sectionMoves > 1_000 && totals.updates > 1_000)
    }

    @Test func oneMovedItemIsExactlyOneMove() throws {
        var generator = ListPairGenerator(seed: 42)
        for _ in 0..<1_000 {
            let oldSections = generator.snapshot()
            var newSections = oldSections
            guard newSections.contains(where: { !$0.items.isEmpty }) else { continue }
            var from = generator.int(0...newSections.count - 1)
            while newSections[from].items.isEmpty { from = generator.int(0...newSections.count - 1) }
            let post = newSections[from].items.remove(at: generator.int(0...newSections[from].items.count - 1))
            let to = generator.int(0...newSections.count - 1)
            newSections[to].items.insert(post, at: generator.int(0...newSections[to].items.count))
            let old = try PostSnapshot(sections: oldSections)
            let new = try PostSnapshot(sections: newSections)
            let changes = new.changes(from: old)
            let (before, after) = (old.indexPath(of: post.id)!, new.indexPath(of: post.id)!)
            if before == after {
                #expect(changes.isEmpty)
            } else if before.section == after.section && abs(before.item - after.item) == 1 {
                // Two neighbours swapped: either of them is the one move.
                #expect(changes.movedItems.count == 1)
                #expect(changes.movedItems.first.map { Set([$0.from.item, $0.to.item]) } == [before.item, after.item])
            } else {
                #expect(changes == ListChanges(movedItems: [ListMove(from: before, to: after)]))
            }
            _ = verify(changes, from: old, to: new)
        }
    }

    @Test func kMovesInsideASectionAreAtMostKMoves() throws {
        var generator = ListPairGenerator(seed: 7)
        for _ in 0..<1_000 {
            let items = (0..<generator.int(1...60)).map { _ in generator.newPost() }
            var moved = items
            let k = generator.int(1...8)
            for _ in 0..<k {
                let post = moved.remove(at: generator.int(0...moved.count - 1))
                moved.insert(post, at: generator.int(0...moved.count))
            }
            let old = try PostSnapshot(items: items, inSection: "s")
            let new = try PostSnapshot(items: moved, inSection: "s")
            let changes = new.changes(from: old)
            #expect(changes.movedItems.count <= k)
            #expect(changes.deletedItems.isEmpty && changes.insertedItems.isEmpty && changes.updatedItems.isEmpty)
            _ = verify(changes, from: old, to: new)
        }
    }

    @Test func largeSectionsReplay() throws {
        // Sizes where prefix and suffix trimming and patience sorting do real work.
        var generator = ListPairGenerator(seed: 2024)
        for round in 0..<20 {
            var items = (0..<2_000).map { _ in generator.newPost() }
            let old = try PostSnapshot(sections: [ListSection(id: "a", items: Array(items[..<1_000])),
                                                  ListSection(id: "b", items: Array(items[1_000...]))])
            for _ in 0..<(round * 10) {
                let post = items.remove(at: generator.int(0...items.count - 1))
                if generator.chance(0.7) { items.insert(post, at: generator.int(0...items.count)) }
            }
            for _ in 0..<round { items.insert(generator.newPost(), at: generator.int(0...items.count)) }
            let cut = generator.int(0...items.count)
            let new = try PostSnapshot(sections: [ListSection(id: round % 2 == 0 ? "b" : "c", items: Array(items[cut...])),
                                                  ListSection(id: "a", items: Array(items[..<cut]))])
            #expect(verify(new.changes(from: old), from: old, to: new))
        }
    }
}
