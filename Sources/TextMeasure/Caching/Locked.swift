#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// State behind a `pthread_mutex_t`, reached only through ``withLock(_:)``. A building block of the
/// package's caches, public (and inlinable) so that generic caches built on it are specialized in
/// the code that uses them.
///
/// Used instead of `Synchronization.Mutex` because the thread sanitizer understands pthread mutexes
/// (it intercepts them) but not Mutex's raw futex calls on Linux, which it reports as races. The cost
/// is the same: an uncontended lock and unlock.
public final class Locked<State>: @unchecked Sendable {
    // @unchecked: `state` is only touched while `mutex` is held.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var state: State

    public init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        #if canImport(Glibc)
        // Critical sections here are a few hash look-ups: spin briefly before sleeping in the kernel.
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        let status = pthread_mutex_init(mutex, &attributes)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
