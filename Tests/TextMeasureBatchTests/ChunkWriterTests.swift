import Dispatch
import Foundation
import Testing
import TextMeasureSupport
import TestSupport
import TextMeasure
import TextMeasureBatch

@Suite("Chunk writer")
struct ChunkWriterTests {
    /// Chunks of blocks written one behind arrive whole and in order through a pipe whose reader is
    /// slower than the writer (chunks of up to 256 KiB, four times a pipe's buffer), with empty
    /// blocks and empty chunks among them.
    @Test func writesEveryChunkInOrder() throws {
        var random = SplitMix64(seed: 11)
        var chunks: [[[UInt8]]] = []
        for chunk in 0..<60 {
            let blockCount = Int(random.next() % 300)
            chunks.append((0..<blockCount).map { block in
                let length = random.next() % 5 == 0 ? 0 : Int(random.next() % 900)
                return [UInt8]((0..<length).map { UInt8(truncatingIfNeeded: chunk &* 31 &+ block &* 7 &+ $0) })
            })
        }
        let expected = chunks.flatMap { $0.flatMap { $0 } }
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let received = Locked<[UInt8]>([])
        let drained = DispatchSemaphore(value: 0)
        let reading = ends[0]
        Thread.detachNewThread {
            // A few bytes per read, each under a lock: slower than the writer, whose writes then block
            // on the full pipe and come back short.
            var buffer = [UInt8](repeating: 0, count: 61)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reading, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                received.withLock { $0.append(contentsOf: buffer[..<count]) }
            }
            drained.signal()
        }
        let writer = ChunkWriter(OutputWriter(descriptor: ends[1]))
        for chunk in chunks { try writer.write(chunk) }
        try writer.finish()
        try writer.finish()   // nothing under way: returns
        close(ends[1])
        drained.wait()
        close(ends[0])
        #expect(received.withLock { $0 } == expected)
    }

    /// A write the descriptor refuses is reported by the next call and every one after it, and
    /// nothing more is written.
    @Test func failureIsReportedAndSticks() throws {
        let descriptor = open("/dev/null", O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let writer = ChunkWriter(OutputWriter(descriptor: descriptor))
        try writer.write([Array("first".utf8)])   // reported later: it is written on another thread
        #expect(throws: IOFailure.self) { try writer.write([Array("second".utf8)]) }
        #expect(throws: IOFailure.self) { try writer.finish() }
        #expect(throws: IOFailure.self) { try writer.write([]) }
    }

    /// `OutputWriter.write(_:through:)` writes the blocks in order and leaves them in the buffer,
    /// whatever the buffer held before.
    @Test func blocksAreWrittenThroughTheBuffer() throws {
        let path = NSTemporaryDirectory() + "chunk-writer-\(getpid())-\(UUID().uuidString).txt"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { unlink(path) }
        var buffer = Array("stale bytes that must not be written".utf8)
        let blocks = [Array("{\"a\":1}\n".utf8), [], Array("é\n".utf8), Array(repeating: UInt8(ascii: "x"), count: 100_000)]
        try OutputWriter(descriptor: descriptor).write(blocks, through: &buffer)
        close(descriptor)
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written == blocks.flatMap { $0 })
        #expect(buffer == written)
    }
}
