import Benchmark
import ListLayout
import TextMeasure
import TextRows

// Issue 35's million-row goals: a lazy first apply of chat rows before the first frame, an eager first
// apply through a warm cache, and an apply of 10,000 changes. Snapshots are built outside the
// measurement: an app has its snapshot before it applies it.

/// A chat row: an author and a body, the two-block row of the issue.
struct ChatMessage: Identifiable, Hashable, Sendable {
    let id: Int
    let author: String
    var body: String
}

/// A plain row for the closure-backed lists: an identifier and a version that edits bump.
struct PlainRow: Identifiable, Hashable, Sendable {
    let id: Int
    var version = 0
}

private let million = 1_000_000

/// `count` chat messages, bodies of 2 to 60 words drawn from the corpus's words (14 scripts), authors
/// from twenty names; the same on every run.
private func chatMessages(_ count: Int, seed: UInt64, firstID: Int = 0) -> [ChatMessage] {
    let words = corpus.flatMap { $0.split(separator: " ") }.map(String.init)
    let names = ["Ana", "Bob", "Chen Wei", "Dmitri", "Fatima", "Günther", "Hiro", "Isabella Rossi", "Jamal",
                 "Kim Min-jun", "Léa", "Mohammed Al-Farsi", "Noor", "Olga", "Priya", "Quentin", "Raj", "Sofia",
                 "Tomás", "Yuki"]
    var random = SplitMix64(seed: seed)
    return (0..<count).map { index in
        let length = 2 + Int.random(in: 0..<(Int.random(in: 0..<4, using: &random) == 0 ? 60 : 14), using: &random)
        let body = (0..<length).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
        return ChatMessage(id: firstID + index, author: names.randomElement(using: &random)!, body: body)
    }
}

/// Author at 15 px on one line, body at 17 px, beside a 72 px avatar column.
private let chatRow = RowLayout<ChatMessage>(
    insets: RowInsets(top: 12, leading: 72, bottom: 12, trailing: 16), spacing: 4, minimumHeight: 64,
    elements: [.text(\.author, style: TextStyle(size: 15, maxLines: 1)), .text(\.body, style: TextStyle(size: 17))])

private func plainHeight(_ row: PlainRow) -> Double {
    Double(20 + (UInt(bitPattern: row.id &+ row.version) &* 7919) % 61)
}

/// `items` with 10,000 changes at places spread over the list, the same on every run: 3,334 deleted,
/// 3,333 edited, 3,333 inserted.
private func tenThousandChanges<T>(_ items: [T], inserted: (Int) -> T, edited: (T) -> T) -> [T] {
    var random = SplitMix64(seed: 0x10_000)
    var deleted = Set<Int>(), edits = Set<Int>()
    while deleted.count < 3_334 { deleted.insert(Int.random(in: 0..<items.count, using: &random)) }
    while edits.count < 3_333 {
        let index = Int.random(in: 0..<items.count, using: &random)
        if !deleted.contains(index) { edits.insert(index) }
    }
    var result: [T] = []
    result.reserveCapacity(items.count)
    for (index, item) in items.enumerated() where !deleted.contains(index) {
        result.append(edits.contains(index) ? edited(item) : item)
    }
    for k in 0..<3_333 { result.insert(inserted(k), at: Int.random(in: 0...result.count, using: &random)) }
    return result
}

// Built once per benchmark process (each benchmark runs in its own), only by the benchmarks using them.
nonisolated(unsafe) private var chatSnapshotStorage: ListSnapshot<Int, ChatMessage>?
private func chatSnapshot() -> ListSnapshot<Int, ChatMessage> {
    if let chatSnapshotStorage { return chatSnapshotStorage }
    let snapshot = try! ListSnapshot(items: chatMessages(million, seed: 0xC4A7), inSection: 0)
    chatSnapshotStorage = snapshot
    return snapshot
}

nonisolated(unsafe) private var plainSnapshotStorage: ListSnapshot<Int, PlainRow>?
private func plainSnapshot() -> ListSnapshot<Int, PlainRow> {
    if let plainSnapshotStorage { return plainSnapshotStorage }
    let snapshot = try! ListSnapshot(items: (0..<million).map { PlainRow(id: $0) }, inSection: 0)
    plainSnapshotStorage = snapshot
    return snapshot
}

nonisolated(unsafe) private var warmCache: HeightCache<PlainRow>?

func millionRowBenchmarks() {
    // A few samples each (a sample takes tens to hundreds of milliseconds); allocation counts are
    // thresholds, with room for the work Dispatch hands out to its threads.
    let few = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(10),
                                      maxIterations: 10, thresholds: allocations(tolerance: 64))

    // No row is measured; every row gets the provisional estimate (its own one follows in the
    // background, after the measurement).
    Benchmark("First apply, 1M chat rows (RowLayout), lazy", configuration: few) { benchmark in
        let snapshot = chatSnapshot()
        let cache = try! HeightCache(layout: chatRow, measurer: measurer)
        _ = cache.estimatedHeight(for: snapshot.sections[0].items[0], width: 390)   // the measurer's profile
        let list = ListHeights<Int, ChatMessage>(cache: cache, width: 390, measuring: .lazy(overscan: 800))
        benchmark.startMeasurement()
        blackHole(list.apply(snapshot))
    }

    // Every height already cached (a cache of a million heights filled by an earlier list).
    Benchmark("First apply, 1M rows, eager, warm cache", configuration: few) { benchmark in
        let rows = plainSnapshot()
        let cache = warmCache ?? {
            let cache = HeightCache<PlainRow>(capacity: 1_100_000, measure: { row, _ in plainHeight(row) })
            ListHeights<Int, PlainRow>(cache: cache, width: 390).apply(rows)
            warmCache = cache
            return cache
        }()
        let list = ListHeights<Int, PlainRow>(cache: cache, width: 390)
        benchmark.startMeasurement()
        blackHole(list.apply(rows))
    }

    // Applies the changed snapshot and (not measured) the original again, so every sample starts
    // from the same list.
    Benchmark("Apply 10,000 changes to 1M rows, lazy", configuration: few) { benchmark in
        let rows = plainSnapshot()
        let items = rows.sections[0].items
        let changed = try! ListSnapshot(
            items: tenThousandChanges(items, inserted: { PlainRow(id: million + $0) },
                                      edited: { PlainRow(id: $0.id, version: 1) }),
            inSection: 0)
        let cache = HeightCache<PlainRow>(measure: { row, _ in plainHeight(row) })
        let list = ListHeights<Int, PlainRow>(cache: cache, width: 390, measuring: .lazy(overscan: 800))
        list.apply(rows)
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            blackHole(list.apply(changed))
            benchmark.stopMeasurement()
            list.apply(rows)
        }
    }
}
