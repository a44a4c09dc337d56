import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client over a blocking loopback socket, for tests that need to control what is
/// sent when (a body cut in two, a connection left open). Blocking calls run on Dispatch threads, never
/// on the cooperative pool the server's tasks share.
///
/// Thread safety: a connection belongs to one test at a time.
final class HTTPTestClient: @unchecked Sendable {   // the descriptor is used by one caller at a time
    struct Reply: Sendable {
        var status: Int
        var statusLine: String
        var headers: [String: String]   // names lowercased
        var body: String
        /// Whether the server closed the connection (not a read that timed out or failed).
        var closedByServer: Bool
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port`, waiting at most `timeout` seconds for each read; with
    /// `socketBuffers`, the socket's send and receive buffers are that many bytes (as small as the
    /// system allows), so that a server holding back shows sooner.
    init(port: Int, timeout seconds: Int = 60, socketBuffers: Int32? = nil) throws {
        // The socket is made and connected before `descriptor` is set: a class whose stored properties
        // are all set runs its deinit when its init throws, and closing a refused socket there as well
        // as here would close whatever descriptor the process had opened under that number meanwhile
        // (a server's accepted connection, in a test running beside this one).
        descriptor = try Self.connected(port: port, timeout: seconds, socketBuffers: socketBuffers)
    }

    private static func connected(port: Int, timeout seconds: Int, socketBuffers: Int32?) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed") }
        if var size = socketBuffers {
            // Before connecting: the receive window is agreed then.
            for option in [SO_SNDBUF, SO_RCVBUF] {
                setsockopt(descriptor, SOL_SOCKET, option, &size, socklen_t(MemoryLayout<Int32>.size))
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(descriptor)
            throw Failure(description: "connect to \(port) failed: errno \(error)")
        }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    deinit { close(descriptor) }

    /// Sends bytes as they are.
    func send(_ bytes: [UInt8]) async throws {
        let fd = descriptor
        let ok = await Self.offPool {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
        if !ok { throw Failure(description: "send failed") }
    }

    /// Sends a string as UTF-8.
    func send(_ text: String) async throws { try await send(Array(text.utf8)) }

    /// Sends `bytes` again and again and reads nothing, until the server closes the connection (a send
    /// fails), `limit` bytes are sent, or `seconds` pass.
    ///
    /// - Returns: The bytes sent, whether the server closed the connection, and the longest time, in
    ///   seconds, that the socket took no more bytes (the last stretch included when the server closed).
    func sendWithoutReading(_ bytes: [UInt8], limit: Int, seconds: Int)
        async -> (sent: Int, closed: Bool, longestStall: Double) {
        let fd = descriptor
        return await Self.offPool {
            func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
            let end = now() + UInt64(seconds) * 1_000_000_000
            var sent = 0
            var stalledSince: UInt64?
            var longestStall: UInt64 = 0
            func stallEnds() {
                if let since = stalledSince { longestStall = max(longestStall, now() - since) }
                stalledSince = nil
            }
            while sent < limit, now() < end {
                let offset = sent % bytes.count
                let count = bytes[offset...].withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if count > 0 {
                    stallEnds()
                    sent += count
                } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                    if stalledSince == nil { stalledSince = now() }
                    var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, 100)
                } else {
                    stallEnds()
                    return (sent, true, Double(longestStall) / 1e9)   // reset, or the pipe closed
                }
            }
            return (sent, false, Double(longestStall) / 1e9)
        }
    }

    /// Reads until the server closes the connection (requests say `Connection: close`) and parses the reply.
    func readReply() async throws -> Reply {
        let fd = descriptor
        let (data, closed) = await Self.offPool { Self.readToEnd(fd) }
        return try Self.parse(data, closedByServer: closed)
    }

    /// Reads until what the server sent ends with `marker` (an interim `100 Continue`, say), or the
    /// server closes the connection, or the read times out; returns what was read, as sent.
    func read(until marker: String) async -> String {
        let fd = descriptor
        let end = Array(marker.utf8)
        let data = await Self.offPool {
            var data: [UInt8] = []
            var byte: UInt8 = 0
            // A byte at a time: nothing after the marker is taken from the socket.
            while !(data.count >= end.count && data.suffix(end.count).elementsEqual(end)) {
                guard recv(fd, &byte, 1, 0) == 1 else { break }
                data.append(byte)
            }
            return data
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Closes the connection both ways, as a client that gives up does (the descriptor stays open
    /// until the client is released).
    func hangUp() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Reads until the server closes the connection (or the read times out) and returns what it sent,
    /// as sent, and whether the server closed it: for a test that expects no more answers on it.
    func readToClose() async -> (text: String, closedByServer: Bool) {
        let fd = descriptor
        let (data, closed) = await Self.offPool { Self.readToEnd(fd) }
        return (String(decoding: data, as: UTF8.self), closed)
    }

    /// Reads until the server closes the connection and returns what it sent, as sent.
    func readBytes() async -> [UInt8] {
        let fd = descriptor
        return await Self.offPool { Self.readToEnd(fd).0 }
    }

    /// Reads until the server closes the connection, on the calling thread; true when it closed it
    /// cleanly (not a reset, not the read timeout).
    static func readToEnd(_ fd: Int32) -> ([UInt8], Bool) {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (data, count == 0) }
            data += chunk[..<count]
        }
    }

    /// Sends `bytes` and reads the reply on the calling thread (for many connections in a row); nil
    /// when the server closed or reset the connection without one.
    func exchangeBlocking(_ bytes: [UInt8]) -> Reply? {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }
            offset += sent
        }
        let (data, closed) = Self.readToEnd(descriptor)
        return try? Self.parse(data, closedByServer: closed)
    }

    /// The reply in `data`.
    static func parse(_ data: [UInt8], closedByServer: Bool) throws -> Reply {
        let text = String(decoding: data, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw Failure(description: "no reply: \(text)") }
        let head = text[..<split.lowerBound].split(separator: "\r\n")
        guard let statusLine = head.first, statusLine.split(separator: " ").count >= 2,
              let status = Int(statusLine.split(separator: " ")[1]) else {
            throw Failure(description: "bad status line in \(text)")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: " ")
        }
        return Reply(status: status, statusLine: String(statusLine), headers: headers, body: String(text[split.upperBound...]),
                     closedByServer: closedByServer)
    }

    /// One request on a new connection.
    static func request(port: Int, _ method: String, _ path: String, body: String? = nil,
                        headers: [String] = [], timeout: Int = 60) async throws -> Reply {
        let client = try HTTPTestClient(port: port, timeout: timeout)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        for header in headers { head += header + "\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        try await client.send(head + "\r\n" + (body ?? ""))
        return try await client.readReply()
    }

    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}

private extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        String(drop(while: { $0 == set }).reversed().drop(while: { $0 == set }).reversed())
    }
}
