import Benchmark
import ListLayout

/// A row of a million-row list: an identifier is all the model there is.
struct Row: Identifiable, Hashable, Sendable {
    let id: Int
}

private let million = 1_000_000

/// A cheap measuring closure: heights from 20 to 80 px.
private func height(_ row: Row) -> Double { Double(20 + (UInt(bitPattern: row.id) &* 7919) % 61) }

private func snapshot(_ ids: some Sequence<Int>) -> ListSnapshot<Int, Row> {
    try! ListSnapshot(items: ids.map(Row.init), inSection: 0)
}

/// A list of a million rows, every row measured.
private func millionRowList(_ measuring: ListHeights<Int, Row>.Measuring = .eager) -> ListHeights<Int, Row> {
    let cache = HeightCache<Row>(measure: { row, _ in height(row) })
    let list = ListHeights<Int, Row>(cache: cache, width: 390, measuring: measuring)
    list.apply(snapshot(0..<million))
    return list
}

/// Built once per benchmark process (each benchmark runs in its own), not once per sample.
nonisolated(unsafe) private var sharedList: ListHeights<Int, Row>?
private func sharedMillionRowList() -> ListHeights<Int, Row> {
    if let sharedList { return sharedList }
    let list = millionRowList(.lazy(overscan: 800))
    sharedList = list
    return list
}

// Built once per benchmark process (each benchmark runs in a process of its own), not per sample.
nonisolated(unsafe) private var tree = OffsetTree((0..<million).map {
    OffsetTree.Entry(height: OffsetTree.units(height(Row(id: $0))), kind: .item)
})
nonisolated(unsafe) private var sample = 0
nonisolated(unsafe) private var index = RowOffsetIndex(heights: (0..<million).map { height(Row(id: $0)) })

/// Pseudo-random positions, the same every run.
private func positions(_ count: Int, below bound: Int) -> [Int] {
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    return (0..<count).map { _ in
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return Int(state % UInt64(bound))
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(2), maxIterations: 1_000_000)

    // One height change (an estimate turning exact, a row edited) re-offsets every row below it.
    Benchmark("Height change, 1M rows: OffsetTree", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let rows = positions(4_096, below: million)
        benchmark.startMeasurement()
        sample += 1
        for i in benchmark.scaledIterations {
            tree.setEntry(OffsetTree.Entry(height: Int64(20_480 + ((i &+ sample) & 1023)), kind: .item), at: rows[i & 4095])
        }
        blackHole(tree.total)
    }

    Benchmark("Height change, 1M rows: RowOffsetIndex (Fenwick)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let rows = positions(4_096, below: million)
        benchmark.startMeasurement()
        sample += 1   // a new height every sample: setHeight skips a height that does not change
        for i in benchmark.scaledIterations {
            index.setHeight(20 + Double((i &+ sample) & 1023) / 1024, forRow: rows[i & 4095])
        }
        blackHole(index.totalHeight)
    }

    // The row at the top of the viewport.
    Benchmark("Row at offset, 1M rows: ListHeights.itemPath(atOffset:)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let list = sharedMillionRowList()
        let total = Int(list.totalHeight)
        let offsets = positions(4_096, below: total).map(Double.init)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(list.itemPath(atOffset: offsets[i & 4095]))
        }
    }

    Benchmark("Row at offset, 1M rows: OffsetTree", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let offsets = positions(4_096, below: Int(tree.total)).map(Int64.init)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(tree.index(containing: offsets[i & 4095]))
        }
    }

    Benchmark("Row at offset, 1M rows: RowOffsetIndex (Fenwick)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let offsets = positions(4_096, below: Int(index.totalHeight)).map(Double.init)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(index.row(atOffset: offsets[i & 4095]))
        }
    }

    // A chat loading older messages: 50 rows at the top.
    // Each sample inserts, then (not measured) removes them again.
    Benchmark("Insert 50 rows at the top, 1M rows: OffsetTree") { benchmark in
        let rows = (0..<50).map { OffsetTree.Entry(height: OffsetTree.units(height(Row(id: -$0))), kind: .item) }
        benchmark.startMeasurement()
        tree.insert(contentsOf: rows, at: 0)
        benchmark.stopMeasurement()
        tree.removeSubrange(0..<50)
    }

    Benchmark("Insert 50 rows at the top, 1M rows: RowOffsetIndex (Fenwick)") { benchmark in
        let rows = (0..<50).map { height(Row(id: -$0)) }
        benchmark.startMeasurement()
        index.insert(contentsOf: rows, at: 0)
        benchmark.stopMeasurement()
        index.removeSubrange(0..<50)
    }

    // The same through the public API: diff of a million rows, 50 measurements, the tree update.
    Benchmark("ListHeights.apply: 50 rows prepended to 1M (diff included)") { benchmark in
        let list = sharedMillionRowList()
        let without = list.snapshot
        let with = snapshot(Array(million..<million + 50) + Array(0..<million))
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(list.apply(i % 2 == 0 ? with : without))
        }
    }

    Benchmark("ListSnapshot.changes(from:): 50 rows prepended to 1M (the diff alone)") { benchmark in
        let without = snapshot(0..<million)
        let with = snapshot(Array(million..<million + 50) + Array(0..<million))
        benchmark.startMeasurement()
        blackHole(with.changes(from: without))
    }

    // The first apply of a million rows: measured on all cores (eager), or estimated (lazy).
    let once = Benchmark.Configuration(metrics: [.wallClock, .peakMemoryResident], maxIterations: 1)
    Benchmark("First apply, 1M rows, lazy", configuration: once) { benchmark in
        let cache = HeightCache<Row>(measure: { row, _ in height(row) })
        let list = ListHeights<Int, Row>(cache: cache, width: 390, measuring: .lazy(overscan: 800))
        let rows = snapshot(0..<million)
        benchmark.startMeasurement()
        blackHole(list.apply(rows))
    }

    // Memory: the snapshot alone, then the snapshot and its ListHeights (first apply included).
    let memory = Benchmark.Configuration(metrics: [.peakMemoryResident, .wallClock], maxIterations: 1)
    Benchmark("Memory, 1M rows: the snapshot alone", configuration: memory) { _ in
        blackHole(snapshot(0..<million))
    }

    Benchmark("Memory, 1M rows: snapshot + ListHeights, eager", configuration: memory) { _ in
        blackHole(millionRowList())
    }

    Benchmark("Memory, 1M rows: snapshot + ListHeights, lazy", configuration: memory) { _ in
        let cache = HeightCache<Row>(measure: { row, _ in height(row) })
        let list = ListHeights<Int, Row>(cache: cache, width: 390, measuring: .lazy(overscan: 800))
        list.apply(snapshot(0..<million))
        blackHole(list.prepareRows(in: 0..<900))
    }
}
