import Dispatch
import Foundation
import Testing
import TextMeasureSupport
@testable import TextMeasure

@Suite("Preparation scratch")
struct PrepareScratchTests {
    /// A thread gets back the scratch it used last, and a nested call gets another. When the thread
    /// ends, its scratch is not freed but handed on (to the pool, where a later thread takes it, with
    /// the shape plans it made).
    @Test func threadsKeepTheirScratchAndHandItOnWhenTheyEnd() {
        let (first, second, kept) = onNewThread { () -> (ObjectIdentifier, ObjectIdentifier, Weak) in
            let kept = Weak()
            let first = PrepareScratch.withScratch { scratch in
                kept.scratch = scratch
                return ObjectIdentifier(scratch)
            }
            return (first, PrepareScratch.withScratch { ObjectIdentifier($0) }, kept)
        }
        #expect(first == second)
        #expect(kept.scratch != nil)
        let nested = onNewThread {
            PrepareScratch.withScratch { outer in PrepareScratch.withScratch { inner in inner !== outer } }
        }
        #expect(nested)
    }

    /// Many threads preparing at once each work in a scratch no other is using: every result is
    /// the one a single thread gives.
    @Test func concurrentPreparationsMatchSerialOnes() throws {
        let measurer = try TextMeasurer()
        let texts = (0..<64).map { "Word \($0) and ساعة \($0 * 7) กรุงเทพ \($0)" }
        let style = TextStyle(size: 15)
        let expected = try texts.map { try measurer.measure($0, style: style, width: 120).height }
        let got = Locked([Double](repeating: -1, count: texts.count))
        DispatchQueue.concurrentPerform(iterations: texts.count * 4) { index in
            let text = index % texts.count
            if let height = try? measurer.measure(texts[text], style: style, width: 120).height {
                got.withLock { $0[text] = height }
            }
        }
        #expect(got.withLock { $0 } == expected)
    }

    /// A huge text's working memory is given back when it is prepared: the scratch the thread keeps
    /// holds neither its per-byte arrays nor its long lists, only what ``PrepareScratch/Kept`` allows (before, the lists of a 5.7 MB line kept
    /// a batch at 200 MB for the rest of its input); a small text after it is measured as before.
    @Test func aHugeTextDoesNotPinItsWorkingMemory() throws {
        let measurer = try TextMeasurer()
        let words = ["lorem", "ipsum", "dolor", "amet", "консектетур", "مرحبا", "漢字かな"]
        let huge = (0..<40_000).map { "\(words[$0 % words.count])\($0 % 997)" }.joined(separator: " ")
        let style = TextStyle(size: 15)
        let small = try measurer.measure("Hello, world", style: style, width: 60)
        let (lines, capacities) = try onNewThread {
            Result { () throws -> (Int, [Int]) in
                let lines = try measurer.measure(huge, style: style, width: 300).lineCount
                let capacities = PrepareScratch.withScratch { scratch in
                    [scratch.capacity, scratch.clusters.capacity, scratch.shape.capacity,
                     scratch.shape.pieceShapes.capacity, scratch.shape.pieceKeys.capacity, scratch.runs.capacity]
                }
                return (lines, capacities)
            }
        }.get()
        #expect(lines > 1_000)
        // The thread may keep another scratch than the huge text's (a nested preparation's, from the
        // pool that other tests use at the same time): what it keeps is within the bounds, which the
        // huge text's arrays and lists are far past (515 KB of UTF-8, 378,345 characters, 40,000 words).
        let bounds = [PrepareScratch.Kept.bytes, PrepareScratch.Kept.clusters, PrepareScratch.Kept.bytes,
                      PrepareScratch.Kept.pieces, PrepareScratch.Kept.pieces, PrepareScratch.Kept.runs]
        #expect(zip(capacities, bounds).allSatisfy { $0 <= $1 }, "kept: \(capacities), bounds: \(bounds)")
        #expect(try measurer.measure("Hello, world", style: style, width: 60).lines == small.lines)
    }

    /// Runs `body` on a thread of its own, which has ended when this returns.
    private func onNewThread<R>(_ body: @escaping @Sendable () -> R) -> R {
        let result = Locked<R?>(nil)
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box { result.withLock { $0 = body() } })
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, box.toOpaque())
        precondition(status == 0)
        pthread_join(thread, nil)   // its thread-specific values are destroyed before join returns
        return result.withLock { $0! }
    }

    private final class Weak: @unchecked Sendable {
        weak var scratch: PrepareScratch?
    }

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }
}
