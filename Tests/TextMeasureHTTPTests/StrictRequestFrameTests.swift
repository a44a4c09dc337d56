import FramingOracle
import Foundation
import TestSupport
import Testing
import TextMeasureBatch
@testable import TextMeasureHTTP

/// The strict request framing the wire handler answers by, and NIO's decoder as its reference: every
/// request framed here is one request to the decoder, ending where the frame ends, with the body the
/// frame says.
@Suite("textmeasure serve: strict request framing")
struct StrictRequestFrameTests {
    static func read(_ text: String, maximumBodyBytes: Int = 1_000) -> StrictRequestFrame.Outcome {
        read(Array(text.utf8), maximumBodyBytes: maximumBodyBytes)
    }

    static func read(_ bytes: [UInt8], maximumBodyBytes: Int = 1_000) -> StrictRequestFrame.Outcome {
        bytes.withUnsafeBytes { StrictRequestFrame.read($0, maximumBodyBytes: maximumBodyBytes) }
    }

    static let endpoint = MeasureEndpoint(processor: MeasureServerTests.processor(), limits: ServerLimits(maximumBodyBytes: 1_000))

    static let measure = "POST /v1/measure HTTP/1.1\r\nHost: localhost:8080\r\nContent-Type: application/json\r\n"
        + "Content-Length: 28\r\n\r\n" + #"{"text":"Hello","width":50}"# + "\n"

    @Test func framesAMeasureRequestAndWhatFollowsIt() throws {
        let next = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        guard case .request(let frame) = Self.read(Self.measure + next) else {
            Issue.record("not framed")
            return
        }
        let headLength = Self.measure.utf8.count - 28
        #expect(frame == StrictRequestFrame(length: Self.measure.utf8.count, body: headLength..<(headLength + 28),
                                            isMeasureRequest: true))
        let rest = Array(Array((Self.measure + next).utf8)[frame.length...])
        guard case .request(let second) = Self.read(rest) else {
            Issue.record("the next request is not framed")
            return
        }
        #expect(second.length == next.utf8.count && second.body.isEmpty && !second.isMeasureRequest)
        // Names in any case; `Connection: keep-alive`; spaces around values.
        let shouted = "POST /v1/measure HTTP/1.1\r\nHOST: x\r\nCONTENT-length:\t2\r\nConnection: Keep-Alive\r\n\r\n[]"
        #expect(Self.read(shouted) == .request(StrictRequestFrame(length: shouted.utf8.count,
                                                                  body: (shouted.utf8.count - 2)..<shouted.utf8.count,
                                                                  isMeasureRequest: true)))
    }

    /// Every prefix of a head is incomplete; once the head is whole, the frame is the whole request's.
    @Test func everyPrefixIsIncompleteOrTheWholeFrame() {
        let bytes = Array(Self.measure.utf8)
        let whole = Self.read(bytes)
        let headLength = bytes.count - 28
        for length in 0..<bytes.count {
            #expect(Self.read(Array(bytes[..<length])) == (length < headLength ? .incomplete : whole), "\(length) bytes")
        }
    }

    @Test func framedButNotToTake() {
        let cases = [
            "POST /v1/measure?x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n[]",
            "PUT /v1/measure HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n[]",
            "POST /v1/measure HTTP/1.1\r\nContent-Length: 2\r\n\r\n[]",
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\nHost: y\r\nContent-Length: 2\r\n\r\n[]",
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\n\r\n",
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n[]",
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, close\r\nContent-Length: 2\r\n\r\n[]",
            "GET /v1/measure HTTP/1.1\r\nHost: x\r\n\r\n",
        ]
        for text in cases {
            guard case .request(let frame) = Self.read(text) else {
                Issue.record("not framed: \(text.debugDescription)")
                continue
            }
            #expect(frame.length == text.utf8.count && !frame.isMeasureRequest, "\(text.debugDescription)")
        }
    }

    @Test func unframeableHeadsGoToTheDecoder() {
        let body = "Content-Length: 2\r\n\r\n[]"
        let cases = [
            "POST /v1/measure HTTP/1.0\r\nHost: x\r\n" + body,
            "post /v1/measure HTTP/1.1\r\nHost: x\r\n" + body,
            "CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n",
            "POST http://x/v1/measure HTTP/1.1\r\nHost: x\r\n" + body,
            "POST  /v1/measure HTTP/1.1\r\nHost: x\r\n" + body,
            "POST /v1/measure\"x HTTP/1.1\r\nHost: x\r\n" + body,
            "\r\nPOST /v1/measure HTTP/1.1\r\nHost: x\r\n" + body,
            "POST /v1/measure HTTP/1.1\nHost: x\r\n" + body,
            "POST /v1/measure HTTP/1.1\r\nHost: x\n" + body,
            "POST /v1/measure HTTP/1.1\r\nHost : x\r\n" + body,
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\n folded\r\n" + body,
            "POST /v1/measure HTTP/1.1\r\nHost: \u{e9}\r\n" + body,
            "POST /v1/measure HTTP/1.1\r\nHost: x\u{1}\r\n" + body,
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n",
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n" + body,
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\nProxy-Connection: close\r\n" + body,
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: upgrade\r\n" + body,
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n" + body,
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\n[]",
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\nContent-Length: 2, 2\r\n\r\n[]",
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n",
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\nContent-Length: 1234567890\r\n\r\n",
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\n" + String(repeating: "A: b\r\n", count: 64) + body,
            "POST /v1/measure HTTP/1.1\r\nHost: x\r\nA: " + String(repeating: "b", count: 16 * 1024) + "\r\n" + body,
        ]
        for text in cases {
            #expect(Self.read(text) == .unframeable, "\(text.prefix(120).debugDescription)")
        }
        // A head that has not ended within the limit, although what came is in the subset.
        #expect(Self.read("POST /v1/measure HTTP/1.1\r\nA: " + String(repeating: "b", count: 16 * 1024)) == .unframeable)
    }

    /// Generated heads, most in the subset and some bent out of it at random (bytes changed, dropped,
    /// doubled), with a request after them, framed one after another and read by NIO's decoder, at once
    /// and in pieces (``StrictFrameOracle``, which the `FuzzFrame` fuzzer runs too): whatever is framed,
    /// the decoder reads as one request ending there, with the frame's head and body, and a measure
    /// request to take is one the quick handler would take.
    @Test func framedRequestsAreTheDecodersRequests() throws {
        var random = SplitMix64(seed: 0x57_71C7)
        var framed = 0, measures = 0, unframeable = 0
        for _ in 0..<3_000 {
            var bytes = Self.randomRequest(using: &random)
            if random.next() % 3 == 0 {
                for _ in 0..<(1 + random.next() % 3) { Self.bend(&bytes, using: &random) }
            }
            // What follows shows where the decoder ends the request (a bent length may reach into it).
            let read = bytes + Array("GET /next HTTP/1.1\r\nHost: n\r\n\r\n".utf8)
            switch Self.read(read) {
            case .incomplete: break
            case .unframeable: unframeable += 1
            case .request(let frame) where frame.length > read.count: break   // a bent length past what follows
            case .request(let frame):
                framed += 1
                if frame.isMeasureRequest { measures += 1 }
            }
            if let problem = Self.oracle.disagreement(in: read) {
                Issue.record("\(problem): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            }
        }
        // The generator reaches every outcome.
        #expect(framed > 1_300 && measures > 150 && unframeable > 800, "\(framed) \(measures) \(unframeable)")
    }

    static let oracle = StrictFrameOracle(endpoint: endpoint)

    /// The `FuzzFrame` fuzzer's seeds and every input it once failed on, through the same oracle.
    @Test func fuzzCorpusAndRegressions() throws {
        var replayed = 0
        for folder in ["Fuzz/corpus/frame", "Fuzz/regressions/frame"].map({ packageRoot() + "/" + $0 })
        where FileManager.default.fileExists(atPath: folder) {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
                let data = try #require(FileManager.default.contents(atPath: folder + "/" + name))
                #expect(Self.oracle.disagreement(in: Array(data)) == nil, "\(name)")
                replayed += 1
            }
        }
        #expect(replayed >= 10)
    }

    /// A request in the subset, or near it.
    static func randomRequest(using random: inout SplitMix64) -> [UInt8] {
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        let method = pick(["POST", "POST", "POST", "POST", "POST", "GET", "PUT", "DELETE", "OPTIONS", "PATCH", "HEAD"])
        let target = pick(["/v1/measure", "/v1/measure", "/v1/measure", "/v1/measure", "/v1/measure?x=1", "/healthz", "/a/b;c=d/%20?e&f",
                           "/~user/(x)*!$'+,:@"])
        let body = String(repeating: pick(["[", "{", "\"é\"", "x", " "]), count: Int(random.next() % 40))
        var fields: [String] = []
        if random.next() % 8 != 0 { fields.append(pick(["Host", "host", "HOST"]) + ": " + pick(["x", "localhost:8080", ""])) }
        if random.next() % 10 == 0 { fields.append("Host: y") }
        if method != "GET" || random.next() % 4 == 0 {
            fields.append(pick(["Content-Length", "content-length"]) + ":" + pick([" ", "", "\t", "  "])
                          + String(body.utf8.count) + pick(["", "", "", "", "", " ", "\t"]))
        }
        for _ in 0..<(random.next() % 5) {
            fields.append(pick(["Content-Type: application/json", "Accept: */*", "User-Agent: wrk/4.2 (x; y)",
                                "X-Empty:", "X-Tab:\tv\t", "Connection: keep-alive", "Connection: close",
                                "Cookie: a=b; c=\"d\"", "X-Odd: !#$%&'*+-.^_`|~{}[]<>\\", "Proxy-Connection: close"]))
        }
        fields.shuffle(using: &random)
        let head = "\(method) \(target) HTTP/1.1\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n"
        return Array(head.utf8) + Array((method == "GET" && !fields.contains { $0.lowercased().hasPrefix("content-length") }
                                         ? "" : body).utf8)
    }

    /// Changes, drops or doubles one byte, or puts in one the subset leaves out.
    static func bend(_ bytes: inout [UInt8], using random: inout SplitMix64) {
        guard !bytes.isEmpty else { return }
        let at = Int(random.next() % UInt64(bytes.count))
        switch random.next() % 4 {
        case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
        case 1: bytes.remove(at: at)
        case 2: bytes.insert(bytes[at], at: at)
        default: bytes.insert([0x20, 0x09, 0x0D, 0x0A, 0x00, 0x7F, 0xC3, 0x3A, 0x2C][Int(random.next() % 9)], at: at)
        }
    }
}
