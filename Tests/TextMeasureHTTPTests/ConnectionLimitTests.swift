import Dispatch
import Foundation
import Testing
import TextMeasureHTTP
#if canImport(Glibc)
import Glibc
#endif

/// `ServerLimits.maximumConnections`: idle connections past the limit are closed at once, the ones held
/// are still answered, and once they close the server takes new ones; a burst of connections waits in
/// the listening socket's queue rather than being dropped. Every wait is for an event (the server's
/// counts), never for a length of time.
@Suite("textmeasure serve: connection limit")
struct ConnectionLimitTests {
    /// Lets this process open `count` more descriptors than it has now, if its hard limit allows.
    static func allowDescriptors(_ count: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(count) else { return }
        limit.rlim_cur = min(limit.rlim_max, rlim_t(count))
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// `count` connections to `port`, opened one after another on a Dispatch thread (connecting blocks).
    static func connect(_ count: Int, port: Int) async throws -> [HTTPTestClient] {
        try await HTTPTestClient.offPool {
            Result { try (0..<count).map { _ in try HTTPTestClient(port: port, timeout: 60) } }
        }.get()
    }

    /// The kernel's count of connections dropped because a listening socket's queue was full
    /// (`ListenOverflows` in `/proc/net/netstat`), in this process's network namespace.
    static func listenOverflows() throws -> Int {
        let lines = try String(contentsOfFile: "/proc/net/netstat", encoding: .utf8).split(separator: "\n")
        for (names, values) in zip(lines, lines.dropFirst()) where names.hasPrefix("TcpExt:") && values.hasPrefix("TcpExt:") {
            let pairs = zip(names.split(separator: " "), values.split(separator: " "))
            if let value = pairs.first(where: { $0.0 == "ListenOverflows" }).flatMap({ Int($0.1) }) { return value }
        }
        throw HTTPTestClient.Failure(description: "no ListenOverflows in /proc/net/netstat")
    }

    /// A burst of connections four times as long as Hummingbird's default backlog is queued by the
    /// kernel while the server takes them, not dropped: no listening socket overflowed meanwhile. (With
    /// a backlog of 256 this fails whenever the server accepts more slowly than a client connects, as
    /// it always does under ThreadSanitizer.)
    @Test(.timeLimit(.minutes(30))) func aBurstOfConnectionsIsQueuedNotDropped() async throws {
        let count = 1_024
        Self.allowDescriptors(3 * count)
        let before = try Self.listenOverflows()
        try await MeasureServerTests.withServer(limits: ServerLimits(maximumConnections: 50),
                                                idleTimeout: .seconds(3_600)) { port, server in
            let burst = try await Self.connect(count, port: port)
            await server.metrics.waitUntil { $0.openConnections + $0.refusedConnections == count }
            try Task.checkCancellation()   // the time limit passed
            #expect(try Self.listenOverflows() == before)
            withExtendedLifetime(burst) {}   // open until the count is checked
        }
    }

    /// A thousand connections are opened a wave at a time, each wave once the server has taken the one
    /// before, so that no connection waits on the listening socket's queue however slowly a loaded or
    /// sanitized server accepts (a full queue drops connections, and each then waits out the kernel's
    /// retransmissions: the burst test above is about that). The idle timeout is an hour, because this
    /// test is not about it: a held connection closed as idle while a slow run is still connecting
    /// would be replaced by a later one, and the count awaited would never be reached. The time limits
    /// only end a run that would otherwise hang: a sanitized suite on two cores can keep a test from
    /// running for minutes.
    @Test(.timeLimit(.minutes(30))) func idleConnectionsPastTheLimitAreClosed() async throws {
        let limit = 50, count = 1_000, wave = 100
        Self.allowDescriptors(3 * count)
        try await MeasureServerTests.withServer(limits: ServerLimits(maximumConnections: limit),
                                                idleTimeout: .seconds(3_600)) { port, server in
            // A thousand connections that send nothing.
            var idle: [HTTPTestClient] = []
            while idle.count < count {
                idle += try await Self.connect(wave, port: port)
                let total = idle.count
                await server.metrics.waitUntil { $0.openConnections + $0.refusedConnections == total }
                try Task.checkCancellation()   // the time limit passed
            }
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
