import Benchmark
import ListLayout

// List diffing: ListSnapshot.changes(from:) on three scenarios, each beside the standard library's
// `newIDs.difference(from: oldIDs).inferringMoves()` on the same identifiers (flattened for sections).
// Run from Benchmarks/:  swift package benchmark --target ListBenchmarks

/// A chat message: identity `id`, contents compared with `==`.
struct Message: Identifiable, Hashable, Sendable {
    let id: Int
    var text: String
}

/// Two snapshots and their identifiers, flattened, for the standard library.
struct Scenario: Sendable {
    let old: ListSnapshot<Int, Message>
    let new: ListSnapshot<Int, Message>
    let oldIDs: [Int]
    let newIDs: [Int]

    init(old: [ListSection<Int, Message>], new: [ListSection<Int, Message>]) {
        // Identifiers are unique by construction: a failure here is a bug in this file.
        self.old = try! ListSnapshot(sections: old)
        self.new = try! ListSnapshot(sections: new)
        oldIDs = old.flatMap { $0.items.map(\.id) }
        newIDs = new.flatMap { $0.items.map(\.id) }
    }
}

func messages(_ ids: Range<Int>) -> [Message] {
    ids.map { Message(id: $0, text: "Message number \($0), a line of text") }
}

/// 100,000 items in one section; 10,000 deleted, 10,000 inserted, 10,000 edited, all at random places.
let churn: Scenario = {
    var rng = SplitMix64(seed: 1)
    let old = messages(0..<100_000)
    var keep = [Bool](repeating: true, count: old.count)
    var dropped = 0
    while dropped < 10_000 {
        let k = Int.random(in: 0..<old.count, using: &rng)
        if keep[k] { keep[k] = false; dropped += 1 }
    }
    var new = old.indices.filter { keep[$0] }.map { old[$0] }
    var inserted = [Bool](repeating: false, count: new.count + 10_000)
    var placed = 0
    while placed < 10_000 {
        let k = Int.random(in: 0..<inserted.count, using: &rng)
        if !inserted[k] { inserted[k] = true; placed += 1 }
    }
    var merged: [Message] = []
    merged.reserveCapacity(inserted.count)
    var survivors = new.makeIterator()
    var nextID = 100_000
    for k in inserted.indices {
        if inserted[k] {
            merged.append(Message(id: nextID, text: "New message \(nextID)"))
            nextID += 1
        } else {
            merged.append(survivors.next()!)
        }
    }
    new = merged
    var edited = 0
    while edited < 10_000 {
        let k = Int.random(in: 0..<new.count, using: &rng)
        if new[k].id < 100_000 && !new[k].text.hasPrefix("Edited") {
            new[k].text = "Edited " + new[k].text
            edited += 1
        }
    }
    return Scenario(old: [ListSection(id: 0, items: old)], new: [ListSection(id: 0, items: new)])
}()

/// Two snapshots of the same 100,000 items, built from separate arrays (no shared storage).
let identical: Scenario = {
    Scenario(old: [ListSection(id: 0, items: messages(0..<100_000))],
             new: [ListSection(id: 0, items: messages(0..<100_000))])
}()

/// 50 sections of 2,000 items: 5 sections moved, 2 deleted, 2 inserted; 1,000 items moved to other
/// sections, 1,000 deleted, 1,000 inserted, 1,000 edited.
let sectioned: Scenario = {
    var rng = SplitMix64(seed: 3)
    let old = (0..<50).map { s in ListSection(id: s, items: messages(s * 2_000..<(s + 1) * 2_000)) }
    var new = old
    for _ in 0..<5 {
        let section = new.remove(at: Int.random(in: 0..<new.count, using: &rng))
        new.insert(section, at: Int.random(in: 0...new.count, using: &rng))
    }
    for _ in 0..<2 { new.remove(at: Int.random(in: 0..<new.count, using: &rng)) }
    for s in 50..<52 {
        new.insert(ListSection(id: s, items: messages(200_000 + s * 100..<200_000 + s * 100 + 50)),
                   at: Int.random(in: 0...new.count, using: &rng))
    }
    func randomItem(_ rng: inout SplitMix64) -> (Int, Int) {
        var s = Int.random(in: 0..<new.count, using: &rng)
        while new[s].items.isEmpty { s = Int.random(in: 0..<new.count, using: &rng) }
        return (s, Int.random(in: 0..<new[s].items.count, using: &rng))
    }
    for _ in 0..<1_000 {
        let (s, i) = randomItem(&rng)
        let message = new[s].items.remove(at: i)
        let to = Int.random(in: 0..<new.count, using: &rng)
        new[to].items.insert(message, at: Int.random(in: 0...new[to].items.count, using: &rng))
    }
    for _ in 0..<1_000 {
        let (s, i) = randomItem(&rng)
        new[s].items.remove(at: i)
    }
    for id in 300_000..<301_000 {
        let s = Int.random(in: 0..<new.count, using: &rng)
        new[s].items.insert(Message(id: id, text: "New"), at: Int.random(in: 0...new[s].items.count, using: &rng))
    }
    for _ in 0..<1_000 {
        let (s, i) = randomItem(&rng)
        new[s].items[i].text += " (edited)"
    }
    return Scenario(old: old, new: new)
}()

/// 100 items moved to random places in a 100,000-item section.
let hundredMoves: Scenario = {
    var rng = SplitMix64(seed: 4)
    let old = messages(0..<100_000)
    var new = old
    for _ in 0..<100 {
        let message = new.remove(at: Int.random(in: 0..<new.count, using: &rng))
        new.insert(message, at: Int.random(in: 0...new.count, using: &rng))
    }
    return Scenario(old: [ListSection(id: 0, items: old)], new: [ListSection(id: 0, items: new)])
}()

/// Moves reported for `hundredMoves`: ours, and the standard library's inferred moves (a change with
/// an `associatedWith` counts once per move, on its insertion).
func reportMoveCounts() {
    let ours = hundredMoves.new.changes(from: hundredMoves.old)
    let standard = hundredMoves.newIDs.difference(from: hundredMoves.oldIDs).inferringMoves()
    let standardMoves = standard.insertions.filter {
        if case .insert(_, _, let associated) = $0 { associated != nil } else { false }
    }.count
    print("100 items moved in a 100,000-item list: changes(from:) reports \(ours.movedItems.count) moves "
          + "(\(ours.deletedItems.count) deletes, \(ours.insertedItems.count) inserts); "
          + "difference(from:).inferringMoves() reports \(standardMoves) moves "
          + "(\(standard.removals.count) removals, \(standard.insertions.count) insertions)")
}

func diffBenchmarks(_ name: String, _ scenario: @autoclosure @escaping @Sendable () -> Scenario,
                    standardIterations: Int) {
    Benchmark("\(name): changes(from:)") { benchmark in
        let scenario = scenario()
        benchmark.startMeasurement()
        blackHole(scenario.new.changes(from: scenario.old))
    }
    Benchmark("\(name): difference(from:).inferringMoves()",
              configuration: .init(maxDuration: .seconds(30), maxIterations: standardIterations)) { benchmark in
        let scenario = scenario()
        benchmark.startMeasurement()
        blackHole(scenario.newIDs.difference(from: scenario.oldIDs).inferringMoves())
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        maxDuration: .seconds(3), maxIterations: 1_000)

    diffBenchmarks("100,000 items, 10k deleted, 10k inserted, 10k edited", churn, standardIterations: 5)
    diffBenchmarks("100,000 identical items", identical, standardIterations: 100)
    diffBenchmarks("50 sections x 2,000 items, section and cross-section moves", sectioned,
                   standardIterations: 5)
    diffBenchmarks("100 items moved in 100,000", hundredMoves, standardIterations: 20)

    // What the diff leans on: the identifier index each snapshot builds once.
    Benchmark("ListSnapshot(sections:) of 100,000 items") { benchmark in
        let sections = [ListSection(id: 0, items: churn.new.sections[0].items)]
        benchmark.startMeasurement()
        blackHole(try ListSnapshot(sections: sections))
    }

    Benchmark("Moves reported for 100 items moved in 100,000 (printed once)",
              configuration: .init(metrics: [.wallClock], maxIterations: 1)) { _ in
        reportMoveCounts()
    }
}
