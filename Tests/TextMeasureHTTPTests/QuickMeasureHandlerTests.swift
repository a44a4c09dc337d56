import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
import TextMeasure
import TextMeasureBatch
@testable import TextMeasureHTTP

#if canImport(Glibc)
import Glibc
#endif

/// The quick handler alone in a channel the test drives: what it answers itself, what it hands on to
/// the router, and in which order.
@Suite("textmeasure serve: quick measure handler")
struct QuickMeasureHandlerTests {
    let endpoint = MeasureEndpoint(processor: MeasureServerTests.processor(), limits: ServerLimits(maximumBodyBytes: 1_000))
    let held = #"[{"id":1,"text":"Hello","width":50},{"text":"Hello","width":0}]"#

    func channel() throws -> (EmbeddedChannel, ServerMetrics) {
        let metrics = ServerMetrics(processor: endpoint.processor)
        let channel = EmbeddedChannel(handler: QuickMeasureHandler(endpoint: endpoint, metrics: metrics, serverName: "textmeasure"))
        return (channel, metrics)
    }

    static func head(_ body: String, method: HTTPMethod = .POST, path: String = "/v1/measure",
                     fields: [(String, String)]? = nil) -> HTTPServerRequestPart {
        let fields = fields ?? [("Content-Length", String(body.utf8.count))]
        return .head(HTTPRequestHead(version: .http1_1, method: method, uri: path,
                                     headers: HTTPHeaders([("Host", "x")] + fields)))
    }

    /// Sends a request whole, its body in two parts.
    static func send(_ body: String, to channel: EmbeddedChannel, head: HTTPServerRequestPart? = nil) throws {
        try channel.writeInbound(head ?? Self.head(body))
        let bytes = Array(body.utf8)
        for part in [bytes.prefix(bytes.count / 2), bytes.dropFirst(bytes.count / 2)] where !part.isEmpty {
            try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(bytes: part)))
        }
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
    }

    /// The parts the handler passed on to the router.
    static func handedOn(_ channel: EmbeddedChannel) throws -> [HTTPServerRequestPart] {
        var parts: [HTTPServerRequestPart] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) { parts.append(part) }
        return parts
    }

    /// The response the handler wrote: status, fields, body.
    static func response(_ channel: EmbeddedChannel) throws -> (HTTPResponseHead, String)? {
        guard case .head(let head)? = try channel.readOutbound(as: HTTPServerResponsePart.self) else { return nil }
        guard case .body(.byteBuffer(let body))? = try channel.readOutbound(as: HTTPServerResponsePart.self),
              case .end(nil)? = try channel.readOutbound(as: HTTPServerResponsePart.self) else { return nil }
        return (head, String(buffer: body))
    }

    @Test func answersHeldTextsAsTheEndpoint() throws {
        _ = endpoint.respond(to: Array(held.utf8))   // "Hello" prepared and held
        let (channel, metrics) = try channel()
        try Self.send(held, to: channel)
        #expect(try Self.handedOn(channel).isEmpty)
        let (head, body) = try #require(try Self.response(channel))
        let expected = endpoint.respond(to: Array(held.utf8))
        #expect(Int(head.status.code) == expected.status && body == expected.body)
        #expect(head.version == .http1_1)
        #expect(head.headers["content-type"] == ["application/json"])
        #expect(head.headers["content-length"] == [String(expected.bytes.count)])
        #expect(head.headers["server"] == ["textmeasure"])
        #expect(head.headers["date"].first?.wholeMatch(of: /[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT/) != nil)
        #expect(head.headers.map(\.name) == ["Content-Type", "Content-Length", "Date", "Server"])
        #expect(metrics.activity.requestsInFlight == 0)
        let exposition = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(exposition.contains(#"textmeasure_http_requests_total{path="/v1/measure",status="200"} 1"#))
        #expect(exposition.contains("textmeasure_items_measured_total 1"))
        #expect(exposition.contains("textmeasure_item_errors_total 1"))
        _ = try channel.finish()
    }

    @Test func handsOnTextsNotHeldWhole() throws {
        let (channel, metrics) = try channel()
        let body = #"{"text":"not held here","width":50}"#
        try Self.send(body, to: channel)
        let parts = try Self.handedOn(channel)
        #expect(parts.count == 3)
        guard case .head(let head) = parts[0], case .body(let bytes) = parts[1], case .end(nil) = parts[2] else {
            Issue.record("not head, body, end: \(parts)")
            return
        }
        #expect(head.uri == "/v1/measure" && String(buffer: bytes) == body)
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
        #expect(metrics.activity.requestsInFlight == 0)   // the router counts it from here
        _ = try channel.finish()
    }

    /// Other requests go on as they come; and while the router owes an answer, so does every request,
    /// so that answers keep the requests' order.
    @Test func leavesOtherRequestsAndKeepsTheOrder() throws {
        _ = endpoint.respond(to: Array(held.utf8))
        let (channel, _) = try channel()
        let others: [HTTPServerRequestPart] = [
            Self.head(held, path: "/v1/measure?x"), Self.head(held, method: .GET),
            Self.head(held, fields: [("Content-Length", "2000")]), Self.head(held, fields: [("Transfer-Encoding", "chunked")]),
            Self.head(held, fields: [("content-length", String(held.utf8.count)), ("EXPECT", "100-continue")]),
            Self.head(held, fields: [("Content-Length", String(held.utf8.count)), ("Content-Length", String(held.utf8.count))]),
        ]
        for head in others {
            try Self.send(held, to: channel, head: head)
            #expect(try Self.handedOn(channel).count == 4)   // head, two body parts, end: as they came
        }
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
        // Six answers owed by the router: a measure request now goes on too.
        try Self.send(held, to: channel)
        #expect(try Self.handedOn(channel).count == 4)
        for _ in 0..<7 {
            try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
            try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        }
        while try channel.readOutbound(as: HTTPServerResponsePart.self) != nil {}
        // All answered: answered here again.
        try Self.send(held, to: channel)
        #expect(try Self.handedOn(channel).isEmpty)
        #expect(try Self.response(channel) != nil)
        _ = try channel.finish()
    }

    /// Once the conformance handler stops reading (it refused a request handed on, or one closes the
    /// connection), or the decoder fails, nothing is answered here any more: no answer may follow the
    /// one that ends the connection.
    @Test func handsOnEverythingOnceTheConnectionEnds() throws {
        _ = endpoint.respond(to: Array(held.utf8))
        struct Broken: Error {}
        for ending in ["stops reading", "decoder error"] {
            let (channel, _) = try channel()
            try Self.send(held, to: channel)
            #expect(try Self.response(channel) != nil, "\(ending)")
            if ending == "stops reading" {
                channel.pipeline.triggerUserOutboundEvent(HTTP1ConformanceHandler.StopsReading(), promise: nil)
            } else {
                channel.pipeline.fireErrorCaught(Broken())
                #expect(throws: Broken.self) { try channel.throwIfErrorCaught() }
            }
            try Self.send(held, to: channel)
            #expect(try Self.handedOn(channel).count == 4, "\(ending)")
            #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil, "\(ending)")
            _ = try? channel.finish()
        }
    }

    /// A request cut short is handed on as read, so that the router's reader sees the close.
    @Test func handsOnARequestCutShort() throws {
        let (channel, metrics) = try channel()
        try channel.writeInbound(Self.head(held))
        try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: String(held.prefix(10)))))
        #expect(metrics.activity.requestsInFlight == 1)
        #expect(try Self.handedOn(channel).isEmpty)
        channel.pipeline.fireChannelInactive()
        let parts = try Self.handedOn(channel)
        #expect(parts.count == 2)
        if case .body(let bytes)? = parts.last { #expect(String(buffer: bytes) == String(held.prefix(10))) }
        #expect(metrics.activity.requestsInFlight == 0)
        _ = try? channel.finish()
    }

    /// NIO's HTTP/1 codec, the conformance, idle, quick and (unless `answersOnTheWire` is false) wire
    /// handlers, in the order ``MeasureHTTP1Channel`` sets them up; the test plays the router, reading
    /// requests handed on at the tail and writing their responses.
    static func wire(endpoint: MeasureEndpoint, metrics: ServerMetrics, idleTimeout: TimeAmount? = nil,
                     answersOnTheWire: Bool = true) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        let pipeline = channel.pipeline.syncOperations
        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false,
                                                 withOutboundHeaderValidation: false)
        let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        try pipeline.addHandler(HTTP1ConformanceHandler(metrics: metrics, maximumBodyBytes: endpoint.limits.maximumBodyBytes),
                                position: .after(decoder))
        try MeasureHTTP1Channel.addHandlers(
            to: pipeline, idleTimeout: idleTimeout,
            quick: QuickMeasureHandler(endpoint: endpoint, metrics: metrics, serverName: "textmeasure"),
            answersOnTheWire: answersOnTheWire)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 80)).wait()
        return channel
    }

    /// Counts the reads asked of the socket.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = NIOAny
        var reads = 0

        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    /// The pipeline as set up holds the reads asked for while the channel is not writable, and makes
    /// the one asked for meanwhile once it is writable again. (What that does for a client that reads
    /// no answers: ``MeasureServerTests/aClientThatDoesNotReadIsNotReadWithoutEnd()``.)
    @Test(arguments: [true, false]) func noReadsWhileAnswersWait(answersOnTheWire: Bool) throws {
        let metrics = ServerMetrics(processor: endpoint.processor)
        let channel = try Self.wire(endpoint: endpoint, metrics: metrics, answersOnTheWire: answersOnTheWire)
        let counter = ReadCounter()
        try channel.pipeline.syncOperations.addHandler(counter, position: .first)
        channel.read()
        #expect(counter.reads == 1)
        IdleConnectionHandlerTests.setWritable(false, channel)
        channel.read()
        channel.read()
        #expect(counter.reads == 1)
        IdleConnectionHandlerTests.setWritable(true, channel)
        #expect(counter.reads == 2)
        channel.read()
        #expect(counter.reads == 3)
        _ = try? channel.finish()
    }

    /// A request's bytes on the wire.
    static func request(_ body: String, target: String = "/v1/measure", version: String = "HTTP/1.1",
                        fields: String = "") -> String {
        "POST \(target) \(version)\r\nHost: x\r\n\(fields)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// The bytes written to the socket so far.
    static func written(_ channel: EmbeddedChannel) throws -> String {
        var out = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            if case .byteBuffer(let buffer) = data { out += String(buffer: buffer) }
        }
        return out
    }

    /// The request heads handed on to the router so far.
    static func headsHandedOn(_ channel: EmbeddedChannel) throws -> [String] {
        var uris: [String] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) {
            if case .head(let head) = part { uris.append(head.uri) }
        }
        return uris
    }

    /// On the wire: the response's header lines as the route's (the byte-for-byte comparison with the
    /// router is ``MeasureServerTests/quickAnswersAreTheRoutesByteForByte()``). A request that is not
    /// HTTP/1.1 kept alive goes to the router, and gets `Connection` as it asked from the conformance
    /// handler; the quick handler answers again once the router has.
    @Test(arguments: [true, false]) func answersOnTheWireWithTheConnectionAsked(answersOnTheWire: Bool) throws {
        let expected = endpoint.respond(to: Array(held.utf8))
        let metrics = ServerMetrics(processor: endpoint.processor)
        let channel = try Self.wire(endpoint: endpoint, metrics: metrics, answersOnTheWire: answersOnTheWire)
        try channel.writeInbound(ByteBuffer(string: Self.request(held)))
        let reply = try Self.written(channel)
        #expect(reply.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(expected.bytes.count)\r\nDate: "))
        #expect(reply.hasSuffix("\r\nServer: textmeasure\r\n\r\n" + expected.body))
        #expect(try Self.headsHandedOn(channel).isEmpty)

        // The router plays its part: a response of `body`.
        func route(_ body: String) throws {
            try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(
                version: .http1_1, status: .ok, headers: ["Content-Length": String(body.utf8.count)])))
            try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body))))
            try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        }
        // HTTP/1.0 asking for keep-alive: routed, told so, and kept; then answered here again.
        try channel.writeInbound(ByteBuffer(string: Self.request(held, version: "HTTP/1.0", fields: "Connection: keep-alive\r\n")))
        #expect(try Self.headsHandedOn(channel) == ["/v1/measure"])
        try route("routed")
        #expect(try Self.written(channel).hasSuffix("\r\nconnection: keep-alive\r\n\r\nrouted"))
        #expect(channel.isActive)
        try channel.writeInbound(ByteBuffer(string: Self.request(held)))
        #expect(try Self.written(channel).hasSuffix("\r\nServer: textmeasure\r\n\r\n" + expected.body))
        #expect(try Self.headsHandedOn(channel).isEmpty)

        // `Connection: close`: routed, said, and the connection closed after the response.
        try channel.writeInbound(ByteBuffer(string: Self.request(held, fields: "Connection: close\r\n")))
        #expect(try Self.headsHandedOn(channel) == ["/v1/measure"])
        try route("closing")
        #expect(try Self.written(channel).hasSuffix("\r\nconnection: close\r\n\r\nclosing"))
        #expect(!channel.isActive)
        let exposition = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(exposition.contains(#"textmeasure_http_requests_total{path="/v1/measure",status="200"} 2"#))
        _ = try? channel.finish()
    }

    /// Requests pipelined behind one the router holds go to the router too, and the answers keep the
    /// requests' order; a head the conformance handler refuses is answered there, and nothing after it.
    @Test(arguments: [true, false]) func pipelinedRequestsKeepTheirOrder(answersOnTheWire: Bool) throws {
        _ = endpoint.respond(to: Array(held.utf8))
        let metrics = ServerMetrics(processor: endpoint.processor)
        let channel = try Self.wire(endpoint: endpoint, metrics: metrics, answersOnTheWire: answersOnTheWire)
        try channel.writeInbound(ByteBuffer(string: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                                            + Self.request(held) + Self.request(held, target: "/v1/measure?x")))
        #expect(try Self.headsHandedOn(channel) == ["/healthz", "/v1/measure", "/v1/measure?x"])
        #expect(try Self.written(channel).isEmpty)
        for body in ["ok", "first", "second"] {
            try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(
                version: .http1_1, status: .ok, headers: ["Content-Length": String(body.utf8.count)])))
            try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body))))
            try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        }
        let routed = try Self.written(channel)
        let order = ["ok", "first", "second"].compactMap { routed.range(of: "\r\n\r\n" + $0)?.lowerBound }
        #expect(order.count == 3 && order == order.sorted())
        // All answered: the next is answered here, after them.
        try channel.writeInbound(ByteBuffer(string: Self.request(held)))
        #expect(try Self.headsHandedOn(channel).isEmpty)
        #expect(try Self.written(channel).hasPrefix("HTTP/1.1 200 OK\r\n"))

        // Two Host lines: refused (400, closed) by the conformance handler; the held request after it is
        // neither answered nor handed on.
        try channel.writeInbound(ByteBuffer(string: "POST /v1/measure HTTP/1.1\r\nHost: x\r\nHost: y\r\n"
                                            + "Content-Length: \(held.utf8.count)\r\n\r\n\(held)" + Self.request(held)))
        let refused = try Self.written(channel)
        #expect(refused.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(refused.components(separatedBy: "HTTP/1.1 ").count == 2)
        #expect(try Self.headsHandedOn(channel).isEmpty)
        #expect(!channel.isActive)
        _ = try? channel.finish()
    }

    @Test func datesAreIMFFixdates() {
        #expect(QuickMeasureHandler.imfFixdate(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}
