import NIOCore
import NIOEmbedded
import NIOHTTP1
import TestSupport
import TextMeasureHTTP

/// NIO's HTTP/1 request decoder (`ByteToMessageHandler(HTTPRequestDecoder())` in an `EmbeddedChannel`)
/// as the reference for ``StrictRequestFrame``: the one comparison that `StrictRequestFrameTests` and
/// the `FuzzFrame` fuzzer both run.
///
/// The bytes are what a client sent on one connection. They are framed as ``WireMeasureHandler``
/// frames them, one request after another from the start, until a read is incomplete or unframeable
/// or the bytes run out (see ``walk(_:maximumBodyBytes:)``). The decoder is then fed the same bytes,
/// in three ways: at once, cut at each frame's edges (the byte before and after the end of its head
/// and of its body), and cut at a few places drawn from the bytes. What must hold:
/// - after the first *c* bytes, the decoder has read the heads of exactly the frames whose head ends
///   within them and the ends of exactly the frames that end within them, without an error: so each
///   frame is one request to the decoder, with the same head and the same end;
/// - each frame's request has the method, target and version of the frame's request line, its header
///   lines (names as sent, values without the spaces around them) in order, and its body bytes;
/// - where the framing stops at an incomplete head, the decoder reads no head from those bytes
///   either (it may fail on them); where it stops at bytes it cannot frame, anything may follow;
/// - a measure request (``StrictRequestFrame/isMeasureRequest``) is one the quick handler takes
///   (``MeasureEndpoint/takesQuickly(_:)``), with one `Content-Length` that is its body's length;
/// - the framing reads a prefix of a frame as incomplete until its head ends, then as the same frame.
///
/// The frames compared end with the first whose request closes the connection: the server reads
/// nothing after it (and the decoder refuses what follows).
///
/// Thread safety: a value holding the endpoint; `Sendable`.
package struct StrictFrameOracle: Sendable {
    /// The endpoint whose limits the framing and the quick handler's rule read.
    package let endpoint: MeasureEndpoint

    /// An oracle framing bodies within `endpoint`'s limit, as the wire handler does.
    package init(endpoint: MeasureEndpoint) {
        self.endpoint = endpoint
    }

    /// The frames in bytes read from a connection, one after another, and where they stop.
    package struct Walk: Sendable {
        /// Each frame with the offset at which it starts. The last may end past the bytes (its body is
        /// still coming).
        package var frames: [(start: Int, frame: StrictRequestFrame)] = []
        /// Where the bytes after the frames start and what they read as, or nil when every byte is in
        /// a frame.
        package var rest: (start: Int, outcome: StrictRequestFrame.Outcome)?
    }

    /// Frames `bytes` as ``WireMeasureHandler`` does: a request at the start, then one at its end, and
    /// so on.
    ///
    /// - Complexity: O(*n*) in the bytes' length.
    package static func walk(_ bytes: [UInt8], maximumBodyBytes: Int) -> Walk {
        var walk = Walk()
        var start = 0
        while start < bytes.count {
            let outcome = bytes.withUnsafeBytes {
                StrictRequestFrame.read(UnsafeRawBufferPointer(rebasing: $0[start...]), maximumBodyBytes: maximumBodyBytes)
            }
            guard case .request(let frame) = outcome else {
                walk.rest = (start, outcome)
                break
            }
            walk.frames.append((start, frame))
            start += frame.length
        }
        return walk
    }

    /// The first way in which the framing of `bytes` and NIO's decoding of them disagree (see the
    /// type's discussion), or nil.
    ///
    /// - Parameter bytes: What a client sent on one connection, any bytes.
    /// - Returns: A sentence saying what differs, without the bytes.
    package func disagreement(in bytes: [UInt8]) -> String? {
        let walk = Self.walk(bytes, maximumBodyBytes: endpoint.limits.maximumBodyBytes)
        if let problem = Self.prefixDisagreement(walk, bytes, maximumBodyBytes: endpoint.limits.maximumBodyBytes) {
            return problem
        }
        let whole = Decoding(bytes, cuts: [])
        // The frames the server would read: up to the first whose request closes the connection.
        let closing = whole.requests.prefix(walk.frames.count).firstIndex { !$0.head.isKeepAlive }
        let compared = closing.map { $0 + 1 } ?? walk.frames.count
        let expected = Expected(walk: walk, compared: compared, closes: closing != nil, count: bytes.count)
        if let problem = expected.disagreement(with: whole, bytes, endpoint: endpoint, name: "read at once") {
            return problem
        }
        // Cut at each frame's edges, then at places drawn from the bytes.
        var edges: [Int] = []
        for (start, frame) in walk.frames.prefix(compared) {
            for offset in [frame.body.lowerBound - 1, frame.body.lowerBound, frame.length - 1, frame.length] {
                edges.append(start + offset)
            }
        }
        if let rest = walk.rest { edges.append(rest.start) }
        var random = SplitMix64(seed: Self.hash(bytes))
        let drawn = bytes.count < 2 ? [] : (0..<(1 + random.next() % 12)).map { _ in 1 + Int(random.next() % UInt64(bytes.count - 1)) }
        for (name, cuts) in [("cut at the frames' edges", edges), ("cut at \(Set(drawn).sorted())", drawn)] {
            let cuts = Set(cuts.filter { $0 > 0 && $0 < bytes.count }).sorted()
            if let problem = expected.disagreement(with: Decoding(bytes, cuts: cuts), bytes, endpoint: endpoint, name: name) {
                return problem
            }
        }
        return nil
    }

    /// Whether the framing reads a prefix of each frame as incomplete until its head ends, then as the
    /// frame; a prefix of an incomplete rest as incomplete; of an unframeable one as either.
    private static func prefixDisagreement(_ walk: Walk, _ bytes: [UInt8], maximumBodyBytes: Int) -> String? {
        func read(_ range: Range<Int>) -> StrictRequestFrame.Outcome {
            bytes.withUnsafeBytes { StrictRequestFrame.read(UnsafeRawBufferPointer(rebasing: $0[range]), maximumBodyBytes: maximumBodyBytes) }
        }
        for (index, (start, frame)) in walk.frames.enumerated() {
            let available = min(frame.length, bytes.count - start)
            for length in Set([0, frame.body.lowerBound - 1, frame.body.lowerBound, available]).sorted() where length <= available {
                let outcome = read(start..<(start + length))
                let expected: StrictRequestFrame.Outcome = length < frame.body.lowerBound ? .incomplete : .request(frame)
                guard outcome == expected else {
                    return "frame \(index) at \(start): its first \(length) bytes read as \(outcome), not \(expected)"
                }
            }
        }
        if let rest = walk.rest, bytes.count - rest.start > 1 {
            let length = (bytes.count - rest.start) / 2
            let outcome = read(rest.start..<(rest.start + length))
            guard outcome == .incomplete || (rest.outcome == .unframeable && outcome == .unframeable) else {
                return "the bytes at \(rest.start) read as \(rest.outcome), their first \(length) as \(outcome)"
            }
        }
        return nil
    }

    /// FNV-1a: the seed of the cuts drawn for these bytes.
    private static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}

/// What NIO's decoder read from bytes written in pieces.
private struct Decoding {
    /// A request: its head, its body's bytes so far, whether its end was read.
    struct Request {
        var head: HTTPRequestHead
        var body: [UInt8] = []
        var ended = false
    }

    /// After one piece: how many bytes were written, the heads and ends read so far, and the error the
    /// decoder stopped at, if any (nothing is written after one).
    struct Step {
        var written: Int
        var heads: Int
        var ends: Int
        var error: (any Error)?
    }

    var requests: [Request] = []
    var steps: [Step] = []

    /// Writes `bytes` to a new decoder, cut before each offset of `cuts` (ascending, each within the bytes).
    init(_ bytes: [UInt8], cuts: [Int]) {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder()))
        defer { _ = try? channel.finish() }
        var start = 0, ends = 0
        for cut in cuts + [bytes.count] where cut > start {
            var failure: (any Error)?
            do {
                try channel.writeInbound(ByteBuffer(bytes: bytes[start..<cut]))
            } catch {
                failure = error
            }
            start = cut
            while let part = try? channel.readInbound(as: HTTPServerRequestPart.self) {
                switch part {
                case .head(let head): requests.append(Request(head: head))
                case .body(let body): requests[requests.count - 1].body += body.readableBytesView
                case .end:
                    requests[requests.count - 1].ended = true
                    ends += 1
                }
            }
            steps.append(Step(written: cut, heads: requests.count, ends: ends, error: failure))
            if failure != nil { break }
        }
    }
}

/// What the decoder must have read after each piece, from the frames.
private struct Expected {
    let walk: StrictFrameOracle.Walk
    /// How many frames, from the first, are compared.
    let compared: Int
    /// Up to where the decoder's reading is known exactly: the end of a frame whose request closes the
    /// connection, or the start of unframeable bytes; otherwise the bytes' end.
    let known: Int
    /// From where the decoder may fail: after a request that closes the connection, or from the start
    /// of an incomplete head after the frames.
    let mayFailFrom: Int

    /// - Parameter closes: Whether the last frame compared is a request that closes the connection.
    init(walk: StrictFrameOracle.Walk, compared: Int, closes: Bool, count: Int) {
        self.walk = walk
        self.compared = compared
        if closes {
            let (start, frame) = walk.frames[compared - 1]
            known = min(start + frame.length, count)
            mayFailFrom = known
        } else {
            known = walk.rest.map { $0.outcome == .unframeable ? $0.start : count } ?? count
            mayFailFrom = walk.rest.map { $0.outcome == .incomplete ? $0.start : count } ?? count
        }
    }

    /// How many of the frames compared have their head, and their end, within the first `count` bytes.
    func counts(within count: Int) -> (heads: Int, ends: Int) {
        let frames = walk.frames.prefix(compared)
        return (frames.count(where: { $0.start + $0.frame.body.lowerBound <= count }),
                frames.count(where: { $0.start + $0.frame.length <= count }))
    }

    func disagreement(with decoding: Decoding, _ bytes: [UInt8], endpoint: MeasureEndpoint, name: String) -> String? {
        for step in decoding.steps {
            let expected = counts(within: min(step.written, known))
            let read = "\(name), after \(step.written) bytes the decoder read \(step.heads) heads and \(step.ends) ends"
            if step.written <= known ? (step.heads, step.ends) != expected : step.heads < expected.heads || step.ends < expected.ends {
                return "\(read), the framing \(expected.heads) and \(expected.ends) (\(walk.frames.count) frames, known to \(known))"
            }
            if let error = step.error, step.written <= known && step.written <= mayFailFrom {
                return "\(read), then failed: \(error) (the framing framed those bytes)"
            }
        }
        for (index, (start, frame)) in walk.frames.prefix(compared).enumerated() {
            guard index < decoding.requests.count else { return "\(name): no request \(index) decoded" }
            let request = decoding.requests[index]
            let head = Array(bytes[start..<(start + frame.body.lowerBound)])
            let body = Array(bytes[(start + frame.body.lowerBound)..<min(start + frame.length, bytes.count)])
            if let problem = Self.difference(head: head, from: request.head) {
                return "\(name): request \(index) at \(start): \(problem)"
            }
            if request.body != body {
                return "\(name): request \(index) at \(start): the body decoded is \(request.body.count) bytes "
                    + "\(String(decoding: request.body, as: UTF8.self).debugDescription), framed \(body.count)"
            }
            if frame.isMeasureRequest {
                let lengths = request.head.headers["content-length"]
                if !endpoint.takesQuickly(request.head) || lengths.count != 1 || Int(lengths[0]) != frame.body.count {
                    return "\(name): request \(index) at \(start) is framed as a measure request, which the quick handler "
                        + "does not take as decoded (Content-Length \(lengths), body \(frame.body.count) bytes)"
                }
            }
        }
        return nil
    }

    /// How the decoded head differs from what the framed head's bytes say, or nil.
    static func difference(head bytes: [UInt8], from head: HTTPRequestHead) -> String? {
        let lines = bytes.dropLast(4).split(separator: 0x0A, omittingEmptySubsequences: false).map {
            String(decoding: $0.last == 0x0D ? $0.dropLast() : $0, as: UTF8.self)
        }
        let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, head.method.rawValue == requestLine[0], head.uri == requestLine[1],
              head.version == .http1_1 else {
            return "decoded \(head.method) \(head.uri) \(head.version), framed \(lines[0].debugDescription)"
        }
        func trimmed(_ value: Substring) -> String {
            var value = value
            while let first = value.first, first == " " || first == "\t" { value.removeFirst() }
            while let last = value.last, last == " " || last == "\t" { value.removeLast() }
            return String(value)
        }
        var framed: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return "a framed header line without a colon: \(line.debugDescription)" }
            framed.append((String(line[..<colon]), trimmed(line[line.index(after: colon)...])))
        }
        let decoded = head.headers.map { (name: $0.name, value: trimmed($0.value[...])) }
        guard framed.elementsEqual(decoded, by: { $0.name == $1.name && $0.value == $1.value }) else {
            return "headers decoded \(decoded), framed \(framed)"
        }
        return nil
    }
}
