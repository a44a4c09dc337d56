import Dispatch
import Testing
import TextMeasureHTTP
#if canImport(Glibc)
import Glibc
#endif

/// `ServerLimits.maximumConnections`: idle connections past the limit are closed at once, the ones held
/// are still answered, and once they close the server takes new ones. Every wait is for an event (the
/// server's counts), never for a length of time.
@Suite("textmeasure serve: connection limit")
struct ConnectionLimitTests {
    /// Lets this process open `count` more descriptors than it has now, if its hard limit allows.
    static func allowDescriptors(_ count: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(count) else { return }
        limit.rlim_cur = min(limit.rlim_max, rlim_t(count))
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    @Test func idleConnectionsPastTheLimitAreClosed() async throws {
        let limit = 50, count = 1_000
        Self.allowDescriptors(3 * count)
        try await MeasureServerTests.withServer(limits: ServerLimits(maximumConnections: limit)) { port, server in
            // A thousand connections that send nothing.
            var idle: [HTTPTestClient] = []
            for _ in 0..<count { idle.append(try HTTPTestClient(port: port, timeout: 60)) }
            await server.metrics.waitUntil { $0.openConnections + $0.refusedConnections == count }
            let held = server.metrics.activity
            #expect(held.openConnections == limit)
            #expect(held.refusedConnections == count - limit)

            // Every one asks; exactly the held ones are answered (the others were closed on arrival).
            let request = Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
            let connections = idle
            let answered = await HTTPTestClient.offPool {
                connections.map { $0.exchangeBlocking(request) }.filter { $0?.status == 200 }.count
            }
            #expect(answered == limit)

            // Once every connection is gone, a new one is answered.
            idle.removeAll()
            await server.metrics.waitUntil { $0.openConnections == 0 }
            let reply = try await HTTPTestClient.request(port: port, "GET", "/healthz")
            #expect(reply.status == 200)
            let metrics = try await HTTPTestClient.request(port: port, "GET", "/metrics")
            #expect(metrics.body.contains("textmeasure_http_connections_refused_total \(count - limit)\n"), "\(metrics.body)")
        }
    }
}
