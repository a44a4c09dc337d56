import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#endif

/// Answers `POST /v1/measure` in the connection's pipeline, on its event loop, when every text of the
/// body is prepared and held in memory (``MeasureEndpoint/quickReply(to:)``): the status, headers,
/// body and metrics are the ones the route gives, made without a task, an async body stream, the
/// router or its middlewares, which together cost more than laying the texts out. Any other request,
/// and a measure request whose texts are not all held, goes on to the router as it came.
///
/// A request is taken only when it is `POST /v1/measure HTTP/1.1` exactly, keeps the connection
/// alive, has one `Host`, one `Content-Length` within ``ServerLimits/maximumBodyBytes`` and neither
/// `Transfer-Encoding` nor `Expect`, and no request before it on the connection is still waiting for
/// the router's answer (so that responses keep the order of requests). Its body is kept until its
/// end; then it is answered here, or handed on, head, body and end, as one request read whole. If the
/// connection closes or fails before the end, what was read is handed on, so that the router's
/// reader sees what it would have seen.
///
/// A ``WireMeasureHandler`` before NIO's decoder answers most such requests first, from their bytes,
/// with this handler's ``wireResponse(to:allocator:)``, when ``answersMayGoAhead``; what it leaves
/// (a request whose body comes in several reads, one written outside its strict subset) comes here.
///
/// It works on NIO's HTTP/1 parts, after ``IdleConnectionHandler`` (idle timeout, graceful shutdown),
/// which so sees every request and response, and before ``HTTP1ConformanceHandler`` and Hummingbird's
/// conversion to HTTP types, which the requests answered here skip both ways (see
/// ``MeasureHTTP1Channel``): a request taken is one the conformance handler would let through
/// unchanged, and once that handler stops reading the connection's requests (a refusal, the request
/// after which the connection closes: ``HTTP1ConformanceHandler/StopsReading``), or the decoder
/// fails, every request after is handed on, for it to leave unread.
///
/// Thread safety: not `Sendable`; a handler belongs to one channel and runs on its event loop.
final class QuickMeasureHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The request being read.
    private enum Reading {
        /// None, or one whose end has been read.
        case nothing
        /// A measure request taken: its head, the body so far, when its head came.
        case taken(HTTPRequestHead, body: ByteBuffer?, start: ContinuousClock.Instant)
        /// A request handed on as it comes.
        case handedOn
    }

    /// The endpoint answering.
    let endpoint: MeasureEndpoint
    private let metrics: ServerMetrics
    private let serverName: String?
    private var reading = Reading.nothing
    /// Requests handed on whose response has not been written whole.
    private var awaitedFromRouter = 0
    /// Whether every request from now on is handed on: the conformance handler stopped reading (a
    /// request handed on ends the connection) or the decoder failed, and no answer may follow.
    private(set) var handsOnAll = false
    /// Whether the next request is handed on without asking the endpoint: ``WireMeasureHandler`` asked
    /// it already, and its texts are not all held.
    private var handsOnNext = false
    /// The response head ``wireResponse(to:allocator:)`` writes, kept for its capacity.
    private var head: [UInt8] = []
    /// The status code ``statusLine(_:)`` made a line for last, and the line.
    private var lastStatusLine: (code: Int, bytes: [UInt8]) = (-1, [])
    /// The status code answered last, and the metrics of the route's requests answered with it.
    private var lastSeries: (code: Int, series: ServerMetrics.RequestSeries)?
    /// The `Date` value of the second ``dateSecond``.
    private var date = ""
    private var dateSecond: time_t = -1

    /// A handler answering with `endpoint`, counting in `metrics`, naming `serverName` in `Server`.
    init(endpoint: MeasureEndpoint, metrics: ServerMetrics, serverName: String?) {
        self.endpoint = endpoint
        self.metrics = metrics
        self.serverName = serverName
    }

    /// The route's path, and its metrics label.
    static let path = "/v1/measure"

    /// Whether a request with this head is one to take (see the type's discussion).
    func takes(_ head: HTTPRequestHead) -> Bool {
        guard !handsOnNext else {
            // The wire handler hands on the request it asked about next, before anything else.
            assert(head.method == .POST && head.uri == Self.path, "the wire handler's request comes next")
            handsOnNext = false
            return false
        }
        guard !handsOnAll, awaitedFromRouter == 0 else { return false }
        return endpoint.takesQuickly(head)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), reading) {
        case (.head(let head), _):
            guard takes(head) else {
                reading = .handedOn
                awaitedFromRouter += 1
                context.fireChannelRead(data)
                return
            }
            metrics.requestStarted()
            reading = .taken(head, body: nil, start: .now)
        case (.body(let part), .taken(let head, var body, let start)):
            reading = .nothing   // the body buffer is then held once, and grows in place
            if body == nil {
                body = part
            } else {
                var part = part
                body!.writeBuffer(&part)
            }
            reading = .taken(head, body: body, start: start)
        case (.end, .taken(let head, let body, let start)):
            reading = .nothing
            answer(head, body: body, start: start, context: context)
        case (.end, _):
            reading = .nothing
            context.fireChannelRead(data)
        case (.body, _):
            context.fireChannelRead(data)
        }
    }

    /// Whether a request may be answered now ahead of this handler, by ``WireMeasureHandler``, before
    /// NIO's decoder: no request is being read here or awaited from the router (the answer would
    /// overtake theirs), and the connection has not stopped reading requests (a refusal, the request
    /// that ends it, a decoder error).
    var answersMayGoAhead: Bool {
        guard !handsOnAll, awaitedFromRouter == 0, case .nothing = reading else { return false }
        return true
    }

    /// The response to a measure request whose body is `body`, whole on the wire (status line, header
    /// lines, body), with the bytes this handler and the route write, and its metrics counted; for
    /// ``WireMeasureHandler``, when ``answersMayGoAhead``. Nil when the texts are not all held: the
    /// request, handed on, then comes here and goes on to the router without this handler asking the
    /// endpoint again.
    ///
    /// - Parameters:
    ///   - body: The request's body.
    ///   - allocator: The channel's allocator.
    /// - Returns: The response's bytes, or nil.
    /// - Complexity: ``MeasureEndpoint/quickReply(to:)-(UnsafeBufferPointer<UInt8>)``'s.
    func wireResponse(to body: UnsafeRawBufferPointer, allocator: ByteBufferAllocator) -> ByteBuffer? {
        let start = ContinuousClock.now
        metrics.requestStarted()
        guard let reply = body.withMemoryRebound(to: UInt8.self, { endpoint.quickReply(to: $0) }) else {
            metrics.requestFinished()   // the router counts it from here
            handsOnNext = true
            return nil
        }
        metrics.recordItems(measured: reply.measured, failed: reply.failed)
        // What NIO's encoder writes for the head ``answer(_:body:start:context:)`` writes, made in an
        // array kept from one response to the next: two writes into the buffer (each checks its
        // capacity and that its storage is not shared), not one for each piece of the head. The array
        // is taken out of the handler while it is written (alone, it grows in place; a property would
        // be checked for exclusive access at every append).
        var head = self.head
        self.head = []
        defer { self.head = head }
        head.removeAll(keepingCapacity: true)
        head.append(contentsOf: statusLine(reply.status))
        headerLines(of: reply) { name, value in
            head.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            head.append(UInt8(ascii: ":"))
            head.append(UInt8(ascii: " "))
            var value = value
            value.withUTF8 { head.append(contentsOf: $0) }
            head.append(UInt8(ascii: "\r"))
            head.append(UInt8(ascii: "\n"))
        }
        head.append(UInt8(ascii: "\r"))
        head.append(UInt8(ascii: "\n"))
        var buffer = allocator.buffer(capacity: head.count + reply.bytes.count)
        buffer.writeBytes(head)
        buffer.writeBytes(reply.bytes)
        recordRequest(status: reply.status, duration: .now - start)
        metrics.requestFinished()
        return buffer
    }

    /// `HTTP/1.1 <code> <reason>` and CR LF, as NIO's encoder writes the status line for the status
    /// `code` (the route's status has no reason phrase of its own, so NIO writes its standard one); the
    /// last one made is kept.
    private func statusLine(_ code: Int) -> [UInt8] {
        if code != lastStatusLine.code {
            let status = HTTPResponseStatus(statusCode: code)
            lastStatusLine = (code, Array("HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n".utf8))
        }
        return lastStatusLine.bytes
    }

    /// Counts a measure request answered with `status` that took `duration`.
    private func recordRequest(status: Int, duration: Duration) {
        if lastSeries?.code != status {
            lastSeries = (status, metrics.requestSeries(path: Self.path, status: status))
        }
        lastSeries!.series.record(duration)
    }

    /// Answers a taken request read whole, or hands it on.
    private func answer(_ head: HTTPRequestHead, body: ByteBuffer?, start: ContinuousClock.Instant,
                        context: ChannelHandlerContext) {
        // Read where NIO holds the body, not copied into an array first.
        let quickReply = body.map { body in
            body.withUnsafeReadableBytes { $0.withMemoryRebound(to: UInt8.self) { endpoint.quickReply(to: $0) } }
        } ?? endpoint.quickReply(to: [])
        guard let reply = quickReply else {
            // The router counts it from here.
            metrics.requestFinished()
            handOn(head, body: body, context: context)
            context.fireChannelRead(wrapInboundOut(.end(nil)))
            return
        }
        metrics.recordItems(measured: reply.measured, failed: reply.failed)
        var headers = HTTPHeaders()
        headers.reserveCapacity(5)
        headerLines(of: reply) { headers.add(name: $0.description, value: $1) }
        // The status line as Hummingbird's conversion from HTTP types makes it: the route's status has
        // no reason phrase of its own, so NIO writes its standard one.
        let status = HTTPResponseStatus(statusCode: reply.status)
        var buffer = context.channel.allocator.buffer(capacity: reply.bytes.count)
        buffer.writeBytes(reply.bytes)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                      promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        recordRequest(status: reply.status, duration: .now - start)
        metrics.requestFinished()
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// The response's header lines, name and value, as Hummingbird writes the route's: its names, in its
    /// order. One list for both ways of answering, so that their bytes cannot drift apart.
    private func headerLines(of reply: MeasureEndpoint.Reply, _ line: (StaticString, String) -> Void) {
        line("Content-Type", "application/json")
        line("Content-Length", String(reply.bytes.count))
        line("Date", currentDate())
        if let serverName { line("Server", serverName) }
    }

    /// Hands a taken request's head, and its body so far, to the router.
    private func handOn(_ head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
        awaitedFromRouter += 1
        context.fireChannelRead(wrapInboundOut(.head(head)))
        if let body { context.fireChannelRead(wrapInboundOut(.body(body))) }
    }

    /// Hands on a request cut short, for the router's reader to see the close or the error after it.
    private func handOnUnfinished(context: ChannelHandlerContext) {
        guard case .taken(let head, let body, _) = reading else { return }
        reading = .handedOn
        metrics.requestFinished()
        handOn(head, body: body, context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        handOnUnfinished(context: context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The conformance handler may refuse the connection for this error.
        handsOnAll = true
        handOnUnfinished(context: context)
        context.fireErrorCaught(error)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if event is HTTP1ConformanceHandler.StopsReading { handsOnAll = true }
        context.triggerUserOutboundEvent(event, promise: promise)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), awaitedFromRouter > 0 { awaitedFromRouter -= 1 }
        context.write(data, promise: promise)
    }

    /// The `Date` header's value now (RFC 9110's IMF-fixdate), made once a second.
    private func currentDate() -> String {
        let now = time(nil)
        if now != dateSecond {
            dateSecond = now
            date = Self.imfFixdate(now)
        }
        return date
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` for the time `seconds`.
    static func imfFixdate(_ seconds: time_t) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
