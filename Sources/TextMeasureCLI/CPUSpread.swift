import CSched
import TextMeasure

/// Keeps threads that work at the same time (those processing a chunk of batch lines; the one loading
/// fonts while the main thread parses arguments) on different CPUs while they do.
///
/// Linux starts a process's second thread on the CPU of the thread that woke it, and its load balancer
/// leaves a thread that has just run (its cache is "hot") where it is for a while; a thread woken
/// after a short wait is placed near its waker again. A batch of a few thousand lines is over in a few
/// tens of milliseconds, and was measured with both threads sharing one CPU for up to two thirds of
/// the run. So each thread, at its first line of a chunk, takes a CPU no other one has (its own if
/// free) and is allowed only that one; when the chunk is done, every thread gets the process's
/// original affinity back. Elsewhere than Linux, or if the calls fail, this does nothing.
final class CPUSpread: Sendable {
    private struct State {
        var threads: [Int32: Int32] = [:]   // thread id: its CPU
        var cpus: Set<Int32> = []
    }

    private let state = Locked(State())

    /// Marks the calling thread's CPU as taken without pinning the thread (whose work goes on there).
    func claimCurrentCPU() {
        let here = csched_current_cpu()
        guard here >= 0 else { return }
        state.withLock { _ = $0.cpus.insert(here) }
    }

    /// Pins the calling thread to a CPU of its own, the first time it calls; later calls return at once.
    func pinCurrentThread() {
        let thread = csched_thread_id()
        state.withLock { state in
            guard state.threads[thread] == nil else { return }
            let here = csched_current_cpu()
            let cpu = here >= 0 && csched_is_allowed(here) != 0 && !state.cpus.contains(here) ? here
                : (0..<csched_cpu_capacity()).first { !state.cpus.contains($0) && csched_is_allowed($0) != 0 }
            state.threads[thread] = cpu ?? -1
            guard let cpu, csched_pin(cpu) == 0 else { return }
            state.cpus.insert(cpu)
        }
    }

    /// Gives every pinned thread its original affinity back.
    func release() {
        state.withLock { state in
            for (thread, cpu) in state.threads where cpu >= 0 { _ = csched_unpin(thread) }
            state = State()
        }
    }
}
