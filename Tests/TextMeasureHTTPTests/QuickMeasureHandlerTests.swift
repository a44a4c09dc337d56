import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
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

    static func head(_ body: String, method: HTTPRequest.Method = .post, path: String = "/v1/measure",
                     fields: HTTPFields? = nil) -> HTTPRequestPart {
        var request = HTTPRequest(method: method, scheme: nil, authority: "x", path: path)
        request.headerFields = fields ?? [.contentLength: String(body.utf8.count)]
        return .head(request)
    }

    /// Sends a request whole, its body in two parts.
    static func send(_ body: String, to channel: EmbeddedChannel, head: HTTPRequestPart? = nil) throws {
        try channel.writeInbound(head ?? Self.head(body))
        let bytes = Array(body.utf8)
        for part in [bytes.prefix(bytes.count / 2), bytes.dropFirst(bytes.count / 2)] where !part.isEmpty {
            try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(bytes: part)))
        }
        try channel.writeInbound(HTTPRequestPart.end(nil))
    }

    /// The parts the handler passed on to the router.
    static func handedOn(_ channel: EmbeddedChannel) throws -> [HTTPRequestPart] {
        var parts: [HTTPRequestPart] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) { parts.append(part) }
        return parts
    }

    /// The response the handler wrote: status, fields, body.
    static func response(_ channel: EmbeddedChannel) throws -> (HTTPResponse, String)? {
        guard case .head(let head)? = try channel.readOutbound(as: HTTPResponsePart.self) else { return nil }
        guard case .body(let body)? = try channel.readOutbound(as: HTTPResponsePart.self),
              case .end(nil)? = try channel.readOutbound(as: HTTPResponsePart.self) else { return nil }
        return (head, String(buffer: body))
    }

    @Test func answersHeldTextsAsTheEndpoint() throws {
        _ = endpoint.respond(to: Array(held.utf8))   // "Hello" prepared and held
        let (channel, metrics) = try channel()
        try Self.send(held, to: channel)
        #expect(try Self.handedOn(channel).isEmpty)
        let (head, body) = try #require(try Self.response(channel))
        let expected = endpoint.respond(to: Array(held.utf8))
        #expect(head.status.code == expected.status && body == expected.body)
        #expect(head.headerFields[.contentType] == "application/json")
        #expect(head.headerFields[.contentLength] == String(expected.bytes.count))
        #expect(head.headerFields[.server] == "textmeasure")
        #expect(head.headerFields[.date]?.wholeMatch(of: /[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT/) != nil)
        #expect(head.headerFields.map(\.name) == [.contentType, .contentLength, .date, .server])
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
        #expect(head.path == "/v1/measure" && String(buffer: bytes) == body)
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        #expect(metrics.activity.requestsInFlight == 0)   // the router counts it from here
        _ = try channel.finish()
    }

    /// Other requests go on as they come; and while the router owes an answer, so does every request,
    /// so that answers keep the requests' order.
    @Test func leavesOtherRequestsAndKeepsTheOrder() throws {
        _ = endpoint.respond(to: Array(held.utf8))
        let (channel, _) = try channel()
        let others: [HTTPRequestPart] = [
            Self.head(held, path: "/v1/measure?x"), Self.head(held, method: .get),
            Self.head(held, fields: [.contentLength: "2000"]), Self.head(held, fields: [.transferEncoding: "chunked"]),
            Self.head(held, fields: [.contentLength: String(held.utf8.count), .expect: "100-continue"]),
        ]
        for head in others {
            try Self.send(held, to: channel, head: head)
            #expect(try Self.handedOn(channel).count == 4)   // head, two body parts, end: as they came
        }
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        // Five answers owed by the router: a measure request now goes on too.
        try Self.send(held, to: channel)
        #expect(try Self.handedOn(channel).count == 4)
        for _ in 0..<6 {
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }
        while try channel.readOutbound(as: HTTPResponsePart.self) != nil {}
        // All answered: answered here again.
        try Self.send(held, to: channel)
        #expect(try Self.handedOn(channel).isEmpty)
        #expect(try Self.response(channel) != nil)
        _ = try channel.finish()
    }

    /// A request cut short is handed on as read, so that the router's reader sees the close.
    @Test func handsOnARequestCutShort() throws {
        let (channel, metrics) = try channel()
        try channel.writeInbound(Self.head(held))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: String(held.prefix(10)))))
        #expect(metrics.activity.requestsInFlight == 1)
        #expect(try Self.handedOn(channel).isEmpty)
        channel.pipeline.fireChannelInactive()
        let parts = try Self.handedOn(channel)
        #expect(parts.count == 2)
        if case .body(let bytes)? = parts.last { #expect(String(buffer: bytes) == String(held.prefix(10))) }
        #expect(metrics.activity.requestsInFlight == 0)
        _ = try? channel.finish()
    }

    @Test func datesAreIMFFixdates() {
        #expect(QuickMeasureHandler.imfFixdate(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}
