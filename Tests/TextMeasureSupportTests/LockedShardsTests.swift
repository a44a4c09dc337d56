import Dispatch
import TestSupport
import Testing
@testable import TextMeasureSupport

@Suite("Locked shards")
struct LockedShardsTests {
    /// Each shard starts as made, keeps its own state, and its mutex and state lie in a block of their
    /// own: no two shards' blocks share a 128-byte line pair.
    @Test func shardsAreIndependentAndApart() {
        let shards = LockedShards<[Int]>(count: 5) { [$0] }
        #expect(shards.count == 5)
        for shard in 0..<5 { shards.withLock(shard) { $0.append(shard * 10) } }
        for shard in 0..<5 { #expect(shards.withLock(shard) { $0 } == [shard, shard * 10]) }
        var blocks: Set<Int> = []
        for shard in 0..<5 {
            let address = shards.withLock(shard) { state in
                withUnsafeMutablePointer(to: &state) { Int(bitPattern: $0) }
            }
            blocks.insert(address / 128)
        }
        #expect(blocks.count == 5)
    }

    /// Eight threads add to random shards at once: every addition is counted once, in its shard
    /// (the thread sanitizer, which runs this suite in CI, checks that the state is only touched under
    /// its lock).
    @Test func concurrentUpdatesAreNeitherLostNorMixed() {
        let shards = LockedShards<(count: Int, sum: Int)>(count: 16) { _ in (0, 0) }
        let threads = 8, steps = 20_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var rng = SplitMix64(seed: UInt64(thread + 1))
            for _ in 0..<steps {
                let shard = Int(rng.next() % 16)
                shards.withLock(shard) { state in
                    state.count += 1
                    state.sum += shard
                }
            }
        }
        var count = 0
        for shard in 0..<16 {
            let state = shards.withLock(shard) { $0 }
            #expect(state.sum == state.count * shard)
            count += state.count
        }
        #expect(count == threads * steps)
    }

    /// The states are released with the shards.
    @Test func statesAreReleasedWithTheShards() {
        final class Token {}
        weak var first: Token?
        do {
            let shards = LockedShards<Token>(count: 3) { _ in Token() }
            first = shards.withLock(0) { $0 }
            #expect(first != nil)
        }
        #expect(first == nil)
    }
}

@Suite("Cache mutex")
struct CacheMutexTests {
    /// Four threads take one lock 20,000 times each, some critical sections long enough (a page
    /// fault's worth of work) that waiters give up watching and sleep: no update is lost, through the
    /// uncontended, watching and sleeping paths alike.
    @Test func contendedLockLosesNoUpdate() {
        let shards = LockedShards<(count: Int, work: [Int])>(count: 1) { _ in (0, []) }
        let locked = Locked(0)
        let threads = 4, steps = 20_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for step in 0..<steps {
                shards.withLock(0) { state in
                    state.count += 1
                    if step % 500 == thread {
                        // A long critical section: 256 KiB written.
                        state.work = [Int](repeating: step, count: 32_768)
                    }
                }
                locked.withLock { $0 += 1 }
            }
        }
        #expect(shards.withLock(0) { $0.count } == threads * steps)
        #expect(locked.withLock { $0 } == threads * steps)
    }
}
