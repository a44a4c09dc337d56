import Dispatch
import Testing
import TextMeasureSupport
import TextMeasure
import TextMeasureBatch

@Suite("CPU placement")
struct CPUSpreadTests {
    /// Every index is handed out exactly once, whatever the count, and all calls are over when
    /// `forEach` returns.
    @Test(arguments: [0, 1, 2, 3, 1_000])
    func forEachCallsEveryIndexOnce(count: Int) {
        let calls = Locked([Int](repeating: 0, count: count))
        CPUSpread.forEach(count) { index in calls.withLock { $0[index] += 1 } }
        #expect(calls.withLock { $0.allSatisfy { $0 == 1 } })
    }

    @Test func runElsewhereRuns() {
        let ran = Locked(false)
        let finished = DispatchSemaphore(value: 0)
        CPUSpread.runElsewhere {
            ran.withLock { $0 = true }
            finished.signal()
        }
        finished.wait()
        #expect(ran.withLock { $0 })
    }
}
