/// The vertical offsets of a list's rows, for scrolling: where row *i* starts, which row is at offset
/// *y*, and the content height, kept up to date as rows are measured.
///
/// A Fenwick tree of row heights (measured or estimated; the index does not care):
///
/// | operation | cost |
/// |---|---|
/// | ``offset(ofRow:)``, ``row(atOffset:)``, ``setHeight(_:forRow:)``, ``append(_:)`` | O(log n) |
/// | ``totalHeight``, ``height(ofRow:)``, ``count`` | O(1) |
/// | ``insert(_:at:)``, ``remove(at:)``, ``replaceHeights(_:)``, ``updateHeights(_:)`` (width change) | O(n), one linear pass |
///
/// ```swift
/// var index = RowOffsetIndex(heights: rows.map { cache.estimatedHeight(for: $0, width: width) })
/// for row in visibleRows { index.setHeight(cache.height(for: rows[row], width: width), forRow: row) }
/// let first = index.row(atOffset: scrollOffset)
/// ```
///
/// A value type: copy it freely; not meant for concurrent mutation.
///
/// Deprecated: ``OffsetTree`` does all of this with exact integer offsets, inserts and removals in
/// O(log n) and sections; it is the package's one offset index.
@available(*, deprecated, message: "Use OffsetTree: exact offsets, O(log n) inserts and removals, sections")
public struct RowOffsetIndex: Hashable, Sendable {
    private var heights: [Double]
    /// 1-based Fenwick tree: `tree[i]` sums the heights of rows `i - lowbit(i) ..< i`.
    private var tree: [Double]
    /// The sum of every row's height: the content height.
    public private(set) var totalHeight: Double

    /// Creates an index of rows with these heights.
    ///
    /// - Parameter heights: The rows' heights in pixels, first row first.
    /// - Complexity: O(*n*).
    public init(heights: [Double] = []) {
        self.heights = heights
        tree = []
        totalHeight = 0
        rebuild()
    }

    /// Number of rows.
    public var count: Int { heights.count }

    /// The height of one row.
    ///
    /// - Parameter row: A row index in `0..<count`.
    /// - Returns: The row's height in pixels.
    /// - Complexity: O(1).
    public func height(ofRow row: Int) -> Double {
        heights[row]
    }

    /// The offset at which `row` starts: the sum of the heights before it (`count` gives the total).
    ///
    /// - Parameter row: A row index in `0...count`.
    /// - Returns: The offset in pixels.
    /// - Complexity: O(log *n*).
    public func offset(ofRow row: Int) -> Double {
        precondition(row >= 0 && row <= count, "row \(row) out of 0...\(count)")
        var sum = 0.0
        var i = row
        while i > 0 {
            sum += tree[i]
            i &= i - 1
        }
        return sum
    }

    /// The row that contains `offset` (rows of height 0 contain no offset). Offsets before the first row
    /// give row 0, offsets at or past the end give the last row; `nil` when there are no rows.
    ///
    /// - Parameter offset: A vertical offset in pixels.
    /// - Returns: The row's index, or `nil` when there are no rows.
    /// - Complexity: O(log *n*).
    public func row(atOffset offset: Double) -> Int? {
        guard count > 0 else { return nil }
        if offset < 0 { return 0 }
        // Descend the tree: find the most rows whose heights sum to at most `offset`.
        var position = 0
        var remaining = offset
        var step = 1 << (Int.bitWidth - 1 - count.leadingZeroBitCount)
        while step > 0 {
            let next = position + step
            if next <= count && tree[next] <= remaining {
                position = next
                remaining -= tree[next]
            }
            step >>= 1
        }
        return min(position, count - 1)
    }

    /// Sets one row's height.
    ///
    /// - Parameters:
    ///   - height: The row's new height in pixels.
    ///   - row: A row index in `0..<count`.
    /// - Complexity: O(log *n*).
    public mutating func setHeight(_ height: Double, forRow row: Int) {
        let delta = height - heights[row]
        guard delta != 0 else { return }
        heights[row] = height
        totalHeight += delta
        var i = row + 1
        while i <= count {
            tree[i] += delta
            i += i & -i
        }
    }

    /// Adds a row at the end.
    ///
    /// - Parameter height: The new row's height in pixels.
    /// - Complexity: O(log *n*).
    public mutating func append(_ height: Double) {
        heights.append(height)
        let i = heights.count
        // tree[i] covers rows i - lowbit(i) ..< i: this row plus the sum of the lowbit(i) - 1 before it.
        let covered = offset(ofRow: i - 1) - offset(ofRow: i - (i & -i))
        tree.append(height + covered)
        totalHeight += height
    }

    /// Inserts a row before `row`.
    ///
    /// - Parameters:
    ///   - height: The new row's height in pixels.
    ///   - row: The index the new row takes, in `0...count`.
    /// - Complexity: O(*n*); O(log *n*) when `row` is `count` (an append).
    public mutating func insert(_ height: Double, at row: Int) {
        if row == count { return append(height) }
        heights.insert(height, at: row)
        rebuild()
    }

    /// Inserts rows before `row` (prepending older messages, say).
    ///
    /// - Parameters:
    ///   - newHeights: The new rows' heights in pixels, in order.
    ///   - row: The index the first new row takes, in `0...count`.
    /// - Complexity: O(*n* + *k*), where *k* is the number of rows inserted.
    public mutating func insert(contentsOf newHeights: some Collection<Double>, at row: Int) {
        heights.insert(contentsOf: newHeights, at: row)
        rebuild()
    }

    /// Removes a row.
    ///
    /// - Parameter row: A row index in `0..<count`.
    /// - Complexity: O(*n*).
    public mutating func remove(at row: Int) {
        heights.remove(at: row)
        rebuild()
    }

    /// Removes a range of rows.
    ///
    /// - Parameter rows: Row indices within `0..<count`.
    /// - Complexity: O(*n*).
    public mutating func removeSubrange(_ rows: Range<Int>) {
        heights.removeSubrange(rows)
        rebuild()
    }

    /// Replaces every height (after a width change, say).
    ///
    /// - Parameter newHeights: The rows' heights in pixels, first row first; the row count becomes
    ///   theirs.
    /// - Complexity: O(*n*).
    public mutating func replaceHeights(_ newHeights: [Double]) {
        heights = newHeights
        rebuild()
    }

    /// Recomputes every height from its row index and old height, in one pass.
    ///
    /// - Parameter transform: Called once per row, in order, with the row's index and height; returns
    ///   the row's new height.
    /// - Complexity: O(*n*).
    public mutating func updateHeights(_ transform: (_ row: Int, _ old: Double) -> Double) {
        for row in heights.indices { heights[row] = transform(row, heights[row]) }
        rebuild()
    }

    /// Builds the tree in O(n): each node adds itself into its parent.
    private mutating func rebuild() {
        tree = [0] + heights
        let n = heights.count
        var total = 0.0
        for i in stride(from: 1, through: n, by: 1) {
            total += heights[i - 1]
            let parent = i + (i & -i)
            if parent <= n { tree[parent] += tree[i] }
        }
        totalHeight = total
    }
}
