import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
import TextMeasure
import TextMeasureBatch
@testable import TextMeasureHTTP

/// The wire handler in the whole pipeline (``QuickMeasureHandlerTests/wire(endpoint:metrics:idleTimeout:answersOnTheWire:)``),
/// compared with the same pipeline without it: the same bytes out, whatever the reads, and the
/// requests it does not answer handed to the decoder as they came.
@Suite("textmeasure serve: wire measure handler")
struct WireMeasureHandlerTests {
    let endpoint = MeasureEndpoint(processor: MeasureServerTests.processor(),
                                   limits: ServerLimits(maximumBodyBytes: 1_000, maximumItems: 4))
    let held = #"[{"id":1,"text":"Hello","width":50},{"text":"Hello","width":0}]"#

    /// Counts the request heads NIO's decoder reads (put right after it): the requests the wire handler
    /// did not answer; and the decoder's errors.
    final class DecodedHeads: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart
        var count = 0
        var errors: [String] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head = unwrapInboundIn(data) { count += 1 }
            context.fireChannelRead(data)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            errors.append("\(error)")
            context.fireErrorCaught(error)
        }
    }

    /// The pipeline, with or without the wire handler, and a count of what its decoder reads.
    func channel(answersOnTheWire: Bool = true) throws -> (EmbeddedChannel, DecodedHeads) {
        let channel = try QuickMeasureHandlerTests.wire(endpoint: endpoint, metrics: ServerMetrics(processor: endpoint.processor),
                                                        answersOnTheWire: answersOnTheWire)
        let heads = DecodedHeads()
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(heads, position: .after(pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)))
        return (channel, heads)
    }

    /// What was written, without its `Date` lines (the second may turn between two channels).
    static func written(_ channel: EmbeddedChannel) throws -> String {
        try QuickMeasureHandlerTests.written(channel).split(separator: "\r\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("Date: ") }.joined(separator: "\r\n")
    }

    /// Requests the endpoint answers without shaping: held texts, an item that fails, and refusals.
    var answerable: [String] {
        [held, #"{"id":"one","text":"Hello","width":200,"s":"\u00e9"}"#, #"{"text":"Hello","width":0}"#,
         "{nope", "", "42", "[]", "[" + Array(repeating: #"{"text":"Hello","width":10}"#, count: 5).joined(separator: ",") + "]"]
            .map { QuickMeasureHandlerTests.request($0) }
    }

    @Test func answersAsTheQuickHandlerByteForByte() throws {
        _ = endpoint.respond(to: Array(held.utf8))   // "Hello" prepared and held
        let (wire, decoded) = try channel()
        let (quick, quickDecoded) = try channel(answersOnTheWire: false)
        for request in answerable {
            try wire.writeInbound(ByteBuffer(string: request))
            try quick.writeInbound(ByteBuffer(string: request))
            let answer = try Self.written(wire)
            #expect(answer == (try Self.written(quick)))
            #expect(answer.hasPrefix("HTTP/1.1 "))
        }
        #expect(decoded.count == 0)
        #expect(quickDecoded.count == answerable.count)
        #expect(try QuickMeasureHandlerTests.headsHandedOn(wire).isEmpty)
        _ = try? wire.finish()
        _ = try? quick.finish()
    }

    /// The same requests, read in two pieces cut anywhere, or a byte at a time: the same answers, in
    /// the same order. A request whose head is read before the rest of its body goes through the
    /// decoder (to the quick handler); the others do not.
    @Test func answersTheSameWhateverTheReads() throws {
        _ = endpoint.respond(to: Array(held.utf8))
        let stream = Array(answerable.prefix(4).joined().utf8)
        let (whole, _) = try channel()
        try whole.writeInbound(ByteBuffer(bytes: stream))
        let expected = try Self.written(whole)
        #expect(expected.components(separatedBy: "HTTP/1.1 ").count == 5)
        var decodedOnce = 0
        for cut in 0...stream.count {
            let (channel, decoded) = try channel()
            try channel.writeInbound(ByteBuffer(bytes: stream[..<cut]))
            try channel.writeInbound(ByteBuffer(bytes: stream[cut...]))
            #expect(try Self.written(channel) == expected, "cut at \(cut)")
            #expect(decoded.count <= 1)
            decodedOnce += decoded.count
            _ = try? channel.finish()
        }
        #expect(decodedOnce > 0 && decodedOnce < stream.count / 2)
        let (channel, _) = try channel()
        for byte in stream { try channel.writeInbound(ByteBuffer(bytes: [byte])) }
        #expect(try Self.written(channel) == expected)
        _ = try? channel.finish()
        _ = try? whole.finish()
    }

    /// A measure request whose texts are not held goes to the router as it came, and so does one behind
    /// it; once the router has answered both, the next is answered on the wire again.
    @Test func textsNotHeldGoToTheRouterAlone() throws {
        _ = endpoint.respond(to: Array(held.utf8))
        let (channel, decoded) = try channel()
        let notHeld = #"[{"text":"never sent before, on the wire","width":50}]"#
        try channel.writeInbound(ByteBuffer(string: QuickMeasureHandlerTests.request(notHeld)
                                            + QuickMeasureHandlerTests.request(held)))
        let parts = try QuickMeasureHandlerTests.handedOn(channel)
        let bodies = parts.compactMap { part -> String? in if case .body(let body) = part { String(buffer: body) } else { nil } }
        #expect(bodies == [notHeld, held])
        #expect(decoded.count == 2)
        #expect(try Self.written(channel).isEmpty)
        for body in ["first", "second"] {
            try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(
                version: .http1_1, status: .ok, headers: ["Content-Length": String(body.utf8.count)])))
            try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body))))
            try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        }
        #expect(try Self.written(channel).hasSuffix("\r\n\r\nsecond"))
        try channel.writeInbound(ByteBuffer(string: QuickMeasureHandlerTests.request(held)))
        #expect(try Self.written(channel).hasSuffix(endpoint.respond(to: Array(held.utf8)).body))
        #expect(decoded.count == 2)
        #expect(try channel.pipeline.syncOperations.handler(type: WireMeasureHandler.self).handsOnAll == false)
        _ = try? channel.finish()
    }

    /// Bytes outside the strict subset go to the decoder, and every byte after them: the quick handler
    /// answers from then on, with the same bytes.
    @Test func bytesOutsideTheSubsetGoToTheDecoderForGood() throws {
        _ = endpoint.respond(to: Array(held.utf8))
        let (channel, decoded) = try channel()
        try channel.writeInbound(ByteBuffer(string: QuickMeasureHandlerTests.request(held, fields: "X-Name: caf\u{e9}\r\n")))
        #expect(decoded.count == 1)
        #expect(try channel.pipeline.syncOperations.handler(type: WireMeasureHandler.self).handsOnAll)
        let answer = try Self.written(channel)
        #expect(answer.hasSuffix(endpoint.respond(to: Array(held.utf8)).body))
        try channel.writeInbound(ByteBuffer(string: QuickMeasureHandlerTests.request(held)))
        #expect(try Self.written(channel) == answer)
        #expect(decoded.count == 2)
        _ = try? channel.finish()
    }

    /// A request cut short by the close, in its body or in its head: the router's reader sees what it
    /// sees without the wire handler (a request whose body is still coming goes to the decoder at once;
    /// the start of a head kept here goes to it before the close).
    @Test(arguments: [5, 80]) func aRequestCutShortIsHandedOnAsWithoutIt(missing: Int) throws {
        _ = endpoint.respond(to: Array(held.utf8))
        var handedOn: [[HTTPServerRequestPart]] = [], errors: [[String]] = []
        for answersOnTheWire in [true, false] {
            let (channel, decoded) = try channel(answersOnTheWire: answersOnTheWire)
            try channel.writeInbound(ByteBuffer(string: String(QuickMeasureHandlerTests.request(held).dropLast(missing))))
            #expect(decoded.count == (missing < held.utf8.count ? 1 : 0))
            _ = try? channel.close().wait()
            handedOn.append(try QuickMeasureHandlerTests.handedOn(channel))
            errors.append(decoded.errors)
            _ = try? channel.finish()
        }
        #expect(handedOn[0] == handedOn[1])
        // The decoder saw the same bytes: the request cut short is its error at the close.
        #expect(errors[0] == errors[1])
        #expect(!errors[0].isEmpty)
        if missing < held.utf8.count {
            guard case .head(let head)? = handedOn[0].first, case .body(let body)? = handedOn[0].last else {
                Issue.record("handed on: \(handedOn[0])")
                return
            }
            #expect(head.uri == "/v1/measure")
            #expect(String(buffer: body) == String(held.dropLast(missing)))
        }
    }

    /// One read of a held request, one for the router and a held one behind it: the first is answered
    /// and sent before the second goes on; the third waits for the router, behind the second.
    @Test func aRequestForTheRouterBetweenHeldOnes() throws {
        _ = endpoint.respond(to: Array(held.utf8))
        let (channel, decoded) = try channel()
        let request = QuickMeasureHandlerTests.request(held)
        try channel.writeInbound(ByteBuffer(string: request + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" + request))
        let first = try Self.written(channel)
        #expect(first.hasPrefix("HTTP/1.1 200 OK\r\n") && first.hasSuffix(endpoint.respond(to: Array(held.utf8)).body))
        #expect(try QuickMeasureHandlerTests.headsHandedOn(channel) == ["/healthz", "/v1/measure"])
        #expect(decoded.count == 2)
        for body in ["ok", "third"] {
            try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(
                version: .http1_1, status: .ok, headers: ["Content-Length": String(body.utf8.count)])))
            try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body))))
            try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        }
        let routed = try Self.written(channel)
        #expect(routed.hasSuffix("\r\n\r\nthird") && routed.contains("\r\n\r\nok"))
        _ = try? channel.finish()
    }

    /// Graceful shutdown, or the client's half-close, while the start of a head is kept here: it goes to
    /// the decoder, and the connection is closed at once, as without the wire handler (no request is in
    /// flight for the idle handler; the decoder fails on the head cut short).
    @Test(arguments: [true, false]) func theStartOfAHeadAtShutdown(halfClose: Bool) throws {
        for answersOnTheWire in [true, false] {
            let (channel, _) = try channel(answersOnTheWire: answersOnTheWire)
            try channel.writeInbound(ByteBuffer(string: String(QuickMeasureHandlerTests.request(held).prefix(30))))
            if halfClose {
                channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            } else {
                channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
            }
            #expect(!channel.isActive, "wire: \(answersOnTheWire)")
            if answersOnTheWire {
                #expect(try channel.pipeline.syncOperations.handler(type: WireMeasureHandler.self).handsOnAll)
            }
            _ = try? channel.finish()
        }
    }
}
