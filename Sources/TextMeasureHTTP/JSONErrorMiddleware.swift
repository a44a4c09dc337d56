import Hummingbird

/// Answers the errors the router throws (404 for a path it does not know, any other
/// `HTTPResponseError`) with the JSON shape of the endpoint's own errors, `{"error": "<why>"}`, instead
/// of an empty body; a known path asked with another method gets 405 with an `Allow` header listing
/// the methods it takes (`GET, HEAD` for a route of `GET`; the router itself answers 404 for it).
///
/// Thread safety: `Sendable`; it holds nothing.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            let path = request.uri.path
            if error.status == .notFound, let methods = MeasureServer.routes[path] {
                let names = methods.map(\.rawValue)
                var response = MeasureServer.json(405, MeasureEndpoint.error(
                    405, "\(path) takes \(names.joined(separator: " or ")), not \(request.method.rawValue)").body)
                response.headers[.allow] = names.joined(separator: ", ")
                return response
            }
            let message = error.status == .notFound ? "no such path: \(path)" : error.status.reasonPhrase
            var response = MeasureServer.json(error.status.code, MeasureEndpoint.error(error.status.code, message).body)
            // The error's own headers (a `Retry-After`, say), without those of the body it replaced.
            let original = try error.response(from: request, context: context)
            for field in original.headers where field.name != .contentType && field.name != .contentLength {
                response.headers.append(field)
            }
            return response
        }
    }
}
