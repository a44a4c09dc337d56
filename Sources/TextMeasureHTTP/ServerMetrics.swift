import Prometheus
import TextMeasureBatch

/// The server's Prometheus metrics, in a registry of its own (no global `MetricsSystem` bootstrap,
/// so several servers, in tests say, keep their counts apart).
///
/// - `textmeasure_http_requests_total{path, status}`: requests answered, by route and status code;
/// - `textmeasure_http_request_duration_seconds{path}`: latency histogram, from the request head to
///   the response (whose body is one buffer already made);
/// - `textmeasure_items_measured_total`, `textmeasure_item_errors_total`: items of `/v1/measure`;
/// - `textmeasure_prepared_text_{hits,misses}` and `textmeasure_prepared_text_hit_ratio`: the prepared-text
///   cache (a hit lays a text out again without shaping);
/// - `textmeasure_shaped_piece_{hits,misses}` and `textmeasure_shaped_piece_hit_ratio`: the shaped-word cache;
/// - `textmeasure_store_{hits,misses}` and `textmeasure_store_hit_ratio`: the persistent height store
///   (`--store`), asked for what memory lacked (zero without a store).
///
/// Thread safety: `Sendable`; the registry and its metrics are atomic or locked.
package final class ServerMetrics: Sendable {
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
    }

    /// Counts one answered request.
    ///
    /// - Parameters:
    ///   - path: the route (`/v1/measure`, `/healthz`, `/metrics`, or `other` for unknown paths, so that
    ///     scanners cannot grow the label set).
    ///   - status: the response's status code.
    ///   - duration: from the request head to the end of the response.
    package func recordRequest(path: String, status: Int, duration: Duration) {
        registry.makeCounter(descriptor: Self.named("textmeasure_http_requests_total",
                                                    help: "HTTP requests answered, by route and status code."),
                             labels: [("path", path), ("status", String(status))]).increment()
        registry.makeDurationHistogram(descriptor: Self.named("textmeasure_http_request_duration_seconds",
                                                              help: "HTTP request latency."),
                                       labels: [("path", path)], buckets: Self.buckets).record(duration)
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
