import NIOCore
import NIOHTTP1
import TextMeasureBatch

/// Holds each HTTP/1 request to the rules of RFC 9112 that NIO's decoder leaves to the server, on the
/// request head as sent, before Hummingbird turns it into an `HTTPRequest` (which keeps neither the
/// version nor a second `Host` line):
///
/// - a request with more than one `Host` line, or an HTTP/1.1 one without `Host`, is answered 400
///   (§3.2);
/// - a `Transfer-Encoding` other than `chunked` alone is answered 501 when `chunked` is last (the other
///   codings are not implemented: the body would be read still encoded) and 400 otherwise (§6.1:
///   the body's length cannot be known);
/// - a request without keep-alive (HTTP/1.0 without `Connection: keep-alive`, or `Connection: close`)
///   gets `Connection: close` on its response, and the connection is closed once the response is
///   written; an HTTP/1.0 request with keep-alive gets `Connection: keep-alive`, which an HTTP/1.0
///   client needs to keep the connection. Responses say `HTTP/1.1`, the server's version, as RFC 9110
///   §6.2 asks of a server whatever the request's minor version;
/// - a head the decoder cannot read gets the JSON 400 the endpoint uses, instead of an empty body;
/// - an HTTP/1.1 request with `Expect: 100-continue` and a body (a `Content-Length` above 0, or
///   chunked) gets `HTTP/1.1 100 Continue` as soon as its head is accepted, or, when answers to
///   requests before it are still owed, as soon as they are written (an interim answer must not come
///   before them); not once its body has begun to arrive, and never to a request refused here, whose
///   final answer says it all (RFC 9110 §10.1.1). Hummingbird sends none, and a client waits for it
///   (curl for a second) before it sends the body.
///
/// A refused request is answered here, as `{"error": "<why>"}` with `Connection: close`, and never
/// reaches the routes; the connection is closed after it, and what follows on it is not read (its
/// framing cannot be trusted). Responses keep the order of requests: a refusal waits for the answers to
/// the requests before it on the connection.
///
/// It sits between NIO's HTTP/1 decoder and Hummingbird's conversion to HTTP types (see
/// ``placement(metrics:)``).
///
/// Thread safety: not `Sendable`; a handler belongs to one channel and runs on its event loop.
final class HTTP1ConformanceHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// How the response to one request is sent.
    enum Reply: Equatable {
        /// As the routes make it.
        case asMade
        /// With `Connection: keep-alive` (an HTTP/1.0 request that asked for it).
        case keepAlive
        /// With `Connection: close`, then the connection closed.
        case close
        /// A refusal made here (the request never reached the routes), then the connection closed.
        case refuse(status: HTTPResponseStatus, message: String, path: String)
    }

    /// Sent toward the socket (an outbound user event) when the handler stops reading the connection's
    /// requests: at a refusal, and once the request after which the connection closes is read. The
    /// handlers before it, which see every request first, then count no more of them: none will be
    /// answered (``IdleConnectionHandler``), and none may be answered elsewhere after the one that
    /// ends the connection (``QuickMeasureHandler``).
    struct StopsReading: Sendable {}

    private let metrics: ServerMetrics?
    /// The replies owed, oldest first: one per request head read and not yet answered.
    private var replies: [Reply] = []
    /// Whether a request after which the connection closes has been read whole (or refused): what
    /// follows is not read.
    private var discardsInput = false
    /// Whether the request being read is the last one the connection reads.
    private var readingLastRequest = false
    /// Whether the last request in ``replies`` (the one being read) waits for `100 Continue` until
    /// the answers before it are written.
    private var owesContinue = false

    /// A handler counting its refusals in `metrics`.
    init(metrics: ServerMetrics?) {
        self.metrics = metrics
    }

    /// The reason to refuse a request with this head, if any.
    ///
    /// - Parameter head: The request head as decoded.
    /// - Returns: The status and message of the refusal; nil for a head that may go on.
    /// - Complexity: O(*h*) in the head's header lines.
    static func refusal(of head: HTTPRequestHead) -> (status: HTTPResponseStatus, message: String)? {
        let hosts = head.headers["host"].count
        if hosts > 1 {
            return (.badRequest, "\(hosts) Host header lines: a request has exactly one")
        }
        if hosts == 0 && !isBefore11(head.version) {
            return (.badRequest, "no Host header: an HTTP/1.1 request has one")
        }
        let codings = head.headers["transfer-encoding"].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingSpaces.lowercased() }
        if !codings.isEmpty && codings != ["chunked"] {
            guard codings.last == "chunked" else {
                return (.badRequest, "Transfer-Encoding \(codings.joined(separator: ", ")): chunked must come last")
            }
            let others = codings.dropLast().joined(separator: ", ")
            return (.notImplemented, "Transfer-Encoding \(others) is not supported: send the body chunked alone")
        }
        return nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !discardsInput else { return }
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            let path = MeasureServer.metricsLabel(forPath: String(head.uri.prefix { $0 != "?" }))
            if let (status, message) = Self.refusal(of: head) {
                stopReading(context: context)
                replies.append(.refuse(status: status, message: message, path: path))
                if replies.count == 1 { refuse(context: context) }
                return
            }
            let keepsAlive = head.isKeepAlive
            replies.append(!keepsAlive ? .close : Self.isBefore11(head.version) ? .keepAlive : .asMade)
            readingLastRequest = !keepsAlive
            if Self.expectsContinue(head) {
                if replies.count == 1 { writeContinue(context: context) } else { owesContinue = true }
            }
        case .body:
            owesContinue = false   // the client did not wait for it
        case .end:
            owesContinue = false
            if readingLastRequest { stopReading(context: context) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // A response with no request of its own (Hummingbird's answer to a decoding error) goes as it is.
        guard let reply = replies.first else {
            context.write(data, promise: promise)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(var head):
            switch reply {
            case .close: head.headers.replaceOrAdd(name: "connection", value: "close")
            case .keepAlive: head.headers.replaceOrAdd(name: "connection", value: "keep-alive")
            case .asMade, .refuse: break
            }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            replies.removeFirst()
            guard reply == .close else {
                context.write(data, promise: promise)
                // The next reply may be a refusal that waited for this one, or the request being read
                // may wait for its `100 Continue`.
                if case .refuse? = replies.first { refuse(context: context) }
                if owesContinue && replies.count == 1 {
                    owesContinue = false
                    writeContinue(context: context)
                }
                return
            }
            let written = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(data, promise: written)
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            written.futureResult.cascade(to: promise)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A head the decoder could not read, with nothing else owed: the endpoint's JSON 400. (Mid-request,
        // the request's own reader gets the error.)
        guard error is HTTPParserError, replies.isEmpty, !discardsInput else {
            context.fireErrorCaught(error)
            return
        }
        stopReading(context: context)
        replies.append(.refuse(status: .badRequest, message: "not an HTTP/1 request: \(error)", path: "other"))
        refuse(context: context)
    }

    /// Whether a request with this head asks for `100 Continue` before it sends its body: HTTP/1.1 or
    /// later (an HTTP/1.0 client's expectation is ignored, RFC 9110 §10.1.1), `Expect: 100-continue`
    /// (any case), and a body to come.
    ///
    /// - Parameter head: The request head as decoded, let through by ``refusal(of:)``.
    /// - Returns: Whether to answer `100 Continue`.
    /// - Complexity: O(*h*) in the head's header lines.
    static func expectsContinue(_ head: HTTPRequestHead) -> Bool {
        guard !isBefore11(head.version),
              head.headers["expect"].contains(where: { Substring($0).trimmingSpaces.lowercased() == "100-continue" })
        else { return false }
        if head.headers.contains(name: "transfer-encoding") { return true }
        return head.headers["content-length"].contains { Int(Substring($0).trimmingSpaces).map { $0 > 0 } ?? false }
    }

    /// Writes `HTTP/1.1 100 Continue`: an interim answer, before the final one of the request being read.
    private func writeContinue(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .continue))), promise: nil)
    }

    /// Reads nothing more from the connection, and says so to the handlers before this one.
    private func stopReading(context: ChannelHandlerContext) {
        discardsInput = true
        context.triggerUserOutboundEvent(StopsReading(), promise: nil)
    }

    /// Writes the refusal at the head of ``replies``, then closes the connection.
    private func refuse(context: ChannelHandlerContext) {
        guard case .refuse(let status, let message, let path)? = replies.first else { return }
        metrics?.recordRefusal(path: path, status: Int(status.code))
        let body = MeasureEndpoint.error(Int(status.code), message).body
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: String(body.utf8.count))
        headers.add(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                      promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Whether `version` is HTTP/1.0 or older (`HTTPVersion` is not `Comparable`).
    static func isBefore11(_ version: HTTPVersion) -> Bool {
        version.major < 1 || (version.major == 1 && version.minor < 1)
    }

    /// A handler for Hummingbird's `additionalChannelHandlers`, which go after its conversion to HTTP
    /// types: once in the pipeline it puts an ``HTTP1ConformanceHandler`` right after NIO's decoder,
    /// where the heads are still HTTP/1's, and takes itself out. A connection whose pipeline has no
    /// such decoder is closed: it would go unchecked.
    ///
    /// - Parameter metrics: Where refusals are counted.
    /// - Returns: The handler to add.
    static func placement(metrics: ServerMetrics?) -> any RemovableChannelHandler {
        Placement(metrics: metrics)
    }

    private final class Placement: ChannelInboundHandler, RemovableChannelHandler {
        // A pipeline takes only inbound or outbound handlers; this one is gone before any data comes.
        typealias InboundIn = NIOAny
        let metrics: ServerMetrics?

        init(metrics: ServerMetrics?) {
            self.metrics = metrics
        }

        func handlerAdded(context: ChannelHandlerContext) {
            let pipeline = context.pipeline.syncOperations
            do {
                let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                try pipeline.addHandler(HTTP1ConformanceHandler(metrics: metrics), position: .after(decoder))
                pipeline.removeHandler(context: context, promise: nil)
            } catch {
                context.close(promise: nil)
            }
        }
    }
}

private extension Substring {
    /// Without the spaces and tabs around it (optional white space, RFC 9110 §5.6.3).
    var trimmingSpaces: Substring {
        var trimmed = self
        while let first = trimmed.first, first == " " || first == "\t" { trimmed.removeFirst() }
        while let last = trimmed.last, last == " " || last == "\t" { trimmed.removeLast() }
        return trimmed
    }
}
