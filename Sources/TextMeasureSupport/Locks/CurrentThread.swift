#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The calling thread's identity as a number: its `pthread_self()`, never 0, unique among the threads
/// alive at one time (a thread that has ended may see its number reused).
package enum CurrentThread {
    /// The calling thread's number.
    ///
    /// - Complexity: O(1): a read of the thread pointer, no system call.
    @inline(__always)
    package static var id: UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }
}
