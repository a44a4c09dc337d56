/// Finds one longest strictly increasing subsequence of the non-negative entries of an array of
/// integers by patience sorting, and overwrites its entries with a mark, reusing its buffers from call
/// to call.
///
/// ``ListDiffer`` uses it to choose which items of a section (and which sections) stay: those in the
/// subsequence keep their relative order, the others move, and no smaller set of moves exists.
/// Negative entries (items inserted or arriving from elsewhere) take no part.
///
/// A value type with no shared state; each diff owns one.
@usableFromInline
struct LongestIncreasingSubsequence {
    /// `tails[l]`: the position of the smallest last entry of an increasing subsequence of length
    /// `l + 1` found so far.
    @usableFromInline var tails: [Int] = []
    /// `previous[k]`: the position of the entry before `values[k]` in the best subsequence ending at
    /// `k`, or -1.
    @usableFromInline var previous: [Int] = []

    @inlinable
    init() {}

    /// Replaces the entries of one longest increasing subsequence of the non-negative entries of
    /// `values` with `mark`.
    ///
    /// - Parameters:
    ///   - values: Integers; the non-negative ones are distinct.
    ///   - mark: A negative number to write over the subsequence's entries.
    /// - Complexity: O(*m* log *m*) for *m* entries; O(*m*) when they are mostly increasing (an entry
    ///   larger than the current longest subsequence's last is appended without a search).
    @inlinable
    mutating func mark(_ values: inout [Int], with mark: Int) {
        let m = values.count
        tails.removeAll(keepingCapacity: true)
        previous.removeAll(keepingCapacity: true)
        previous.reserveCapacity(m)
        values.withUnsafeMutableBufferPointer { values in
            var lastValue = Int.min   // values[tails.last], kept at hand for the common case
            for k in 0..<m {
                let value = values[k]
                guard value >= 0 else {
                    previous.append(-1)
                    continue
                }
                if value > lastValue {
                    previous.append(tails.last ?? -1)
                    tails.append(k)
                    lastValue = value
                    continue
                }
                // The first tail not smaller than `value` (values are distinct: not smaller = larger).
                var low = 0
                var high = tails.count &- 1   // the last tail is larger: no need to look at it
                while low < high {
                    let mid = (low &+ high) >> 1
                    if values[tails[mid]] < value { low = mid &+ 1 } else { high = mid }
                }
                previous.append(low > 0 ? tails[low &- 1] : -1)
                tails[low] = k
                if low == tails.count &- 1 { lastValue = value }
            }
            var k = tails.last ?? -1
            while k >= 0 {
                values[k] = mark
                k = previous[k]
            }
        }
    }
}
