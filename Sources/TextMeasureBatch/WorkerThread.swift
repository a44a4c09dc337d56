import TextMeasureSupport
import CThreadAffinity
import Dispatch
import Synchronization
import TextMeasure

/// A thread that is kept: it runs the jobs given to it one after another, in the order given, and
/// waits for more in between.
///
/// A batch used to start a thread for each chunk's helper, read-ahead and write: 15 threads for 16,000
/// lines. Each start took the starting thread 30 µs, and the new thread came with a new malloc arena
/// or an emptied thread cache and ended by flushing its cache under the arenas' locks, where a
/// measuring thread then slept. Waking a kept thread costs its waker about 6 µs.
///
/// The thread ends once the last reference to its `WorkerThread` is gone and the jobs given before
/// have run.
///
/// Thread safety: ``run(_:)`` may be called from any number of threads at once.
package final class WorkerThread: Sendable {
    /// What the thread shares with its owner: the jobs not yet started (nil: stop) and a count of them.
    private final class Queue: Sendable {
        let jobs = Locked<[(@Sendable () -> Void)?]>([])
        let waiting = DispatchSemaphore(value: 0)
        /// The thread (its ``CurrentThread/id``), set before it runs its first job; 0 until then.
        let thread = Atomic<UInt>(0)

        func put(_ job: (@Sendable () -> Void)?) {
            jobs.withLock { $0.append(job) }
            waiting.signal()
        }

        /// Runs jobs until told to stop.
        func serve() {
            thread.store(CurrentThread.id, ordering: .relaxed)
            while true {
                waiting.wait()
                guard let job = jobs.withLock({ $0.removeFirst() }) else { return }
                job()
            }
        }
    }

    private let queue = Queue()

    /// Starts a thread allowed only `cpu` (any CPU of the process's if negative); nil if no thread
    /// could be started there (nor anywhere, on systems where threads are not placed).
    ///
    /// - Parameter cpu: The CPU, as `sched_getcpu` numbers them.
    package init?(cpu: Int32) {
        let queue = self.queue
        guard Self.spawn(on: cpu, { queue.serve() }) else { return nil }
    }

    deinit {
        queue.put(nil)
    }

    /// Runs `job` on the thread after the jobs given before it.
    ///
    /// - Parameter job: What to run; it must not wait for a job given after it to the same thread.
    /// - Complexity: O(1); the thread is woken if it waits.
    package func run(_ job: @escaping @Sendable () -> Void) {
        queue.put(job)
    }

    /// Runs `job` on `thread`, or, if there is none (it could not be started), on one of Dispatch's
    /// threads.
    ///
    /// - Parameters:
    ///   - job: What to run.
    ///   - thread: The kept thread, if one could be started.
    package static func run(_ job: @escaping @Sendable () -> Void, on thread: WorkerThread?) {
        if let thread {
            thread.run(job)
        } else {
            DispatchQueue.global().async(execute: job)
        }
    }

    /// Whether the calling thread is this one.
    package var isCurrent: Bool {
        queue.thread.load(ordering: .relaxed) == CurrentThread.id
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
