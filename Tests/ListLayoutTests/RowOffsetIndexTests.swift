import Testing
@testable import ListLayout

@Suite("Row offset index")
struct RowOffsetIndexTests {
    /// Heights that are exact in binary floating point, so sums compare exactly.
    static func height(_ row: Int) -> Double { Double(20 + (row * 37) % 61) + 0.25 * Double(row % 4) }

    @Test func aMillionRows() {
        let n = 1_000_000
        var heights = (0..<n).map(Self.height)
        var index = RowOffsetIndex(heights: heights)
        var prefix = [0.0]
        prefix.reserveCapacity(n + 1)
        for h in heights { prefix.append(prefix.last! + h) }
        #expect(index.count == n)
        #expect(index.totalHeight == prefix[n])
        for row in stride(from: 0, to: n, by: 9_973) + [n - 1, n] {
            #expect(index.offset(ofRow: row) == prefix[row])
        }
        for row in stride(from: 0, to: n, by: 7_919) {
            #expect(index.row(atOffset: prefix[row]) == row)                   // a row's first pixel
            #expect(index.row(atOffset: prefix[row] + heights[row] / 2) == row)
        }
        #expect(index.row(atOffset: -5) == 0)
        #expect(index.row(atOffset: prefix[n] + 100) == n - 1)

        // Measured heights replace estimates one at a time: O(log n) each.
        for row in stride(from: 5, to: n, by: 10_007) {
            index.setHeight(100, forRow: row)
            heights[row] = 100
        }
        var running = 0.0
        for row in 0..<n {
            if row % 50_021 == 0 { #expect(index.offset(ofRow: row) == running) }
            running += heights[row]
        }
        #expect(index.totalHeight == running)
    }

    @Test func insertRemoveAndAppendMatchAPlainArray() {
        var reference = (0..<1_000).map(Self.height)
        var index = RowOffsetIndex(heights: reference)
        index.insert(55, at: 0); reference.insert(55, at: 0)
        index.insert(contentsOf: [1, 2, 3], at: 500); reference.insert(contentsOf: [1, 2, 3], at: 500)
        index.remove(at: 10); reference.remove(at: 10)
        index.removeSubrange(100..<150); reference.removeSubrange(100..<150)
        for h in [7.0, 8, 9, 10, 11] { index.append(h); reference.append(h) }
        index.insert(4, at: index.count); reference.append(4)
        #expect(index.count == reference.count)
        var sum = 0.0
        for row in reference.indices {
            #expect(index.offset(ofRow: row) == sum)
            #expect(index.height(ofRow: row) == reference[row])
            sum += reference[row]
        }
        #expect(index.totalHeight == sum)
    }

    @Test func zeroHeightRowsContainNoOffset() {
        let index = RowOffsetIndex(heights: [0, 0, 10, 0, 5])
        #expect(index.row(atOffset: 0) == 2)
        #expect(index.row(atOffset: 9.99) == 2)
        #expect(index.row(atOffset: 10) == 4)
        #expect(RowOffsetIndex().row(atOffset: 0) == nil)
    }

    @Test func bulkUpdateForAWidthChange() {
        var index = RowOffsetIndex(heights: Array(repeating: 44, count: 10_000))
        index.updateHeights { row, old in old + Double(row % 3) }
        #expect(index.totalHeight == 44 * 10_000 + Double((0..<10_000).map { $0 % 3 }.reduce(0, +)))
        index.replaceHeights([1, 2, 3])
        #expect(index.offset(ofRow: 3) == 6)
    }
}
