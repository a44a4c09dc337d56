#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed number of states, each behind a `pthread_mutex_t` of its own: a cache split by hash into
/// shards so that threads seldom wait for each other.
///
/// Each shard's mutex and state share a block of whole pairs of cache lines (the unit x86 processors
/// fetch together), all in one allocation. An array of ``Locked`` boxes cost two threads more than
/// their waits: every look-up retained and released its shard's box, a write to a line both threads
/// use, and neighbouring shards' small allocations shared lines. Measured on the cold batch on two
/// cores: see the performance profile.
///
/// Thread safety: any number of threads at once; a shard's state is touched only under its mutex.
@usableFromInline
package final class LockedShards<State> {
    /// Bytes from one shard's mutex to the next's.
    @usableFromInline let stride: Int
    @usableFromInline let stateOffset: Int
    @usableFromInline let base: UnsafeMutableRawPointer
    /// The number of shards.
    @usableFromInline package let count: Int

    /// `count` shards, shard `i` starting as `make(i)`.
    /// - Parameters:
    ///   - count: the number of shards, at least 1.
    ///   - make: the initial state of each shard.
    package init(count: Int, _ make: (Int) -> State) {
        precondition(count > 0, "at least one shard")
        let alignment = max(128, MemoryLayout<State>.alignment)
        let stateAlignment = MemoryLayout<State>.alignment
        stateOffset = (MemoryLayout<pthread_mutex_t>.size + stateAlignment - 1) / stateAlignment * stateAlignment
        stride = (stateOffset + MemoryLayout<State>.size + alignment - 1) / alignment * alignment
        self.count = count
        base = .allocate(byteCount: stride * count, alignment: alignment)
        for shard in 0..<count {
            mutex(shard).initializeCacheMutex()
            state(shard).initialize(to: make(shard))
        }
    }

    deinit {
        for shard in 0..<count {
            pthread_mutex_destroy(mutex(shard))
            mutex(shard).deinitialize(count: 1)
            state(shard).deinitialize(count: 1)
        }
        base.deallocate()
    }

    @inlinable
    func mutex(_ shard: Int) -> UnsafeMutablePointer<pthread_mutex_t> {
        (base + shard * stride).assumingMemoryBound(to: pthread_mutex_t.self)
    }

    @inlinable
    func state(_ shard: Int) -> UnsafeMutablePointer<State> {
        (base + shard * stride + stateOffset).assumingMemoryBound(to: State.self)
    }

    /// Calls `body` with shard `shard`'s state, holding its mutex.
    /// - Parameters:
    ///   - shard: the shard, in `0..<count`.
    ///   - body: what to do with the state; it must not lock a shard of this value.
    /// - Returns: what `body` returns.
    @inlinable @inline(__always)
    package func withLock<R>(_ shard: Int, _ body: (inout State) throws -> R) rethrows -> R {
        precondition(shard >= 0 && shard < count, "no such shard")
        let mutex = self.mutex(shard)
        mutex.lockCacheMutex()
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state(shard).pointee)
    }
}

// @unchecked: a shard's state is only touched while its mutex is held, so sharing the shards shares
// each state one thread at a time; that is safe only for states that may themselves move between
// threads.
extension LockedShards: @unchecked Sendable where State: Sendable {}
