import TextMeasureSupport
import CThreadAffinity
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
/// command keeps its own threads, each created allowed only one CPU (Linux; elsewhere, or if that
/// fails, Dispatch does the work as usual): one per CPU for ``forEach(_:_:)`` and ``runElsewhere(_:)``,
/// started when first needed and kept for the life of the process (see ``WorkerThread``).
package enum CPUSpread {
    /// The CPUs this process may run on (by its affinity when it started; see `csched_remember_affinity`).
    private static let allowed = (0..<csched_cpu_capacity()).filter { csched_is_allowed($0) != 0 }

    /// How many CPUs this process may run on: the most threads ``forEach(_:_:)`` runs at once.
    package static var cpuCount: Int { max(1, allowed.count) }

    /// The CPUs this process may run on, the calling thread's first.
    private static func cpus() -> [Int32] {
        let here = csched_current_cpu()
        let others = allowed.filter { $0 != here }
        return allowed.contains(here) ? [here] + others : others
    }

    /// The kept threads, one per CPU, at index CPU + 1 (index 0: any CPU), each started when first
    /// needed and kept for the life of the process (see ``WorkerThread``).
    ///
    /// An array rather than a dictionary keyed by CPU: this is set up on the way to loading the fonts,
    /// and a `[Int32: WorkerThread]`'s type is made at run time by a search of every protocol
    /// conformance in the binary for `Int32: Hashable` (about 0.1 ms, all of it before the fonts start
    /// loading).
    private static let kept = Locked<[WorkerThread?]>(Array(repeating: nil, count: Int(csched_cpu_capacity()) + 1))

    /// The kept thread allowed only `cpu` (any CPU if negative), started now if need be; nil if none
    /// could be started.
    private static func keptThread(on cpu: Int32) -> WorkerThread? {
        kept.withLock { threads in
            let index = cpu < 0 ? 0 : Int(cpu) + 1
            guard threads.indices.contains(index) else { return nil }
            if let thread = threads[index] { return thread }
            let thread = WorkerThread(cpu: cpu)
            threads[index] = thread
            return thread
        }
    }

    /// Whether the calling thread is one of the kept threads.
    private static var isOnKeptThread: Bool {
        kept.withLock { threads in threads.contains { $0?.isCurrent == true } }
    }

    /// The CPU on which a thread working beside the calling one should run: another one the process
    /// may use, or -1 (any) if there is none.
    package static func cpuElsewhere() -> Int32 {
        cpus().dropFirst().first ?? -1
    }

    /// Runs `body` on a kept thread on a CPU other than the calling thread's, where it can work while
    /// this thread goes on. `body` must not block for long: the same thread helps ``forEach(_:_:)``.
    package static func runElsewhere(_ body: @escaping @Sendable () -> Void) {
        WorkerThread.run(body, on: keptThread(on: cpuElsewhere()))
    }

    /// Calls `body` with every index in `0..<count`, on this thread and on a kept thread on each other
    /// CPU, each taking the next index as it becomes free; returns when all calls have returned.
    ///
    /// A kept thread may be busy (another caller's `forEach`, or this one's, when `body` spreads work
    /// of its own): this thread then takes every index itself. It waits only for helpers that started
    /// before the indices ran out, each of which is running `body`; a helper that starts later finds
    /// none left and returns. So no thread ever waits for work queued behind its own, however calls
    /// nest.
    package static func forEach(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let cpus = cpus()
        let others = cpus.dropFirst().prefix(max(0, count - 1))
        let helpers = others.compactMap { keptThread(on: $0) }
        guard !helpers.isEmpty, let here = cpus.first else {
            DispatchQueue.concurrentPerform(iterations: count, execute: body)
            return
        }
        // Keep this thread on its CPU meanwhile, so that the scheduler does not move it onto a helper's
        // (a kept thread is pinned already, and unpinning would free it from its CPU).
        let pinned = !isOnKeptThread && csched_pin(here) == 0
        defer { if pinned { _ = csched_unpin(csched_thread_id()) } }
        let next = Counter()
        // A helper joins the group before it takes an index. The counter's read-modify-writes order
        // every take, so once this thread's take finds the indices gone, each helper that took one
        // has joined, and `wait()` waits for it.
        let started = DispatchGroup()
        let run: @Sendable () -> Void = {
            while true {
                let index = next.take()
                guard index < count else { return }
                body(index)
            }
        }
        for helper in helpers {
            helper.run {
                started.enter()
                run()
                started.leave()
            }
        }
        run()
        started.wait()
    }

    /// The next index to hand out, shared by the threads of `forEach`.
    private final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func take() -> Int { value.add(1, ordering: .sequentiallyConsistent).oldValue }
    }
}
