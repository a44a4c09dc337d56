/// Finds one longest strictly increasing subsequence of a sequence of distinct integers by patience
/// sorting, in O(*m* log *m*), reusing its buffers from call to call (no allocation once they have
/// grown).
///
/// ``ListDiffer`` uses it to choose which of a section's items (or which sections) stay: those in the
/// subsequence keep their relative order, the others move, and no smaller set of moves exists.
///
/// A value type with no shared state; each diff owns one.
struct LongestIncreasingSubsequence {
    /// `tails[l]`: the position in `values` of the smallest last element of an increasing subsequence
    /// of length `l + 1` found so far.
    private var tails: [Int] = []
    /// `previous[k]`: the position of the element before `values[k]` in the best subsequence ending
    /// at `k`, or -1.
    private var previous: [Int] = []

    /// Marks the elements of one longest increasing subsequence of `values`.
    ///
    /// - Parameters:
    ///   - values: Distinct integers.
    ///   - keep: Replaced by one flag per element of `values`: `true` for those in the subsequence.
    /// - Complexity: O(*m*) when `values` is already increasing, else O(*m* log *m*).
    mutating func mark(_ values: [Int], keep: inout [Bool]) {
        let m = values.count
        keep.removeAll(keepingCapacity: true)
        if isIncreasing(values) {
            keep.append(contentsOf: repeatElement(true, count: m))
            return
        }
        keep.append(contentsOf: repeatElement(false, count: m))
        tails.removeAll(keepingCapacity: true)
        previous.removeAll(keepingCapacity: true)
        previous.reserveCapacity(m)
        values.withUnsafeBufferPointer { values in
            for k in 0..<m {
                let value = values[k]
                // The first tail not smaller than `value` (values are distinct: not smaller = larger).
                var low = 0
                var high = tails.count
                while low < high {
                    let mid = (low &+ high) >> 1
                    if values[tails[mid]] < value { low = mid &+ 1 } else { high = mid }
                }
                previous.append(low > 0 ? tails[low &- 1] : -1)
                if low == tails.count { tails.append(k) } else { tails[low] = k }
            }
        }
        var k = tails.last ?? -1
        while k >= 0 {
            keep[k] = true
            k = previous[k]
        }
    }

    private func isIncreasing(_ values: [Int]) -> Bool {
        values.withUnsafeBufferPointer { values in
            guard values.count > 1 else { return true }
            for k in 1..<values.count where values[k &- 1] >= values[k] { return false }
            return true
        }
    }
}
