import CSched
import Dispatch
import Synchronization
import TextMeasure

/// Runs the command's concurrent work on threads placed on different CPUs from their first instruction.
///
/// On Linux a new thread starts on the CPU of the thread that created or woke it, and waits there until
/// that thread blocks or the scheduler's load balancer moves one of them, which it is slow to do for a
/// thread whose cache is "hot". A batch of a few thousand lines is over in a few tens of milliseconds:
/// with Dispatch's worker threads it was measured running on one CPU for up to two thirds of the time,
/// and the thread loading fonts during argument parsing did not start until parsing was done. So the
/// command starts its own threads, each created allowed only a CPU that no other of them has (Linux;
/// elsewhere, or if that fails, Dispatch does the work as usual).
package enum CPUSpread {
    /// The CPUs this process may run on (by its affinity when it started; see `csched_remember_affinity`).
    private static let allowed = (0..<csched_cpu_capacity()).filter { csched_is_allowed($0) != 0 }

    /// The CPUs this process may run on, the calling thread's first.
    private static func cpus() -> [Int32] {
        let here = csched_current_cpu()
        let others = allowed.filter { $0 != here }
        return allowed.contains(here) ? [here] + others : others
    }

    /// Runs `body` on a new thread on a CPU other than the calling thread's, where it can work while
    /// this thread goes on.
    package static func runElsewhere(_ body: @escaping @Sendable () -> Void) {
        let cpu = cpus().dropFirst().first ?? -1
        if !spawn(on: cpu, body) { DispatchQueue.global().async(execute: body) }
    }

    /// Calls `body` with every index in `0..<count`, on this thread and one new thread per other CPU,
    /// each taking the next index as it becomes free; returns when all calls have returned.
    package static func forEach(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let cpus = cpus()
        let helpers = Array(cpus.dropFirst().prefix(max(0, count - 1)))
        guard !helpers.isEmpty, let here = cpus.first else {
            DispatchQueue.concurrentPerform(iterations: count, execute: body)
            return
        }
        // Keep this thread on its CPU meanwhile, so that the scheduler does not move it onto a helper's.
        let pinned = csched_pin(here) == 0
        defer { if pinned { _ = csched_unpin(csched_thread_id()) } }
        let next = Counter()
        let finished = DispatchSemaphore(value: 0)
        let run: @Sendable () -> Void = {
            while true {
                let index = next.take()
                guard index < count else { return }
                body(index)
            }
        }
        var started = 0
        for cpu in helpers where spawn(on: cpu, { run(); finished.signal() }) { started += 1 }
        run()
        for _ in 0..<started { finished.wait() }
    }

    /// The next index to hand out, shared by the threads of `forEach`.
    private final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func take() -> Int { value.add(1, ordering: .relaxed).oldValue }
    }

    /// Starts a thread allowed only `cpu` (any CPU if negative) running `body`; false if it could not.
    private static func spawn(on cpu: Int32, _ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body))
        let status = csched_spawn(cpu, { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
        }, box.toOpaque())
        if status != 0 { box.release() }
        return status == 0
    }
}
