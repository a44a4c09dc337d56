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
/// - a head the decoder cannot read gets the JSON 400 the endpoint uses, instead of an empty body,
///   after the answers owed to the requests before it;
/// - a body the decoder cannot read (chunk framing broken: a chunk size that is not hex, chunk data
///   longer than its size, no CR LF after it) ends the connection with one answer to its request:
///   the JSON 400 if the answer has not begun, else the answer already made (a route that answers
///   without reading the body), and nothing after it. The error still goes on to the router, whose
///   reader of the body must stop, but whatever the router writes for that request after it (its
///   route's answer, Hummingbird's empty 400 for the parser error) is dropped: without that, one
///   request got two answers;
/// - an HTTP/1.1 request with `Expect: 100-continue` and a body (a `Content-Length` above 0, or
///   chunked) that the router will read (``MeasureServer/readsBody(of:maximumBodyBytes:)``) gets
///   `HTTP/1.1 100 Continue` as soon as its head is accepted, or, when answers to requests before it
///   are still owed, as soon as they are written (an interim answer must not come before them); not
///   once its body has begun to arrive. Hummingbird sends none, and a client waits for it (curl for a
///   second) before it sends the body. A request refused here, and one the router answers from its
///   head alone (a `Content-Length` over the limit: 413; an unknown path: 404; another method: 405),
///   gets no `100 Continue`: its final answer says it all (RFC 9110 §10.1.1). Such a request's body
///   may never come, so the connection cannot tell where the next request starts: its answer says
///   `Connection: close`, and the connection closes after it;
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
    /// The server's body limit, for ``MeasureServer/readsBody(of:maximumBodyBytes:)``.
    private let maximumBodyBytes: Int
    /// The replies owed, oldest first: one per request head read and not yet answered.
    private var replies: [Reply] = []
    /// Whether the head of the answer to the first of ``replies`` has been written, and its end not yet.
    private var answerStarted = false
    /// The metrics label of the request being read (its head let through, its end not yet read); nil
    /// between requests. A decoder error while it is set is one in that request's body.
    private var readingPath: String?
    /// When the end of the last answer written through this handler is written to the socket: closing
    /// the channel before then would drop it.
    private var lastAnswerWritten: EventLoopFuture<Void>?
    /// Whether a request after which the connection closes has been read whole (or refused): what
    /// follows is not read.
    private var discardsInput = false
    /// Whether the request being read is the last one the connection reads.
    private var readingLastRequest = false
    /// Whether the last request in ``replies`` (the one being read) waits for `100 Continue` until
    /// the answers before it are written.
    private var owesContinue = false

    /// A handler counting its refusals in `metrics`, for a server whose body limit is `maximumBodyBytes`.
    init(metrics: ServerMetrics?, maximumBodyBytes: Int) {
        self.metrics = metrics
        self.maximumBodyBytes = maximumBodyBytes
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
            readingPath = path
            // A client waiting for `100 Continue` that will not come may never send the body: the
            // connection cannot be read past it.
            let expectsContinue = Self.expectsContinue(head)
            let asksForBody = expectsContinue && MeasureServer.readsBody(of: head, maximumBodyBytes: maximumBodyBytes)
            let keepsAlive = head.isKeepAlive && (asksForBody || !expectsContinue)
            replies.append(!keepsAlive ? .close : Self.isBefore11(head.version) ? .keepAlive : .asMade)
            readingLastRequest = !keepsAlive
            if asksForBody {
                if replies.count == 1 { writeContinue(context: context) } else { owesContinue = true }
            }
        case .body:
            owesContinue = false   // the client did not wait for it
        case .end:
            owesContinue = false
            readingPath = nil
            if readingLastRequest { stopReading(context: context) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard let reply = replies.first else {
            // Once the connection reads no more, every answer owed is written: what the router still
            // writes is a second answer to the request whose body could not be read (Hummingbird's 400
            // after its route's answer). Dropped, as done: failing the write would have Hummingbird
            // close the channel at once, perhaps before the answer is out.
            guard !discardsInput else {
                promise?.succeed()
                return
            }
            context.write(data, promise: promise)   // none expected: each request the router reads has a reply
            return
        }
        if case .refuse = reply {
            // The router's answer to a request refused here after its head went on (a body that could
            // not be read): the refusal is its answer.
            promise?.succeed()
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(var head):
            answerStarted = true
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
            answerStarted = false
            guard reply == .close else {
                let written = promise ?? context.eventLoop.makePromise()
                lastAnswerWritten = written.futureResult
                context.write(data, promise: written)
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
        let isDecoding = error is HTTPParserError || error is ByteToMessageDecoderError
        if discardsInput && isDecoding {
            // Bytes after the connection's last request (the decoder, failed once, fails at every read
            // after): not read, and nobody's to answer.
            return
        }
        guard let parserError = error as? HTTPParserError, !discardsInput else {
            context.fireErrorCaught(error)
            return
        }
        stopReading(context: context)
        guard let path = readingPath else {
            // A head the decoder could not read: the endpoint's JSON 400, after the answers owed.
            replies.append(.refuse(status: .badRequest, message: "not an HTTP/1 request: \(error)", path: "other"))
            if replies.count == 1 { refuse(context: context) }
            return
        }
        endRequest(at: path, failingWith: parserError, context: context)
        // The router's reader of the body stops; what the router answers after it is dropped (``write``).
        // Before the refusal is written: a refusal written at once closes the channel, and a reader that
        // saw the close first would take the body read so far for the whole one.
        context.fireErrorCaught(error)
        if replies.count == 1 { refuse(context: context) }
    }

    /// Ends the connection with one answer to the request being read, whose body the decoder could not
    /// read (`error`), or which ended with the client's input.
    ///
    /// - If its answer is written whole (a route that answers without reading the body), the
    ///   connection closes once that answer is out.
    /// - If its answer has begun, or the input ended (`invalidEOFState`: nothing malformed; the route's
    ///   reader counts the request as aborted, and the router's answer, if it can still make one, is
    ///   the one), that answer is the last, and the connection closes after it.
    /// - Otherwise its answer is the JSON 400, after the answers owed before it (the caller writes it
    ///   when none is).
    private func endRequest(at path: String, failingWith error: HTTPParserError, context: ChannelHandlerContext) {
        readingPath = nil
        guard !replies.isEmpty else {
            let channel = context.channel
            context.flush()
            if let lastAnswerWritten {
                lastAnswerWritten.whenComplete { _ in channel.close(promise: nil) }
            } else {
                channel.close(promise: nil)
            }
            return
        }
        if case .invalidEOFState = error {
            replies[replies.count - 1] = .close
        } else if replies.count == 1 && answerStarted {
            replies[0] = .close
        } else {
            replies[replies.count - 1] = .refuse(status: .badRequest, message: "malformed body: \(error)", path: path)
        }
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
        owesContinue = false   // no body will be read: the final answer comes instead
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
    /// - Parameters:
    ///   - metrics: Where refusals are counted.
    ///   - maximumBodyBytes: The server's body limit (``ServerLimits/maximumBodyBytes``).
    /// - Returns: The handler to add.
    static func placement(metrics: ServerMetrics?, maximumBodyBytes: Int) -> any RemovableChannelHandler {
        Placement(metrics: metrics, maximumBodyBytes: maximumBodyBytes)
    }

    private final class Placement: ChannelInboundHandler, RemovableChannelHandler {
        // A pipeline takes only inbound or outbound handlers; this one is gone before any data comes.
        typealias InboundIn = NIOAny
        let metrics: ServerMetrics?
        let maximumBodyBytes: Int

        init(metrics: ServerMetrics?, maximumBodyBytes: Int) {
            self.metrics = metrics
            self.maximumBodyBytes = maximumBodyBytes
        }

        func handlerAdded(context: ChannelHandlerContext) {
            let pipeline = context.pipeline.syncOperations
            do {
                let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                try pipeline.addHandler(HTTP1ConformanceHandler(metrics: metrics, maximumBodyBytes: maximumBodyBytes),
                                        position: .after(decoder))
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
