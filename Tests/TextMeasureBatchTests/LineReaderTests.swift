import Foundation
import Testing
import TextMeasureBatch

@Suite("Line reader")
struct LineReaderTests {
    /// Lines read from a file, in chunks bounded by count and by bytes.
    func chunks(of text: String, maxLines: Int, maxBytes: Int) throws -> [[String]] {
        let path = NSTemporaryDirectory() + "line-reader-\(getpid())-\(UUID().uuidString).txt"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var reader = LineReader(descriptor: descriptor)
        var chunks: [[String]] = []
        while let lines = try reader.next(maxLines: maxLines, maxBytes: maxBytes) {
            chunks.append(lines.ranges.map { String(decoding: lines.bytes[$0], as: UTF8.self) })
        }
        return chunks
    }

    /// A chunk stops taking lines once it holds `maxBytes`, but a longer line still comes whole and
    /// every line comes once, in order.
    @Test func chunksAreBoundedByBytes() throws {
        let long = String(repeating: "x", count: 200_000)
        let lines = ["a", "bb", long, "c", long, long, "d"]
        let text = lines.joined(separator: "\n") + "\n"
        let bounded = try chunks(of: text, maxLines: 100, maxBytes: 100_000)
        #expect(bounded.flatMap { $0 } == lines)
        #expect(bounded.map(\.count) == [3, 2, 1, 1])   // a, bb, long | c, long | long | d
        #expect(try chunks(of: text, maxLines: 100, maxBytes: .max) == [lines])
        #expect(try chunks(of: text, maxLines: 2, maxBytes: .max).map(\.count) == [2, 2, 2, 1])
    }
}
