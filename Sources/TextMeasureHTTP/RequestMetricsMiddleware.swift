import Hummingbird
import NIOCore
import NIOHTTP1

/// Records every request's route, status and latency in ``ServerMetrics``, errors included (a 404
/// for an unknown path, a 413 thrown by the body reader), and counts it as in flight until its
/// response is made. A request whose connection closed or failed before its body was read whole (a
/// client gone mid-body: ``isConnectionLoss(_:)``) gets no response, and is counted as aborted
/// (``ServerMetrics/recordAborted(path:)``), not as the 500 Hummingbird would have made of the error.
/// One whose body NIO's decoder could not read (broken chunk framing) is not counted here either:
/// ``HTTP1ConformanceHandler`` answers it, with a 400, and counts that answer.
///
/// The latency runs to the response, whose body every route makes as one buffer. Unknown paths share the
/// label `other`, and the files of a static folder its prefix (`/demo/`), so that a scanner trying paths
/// cannot grow the metrics without bound.
///
/// Thread safety: `Sendable`; it holds only the metrics, which are, and a `Sendable` labelling function.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics
    /// The label of a request path (``MeasureServer/metricsLabel(forPath:)`` by default).
    var label: @Sendable (String) -> String = { MeasureServer.metricsLabel(forPath: $0) }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let clock = ContinuousClock()
        let start = clock.now
        let path = label(request.uri.path)
        metrics.requestStarted()
        defer { metrics.requestFinished() }
        do {
            let response = try await next(request, context)
            metrics.recordRequest(path: path, status: response.status.code, duration: clock.now - start)
            return response
        } catch {
            if Self.isConnectionLoss(error) {
                metrics.recordAborted(path: path)
            } else if error is HTTPParserError {
                // Answered and counted by the conformance handler; the router's answer is dropped.
            } else {
                let status = (error as? any HTTPResponseError)?.status.code ?? 500
                metrics.recordRequest(path: path, status: status, duration: clock.now - start)
            }
            throw error
        }
    }

    /// Whether `error`, thrown by a route, says that the request's connection ended before the request
    /// was read whole: NIO's decoder meeting the end of the input mid-request, a connection reset or
    /// closed. Nothing can be answered on it, so it is no answer's status.
    ///
    /// - Parameter error: What the route threw (its body reader's error, passed on).
    /// - Returns: Whether the request was cut off by its connection.
    /// - Complexity: O(1).
    static func isConnectionLoss(_ error: any Error) -> Bool {
        switch error {
        case HTTPParserError.invalidEOFState: true
        case let error as ChannelError: error == .eof || error == .ioOnClosedChannel || error == .alreadyClosed
            || error == .inputClosed || error == .outputClosed
        case is IOError: true
        default: false
        }
    }
}
