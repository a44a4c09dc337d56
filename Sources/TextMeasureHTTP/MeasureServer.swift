import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import TextMeasure
import TextMeasureBatch

/// The `textmeasure serve` HTTP application: heights over HTTP with Hummingbird.
///
/// Routes:
/// - `POST /v1/measure`: one batch item or an array of them (see ``MeasureEndpoint``);
/// - `GET /healthz`: `{"status":"ok"}` while the server runs;
/// - `GET /metrics`: Prometheus text format (see ``ServerMetrics``);
/// - `HEAD` of `/healthz` and `/metrics`: the status and headers `GET` gives, no body;
/// - `GET` and `HEAD` of the files of its ``staticFolders`` (`textmeasure serve`: the web demo under
///   `/demo/`, the bundled fonts under `/fonts/`), with caching headers (``StaticFilesMiddleware``).
///
/// Errors are JSON (`{"error": "<why>"}`): 400 for a body that is not a JSON object or array, 413 for a
/// body over ``ServerLimits/maximumBodyBytes``, too many items or too long a text, 404 for an unknown
/// path, 405 for a known one asked with another method (``JSONErrorMiddleware``), and 400 or 501 for a
/// request head that breaks RFC 9112, 400 for a body whose chunked framing is broken
/// (``HTTP1ConformanceHandler``). A request with `Expect: 100-continue` gets `100 Continue` only when
/// its body will be read (``readsBody(of:maximumBodyBytes:)``).
///
/// Connections: at most ``ServerLimits/maximumConnections`` are held (``ConnectionLimitHandler``); one
/// that has sent no complete request head, or no part of a request, for the idle timeout is closed
/// (``IdleConnectionHandler`` counts time from the last HTTP part read, and partial head bytes are
/// none), so slow clients cannot hold connections for long either. A connection whose written answers
/// wait unread is not read until they drain (``MeasureHTTP1Channel``), and is closed once they have
/// waited for the idle timeout without draining: a client that pipelines requests without reading
/// the answers costs the server the channel's high-water mark and one read's answers, not all of them.
/// At graceful shutdown, a connection is closed once the requests read from it are answered, and at
/// the end of the grace period (``BoundedShutdown``) whatever it still holds.
///
/// Shaping never runs on an event loop or a cooperative-pool thread: a measure request whose items'
/// texts are all prepared and held (``MeasureEndpoint/quickReply(to:)``) is answered in the connection's
/// pipeline, layout alone, by a ``QuickMeasureHandler``, with the bytes, headers and metrics the route
/// would give (by a ``WireMeasureHandler`` from the bytes read, before HTTP parsing, when the request
/// is written plainly and arrives whole); any other goes through the router, and is measured on a
/// Dispatch worker while the handler awaits the result (``MeasuringQueue``; not at all if shutdown's
/// grace period ends first). A slow client (a body trickling in) only holds its own connection; a
/// malformed one gets its 4xx without any measuring.
///
/// ```swift
/// let server = MeasureServer(processor: BatchProcessor(measurer: try TextMeasurer(), style: TextStyle(size: 17),
///                                                      preparedTexts: 1_000))
/// try await BoundedShutdown(gracePeriod: .seconds(10))
///     .run(server.application(host: "127.0.0.1", port: 8080), logger: Logger(label: "serve"))   // until SIGTERM or SIGINT
/// ```
///
/// Thread safety: `Sendable`; every route may run on any number of connections at once.
package struct MeasureServer: Sendable {
    /// Items go through its processor.
    package let endpoint: MeasureEndpoint
    /// The server's metrics.
    package let metrics: ServerMetrics
    /// Folders whose files are served under their URL prefixes (none by default).
    package let staticFolders: [StaticFolder]
    /// Measures what needs shaping, off the event loops and the cooperative pool.
    private let measuring: MeasuringQueue

    /// A server measuring with `processor` within `limits`.
    ///
    /// - Parameters:
    ///   - processor: measures each item; its style is the default for items without `"size"`/`"maxLines"`.
    ///   - limits: body size, items per request, text length.
    ///   - staticFolders: folders whose files are served, each under its prefix (the first whose prefix
    ///     covers a path answers it).
    package init(processor: BatchProcessor, limits: ServerLimits = ServerLimits(), staticFolders: [StaticFolder] = []) {
        endpoint = MeasureEndpoint(processor: processor, limits: limits)
        measuring = MeasuringQueue(endpoint: endpoint)
        metrics = ServerMetrics(processor: processor)
        self.staticFolders = staticFolders
    }

    /// The `Server` header's value.
    static let serverName = "textmeasure"

    /// The listening socket's queue of connections the kernel has completed and the server not yet
    /// accepted (the kernel caps it at `net.core.somaxconn`). Hummingbird's 256 is too short for a
    /// burst: once it is full, the kernel drops the next connections' SYNs, and each of those clients
    /// waits out the retransmissions (a second, then two more, four…) before the server sees it. A
    /// queued one is accepted, and answered or closed past the connection limit, as soon as the
    /// server gets to it; it costs the kernel a socket, not the server's memory.
    static let backlog = 4_096

    /// The routes and the methods each takes: for the metrics' path labels and 405's `Allow`. A route
    /// that takes `GET` takes `HEAD` too (RFC 9110 §9.3.2): the same status and headers, no body.
    static let routes: [String: [HTTPRequest.Method]] = [
        "/v1/measure": [.post], "/healthz": [.get, .head], "/metrics": [.get, .head],
    ]

    /// The path label of a request to `path`: the route, or `other` for a path no route has (so that a
    /// scanner trying paths cannot grow the metrics' labels without bound).
    static func metricsLabel(forPath path: String) -> String {
        routes[path] == nil ? "other" : path
    }

    /// The router with the three routes, the static folders, the metrics middleware and JSON errors.
    ///
    /// - Returns: a router ready for ``application(host:port:idleTimeout:logger:onServerRunning:)``.
    package func router() -> Router<BasicRequestContext> {
        let router = Router()
        let folders = staticFolders
        // A static folder's files share its prefix as their label.
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics) { path in
            folders.first { $0.covers(path) }?.prefix ?? Self.metricsLabel(forPath: path)
        })
        router.add(middleware: JSONErrorMiddleware())
        if !staticFolders.isEmpty { router.add(middleware: StaticFilesMiddleware(folders: staticFolders)) }
        let health = { @Sendable in Self.json(200, "{\"status\":\"ok\"}") }
        let exposition = { @Sendable [metrics] in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
        router.get("healthz") { _, _ in health() }
        router.head("healthz") { _, _ in Self.withoutBody(health()) }
        router.get("metrics") { _, _ in exposition() }
        router.head("metrics") { _, _ in Self.withoutBody(exposition()) }
        router.post("v1/measure") { request, _ in try await measure(request) }
        return router
    }

    /// The Hummingbird application on `host:port` (port 0: any free port; `onServerRunning` tells which).
    ///
    /// - Parameters:
    ///   - host: the address to bind (a loopback address by default in the command).
    ///   - port: the port; 0 picks a free one.
    ///   - idleTimeout: how long a connection is kept open with no HTTP part read from it (a complete
    ///     request head, a piece of body) while no request of it is being answered, or with its written
    ///     answers waiting unread.
    ///   - logger: the server's logger.
    ///   - onServerRunning: called with the bound port once the server accepts connections.
    /// - Returns: an application; ``BoundedShutdown/run(_:logger:)`` runs it until SIGTERM or SIGINT,
    ///   then lets in-flight requests finish within a grace period (swift-service-lifecycle's graceful
    ///   shutdown) and closes the connections left; `runService()` waits for them without a bound.
    package func application(host: String, port: Int, idleTimeout: Duration = .seconds(60),
                             logger: Logger = Logger(label: "textmeasure-serve"),
                             onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let (seconds, attoseconds) = idleTimeout.components
        let timeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        let metrics = self.metrics
        let endpoint = self.endpoint
        let maximumConnections = endpoint.limits.maximumConnections
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [HTTP1ConformanceHandler.placement(
                metrics: metrics, maximumBodyBytes: endpoint.limits.maximumBodyBytes)],
            idleTimeout: timeout)
        return Application(
            router: router(),
            server: HTTPServerBuilder { responder in
                MeasureHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: configuration)) {
                    QuickMeasureHandler(endpoint: endpoint, metrics: metrics, serverName: Self.serverName)
                }
            },
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: Self.serverName,
                                                    backlog: Self.backlog),
            onServerRunning: { channel in
                // First on the listening channel, before the handlers that set each connection up. (Hummingbird
                // offers no hook before it binds; nothing can connect before the port is known.)
                try? await channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.addHandler(
                        ConnectionLimitHandler(maximum: maximumConnections, metrics: metrics), position: .first)
                }.get()
                metrics.setListening(true)
                channel.closeFuture.whenComplete { _ in metrics.setListening(false) }
                await onServerRunning(channel.localAddress?.port ?? port)
            },
            logger: logger)
    }

    private func measure(_ request: Request) async throws -> Response {
        let limit = endpoint.limits.maximumBodyBytes
        let tooLarge = "the body is larger than \(limit) bytes"
        if Self.declaresBodyOverLimit(request.headers[.contentLength], maximumBodyBytes: limit) {
            return Self.json(413, MeasureEndpoint.error(413, tooLarge).body)
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            return Self.json(413, MeasureEndpoint.error(413, tooLarge).body)
        }
        let body = Array(buffer.readableBytesView)
        // Held texts are laid out here, where the request was read: arithmetic, a few microseconds an
        // item, cheaper than two hops between threads. Anything to shape (or to look up in the store)
        // goes off the event loops and the cooperative pool: a request of many long texts takes
        // milliseconds.
        let reply: MeasureEndpoint.Reply
        if let quick = endpoint.quickReply(to: body) {
            reply = quick
        } else {
            reply = await measuring.reply(to: body)
        }
        metrics.recordItems(measured: reply.measured, failed: reply.failed)
        return Self.json(reply.status, bytes: reply.bytes)
    }

    /// The answer to `HEAD`: `response`'s status and headers, with the `Content-Length` of its body,
    /// and no body (RFC 9110 §9.3.2).
    static func withoutBody(_ response: Response) -> Response {
        var headers = response.headers
        if headers[.contentLength] == nil, let length = response.body.contentLength {
            headers[.contentLength] = String(length)
        }
        return Response(status: response.status, headers: headers)
    }

    static func json(_ status: Int, bytes: [UInt8]) -> Response {
        json(status, buffer: ByteBuffer(bytes: bytes))
    }

    static func json(_ status: Int, _ body: String) -> Response {
        json(status, buffer: ByteBuffer(string: body))
    }

    private static func json(_ status: Int, buffer: ByteBuffer) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: buffer))
    }
}
