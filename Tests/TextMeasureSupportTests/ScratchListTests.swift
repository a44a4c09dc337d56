import Testing
@testable import TextMeasureSupport

@Suite("Scratch lists")
struct ScratchListTests {
    /// Appends past the first capacities keep every element, in order; emptying keeps none, and the
    /// list is usable again (in the memory it grew to).
    @Test func appendsGrowsAndEmpties() {
        var list = ScratchList<Int>()
        defer { list.deallocate() }
        for value in 0..<1_000 { list.append(value * 3) }
        #expect(list.count == 1_000)
        #expect((0..<list.count).allSatisfy { list[$0] == $0 * 3 })
        list.removeAll()
        #expect(list.count == 0)
        list.append(7)
        list.append(8)
        #expect(list.count == 2 && list[0] == 7 && list[1] == 8)
    }

    /// Setting an element through a copy writes the shared memory (how `ShapeCache.shape` marks the
    /// pieces a widened stretch takes in), and optionals and tuples of plain values are held as such.
    @Test func copiesShareElements() {
        var list = ScratchList<(Int32, UInt8?)>()
        defer { list.deallocate() }
        list.append((1, 2))
        list.append((3, nil))
        let copy = list
        copy[1] = (4, 5)
        #expect(list[1].0 == 4 && list[1].1 == 5)
        #expect(list[0].0 == 1 && list[0].1 == 2)
    }

    /// Removing by a predicate keeps the other elements in order, and the list grows on from there.
    @Test func removesInPlaceKeepingOrder() {
        var list = ScratchList<Int>()
        defer { list.deallocate() }
        for value in 0..<100 { list.append(value) }
        list.removeAll { $0 % 3 == 1 }
        #expect(Array(list) == (0..<100).filter { $0 % 3 != 1 })
        list.removeAll { _ in false }
        #expect(list.count == 67)
        list.removeAll { $0 < 50 }
        list.append(-1)
        #expect(Array(list) == (50..<100).filter { $0 % 3 != 1 } + [-1])
        list.removeAll { _ in true }
        #expect(list.isEmpty)
    }
}
