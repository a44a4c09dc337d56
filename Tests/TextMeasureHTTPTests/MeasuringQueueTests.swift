import Dispatch
import Testing
import TextMeasure
import TextMeasureBatch
import TextMeasureHTTP

@Suite("Measuring queue")
struct MeasuringQueueTests {
    static let body = Array(#"[{"id":1,"text":"Hello, world","width":50},{"text":"你好，世界","width":40,"size":13}]"#.utf8)

    /// A request measured on the queue gets what the endpoint answers on the calling thread.
    @Test func repliesAsTheEndpoint() async {
        let endpoint = MeasureEndpoint(processor: MeasureServerTests.processor(), limits: ServerLimits())
        let reply = await MeasuringQueue(endpoint: endpoint).reply(to: Self.body)
        #expect(reply.status == 200 && reply.measured == 2 && reply.failed == 0)
        #expect(reply == endpoint.respond(to: Self.body))
    }

    /// A request whose task is cancelled before a worker takes it up (the end of the shutdown grace
    /// period) is answered 503 without measuring: nothing is prepared, so the process need not wait for it.
    @Test func aRequestCancelledBeforeItsTurnIsNotMeasured() async {
        let endpoint = MeasureEndpoint(processor: MeasureServerTests.processor(), limits: ServerLimits())
        let workers = DispatchQueue(label: "MeasuringQueueTests")
        workers.suspend()   // no worker takes the request up until the task is cancelled
        let queue = MeasuringQueue(endpoint: endpoint, queue: workers)
        let request = Task { await queue.reply(to: Self.body) }
        request.cancel()
        workers.resume()
        let reply = await request.value
        #expect(reply == MeasuringQueue.cancelledReply)
        #expect(reply.status == 503 && reply.measured == 0 && reply.failed == 0)
        let statistics = endpoint.processor.texts.statistics
        #expect(statistics.hits == 0 && statistics.misses == 0, "\(statistics)")
        #expect(endpoint.quickReply(to: Self.body) == nil, "a text of the cancelled request is held")
        // The queue goes on measuring requests that are not cancelled.
        #expect(await queue.reply(to: Self.body) == endpoint.respond(to: Self.body))
    }
}
