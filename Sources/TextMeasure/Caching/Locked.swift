#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// State behind a `pthread_mutex_t`, reached only through ``withLock(_:)``.
///
/// Used instead of `Synchronization.Mutex` because the thread sanitizer understands pthread mutexes
/// (it intercepts them) but not Mutex's raw futex calls on Linux, which it reports as races. The cost
/// is the same: an uncontended lock and unlock.
package final class Locked<State>: @unchecked Sendable {
    // @unchecked: `state` is only touched while `mutex` is held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State

    package init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
