import Foundation
import Logging
import ServiceLifecycle
import Testing
import TextMeasure
import TextMeasureBatch
import TextMeasureHTTP

/// `textmeasure serve` in-process: a real server on an ephemeral loopback port, real HTTP.
@Suite("textmeasure serve", .serialized)
struct MeasureServerTests {
    static let measurer: TextMeasurer = {
        do { return try TextMeasurer() } catch { fatalError("bundled fonts: \(error)") }
    }()

    static func processor() -> BatchProcessor {
        BatchProcessor(measurer: measurer, style: TextStyle(size: 17), preparedTexts: 100)
    }

    /// What `textmeasure batch` writes for these lines (without the newlines).
    static func batchOutput(_ lines: [String]) -> [String] {
        let processor = processor()
        return lines.map { line in
            var out = ""
            Array(line.utf8).withUnsafeBufferPointer { processor.process($0).write(to: &out) }
            return out
        }
    }

    /// Runs a server for the duration of `body`, then shuts it down gracefully and waits for it.
    static func withServer<T: Sendable>(limits: ServerLimits = ServerLimits(), staticFolders: [StaticFolder] = [],
                                        idleTimeout: Duration = .seconds(60),
                                        _ body: @Sendable (Int, MeasureServer) async throws -> T) async throws -> T {
        let server = MeasureServer(processor: processor(), limits: limits, staticFolders: staticFolders)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let application = server.application(host: "127.0.0.1", port: 0, idleTimeout: idleTimeout, logger: logger) {
            continuation.yield($0)
        }
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw HTTPTestClient.Failure(description: "no port") }
            do {
                let result = try await body(port, server)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
        }
    }

    /// A server for tests of graceful shutdown: `body` gets its port, the server and its service group,
    /// and triggers the shutdown itself; afterwards the server must have stopped, its port refusing
    /// connections.
    static func withServerToShutDown(_ body: @Sendable (Int, MeasureServer, ServiceGroup) async throws -> Void)
        async throws {
        let server = MeasureServer(processor: processor())
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let application = server.application(host: "127.0.0.1", port: 0, logger: logger) { continuation.yield($0) }
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            do {
                try await body(port, server, group)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            try await tasks.waitForAll()   // the server stopped
            #expect(throws: (any Error).self) { try HTTPTestClient(port: port) }
        }
    }

    /// Sends `body` as a measure request in two pieces, with a graceful shutdown begun between them,
    /// and returns the reply.
    static func replyAcrossShutdown(port: Int, server: MeasureServer, group: ServiceGroup, body: String) async throws
        -> HTTPTestClient.Reply {
        let client = try HTTPTestClient(port: port)
        try await client.send("POST /v1/measure HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                              + body.prefix(20))
        // Events, not lengths of time: the head has been read, and the request waits for its body...
        await server.metrics.waitUntil { $0.requestsInFlight == 1 }
        await group.triggerGracefulShutdown()
        // ...and the shutdown has begun (the listening socket is closed) before the body is complete.
        await server.metrics.waitUntil { !$0.isListening }
        try await client.send(String(body.dropFirst(20)))
        return try await client.readReply()
    }

    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    @Test func healthz() async throws {
        try await Self.withServer { port, _ in
            let reply = try await HTTPTestClient.request(port: port, "GET", "/healthz")
            #expect(reply.status == 200)
            #expect(reply.body == #"{"status":"ok"}"#)
        }
    }

    /// RFC 9110 §9.3.2: `HEAD` of a `GET` route answers as `GET` does, without the body; a method a
    /// route does not take gets 405 naming both.
    @Test func headIsAnsweredAsGetWithoutABody() async throws {
        try await Self.withServer { port, _ in
            let get = try await HTTPTestClient.request(port: port, "GET", "/healthz")
            let head = try await HTTPTestClient.request(port: port, "HEAD", "/healthz")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.headers["content-type"] == "application/json")
            #expect(head.headers["content-length"] == get.headers["content-length"])
            #expect(get.headers["content-length"] == String(get.body.utf8.count))
            let metrics = try await HTTPTestClient.request(port: port, "HEAD", "/metrics")
            #expect(metrics.status == 200 && metrics.body.isEmpty)
            #expect(metrics.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
            #expect(Int(metrics.headers["content-length"] ?? "") ?? 0 > 0)
            let post = try await HTTPTestClient.request(port: port, "POST", "/healthz", body: "{}")
            #expect(post.status == 405)
            #expect(post.headers["allow"] == "GET, HEAD")
            #expect(try Self.json(post.body) as? [String: String] == ["error": "/healthz takes GET or HEAD, not POST"])
            let exposition = try await HTTPTestClient.request(port: port, "GET", "/metrics")
            #expect(exposition.body.contains(#"textmeasure_http_requests_total{path="/healthz",status="200"} 2"#))
        }
    }

    /// A client that hangs up in the middle of its body is counted as an aborted request, not as a
    /// 500 that was never sent (error-rate alerts count the 5xx answers).
    @Test func aClientGoneMidBodyIsCountedAsAbortedNotAsAnError() async throws {
        try await Self.withServer { port, server in
            let client = try HTTPTestClient(port: port)
            try await client.send("POST /v1/measure HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"text\":\"cut")
            await server.metrics.waitUntil { $0.requestsInFlight == 1 }
            client.hangUp()
            // The quick handler hands the cut request on to the router, which counts it in flight
            // again until its reader fails: the wait is for the count itself, then for no request.
            await server.metrics.waitUntil { $0.abortedRequests == 1 && $0.requestsInFlight == 0 }
            let reply = try await HTTPTestClient.request(port: port, "GET", "/metrics")
            let lines = reply.body.split(separator: "\n").map(String.init)
            #expect(lines.contains(#"textmeasure_http_requests_aborted_total{path="/v1/measure"} 1"#), "\(reply.body)")
            #expect(!lines.contains { $0.hasPrefix(#"textmeasure_http_requests_total{path="/v1/measure""#) }, "\(reply.body)")
            #expect(!lines.contains { $0.hasPrefix(#"textmeasure_http_request_duration_seconds_count{path="/v1/measure"}"#) })
        }
    }

    @Test func oneObjectGivesTheBatchResult() async throws {
        let line = #"{"id":"a","text":"Hello, world! Measuring text without rendering it.","width":200}"#
        try await Self.withServer { port, _ in
            let reply = try await HTTPTestClient.request(port: port, "POST", "/v1/measure", body: line)
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == "application/json")
            #expect(reply.body == Self.batchOutput([line])[0])
            let object = try #require(try Self.json(reply.body) as? [String: Any])
            #expect(object["lineCount"] as? Int == 2)
            #expect(object["id"] as? String == "a")
        }
    }

    /// Styled items (`"spans"`) measure as the batch measures them; a bad span is its item's error.
    @Test func styledItemsAndBadSpans() async throws {
        let lines = [
            #"{"id":1,"text":"Anna: see parse_header() in main.c","width":150,"spans":[{"start":0,"end":5,"bold":true},{"start":10,"end":24,"mono":true,"size":22}]}"#,
            #"{"id":2,"text":"Anna: see parse_header() in main.c","width":150}"#,
            #"{"id":3,"text":"Anna","width":150,"spans":[{"start":0,"end":9,"bold":true}]}"#,
        ]
        try await Self.withServer { port, _ in
            let reply = try await HTTPTestClient.request(port: port, "POST", "/v1/measure",
                                                         body: "[" + lines.joined(separator: ",") + "]")
            #expect(reply.status == 200)
            #expect(reply.body == "[" + Self.batchOutput(lines).joined(separator: ",") + "]")
            let array = try #require(try Self.json(reply.body) as? [[String: Any]])
            #expect(array[0]["height"] as? Double != array[1]["height"] as? Double)
            #expect((array[2]["error"] as? String)?.hasPrefix(#""spans[0].end" 9 is past the end of the text"#) == true)
        }
    }

    @Test func anArrayGivesBatchResultsInOrder() async throws {
        let lines = [
            #"{"id":1,"text":"你好，世界","width":40,"size":13}"#,
            #"{"id":2,"width":100}"#,
            #"{"id":3,"text":"x","width":1e12}"#,
            #"[1]"#,
            #"{"id":5,"text":"مرحبا بالعالم 👋","width":80,"maxLines":1}"#,
            #"{"id":6,"text":"a","width":10,"maxLines":1.5}"#,
        ]
        try await Self.withServer { port, _ in
            let reply = try await HTTPTestClient.request(port: port, "POST", "/v1/measure",
                                                         body: "[" + lines.joined(separator: ",") + "]")
            #expect(reply.status == 200)
            #expect(reply.body == "[" + Self.batchOutput(lines).joined(separator: ",") + "]")
            let array = try #require(try Self.json(reply.body) as? [[String: Any]])
            #expect(array.count == lines.count)
            #expect(array[1]["error"] as? String == "missing field \"text\"")
            #expect((array[2]["error"] as? String)?.contains("\"width\" 1000000000000 is out of range") == true)
            #expect(array[3]["error"] as? String == "each line must be a JSON object")
            let empty = try await HTTPTestClient.request(port: port, "POST", "/v1/measure", body: "[]")
            #expect(empty.status == 200 && empty.body == "[]")
        }
    }

    /// A body whose texts are all held is answered on the spot, with the bytes, status and counts the
    /// measuring threads give it; a body with a text not held is not answered there, and nothing of it
    /// is measured.
    @Test func quickRepliesAreTheMeasuredOnes() throws {
        let endpoint = MeasureEndpoint(processor: Self.processor(), limits: ServerLimits())
        let lines = [
            #"{"id":1,"text":"你好，世界","width":40,"size":13}"#,
            #"{"id":2,"width":100}"#,
            #"{"id":3,"text":"x","width":1e12}"#,
            #"{"id":"four","text":"Hello","width":100,"z":-0,"nest":[1, {"a" : 2.50}]}"#,
        ]
        let body = Array(("[" + lines.joined(separator: ",") + "]").utf8)
        #expect(endpoint.quickReply(to: body) == nil)
        let before = endpoint.processor.texts.statistics
        #expect(before.hits == 0 && before.misses == 0)
        let measured = endpoint.respond(to: body)
        #expect(measured.status == 200 && measured.measured == 2 && measured.failed == 2)
        #expect(endpoint.quickReply(to: body) == measured)
        #expect(endpoint.quickReply(to: Array(lines[3].utf8)) == endpoint.respond(to: Array(lines[3].utf8)))
        // One held text beside one not held: measured elsewhere.
        #expect(endpoint.quickReply(to: Array(#"[{"text":"Hello","width":50},{"text":"new","width":50}]"#.utf8)) == nil)
        // Refusals need no measuring.
        #expect(endpoint.quickReply(to: Array("{nope".utf8)) == endpoint.respond(to: Array("{nope".utf8)))
        #expect(endpoint.quickReply(to: Array("{nope".utf8))?.status == 400)
    }

    /// The quick reply reads an array's items as it checks the body; what it answers is still what the
    /// measuring threads answer, refusals in the same order: not JSON (even after items it wrote), then
    /// too many items, then the first text over the limit (even after a text not held), and only then
    /// a text not held.
    @Test func quickRepliesRefuseAsTheMeasuredOnes() throws {
        let endpoint = MeasureEndpoint(processor: Self.processor(),
                                       limits: ServerLimits(maximumItems: 3, maximumTextBytes: 24))
        let held = #"{"text":"Hello","width":50}"#, other = #"{"text":"Hello","width":50,"spans":[{"length":5}]}"#
        let new = #"{"text":"not held yet","width":50}"#, long = #"{"text":"a text of more than 24 bytes","width":50}"#
        _ = endpoint.respond(to: Array("[\(held),\(other)]".utf8))
        let cases: [(body: String, status: Int?)] = [
            ("[\(held),\(other),\(held)]", 200),
            ("[\(held),\(other),\(held),\(held)]", 413),   // four items
            ("[\(held),\(new),\(held),\(held)]", 413),     // four items, one not held
            ("[\(held),\(new),\(long)]", 413),              // a long text after one not held
            ("[\(long),\(held),\(held),\(held)]", 413),    // too many items and a long text: the count
            ("[\(held),\(held),\(new)]", nil),              // not held: measured elsewhere
            ("[\(held),\(held)", 400), ("[\(held),\(new),]", 400), ("[\(held)] x", 400),
            ("[\(held),[1,{\"a\":2}],7]", 200), ("[]", 200), (" [ ] ", 200), (held, 200), (long, 413), ("7", 400),
        ]
        for (body, status) in cases {
            let bytes = Array(body.utf8)
            let hits = endpoint.processor.texts.statistics.hits
            let quick = endpoint.quickReply(to: bytes)
            #expect(quick?.status == status, "\(body)")
            // Hits counted for a reply measured here only, one per text found.
            let measured = quick.map { $0.status == 200 ? $0.measured : 0 } ?? 0
            #expect(endpoint.processor.texts.statistics.hits == hits + measured, "\(body)")
            if quick != nil { #expect(quick == endpoint.respond(to: bytes), "\(body)") }
        }
        let count = endpoint.quickReply(to: Array("[\(long),\(held),\(held),\(held)]".utf8))
        #expect(count?.body == #"{"error":"4 items: at most 3 per request"}"#)
        let length = endpoint.quickReply(to: Array("[\(held),\(new),\(long)]".utf8))
        #expect(length?.body.hasPrefix(#"{"error":"item 2: \"text\" is 28 bytes long"#) == true)
    }

    /// The pipeline's quick answers are the route's, byte for byte but the date: each body goes to
    /// `/v1/measure?route`, which the quick handler leaves to the router, then to `/v1/measure`, which it
    /// answers itself once the texts are held (or hands on when they are not, the first time).
    @Test func quickAnswersAreTheRoutesByteForByte() async throws {
        let bodies = [
            #"[{"id":1,"text":"Hello, world","width":60},{"id":"two","width":100},{"text":"x","width":1e12},[1],"# +
                #"{"text":"مرحبا بالعالم 👋","width":80,"maxLines":1,"nest":[1, {"a" : 2.50}],"z":-0}]"#,
            #"{"id":"one","text":"Hello, world","width":200,"s":"\u00e9"}"#,
            #"{"text":"Hello, world","width":0}"#,
            #"{"text":"never sent before","width":100}"#,
            "{nope", "", "42", "[]",
            "[" + Array(repeating: #"{"text":"x","width":10}"#, count: 6).joined(separator: ",") + "]",
            #"[{"text":""# + String(repeating: "é", count: 51) + #"","width":10}]"#,
        ]
        /// The reply's bytes without its `Date` line. The request keeps the connection alive, as the quick
        /// paths ask; a health check after it closes the connection, and its answer is cut off.
        @Sendable func exchange(_ port: Int, _ target: String, _ body: String) async throws -> String {
            let client = try HTTPTestClient(port: port)
            try await client.send("POST \(target) HTTP/1.1\r\nHost: x\r\n"
                                  + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
                                  + "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let replies = String(decoding: await client.readBytes(), as: UTF8.self)
            guard let health = replies.range(of: "HTTP/1.1 ", options: .backwards), health.lowerBound > replies.startIndex,
                  replies[health.lowerBound...].hasSuffix(#"{"status":"ok"}"#) else {
                Issue.record("no health check after the reply: \(replies)")
                return replies
            }
            let reply = replies[..<health.lowerBound]
            return reply.split(separator: "\r\n", omittingEmptySubsequences: false)
                .filter { !$0.lowercased().hasPrefix("date:") }.joined(separator: "\r\n")
        }
        let limits = ServerLimits(maximumBodyBytes: 2_000, maximumItems: 5, maximumTextBytes: 100)
        try await Self.withServer(limits: limits) { port, server in
            for body in bodies {
                // A text never sent before goes to the quick handler first, which hands it on.
                let handedOn = body.contains("never sent before")
                let first = try await exchange(port, handedOn ? "/v1/measure" : "/v1/measure?route", body)
                let second = try await exchange(port, handedOn ? "/v1/measure?route" : "/v1/measure", body)
                let (routed, quick) = handedOn ? (second, first) : (first, second)
                #expect(quick == routed)
                #expect(routed.hasPrefix("HTTP/1.1 "), "\(routed)")
                #expect(routed.lowercased().contains("\r\nserver: textmeasure\r\n"))
            }
            let metrics = String(decoding: server.metrics.exposition(), as: UTF8.self).split(separator: "\n")
            #expect(metrics.contains(#"textmeasure_http_requests_total{path="/v1/measure",status="200"} 8"#))
            #expect(metrics.contains(#"textmeasure_http_requests_total{path="/v1/measure",status="422"} 2"#))
            #expect(metrics.contains(#"textmeasure_http_requests_total{path="/v1/measure",status="400"} 6"#))
            #expect(metrics.contains(#"textmeasure_http_requests_total{path="/v1/measure",status="413"} 4"#))
            #expect(metrics.contains(#"textmeasure_http_request_duration_seconds_count{path="/v1/measure"} 20"#))
            #expect(server.metrics.activity.requestsInFlight == 0)
        }
    }

    @Test func errors() async throws {
        try await Self.withServer { port, _ in
            let item = try await HTTPTestClient.request(port: port, "POST", "/v1/measure", body: #"{"text":"x","width":0}"#)
            #expect(item.status == 422)
            #expect(item.body == Self.batchOutput([#"{"text":"x","width":0}"#])[0])
            for (body, message) in [("{nope", "invalid JSON"), ("", "empty body: send a JSON object or an array of them"),
                                    ("42", "the body must be a JSON object or an array of JSON objects")] {
                let reply = try await HTTPTestClient.request(port: port, "POST", "/v1/measure", body: body)
                #expect(reply.status == 400)
                #expect(try Self.json(reply.body) as? [String: String] == ["error": message])
            }
            // The router's own errors have the same JSON shape.
            let missing = try await HTTPTestClient.request(port: port, "GET", "/nowhere")
            #expect(missing.status == 404)
            #expect(missing.headers["content-type"] == "application/json")
            #expect(try Self.json(missing.body) as? [String: String] == ["error": "no such path: /nowhere"])
            let method = try await HTTPTestClient.request(port: port, "GET", "/v1/measure")
            #expect(method.status == 405)
            #expect(method.headers["allow"] == "POST")
            #expect(try Self.json(method.body) as? [String: String] == ["error": "/v1/measure takes POST, not GET"])
        }
    }

    /// Fields besides the ones measured come back byte for byte, as `textmeasure batch` echoes them: numbers
    /// no `Double` or `Int` keeps, escapes, white space inside a value.
    @Test func echoesFieldsAsSent() async throws {
        let fields = #""id":12345678901234567890,"big":1e999,"z":-0,"s":"\u00e9","nest":[1, {"a" : 2.50}]"#
        let single = #"{"text":"Hello","width":100,"# + fields + "}"
        let failing = #"{"width":100,"# + fields + "}"
        try await Self.withServer { port, _ in
            let one = try await HTTPTestClient.request(port: port, "POST", "/v1/measure", body: single)
            #expect(one.status == 200)
            #expect(one.body.hasSuffix(#""truncated":false,"# + fields + "}"), "\(one.body)")
            #expect(one.body == Self.batchOutput([single])[0])
            let many = try await HTTPTestClient.request(port: port, "POST", "/v1/measure",
                                                        body: "[ " + single + " ,\n" + failing + "]")
            #expect(many.status == 200)
            #expect(many.body == "[" + Self.batchOutput([single, failing]).joined(separator: ",") + "]")
            #expect(many.body.hasSuffix(#"{"error":"missing field \"text\"","# + fields + "}]"), "\(many.body)")
        }
    }

    @Test func limits() async throws {
        let limits = ServerLimits(maximumBodyBytes: 2_000, maximumItems: 3, maximumTextBytes: 100)
        try await Self.withServer(limits: limits) { port, _ in
            let item = #"{"text":"x","width":10}"#
            let many = try await HTTPTestClient.request(port: port, "POST", "/v1/measure",
                                                        body: "[" + Array(repeating: item, count: 4).joined(separator: ",") + "]")
            #expect(many.status == 413)
            #expect(try Self.json(many.body) as? [String: String] == ["error": "4 items: at most 3 per request"])
            let three = try await HTTPTestClient.request(port: port, "POST", "/v1/measure",
                                                         body: "[" + Array(repeating: item, count: 3).joined(separator: ",") + "]")
            #expect(three.status == 200)

            let long = String(repeating: "é", count: 51)   // 102 bytes
            let text = try await HTTPTestClient.request(port: port, "POST", "/v1/measure",
                                                        body: "[\(item),{\"text\":\"\(long)\",\"width\":10}]")
            #expect(text.status == 413)
            #expect(try Self.json(text.body) as? [String: String] == ["error": "item 1: \"text\" is 102 bytes long: at most 100"])

            let big = "[" + String(repeating: " ", count: 2_000) + "]"
            let body = try await HTTPTestClient.request(port: port, "POST", "/v1/measure", body: big)
            #expect(body.status == 413)
            #expect(try Self.json(body.body) as? [String: String] == ["error": "the body is larger than 2000 bytes"])

            // Without a Content-Length: the reader stops at the limit.
            let client = try HTTPTestClient(port: port)
            let chunk = String(repeating: " ", count: 1_500)
            try await client.send("POST /v1/measure HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
                                  + "5dc\r\n\(chunk)\r\n5dc\r\n\(chunk)\r\n0\r\n\r\n")
            let chunked = try await client.readReply()
            #expect(chunked.status == 413)

            // Widths and sizes go through MeasurementLimits, as in `batch`.
            let size = try await HTTPTestClient.request(port: port, "POST", "/v1/measure", body: #"{"text":"x","width":10,"size":0}"#)
            #expect(size.status == 422)
            #expect((try Self.json(size.body) as? [String: String])?["error"]?.hasPrefix("\"size\" 0 is out of range") == true)
        }
    }

    @Test func metricsInPrometheusFormat() async throws {
        try await Self.withServer { port, _ in
            _ = try await HTTPTestClient.request(port: port, "POST", "/v1/measure",
                                                 body: #"[{"text":"Hello","width":100},{"text":"Hello","width":50},{"width":1}]"#)
            _ = try await HTTPTestClient.request(port: port, "POST", "/v1/measure", body: "{")
            _ = try await HTTPTestClient.request(port: port, "GET", "/healthz")
            let reply = try await HTTPTestClient.request(port: port, "GET", "/metrics")
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
            let lines = reply.body.split(separator: "\n").map(String.init)
            #expect(lines.contains(#"textmeasure_http_requests_total{path="/v1/measure",status="200"} 1"#))
            #expect(lines.contains(#"textmeasure_http_requests_total{path="/v1/measure",status="400"} 1"#))
            #expect(lines.contains(#"textmeasure_http_requests_total{path="/healthz",status="200"} 1"#))
            #expect(lines.contains("# TYPE textmeasure_http_request_duration_seconds histogram"))
            #expect(lines.contains(#"textmeasure_http_request_duration_seconds_count{path="/v1/measure"} 2"#))
            #expect(lines.contains("textmeasure_items_measured_total 2"))
            #expect(lines.contains("textmeasure_item_errors_total 1"))
            #expect(lines.contains("textmeasure_prepared_text_hits 1.0"))
            #expect(lines.contains("textmeasure_prepared_text_misses 1.0"))
            #expect(lines.contains("textmeasure_prepared_text_hit_ratio 0.5"))
            #expect(lines.contains { $0.hasPrefix("textmeasure_shaped_piece_hit_ratio ") })
            #expect(lines.contains { $0.hasPrefix("textmeasure_shaped_span_hits ") })
            #expect(lines.contains { $0.hasPrefix("textmeasure_shaped_pieces_resized ") })
            // Every sample line: name{labels} value.
            let sample = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? (-?[0-9.e+-]+|\+Inf|NaN)$/
            for line in lines where !line.hasPrefix("#") {
                #expect(line.wholeMatch(of: sample) != nil, "not a sample line: \(line)")
            }
        }
    }

    @Test func aSlowClientDoesNotBlockOthers() async throws {
        try await Self.withServer { port, _ in
            // Sends its head and half its body, then waits.
            let slow = try HTTPTestClient(port: port)
            let body = #"{"text":"slow","width":100}"#
            try await slow.send("POST /v1/measure HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                                + body.prefix(10))
            for _ in 0..<5 {
                let reply = try await HTTPTestClient.request(port: port, "POST", "/v1/measure", body: #"{"text":"fast","width":100}"#)
                #expect(reply.status == 200)
            }
            try await slow.send(String(body.dropFirst(10)))
            let reply = try await slow.readReply()
            #expect(reply.status == 200)
        }
    }

    /// A client that pipelines requests and never reads the answers is not read without end: once its
    /// answers wait unread the server stops reading it, so that its socket takes no more bytes, and
    /// it is closed after the idle timeout. (Without back-pressure the server reads it as fast as it
    /// can answer, holding every answer in memory, until the idle handler closes it: no stall.)
    /// Stalls, not byte counts, so that the test does not depend on the system's socket buffers.
    @Test func aClientThatDoesNotReadIsNotReadWithoutEnd() async throws {
        try await Self.withServer(idleTimeout: .seconds(2)) { port, _ in
            // An echoed field makes each answer about as long as its request, for few items to measure.
            let body = #"{"id":"\#(String(repeating: "x", count: 4_000))","text":"Hello","width":320}"#
            #expect(try await HTTPTestClient.request(port: port, "POST", "/v1/measure", body: body).status == 200)   // held
            let request = "POST /v1/measure HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
            let client = try HTTPTestClient(port: port, socketBuffers: 16_384)
            let (sent, closed, stall) = await client.sendWithoutReading(Array(String(repeating: request, count: 16).utf8),
                                                                        limit: 1 << 30, seconds: 120)
            #expect(closed, "the server did not close the connection; \(sent) bytes sent")
            #expect(stall >= 1, "the server kept reading until it closed: \(sent) bytes taken, stalled \(stall) s at most")
        }
    }

    /// As ``gracefulShutdownLetsRequestsInFlightFinish()``, for a request the pipeline answers itself
    /// (its text held): the idle handler, not the router, holds the connection open for it.
    @Test func gracefulShutdownLetsAQuickRequestFinish() async throws {
        try await Self.withServerToShutDown { port, server, group in
            let body = #"{"id":"in flight","text":"Hello, world","width":100}"#
            let first = try await HTTPTestClient.request(port: port, "POST", "/v1/measure", body: body)
            #expect(first.status == 200)   // the text is held from here on
            let reply = try await Self.replyAcrossShutdown(port: port, server: server, group: group, body: body)
            #expect(reply.status == 200)
            #expect(reply.body == first.body)
        }
    }

    @Test func gracefulShutdownLetsRequestsInFlightFinish() async throws {
        try await Self.withServerToShutDown { port, server, group in
            let body = #"{"id":"in flight","text":"Hello, world","width":100}"#
            let reply = try await Self.replyAcrossShutdown(port: port, server: server, group: group, body: body)
            #expect(reply.status == 200)
            #expect(reply.body == Self.batchOutput([body])[0])
        }
    }
}
