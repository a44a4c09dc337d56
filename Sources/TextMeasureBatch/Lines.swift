/// Lines read from standard input, still as bytes: their UTF-8 (or not) and where each line is.
package struct Lines: Sendable {
    package var bytes: [UInt8]
    /// Each line's bytes in `bytes`, without its "\n" or "\r\n".
    package var ranges: [Range<Int>]
    package var count: Int { ranges.count }
}
