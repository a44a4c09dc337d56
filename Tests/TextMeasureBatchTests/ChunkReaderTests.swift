import Foundation
import Testing
import TestSupport
import TextMeasureBatch

@Suite("Chunk reader")
struct ChunkReaderTests {
    /// Writes `text` to a temporary file and opens it.
    func descriptor(for text: String) throws -> (Int32, String) {
        let path = NSTemporaryDirectory() + "chunk-reader-\(getpid())-\(UUID().uuidString).txt"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        return (descriptor, path)
    }

    func strings(_ lines: Lines) -> [String] {
        lines.ranges.map { String(decoding: lines.bytes[$0], as: UTF8.self) }
    }

    /// Reading ahead hands out the chunks reading in turn gives, in order, then nil (and nil again).
    @Test func sameChunksAsReadingInTurn() throws {
        var random = SplitMix64(seed: 7)
        for round in 0..<40 {
            let count = Int(random.next() % 3_000)
            let lines = (0..<count).map { index in
                String(repeating: "é", count: Int(random.next() % 40)) + "\(round).\(index)"
            }
            let text = lines.joined(separator: "\n") + (random.next() % 2 == 0 ? "\n" : "")
            let maxLines = 1 + Int(random.next() % 700)
            let maxBytes = random.next() % 4 == 0 ? 2_000 : Int.max
            let (direct, directPath) = try descriptor(for: text)
            let (ahead, aheadPath) = try descriptor(for: text)
            defer { close(direct); close(ahead); unlink(directPath); unlink(aheadPath) }
            var reader = LineReader(descriptor: direct)
            var expected: [[String]] = []
            while let lines = try reader.next(maxLines: maxLines, maxBytes: maxBytes) { expected.append(strings(lines)) }
            let chunks = ChunkReader(LineReader(descriptor: ahead), maxLines: maxLines, maxBytes: maxBytes)
            var got: [[String]] = []
            while let lines = try chunks.next() { got.append(strings(lines)) }
            #expect(try chunks.next() == nil)
            #expect(got == expected, "round \(round)")
            #expect(got.flatMap { $0 } == lines)
        }
    }

    /// Chunks read with the read ahead held back, started late, started twice or never started, and
    /// after a smaller first chunk, hold every line in order, in chunks of the most lines allowed.
    @Test func readingAheadLaterChangesNoChunk() throws {
        var random = SplitMix64(seed: 12)
        for round in 0..<40 {
            let count = Int(random.next() % 2_000)
            let lines = (0..<count).map { "\(round).\($0)" + String(repeating: "x", count: Int(random.next() % 30)) }
            let text = lines.joined(separator: "\n")
            let maxLines = 1 + Int(random.next() % 300)
            let (descriptor, path) = try descriptor(for: text)
            defer { close(descriptor); unlink(path) }
            let firstLines = random.next() % 3 == 0 ? Int.max : Int(random.next() % 400)
            let chunks = ChunkReader(LineReader(descriptor: descriptor), maxLines: maxLines, maxBytes: .max,
                                     firstLines: firstLines)
            var got: [String] = []
            while true {
                let readingAhead = random.next() % 2 == 0
                guard let lines = try chunks.next(readingAhead: readingAhead) else { break }
                let most = got.isEmpty ? min(maxLines, max(1, firstLines)) : maxLines
                #expect(lines.count == min(most, count - got.count), "round \(round)")
                got += strings(lines)
                if !readingAhead {
                    for _ in 0..<Int(random.next() % 3) { chunks.readAhead() }
                }
            }
            chunks.readAhead()   // after the end: nothing to read
            #expect(try chunks.next() == nil)
            #expect(got == lines, "round \(round)")
        }
    }

    /// A descriptor that cannot be read (a directory) fails once, as the line reader does.
    @Test func readFailureIsReported() throws {
        let descriptor = open(NSTemporaryDirectory(), O_RDONLY | O_DIRECTORY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let chunks = ChunkReader(LineReader(descriptor: descriptor), maxLines: 10, maxBytes: .max)
        #expect(throws: IOFailure.self) { try chunks.next() }
    }
}
