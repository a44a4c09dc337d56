import Testing
@testable import TextMeasureHTTP

/// `ServerMetrics.waitUntil`: the wait the server's tests are built on ends when the counts reach the
/// state awaited, and ends too when the waiting task is cancelled, so that a test's time limit can end a
/// wait for an event that never comes.
@Suite("textmeasure serve: server metrics")
struct ServerMetricsTests {
    @Test func aWaitEndsWhenTheCountsGetThere() async {
        let metrics = ServerMetrics(processor: MeasureServerTests.processor())
        let waiting = Task { await metrics.waitUntil { $0.openConnections == 2 } }
        metrics.connectionOpened()
        metrics.connectionOpened()
        await waiting.value
        #expect(metrics.activity.openConnections == 2)
        // One that holds already returns at once.
        await metrics.waitUntil { $0.openConnections == 2 }
    }

    @Test func aCancelledWaitEnds() async {
        let metrics = ServerMetrics(processor: MeasureServerTests.processor())
        // Cancelled while listed as waiting, and cancelled before it began: both end.
        let listed = Task { await metrics.waitUntil { $0.openConnections == 1 } }
        await Task.yield()
        listed.cancel()
        await listed.value
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await metrics.waitUntil { $0.openConnections == 1 }
        }
        await early.value
        // The cancelled waiters are no longer listed: the change their conditions awaited would
        // otherwise resume their continuations a second time, which traps.
        metrics.connectionOpened()
        #expect(metrics.activity.openConnections == 1)
    }
}
