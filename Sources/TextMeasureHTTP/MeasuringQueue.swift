import Dispatch
import Synchronization

/// Measures request bodies that need shaping (or the height store) on Dispatch workers, off the event
/// loops and the cooperative pool, for ``MeasureServer``'s measure route.
///
/// A request whose task is cancelled before its measurement starts is not measured: its reply is a 503
/// at once. At the end of the shutdown grace period (``BoundedShutdown``) every connection's task is
/// cancelled and its connection closed, so nobody reads such a reply; without this, the process would
/// wait for every queued request to be measured before it could stop, however many there were. A
/// measurement already running goes on to its end (one request, within ``ServerLimits``).
///
/// Thread safety: `Sendable`; any number of requests at once.
package struct MeasuringQueue: Sendable {
    private let endpoint: MeasureEndpoint
    private let queue: DispatchQueue

    /// The reply to a request cancelled before it was measured.
    package static let cancelledReply = MeasureEndpoint.error(503, "the server stopped before measuring this request")

    /// A queue measuring with `endpoint` on `queue`'s workers.
    ///
    /// - Parameters:
    ///   - endpoint: measures each body.
    ///   - queue: where measurements run (by default a concurrent queue of its own).
    package init(endpoint: MeasureEndpoint,
                 queue: DispatchQueue = DispatchQueue(label: "textmeasure.serve.measure", attributes: .concurrent)) {
        self.endpoint = endpoint
        self.queue = queue
    }

    /// The reply to `body`, measured on the queue, or ``cancelledReply`` if the calling task is
    /// cancelled before the measurement starts.
    ///
    /// - Parameter body: the request body.
    /// - Returns: the endpoint's reply, or ``cancelledReply``.
    /// - Complexity: the endpoint's ``MeasureEndpoint/respond(to:)``, on a worker; O(1) once cancelled.
    package func reply(to body: [UInt8]) async -> MeasureEndpoint.Reply {
        let cancelled = Flag()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<MeasureEndpoint.Reply, Never>) in
                queue.async { [endpoint] in
                    continuation.resume(returning: cancelled.isSet ? Self.cancelledReply : endpoint.respond(to: body))
                }
            }
        } onCancel: {
            cancelled.set()
        }
    }

    /// Set once, from the cancellation handler's thread; read by the worker.
    private final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }
}
