import Hummingbird

/// Records every request's route, status and latency in ``ServerMetrics``, errors included (a 404
/// for an unknown path, a 413 thrown by the body reader), and counts it as in flight until its
/// response is made.
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
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.recordRequest(path: path, status: status, duration: clock.now - start)
            throw error
        }
    }
}
