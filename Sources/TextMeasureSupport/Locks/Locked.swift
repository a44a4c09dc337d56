#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// State behind a `pthread_mutex_t`, reached only through ``withLock(_:)``. A building block of the
/// package's caches, not package API: `package` (and usable from inlinable code) so that generic caches
/// built on it in other modules of the package are specialized in the code that uses them.
///
/// Used instead of `Synchronization.Mutex` because the thread sanitizer understands pthread mutexes
/// (it intercepts them) but not Mutex's raw futex calls on Linux, which it reports as races. The cost
/// is the same: an uncontended lock and unlock.
@usableFromInline
package final class Locked<State> {
    @usableFromInline package let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The state, out of line: a stored `var` of a class would have every access checked for
    /// exclusivity at run time (`swift_beginAccess` on every lock), which the mutex already
    /// guarantees.
    @usableFromInline package let state: UnsafeMutablePointer<State>

    package init(_ state: State) {
        self.state = .allocate(capacity: 1)
        self.state.initialize(to: state)
        mutex = .allocate(capacity: 1)
        mutex.initializeCacheMutex()
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    @inlinable
    package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        mutex.lockCacheMutex()
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }
}

// @unchecked: `state` is only touched while `mutex` is held, so sharing the box shares the state one
// thread at a time; that is safe only for state that may itself move between threads.
extension Locked: @unchecked Sendable where State: Sendable {}

extension UnsafeMutablePointer where Pointee == pthread_mutex_t {
    /// Initializes the mutex here (uninitialized memory) as the package's caches use theirs
    /// (``Locked``, ``LockedShards``): their critical sections are a few hash look-ups, so on Linux it
    /// spins briefly before sleeping in the kernel.
    package func initializeCacheMutex() {
        initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        #if canImport(Glibc)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        let status = pthread_mutex_init(self, &attributes)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    /// Takes the mutex (one made by ``initializeCacheMutex()``), waiting on this CPU a while if another
    /// thread holds it, and only then in the kernel.
    ///
    /// glibc's adaptive mutex spins a few dozen times before it sleeps, under a microsecond. A cache's
    /// critical section that stores an entry can take a page fault, a few microseconds, and longer
    /// when another thread is changing the process's mappings meanwhile (malloc growing its heap).
    /// The waiter then slept, and waking a sleeping thread costs far more than the wait it avoided
    /// (docs/performance-profile.md, "Scaling with cores", has the counts).
    @inlinable @inline(__always)
    package func lockCacheMutex() {
        if pthread_mutex_trylock(self) != 0 { lockContendedCacheMutex() }
    }

    /// Waits for the mutex by watching its lock word, up to 10,000 times (a few to a few tens of
    /// microseconds), then sleeps for it.
    @usableFromInline @inline(never)
    package func lockContendedCacheMutex() {
        #if canImport(Glibc)
        // glibc's mutex begins with its lock word, 0 when free (`struct __pthread_mutex_s`). Watching
        // it reads a cache line the holder's unlock invalidates, where each `trylock` would write it.
        let word = UnsafeMutableRawPointer(self).assumingMemoryBound(to: Atomic<Int32>.self)
        for _ in 0..<10_000 where word.pointee.load(ordering: .relaxed) == 0 {
            if pthread_mutex_trylock(self) == 0 { return }
        }
        #endif
        pthread_mutex_lock(self)
    }
}
