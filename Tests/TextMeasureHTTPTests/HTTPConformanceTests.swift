import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import TextMeasureHTTP

/// Request heads held to RFC 9112 by the server (see `HTTP1ConformanceHandler`), over raw sockets: what
/// an HTTP client library would not let a test send.
@Suite("textmeasure serve: HTTP/1 conformance", .serialized)
struct HTTPConformanceTests {
    /// Sends `raw` on a new connection and reads until the server closes it (or 60 s pass).
    static func exchange(port: Int, _ raw: String) async throws -> HTTPTestClient.Reply {
        let client = try HTTPTestClient(port: port)
        try await client.send(raw)
        return try await client.readReply()
    }

    static func error(_ reply: HTTPTestClient.Reply) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: String])?["error"]
    }

    /// §3.2: an HTTP/1.1 request without `Host`, or any request with two, gets 400 (in the endpoint's JSON
    /// shape) and the connection closes; an HTTP/1.0 request may go without.
    @Test func hostIsRequiredOnceIn11() async throws {
        try await MeasureServerTests.withServer { port, _ in
            let none = try await Self.exchange(port: port, "GET /healthz HTTP/1.1\r\n\r\n")
            #expect(none.status == 400 && none.closedByServer)
            #expect(none.headers["content-type"] == "application/json")
            #expect(Self.error(none) == "no Host header: an HTTP/1.1 request has one")
            let two = try await Self.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: a\r\nhost: b\r\nConnection: close\r\n\r\n")
            #expect(two.status == 400 && two.closedByServer)
            #expect(Self.error(two) == "2 Host header lines: a request has exactly one")
            let twoIn10 = try await Self.exchange(port: port, "GET /healthz HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n")
            #expect(twoIn10.status == 400)
            let old = try await Self.exchange(port: port, "GET /healthz HTTP/1.0\r\n\r\n")
            #expect(old.status == 200 && old.body == #"{"status":"ok"}"#)
        }
    }

    /// §6.1: a coding before `chunked` is not implemented (501), and `chunked` anywhere but last leaves the
    /// body's length unknown (400); neither body is read as if it were plain.
    @Test func transferCodingsOtherThanChunkedAreRefused() async throws {
        let body = #"{"text":"a","width":100}"#
        let chunked = String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n"
        try await MeasureServerTests.withServer { port, _ in
            let gzip = try await Self.exchange(port: port, "POST /v1/measure HTTP/1.1\r\nHost: a\r\n"
                                               + "Transfer-Encoding: gzip, chunked\r\n\r\n" + chunked)
            #expect(gzip.status == 501 && gzip.closedByServer)
            #expect(Self.error(gzip) == "Transfer-Encoding gzip is not supported: send the body chunked alone")
            let twoLines = try await Self.exchange(port: port, "POST /v1/measure HTTP/1.1\r\nHost: a\r\n"
                                                   + "Transfer-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked)
            #expect(twoLines.status == 501)
            let last = try await Self.exchange(port: port, "POST /v1/measure HTTP/1.1\r\nHost: a\r\n"
                                               + "Transfer-Encoding: chunked, gzip\r\n\r\n" + chunked)
            #expect(last.status == 400 && last.closedByServer)
            #expect(Self.error(last) != nil)
            let plain = try await Self.exchange(port: port, "POST /v1/measure HTTP/1.1\r\nHost: a\r\nConnection: close\r\n"
                                                + "Transfer-Encoding: Chunked\r\n\r\n" + chunked)
            #expect(plain.status == 200)
        }
    }

    /// An HTTP/1.0 request without keep-alive gets `Connection: close` and the connection closes after
    /// the reply; with keep-alive, its reply says so and the connection answers the next request.
    @Test func http10ClosesUnlessKeptAlive() async throws {
        try await MeasureServerTests.withServer { port, _ in
            let closing = try await Self.exchange(port: port, "GET /healthz HTTP/1.0\r\nHost: a\r\n\r\n")
            #expect(closing.status == 200 && closing.closedByServer)
            #expect(closing.headers["connection"] == "close")

            let client = try HTTPTestClient(port: port)
            try await client.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
                                  + "GET /nowhere HTTP/1.0\r\n\r\n")
            let both = try await client.readReply()
            #expect(both.status == 200 && both.closedByServer)
            #expect(both.headers["connection"] == "keep-alive")
            // The second reply follows the first on the same connection, and closes it.
            #expect(both.body.hasPrefix(#"{"status":"ok"}HTTP/1.1 404 Not Found"#), "\(both.body)")
            #expect(both.body.contains("connection: close"))
            #expect(both.body.hasSuffix(#"{"error":"no such path: /nowhere"}"#))
        }
    }

    /// A head the decoder cannot read gets the endpoint's JSON shape too, and the connection closes.
    @Test func unreadableHeadsGetJSON() async throws {
        try await MeasureServerTests.withServer { port, _ in
            let reply = try await Self.exchange(port: port, "NOT HTTP AT ALL\r\n\r\n")
            #expect(reply.status == 400 && reply.closedByServer)
            #expect(Self.error(reply)?.hasPrefix("not an HTTP/1 request") == true)
        }
    }

    /// Refusals are counted in the metrics as requests (path `other` for unknown paths).
    @Test func refusalsAreCounted() async throws {
        try await MeasureServerTests.withServer { port, _ in
            _ = try await Self.exchange(port: port, "GET /healthz HTTP/1.1\r\n\r\n")
            let metrics = try await HTTPTestClient.request(port: port, "GET", "/metrics")
            #expect(metrics.body.contains(#"textmeasure_http_requests_total{path="/healthz",status="400"} 1"#), "\(metrics.body)")
        }
    }

    /// RFC 9110 §10.1.1: a request with `Expect: 100-continue` gets `100 Continue` before it sends its
    /// body (a client waits for it: curl a second), then its answer.
    @Test func expectContinueIsAnsweredBeforeTheBody() async throws {
        let body = #"{"text":"Hello","width":100}"#
        try await MeasureServerTests.withServer { port, _ in
            let client = try HTTPTestClient(port: port, timeout: 30)
            try await client.send("POST /v1/measure HTTP/1.1\r\nHost: a\r\nConnection: close\r\nExpect: 100-continue\r\n"
                                  + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            #expect(await client.read(until: "\r\n\r\n") == "HTTP/1.1 100 Continue\r\n\r\n")
            try await client.send(body)
            let reply = try await client.readReply()
            #expect(reply.status == 200 && reply.closedByServer)
            #expect(reply.body == MeasureServerTests.batchOutput([body])[0])

            // Chunked, and the expectation's value in any case.
            let chunked = try HTTPTestClient(port: port, timeout: 30)
            try await chunked.send("POST /v1/measure HTTP/1.1\r\nHost: a\r\nConnection: close\r\nExpect: 100-Continue\r\n"
                                   + "Transfer-Encoding: chunked\r\n\r\n")
            #expect(await chunked.read(until: "\r\n\r\n") == "HTTP/1.1 100 Continue\r\n\r\n")
            try await chunked.send(String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n")
            #expect(try await chunked.readReply().status == 200)
        }
    }

    /// The interim answer never comes before the answers owed to the requests before it on the
    /// connection; a request without a body, or an HTTP/1.0 one, gets none (§10.1.1).
    @Test func expectContinueKeepsTheOrderOfAnswers() async throws {
        let body = #"{"text":"Hello","width":100}"#
        try await MeasureServerTests.withServer { port, _ in
            let client = try HTTPTestClient(port: port, timeout: 30)
            try await client.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"
                                  + "POST /v1/measure HTTP/1.1\r\nHost: a\r\nConnection: close\r\nExpect: 100-continue\r\n"
                                  + "Content-Length: \(body.utf8.count)\r\n\r\n")
            let before = await client.read(until: "HTTP/1.1 100 Continue\r\n\r\n")
            #expect(before.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(before)")
            #expect(before.hasSuffix(#"{"status":"ok"}HTTP/1.1 100 Continue\#r\#n\#r\#n"#), "\(before)")
            try await client.send(body)
            #expect(try await client.readReply().status == 200)

            let empty = try await Self.exchange(port: port, "POST /v1/measure HTTP/1.1\r\nHost: a\r\nConnection: close\r\n"
                                                + "Expect: 100-continue\r\nContent-Length: 0\r\n\r\n")
            #expect(empty.status == 400, "\(empty.statusLine)")
            #expect(!empty.body.contains("100 Continue"))
            let old = try await Self.exchange(port: port, "POST /v1/measure HTTP/1.0\r\nHost: a\r\nExpect: 100-continue\r\n"
                                              + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
            #expect(old.status == 200, "\(old.statusLine)")
            #expect(!old.body.contains("100 Continue"))
        }
    }

    /// How many responses `text` holds: status lines, interim ones included.
    static func statusLines(_ text: String) -> Int {
        text.components(separatedBy: "HTTP/1.1 ").count - 1
    }

    /// RFC 9110 §10.1.1: a request the router answers from its head alone (a `Content-Length` over the
    /// limit, an unknown path, another method) gets that final answer, not `100 Continue` first; and as
    /// its body may never come, the answer says `Connection: close` and the connection closes.
    @Test func expectContinueIsNotSentWhenTheHeadDecides() async throws {
        let cases: [(head: String, status: String, error: String)] = [
            ("POST /v1/measure HTTP/1.1\r\nContent-Length: 2001", "413 Payload Too Large", "the body is larger than 2000 bytes"),
            ("POST /v1/measure?x=1 HTTP/1.1\r\nContent-Length: 999999999", "413 Payload Too Large",
             "the body is larger than 2000 bytes"),
            ("POST /nowhere HTTP/1.1\r\nContent-Length: 10", "404 Not Found", "no such path: /nowhere"),
            ("PUT /v1/measure HTTP/1.1\r\nContent-Length: 10", "405 Method Not Allowed", "/v1/measure takes POST, not PUT"),
            ("POST /healthz HTTP/1.1\r\nTransfer-Encoding: chunked", "405 Method Not Allowed",
             "/healthz takes GET or HEAD, not POST"),
        ]
        try await MeasureServerTests.withServer(limits: ServerLimits(maximumBodyBytes: 2_000)) { port, _ in
            for (head, status, error) in cases {
                let client = try HTTPTestClient(port: port, timeout: 30)
                try await client.send(head + "\r\nHost: a\r\nExpect: 100-continue\r\n\r\n")
                let (text, closed) = await client.readToClose()
                #expect(text.hasPrefix("HTTP/1.1 \(status)\r\n"), "\(head): \(text)")
                #expect(Self.statusLines(text) == 1 && !text.contains("100 Continue"), "\(head): \(text)")
                #expect(closed, "\(head)")
                let reply = try HTTPTestClient.parse(Array(text.utf8), closedByServer: closed)
                #expect(reply.headers["connection"] == "close", "\(head)")
                #expect(reply.body == MeasureEndpoint.error(0, error).body, "\(head)")
            }

            // A client that sends the body without waiting gets the one answer too.
            let eager = try HTTPTestClient(port: port, timeout: 30)
            try await eager.send("POST /v1/measure HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2001\r\n\r\n"
                                 + String(repeating: " ", count: 2_001))
            let (text, closed) = await eager.readToClose()
            #expect(text.hasPrefix("HTTP/1.1 413 Payload Too Large\r\n") && Self.statusLines(text) == 1, "\(text)")
            #expect(closed)

            // Within the limit, the body is asked for as before.
            let body = #"{"text":"Hello","width":100}"#
            let within = try HTTPTestClient(port: port, timeout: 30)
            try await within.send("POST /v1/measure HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nConnection: close\r\n"
                                  + "Content-Length: \(body.utf8.count)\r\n\r\n")
            #expect(await within.read(until: "\r\n\r\n") == "HTTP/1.1 100 Continue\r\n\r\n")
            try await within.send(body)
            #expect(try await within.readReply().status == 200)
        }
    }

    /// One way to break a chunked body: the bytes after a valid first chunk.
    struct BrokenChunks: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: String
        var testDescription: String { name }
    }

    static let brokenChunks = [
        BrokenChunks(name: "a chunk size that is not hex", bytes: "zz\r\n"),
        BrokenChunks(name: "a negative chunk size", bytes: "-1\r\nx\r\n"),
        BrokenChunks(name: "a chunk size too large to read", bytes: "fffffffffffffffffffff\r\n"),
        BrokenChunks(name: "chunk data longer than its size", bytes: "2\r\nabcdef\r\n0\r\n\r\n"),
        BrokenChunks(name: "no CR LF after chunk data", bytes: "3\r\nabc0\r\n\r\n"),
        BrokenChunks(name: "a trailer line without a colon", bytes: "0\r\nno colon\r\n\r\n"),
    ]

    /// A chunked body whose framing is broken gets exactly one answer, the JSON 400, and the connection
    /// closes: the requests pipelined after it are not answered. Whether the broken bytes come with the
    /// head or after the router began to read the body (`deliveredFirst`), Hummingbird's own 400 for
    /// the parser error and the route's answer never follow it. The request counts once, as a 400.
    @Test(arguments: brokenChunks, [false, true])
    func aBrokenChunkedBodyGetsOneAnswer(_ broken: BrokenChunks, deliveredFirst: Bool) async throws {
        let head = "POST /v1/measure HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        let firstChunk = "5\r\n[{\"te\r\n"
        let next = "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"
        try await MeasureServerTests.withServer { port, server in
            let client = try HTTPTestClient(port: port, timeout: 30)
            if deliveredFirst {
                try await client.send(head + firstChunk)
                await server.metrics.waitUntil { $0.requestsInFlight == 1 }   // the route reads the body
                try await client.send(broken.bytes + next)
            } else {
                try await client.send(head + firstChunk + broken.bytes + next)
            }
            let (text, closed) = await client.readToClose()
            #expect(closed)
            let reply = try HTTPTestClient.parse(Array(text.utf8), closedByServer: closed)
            let error = try #require(Self.error(reply), "\(text)")
            #expect(error.hasPrefix("malformed body: "), "\(error)")
            // Exactly these bytes: one status line, then nothing after the JSON body.
            #expect(text == "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n"
                        + "content-length: \(reply.body.utf8.count)\r\nconnection: close\r\n\r\n" + reply.body, "\(text)")

            await server.metrics.waitUntil { $0.requestsInFlight == 0 }
            let metrics = try await HTTPTestClient.request(port: port, "GET", "/metrics")
            let counts = metrics.body.split(separator: "\n").filter { $0.hasPrefix("textmeasure_http_requests_total{") }
            #expect(counts == [#"textmeasure_http_requests_total{path="/v1/measure",status="400"} 1"#], "\(counts)")
        }
    }

    /// A route that answers without reading the body has made the request's one answer: a broken body
    /// after it gets no second one (no 400), and the connection closes. Answers owed before a broken
    /// request still come first, and nothing comes after its 400.
    @Test func anAnswerMadeBeforeABrokenBodyIsTheOnlyOne() async throws {
        let next = "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"
        let ok = #"{"status":"ok"}"#
        try await MeasureServerTests.withServer { port, _ in
            let client = try HTTPTestClient(port: port, timeout: 30)
            try await client.send("GET /healthz HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
            let answered = await client.read(until: ok)
            #expect(answered.hasPrefix("HTTP/1.1 200 OK\r\n") && answered.hasSuffix(ok), "\(answered)")
            try await client.send("zz\r\n" + next)
            let (after, closed) = await client.readToClose()
            #expect(after.isEmpty, "\(after)")
            #expect(closed)

            let pipelined = try HTTPTestClient(port: port, timeout: 30)
            try await pipelined.send(next + "POST /v1/measure HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                                     + "1\r\nx\r\nqq\r\n\r\n" + next)
            let (text, pipelinedClosed) = await pipelined.readToClose()
            #expect(pipelinedClosed)
            #expect(Self.statusLines(text) == 2, "\(text)")
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(text)")
            let refusal = try #require(text.range(of: ok + "HTTP/1.1 400 Bad Request\r\n"), "\(text)")
            #expect(text[refusal.upperBound...].hasSuffix(#"{"error":"malformed body: invalid character in chunk size header"}"#),
                    "\(text)")
        }
    }

    /// The same in a pipeline the test drives, playing the router: whether the router answers before
    /// the decoder fails on the body (its answer goes, and the connection closes after it) or after
    /// (the JSON 400 goes at once), what the router writes after that (its route's answer, then
    /// Hummingbird's 400 for the parser error) never reaches the wire.
    @Test(arguments: [false, true]) func theRoutersAnswersAfterABrokenBodyAreDropped(routerAnswersFirst: Bool) throws {
        let endpoint = MeasureEndpoint(processor: MeasureServerTests.processor(), limits: ServerLimits(maximumBodyBytes: 1_000))
        let channel = try QuickMeasureHandlerTests.wire(endpoint: endpoint, metrics: ServerMetrics(processor: endpoint.processor))
        func answer(_ status: HTTPResponseStatus, _ body: String) throws {
            var headers = HTTPHeaders()
            headers.add(name: "content-length", value: String(body.utf8.count))
            try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status,
                                                                                   headers: headers)))
            if !body.isEmpty { try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body)))) }
            try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        }
        func written() throws -> String {
            var text = ""
            while let bytes = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: bytes) }
            return text
        }

        try channel.writeInbound(ByteBuffer(string: "GET /healthz HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"))
        guard case .head? = try channel.readInbound(as: HTTPServerRequestPart.self) else {
            Issue.record("the head did not reach the router")
            return
        }
        let ok = "HTTP/1.1 200 OK\r\ncontent-length: 15\r\n\r\n" + #"{"status":"ok"}"#
        if routerAnswersFirst {
            try answer(.ok, #"{"status":"ok"}"#)
            #expect(try written() == ok)
        }
        // The router's reader gets the parser error (the pipeline's tail rethrows it here).
        #expect(throws: HTTPParserError.self) { try channel.writeInbound(ByteBuffer(string: "zz\r\nGET /healthz HTTP/1.1\r\n\r\n")) }
        let body = #"{"error":"malformed body: invalid character in chunk size header"}"#
        #expect(try written() == (routerAnswersFirst ? "" : "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n"
                                   + "content-length: \(body.utf8.count)\r\nconnection: close\r\n\r\n" + body))
        #expect(!channel.isActive)
        if !routerAnswersFirst { try answer(.ok, #"{"status":"ok"}"#) }
        try answer(.badRequest, "")
        #expect(try written() == "")
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == nil)
    }
}
