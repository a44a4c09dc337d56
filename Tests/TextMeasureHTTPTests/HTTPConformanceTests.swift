import Foundation
import Testing
import TextMeasureHTTP

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
}
