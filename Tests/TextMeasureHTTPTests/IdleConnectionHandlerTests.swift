import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
import TextMeasure
import TextMeasureBatch
@testable import TextMeasureHTTP

/// The idle handler in channels the test drives, on the embedded event loop's clock: when a connection
/// counts as idle, and graceful shutdown with and without a request in flight, answered by the router
/// or by the quick handler.
@Suite("textmeasure serve: idle connection handler")
struct IdleConnectionHandlerTests {
    /// A connected channel holding an idle handler with a timeout of 10 seconds.
    func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: IdleConnectionHandler(idleTimeout: .seconds(10)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 80)).wait()
        return channel
    }

    static let head = HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .POST, uri: "/v1/measure",
                                                                 headers: ["Host": "x", "Content-Length": "2"]))

    /// Checks that the connection is closed as idle 10 seconds from now, not before.
    static func expectClosedAfterTheTimeout(_ channel: EmbeddedChannel,
                                            sourceLocation: SourceLocation = #_sourceLocation) {
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(channel.isActive, sourceLocation: sourceLocation)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive, sourceLocation: sourceLocation)
    }

    /// A request read whole (head and end) on `channel`.
    static func readRequest(_ channel: EmbeddedChannel) throws {
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
    }

    static func respond(_ channel: EmbeddedChannel) throws {
        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
    }

    @Test func closesAnIdleConnection() throws {
        Self.expectClosedAfterTheTimeout(try channel())
    }

    /// Each part of a request read counts as activity; a head whose body stops coming does not keep the
    /// connection.
    @Test func countsFromTheLastPartRead() throws {
        let channel = try channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        try channel.writeInbound(Self.head)
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "{")))
        Self.expectClosedAfterTheTimeout(channel)
        _ = try? channel.finish()
    }

    /// A request read whole keeps the connection for as long as its answer takes; the timeout counts
    /// again from the end of the response.
    @Test func waitsForTheAnswer() throws {
        let channel = try channel()
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "{}")))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .seconds(100))
        #expect(channel.isActive)
        try Self.respond(channel)
        Self.expectClosedAfterTheTimeout(channel)
        _ = try? channel.finish()
    }

    /// Sets whether the channel is writable, as its socket would, and tells the pipeline.
    static func setWritable(_ writable: Bool, _ channel: EmbeddedChannel) {
        channel.isWritable = writable
        channel.pipeline.fireChannelWritabilityChanged()
    }

    /// A client that does not read what was written is idle, even with a request in flight (a response
    /// waiting to be written whole would otherwise keep the connection for ever).
    @Test func aClientNotReadingIsIdleWithARequestInFlight() throws {
        let channel = try channel()
        try Self.readRequest(channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(100))
        #expect(channel.isActive)   // waiting for the answer
        Self.setWritable(false, channel)
        Self.expectClosedAfterTheTimeout(channel)
        _ = try? channel.finish()
    }

    /// Written bytes draining (the channel writable again) is activity: a client reading slowly is kept,
    /// and is idle 10 seconds after its last drain.
    @Test func drainingIsActivity() throws {
        let channel = try channel()
        try Self.readRequest(channel)
        try Self.respond(channel)
        for _ in 0..<3 {
            Self.setWritable(false, channel)
            channel.embeddedEventLoop.advanceTime(by: .seconds(8))
            Self.setWritable(true, channel)
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        }
        #expect(channel.isActive)   // 27 seconds since the response, 1 since the last drain
        channel.embeddedEventLoop.advanceTime(by: .seconds(8))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
        _ = try? channel.finish()
    }

    /// A client reading a large response slowly (the bytes waiting in the channel fewer at each
    /// deadline) is kept while the channel stays not writable; idle once they stop draining.
    @Test func aSlowReaderOfALargeResponseIsKept() throws {
        let channel = try channel()
        try Self.readRequest(channel)
        // Bytes of the response waiting in the channel (written, not flushed to the "socket").
        let idle = try channel.pipeline.syncOperations.context(handlerType: IdleConnectionHandler.self)
        idle.write(NIOAny(ByteBuffer(repeating: 0, count: 100)), promise: nil)
        Self.setWritable(false, channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        channel.flush()   // the client took them
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(channel.isActive)   // drained by the check at 10 s: counts from then
        channel.embeddedEventLoop.advanceTime(by: .seconds(8))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)   // nothing drained since
        _ = try? channel.finish()
    }

    /// Takes every write and never completes it: a socket whose client reads nothing.
    final class UnreadWrites: ChannelOutboundHandler {
        typealias OutboundIn = NIOAny
        private var promises: [EventLoopPromise<Void>] = []

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if let promise { promises.append(promise) }
        }

        func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
            for promise in promises { promise.fail(ChannelError.ioOnClosedChannel) }
            promises = []
            context.close(mode: mode, promise: promise)
        }
    }

    /// Graceful shutdown waiting for an answer the client never reads: closed as idle, not held for ever.
    @Test func shutdownClosesAConnectionWhoseLastAnswerIsNotRead() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([UnreadWrites(), IdleConnectionHandler(idleTimeout: .seconds(10))])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 80)).wait()
        try Self.readRequest(channel)
        // The check due meanwhile finds the request being answered, and leaves the next to its answer.
        channel.embeddedEventLoop.advanceTime(by: .seconds(11))
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        // Not `writeOutbound`, which waits for the writes to complete.
        for part in [HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)), .end(nil)] {
            channel.pipeline.syncOperations.writeAndFlush(NIOAny(part), promise: nil)
        }
        #expect(channel.isActive)   // waiting for the answer to be written
        Self.expectClosedAfterTheTimeout(channel)
        _ = try? channel.finish()
    }

    @Test func shutdownClosesAConnectionWithNothingInFlight() throws {
        let channel = try channel()
        try Self.readRequest(channel)
        try Self.respond(channel)
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(!channel.isActive)
    }

    /// Graceful shutdown while requests are in flight: the connection closes once the last is answered.
    @Test func shutdownWaitsForTheRequestsInFlight() throws {
        let channel = try channel()
        for _ in 0..<2 {
            try channel.writeInbound(Self.head)
            try channel.writeInbound(HTTPServerRequestPart.end(nil))
        }
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(channel.isActive)
        try Self.respond(channel)
        #expect(channel.isActive)
        try Self.respond(channel)
        #expect(!channel.isActive)
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) != nil)   // written before the close
        _ = try? channel.finish()
    }

    /// Graceful shutdown while the quick handler reads a request (the whole pipeline, bytes in and out):
    /// the request is answered, then the connection closed.
    /// (With the wire handler too: a request whose body is still coming goes on to the decoder.)
    @Test(arguments: [true, false]) func shutdownWaitsForAQuickAnswer(answersOnTheWire: Bool) throws {
        let endpoint = MeasureEndpoint(processor: MeasureServerTests.processor(), limits: ServerLimits())
        let body = #"[{"text":"Hello","width":50}]"#
        _ = endpoint.respond(to: Array(body.utf8))   // held
        let metrics = ServerMetrics(processor: endpoint.processor)
        let channel = try QuickMeasureHandlerTests.wire(endpoint: endpoint, metrics: metrics, idleTimeout: .seconds(10),
                                                        answersOnTheWire: answersOnTheWire)
        let request = QuickMeasureHandlerTests.request(body)
        try channel.writeInbound(ByteBuffer(string: String(request.dropLast(10))))
        #expect(metrics.activity.requestsInFlight == 1)
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        // Neither closed by the shutdown nor as idle while the body comes.
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        try channel.writeInbound(ByteBuffer(string: String(request.suffix(10))))
        let reply = try QuickMeasureHandlerTests.written(channel)
        #expect(reply.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(reply.hasSuffix(endpoint.respond(to: Array(body.utf8)).body))
        #expect(try QuickMeasureHandlerTests.headsHandedOn(channel).isEmpty)
        #expect(!channel.isActive)
        #expect(metrics.activity.requestsInFlight == 0)
        _ = try? channel.finish()
    }

    /// The requests the conformance handler leaves unread after a refusal are not in flight: none will be
    /// answered, and counting them would keep the connection from ever being idle, or closing at
    /// shutdown, should the refusal's write not complete (a client that stopped reading).
    @Test(arguments: [true, false]) func requestsLeftUnreadAreNotInFlight(answersOnTheWire: Bool) throws {
        let endpoint = MeasureEndpoint(processor: MeasureServerTests.processor(), limits: ServerLimits())
        let metrics = ServerMetrics(processor: endpoint.processor)
        let channel = try QuickMeasureHandlerTests.wire(endpoint: endpoint, metrics: metrics, idleTimeout: .seconds(10),
                                                        answersOnTheWire: answersOnTheWire)
        let idle = try channel.pipeline.syncOperations.handler(type: IdleConnectionHandler.self)
        // A request the router holds, one refused behind it (two Host lines), and one after that.
        try channel.writeInbound(ByteBuffer(string: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                                            + "GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"
                                            + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
        #expect(try QuickMeasureHandlerTests.headsHandedOn(channel) == ["/healthz"])
        #expect(idle.requestsInFlight == 2)
        try Self.respond(channel)   // the router's answer, then the refusal that waited for it
        let written = try QuickMeasureHandlerTests.written(channel)
        #expect(written.hasPrefix("HTTP/1.1 200 OK\r\n") && written.contains("HTTP/1.1 400 Bad Request\r\n"))
        #expect(idle.requestsInFlight == 0)
        _ = try? channel.finish()
    }

    /// A connection kept busy by quick answers alone is not idle.
    @Test(arguments: [true, false]) func quickAnswersAreActivity(answersOnTheWire: Bool) throws {
        let endpoint = MeasureEndpoint(processor: MeasureServerTests.processor(), limits: ServerLimits())
        let body = #"{"text":"Hello","width":50}"#
        _ = endpoint.respond(to: Array(body.utf8))
        let metrics = ServerMetrics(processor: endpoint.processor)
        let channel = try QuickMeasureHandlerTests.wire(endpoint: endpoint, metrics: metrics, idleTimeout: .seconds(10),
                                                        answersOnTheWire: answersOnTheWire)
        for _ in 0..<5 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(6))
            try channel.writeInbound(ByteBuffer(string: QuickMeasureHandlerTests.request(body)))
            #expect(try QuickMeasureHandlerTests.written(channel).hasPrefix("HTTP/1.1 200 OK\r\n"))
        }
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(11))
        #expect(!channel.isActive)
        _ = try? channel.finish()
    }

    /// The bytes of a head not yet whole are not activity, in the decoder or kept by the wire handler: a
    /// client sending its head a few bytes at a time is closed 10 seconds after its last request part.
    @Test(arguments: [true, false]) func aHeadTricklingInIsNotActivity(answersOnTheWire: Bool) throws {
        let endpoint = MeasureEndpoint(processor: MeasureServerTests.processor(), limits: ServerLimits())
        let metrics = ServerMetrics(processor: endpoint.processor)
        let channel = try QuickMeasureHandlerTests.wire(endpoint: endpoint, metrics: metrics, idleTimeout: .seconds(10),
                                                        answersOnTheWire: answersOnTheWire)
        let head = Array(QuickMeasureHandlerTests.request("[]").utf8.dropLast(8))
        for start in stride(from: 0, to: 12, by: 4) {
            channel.embeddedEventLoop.advanceTime(by: .seconds(3))
            try channel.writeInbound(ByteBuffer(bytes: head[start..<(start + 4)]))
        }
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))   // 10 s since the connection opened
        #expect(!channel.isActive)
        _ = try? channel.finish()
    }
}
