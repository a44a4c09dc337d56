import Foundation
import Prometheus
import TextMeasureBatch

/// The server's Prometheus metrics, in a registry of its own (no global `MetricsSystem` bootstrap,
/// so several servers, in tests say, keep their counts apart).
///
/// - `textmeasure_http_requests_total{path, status}`: requests answered, by route and status code;
/// - `textmeasure_http_requests_aborted_total{path}`: requests whose connection closed or failed
///   before they were read whole (a client gone mid-body), so that no answer could be sent; they are
///   not in `textmeasure_http_requests_total` nor in the latency histogram, so that a client that
///   hangs up does not count as a server error (no status was sent, and none is made up);
/// - `textmeasure_http_request_duration_seconds{path}`: latency histogram, from the request head to
///   the response (whose body is one buffer already made);
/// - `textmeasure_http_requests_in_flight`: requests whose head has arrived and whose response is not
///   yet made;
/// - `textmeasure_http_connections_open`, `textmeasure_http_connections_refused_total`: connections held
///   now, and connections closed on arrival because ``ServerLimits/maximumConnections`` were held;
/// - `textmeasure_items_measured_total`, `textmeasure_item_errors_total`: items of `/v1/measure`;
/// - `textmeasure_prepared_text_{hits,misses}` and `textmeasure_prepared_text_hit_ratio`: the prepared-text
///   cache (a hit lays a text out again without shaping);
/// - `textmeasure_shaped_piece_{hits,misses}` and `textmeasure_shaped_piece_hit_ratio`: the shaped-word cache;
/// - `textmeasure_store_{hits,misses}` and `textmeasure_store_hit_ratio`: the persistent height store
///   (`--store`), asked for what memory lacked (zero without a store).
///
/// Besides the exposition, the counts of connections and requests in flight can be awaited
/// (``waitUntil(_:)``): tests wait for an event (a request has arrived, a connection has closed), never
/// for a length of time.
///
/// Thread safety: `Sendable`; the registry and its metrics are atomic or locked, and so is ``activity``.
package final class ServerMetrics: Sendable {
    /// What the server holds at one moment.
    package struct Activity: Sendable, Equatable {
        /// Connections accepted and not yet closed.
        package var openConnections = 0
        /// Connections closed on arrival, since the start, because the limit was held.
        package var refusedConnections = 0
        /// Requests whose head has arrived and whose response is not yet made.
        package var requestsInFlight = 0
        /// Whether the listening socket is open: from the server's start until its shutdown begins.
        package var isListening = false
        /// Requests counted as aborted (``recordAborted(path:)``) since the start.
        package var abortedRequests = 0
    }

    /// The registry ``exposition()`` writes out.
    package let registry: PrometheusCollectorRegistry
    private let processor: BatchProcessor
    private let itemsMeasured: Counter
    private let itemErrors: Counter
    private let preparedHits: Gauge
    private let preparedMisses: Gauge
    private let preparedRatio: Gauge
    private let pieceHits: Gauge
    private let pieceMisses: Gauge
    private let spanHits: Gauge
    private let piecesResized: Gauge
    private let pieceRatio: Gauge
    private let storeHits: Gauge
    private let storeMisses: Gauge
    private let storeRatio: Gauge
    private let inFlight: Gauge
    private let connectionsOpen: Gauge
    private let connectionsRefused: Counter

    /// The activity and the tasks waiting for it to reach a state. A lock, not an actor: the counts
    /// change on event-loop threads, which must not wait for a task.
    private let state = ActivityState()

    private final class ActivityState: @unchecked Sendable {   // every field is read and written under `lock`
        let lock = NSLock()
        var activity = Activity()
        var waiters: [(id: Int, condition: @Sendable (Activity) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
        /// The number of the last waiter listed, so that a cancelled one can be found.
        var lastWaiter = 0
        /// The series of ``recordRequest(path:status:duration:)`` made so far.
        var requestSeries: [SeriesKey: RequestSeries] = [:]
        /// The counters of ``recordAborted(path:)``, by path label.
        var abortedSeries: [String: Counter] = [:]
    }

    /// What the series of answered requests are labelled with.
    private struct SeriesKey: Hashable {
        var path: String
        var status: Int
    }

    /// The metrics one answered request adds to: its route's and status's count and its route's latency.
    ///
    /// Thread safety: `Sendable`; the metrics are atomic or locked.
    package struct RequestSeries: Sendable {
        fileprivate var count: Counter
        fileprivate var latency: DurationHistogram

        /// Counts one answered request that took `duration`.
        package func record(_ duration: Duration) {
            count.increment()
            latency.record(duration)
        }
    }

    /// Latency buckets, from 100 µs to 10 s.
    static let buckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(10),
    ]

    /// Metrics for a server measuring with `processor` (whose cache statistics are read at each scrape).
    ///
    /// - Parameter processor: the server's processor.
    package init(processor: BatchProcessor) {
        self.processor = processor
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        itemsMeasured = registry.makeCounter(descriptor: Self.named("textmeasure_items_measured_total", help: "Items of /v1/measure measured."))
        itemErrors = registry.makeCounter(descriptor: Self.named("textmeasure_item_errors_total",
                                          help: "Items of /v1/measure answered with an error object."))
        preparedHits = registry.makeGauge(descriptor: Self.named("textmeasure_prepared_text_hits", help: "Texts laid out from their prepared form."))
        preparedMisses = registry.makeGauge(descriptor: Self.named("textmeasure_prepared_text_misses", help: "Texts shaped and prepared."))
        preparedRatio = registry.makeGauge(descriptor: Self.named("textmeasure_prepared_text_hit_ratio",
                                           help: "Prepared-text cache hits / look-ups since start (0 before any)."))
        pieceHits = registry.makeGauge(descriptor: Self.named("textmeasure_shaped_piece_hits", help: "Shaped words reused."))
        pieceMisses = registry.makeGauge(descriptor: Self.named("textmeasure_shaped_piece_misses", help: "Words shaped."))
        spanHits = registry.makeGauge(descriptor: Self.named("textmeasure_shaped_span_hits",
                                                             help: "Shaped spans (text not cached word by word) reused."))
        piecesResized = registry.makeGauge(descriptor: Self.named("textmeasure_shaped_pieces_resized",
                                           help: "Words missing at their size taken, unshaped, from another size."))
        pieceRatio = registry.makeGauge(descriptor: Self.named("textmeasure_shaped_piece_hit_ratio",
                                        help: "Shaped-word cache hits / look-ups since start (0 before any)."))
        storeHits = registry.makeGauge(descriptor: Self.named("textmeasure_store_hits",
                                       help: "Measurements answered by the persistent height store."))
        storeMisses = registry.makeGauge(descriptor: Self.named("textmeasure_store_misses",
                                         help: "Measurements the persistent height store did not have."))
        storeRatio = registry.makeGauge(descriptor: Self.named("textmeasure_store_hit_ratio",
                                        help: "Height store hits / look-ups since start (0 before any, or without a store)."))
        inFlight = registry.makeGauge(descriptor: Self.named("textmeasure_http_requests_in_flight",
                                      help: "Requests whose head has arrived and whose response is not yet made."))
        connectionsOpen = registry.makeGauge(descriptor: Self.named("textmeasure_http_connections_open",
                                             help: "Connections accepted and not yet closed."))
        connectionsRefused = registry.makeCounter(descriptor: Self.named("textmeasure_http_connections_refused_total",
                                                  help: "Connections closed on arrival because the connection limit was held."))
    }

    /// The counts now.
    package var activity: Activity {
        state.lock.withLock { state.activity }
    }

    /// Returns once `condition` holds for the counts (at once if it holds now), or once the waiting
    /// task is cancelled: a test's time limit cancels it, and a wait for an event that never comes must
    /// then end rather than hold the test run.
    ///
    /// - Parameter condition: A test of the counts, called under a lock: it must not block.
    /// - Complexity: The condition is checked at each change of the counts while the caller waits.
    package func waitUntil(_ condition: @escaping @Sendable (Activity) -> Bool) async {
        let id = state.lock.withLock {
            state.lastWaiter += 1
            return state.lastWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                state.lock.lock()
                // Checked under the lock: a cancellation whose handler ran before the waiter is
                // listed has already set the flag, so it cannot be missed.
                if Task.isCancelled || condition(state.activity) {
                    state.lock.unlock()
                    continuation.resume()
                    return
                }
                state.waiters.append((id, condition, continuation))
                state.lock.unlock()
            }
        } onCancel: {
            let cancelled: CheckedContinuation<Void, Never>? = state.lock.withLock {
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            cancelled?.resume()
        }
    }

    /// Applies `change` to the counts and wakes the waiters whose condition now holds.
    private func update(_ change: (inout Activity) -> Void) {
        state.lock.lock()
        change(&state.activity)
        let activity = state.activity
        var woken: [CheckedContinuation<Void, Never>] = []
        state.waiters.removeAll { waiter in
            guard waiter.condition(activity) else { return false }
            woken.append(waiter.continuation)
            return true
        }
        state.lock.unlock()
        for continuation in woken { continuation.resume() }
    }

    /// Counts a request whose head has arrived (until ``requestFinished()``).
    package func requestStarted() {
        inFlight.increment()
        update { $0.requestsInFlight += 1 }
    }

    /// Counts a request answered, or failed, as no longer in flight.
    package func requestFinished() {
        inFlight.decrement()
        update { $0.requestsInFlight -= 1 }
    }

    /// Counts a connection accepted (until ``connectionClosed()``).
    package func connectionOpened() {
        connectionsOpen.increment()
        update { $0.openConnections += 1 }
    }

    /// Counts a connection closed.
    package func connectionClosed() {
        connectionsOpen.decrement()
        update { $0.openConnections -= 1 }
    }

    /// Notes whether the listening socket is open (see ``Activity/isListening``).
    package func setListening(_ listening: Bool) {
        update { $0.isListening = listening }
    }

    /// Counts a connection closed on arrival, the limit being held.
    package func connectionRefused() {
        connectionsRefused.increment()
        update { $0.refusedConnections += 1 }
    }

    /// Counts one answered request.
    ///
    /// - Parameters:
    ///   - path: the route (`/v1/measure`, `/healthz`, `/metrics`, or `other` for unknown paths, so that
    ///     scanners cannot grow the label set).
    ///   - status: the response's status code.
    ///   - duration: from the request head to the end of the response.
    package func recordRequest(path: String, status: Int, duration: Duration) {
        requestSeries(path: path, status: status).record(duration)
    }

    /// The counter and histogram of requests to `path` answered with `status`, made in the registry
    /// the first time and kept: the registry checks a metric's name, labels and help text at every
    /// look-up, which cost as much as the rest of a request's metrics. A caller answering many requests
    /// of one route may keep them in turn (finding them is a lock and a hash of the path).
    ///
    /// - Parameters: as ``recordRequest(path:status:duration:)``'s.
    /// - Returns: The series; ``RequestSeries/record(_:)`` is ``recordRequest(path:status:duration:)``.
    package func requestSeries(path: String, status: Int) -> RequestSeries {
        let key = SeriesKey(path: path, status: status)
        if let series = state.lock.withLock({ state.requestSeries[key] }) { return series }
        let series = RequestSeries(
            count: registry.makeCounter(descriptor: Self.named("textmeasure_http_requests_total",
                                                               help: "HTTP requests answered, by route and status code."),
                                        labels: [("path", path), ("status", String(status))]),
            latency: registry.makeDurationHistogram(descriptor: Self.named("textmeasure_http_request_duration_seconds",
                                                                           help: "HTTP request latency."),
                                                    labels: [("path", path)], buckets: Self.buckets))
        state.lock.withLock { state.requestSeries[key] = series }
        return series
    }

    /// Counts one request whose connection closed or failed before it was read whole: no answer was
    /// sent, so it counts in no status's series and no latency (see the type's discussion).
    ///
    /// - Parameter path: the route, or `other`, as for ``recordRequest(path:status:duration:)``.
    package func recordAborted(path: String) {
        // Made in the registry once per path and kept, as `requestSeries(path:status:)` keeps its
        // series (two threads making the same one at once get the registry's one counter).
        let counter = state.lock.withLock { state.abortedSeries[path] } ?? {
            let counter = registry.makeCounter(
                descriptor: Self.named("textmeasure_http_requests_aborted_total",
                                       help: "HTTP requests whose connection closed or failed before they were read whole (no answer sent)."),
                labels: [("path", path)])
            state.lock.withLock { state.abortedSeries[path] = counter }
            return counter
        }()
        counter.increment()
        update { $0.abortedRequests += 1 }
    }

    /// Counts one request answered before it reached the routes (a malformed head, refused by
    /// ``HTTP1ConformanceHandler``): no latency recorded, since no route ran.
    ///
    /// - Parameters:
    ///   - path: the route, or `other`, as for ``recordRequest(path:status:duration:)``.
    ///   - status: the response's status code.
    package func recordRefusal(path: String, status: Int) {
        registry.makeCounter(descriptor: Self.named("textmeasure_http_requests_total",
                                                    help: "HTTP requests answered, by route and status code."),
                             labels: [("path", path), ("status", String(status))]).increment()
    }

    /// Counts the items of one `/v1/measure` request.
    ///
    /// - Parameters:
    ///   - measured: items measured.
    ///   - failed: items answered with an error object.
    package func recordItems(measured: Int, failed: Int) {
        itemsMeasured.increment(by: Int64(measured))
        itemErrors.increment(by: Int64(failed))
    }

    /// The Prometheus text exposition format (version 0.0.4) of every metric, cache statistics read now.
    ///
    /// - Returns: the exposition's UTF-8 bytes.
    /// - Complexity: O(number of metrics).
    package func exposition() -> [UInt8] {
        let texts = processor.texts.statistics
        preparedHits.set(Double(texts.hits))
        preparedMisses.set(Double(texts.misses))
        preparedRatio.set(Self.ratio(texts.hits, texts.misses))
        storeHits.set(Double(texts.storeHits))
        storeMisses.set(Double(texts.storeMisses))
        storeRatio.set(Self.ratio(texts.storeHits, texts.storeMisses))
        let shaping = processor.measurer.shapingStatistics
        pieceHits.set(Double(shaping.pieceHits))
        pieceMisses.set(Double(shaping.pieceMisses))
        spanHits.set(Double(shaping.spanHits))
        piecesResized.set(Double(shaping.piecesResized))
        pieceRatio.set(Self.ratio(shaping.pieceHits, shaping.pieceMisses))
        return registry.emitToBuffer()
    }

    private static func named(_ name: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    private static func ratio<T: BinaryInteger>(_ hits: T, _ misses: T) -> Double {
        let total = Double(hits) + Double(misses)
        return total > 0 ? Double(hits) / total : 0
    }
}
