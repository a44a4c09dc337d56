import CThreadAffinity
import Dispatch
import Testing
import TextMeasureSupport
import TextMeasure
import TextMeasureBatch

@Suite("Kept threads")
struct WorkerThreadTests {
    /// Jobs run one after another in the order given, all on the same thread, which is not the
    /// caller's and which `isCurrent` recognises.
    @Test func jobsRunInOrderOnOneThread() throws {
        let worker = try #require(WorkerThread(cpu: -1))
        let seen = Locked<[(job: Int, thread: Int32, isCurrent: Bool)]>([])
        let done = DispatchSemaphore(value: 0)
        for job in 0..<200 {
            worker.run {
                seen.withLock { $0.append((job, csched_thread_id(), worker.isCurrent)) }
                if job == 199 { done.signal() }
            }
        }
        done.wait()
        let runs = seen.withLock { $0 }
        #expect(runs.map(\.job) == Array(0..<200))
        #expect(Set(runs.map(\.thread)).count == 1)
        #expect(runs.allSatisfy { $0.isCurrent })
        #expect(runs.first?.thread != csched_thread_id())
        #expect(!worker.isCurrent)
    }

    /// Jobs given from eight threads at once each run exactly once.
    @Test func jobsFromManyThreadsRunOnce() throws {
        let worker = try #require(WorkerThread(cpu: -1))
        let counts = Locked([Int](repeating: 0, count: 8 * 500))
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for step in 0..<500 {
                worker.run {
                    counts.withLock { $0[thread * 500 + step] += 1 }
                    done.signal()
                }
            }
        }
        for _ in 0..<(8 * 500) { done.wait() }
        #expect(counts.withLock { $0.allSatisfy { $0 == 1 } })
    }

    /// A job given before the last reference to its thread is dropped still runs, after it.
    @Test func jobsGivenBeforeReleaseStillRun() throws {
        let gate = DispatchSemaphore(value: 0)
        let ran = DispatchSemaphore(value: 0)
        weak var released: WorkerThread?
        do {
            let worker = try #require(WorkerThread(cpu: -1))
            released = worker
            worker.run { gate.wait() }
            worker.run { ran.signal() }
        }
        #expect(released == nil)
        gate.signal()
        #expect(ran.wait(timeout: .now() + 10) == .success)
    }

    /// Work spread from a kept thread, and spread again from inside that (a `forEach` whose body calls
    /// `forEach`, run by `runElsewhere`), is done: no kept thread waits for a job queued behind its own.
    @Test func spreadingFromAKeptThreadFinishes() {
        let inner = Locked(0)
        let finished = DispatchSemaphore(value: 0)
        CPUSpread.runElsewhere {
            CPUSpread.forEach(8) { _ in
                CPUSpread.forEach(16) { _ in inner.withLock { $0 += 1 } }
            }
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 20) == .success)
        #expect(inner.withLock { $0 } == 8 * 16)
    }

    /// A kept thread that waits for Dispatch's threads, which spread work onto the kept threads in
    /// turn, is not waited for by them: each does the work itself when its helper is busy. (The first
    /// `forEach` on kept threads deadlocked here about one run in six.)
    @Test func spreadingFromDispatchInsideAKeptThreadFinishes() {
        let inner = Locked(0)
        let finished = DispatchSemaphore(value: 0)
        CPUSpread.runElsewhere {
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                CPUSpread.forEach(8) { _ in
                    CPUSpread.forEach(4) { _ in inner.withLock { $0 += 1 } }
                }
            }
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 20) == .success)
        #expect(inner.withLock { $0 } == 4 * 8 * 4)
    }

    /// A `forEach` inside a `forEach` started on an ordinary thread is done too.
    @Test func nestedSpreadingFinishes() {
        let inner = Locked(0)
        CPUSpread.forEach(8) { _ in
            CPUSpread.forEach(16) { _ in inner.withLock { $0 += 1 } }
        }
        #expect(inner.withLock { $0 } == 8 * 16)
    }
}
