/// Where one HTTP/1.1 request ends in the bytes read from a connection, for the requests whose head is
/// written in a strict subset of RFC 9112's syntax, which NIO's decoder reads as this reader does; and
/// whether the request is one ``WireMeasureHandler`` may answer before that decoder.
///
/// The subset:
/// - the request line: `GET`, `HEAD`, `POST`, `PUT`, `DELETE`, `OPTIONS` or `PATCH`, one space, a
///   target in origin form (`/` then RFC 3986's path and query characters), one space, `HTTP/1.1`;
/// - each header line: a name of token characters, `:`, a value of visible ASCII, spaces and tabs (no
///   line folding, no bytes above 0x7E);
/// - every line ends in CR LF, the head with an empty line, within ``maximumHeadBytes`` and
///   ``maximumHeaderLines`` (both far below the decoder's limits, so that the decoder never refuses
///   a head for its size that this reader framed);
/// - at most one `Content-Length`, of at most 9 digits and nothing after them, within the body limit; no
///   `Transfer-Encoding`, `Expect` or `Upgrade`, whose bodies and answers need the decoder and the
///   router, and no `Proxy-Connection`, which the decoder reads as `Connection`.
///
/// Anything else is ``Outcome/unframeable``: the reader does not say where such a request ends, and its
/// bytes, with every byte after them, go to NIO's decoder. Some requests the decoder reads well are
/// outside the subset too (HTTP/1.0, an empty line before a request, folded or non-ASCII header
/// values, a body over the limit): they are answered as before, by the handlers after the decoder. Within the subset the framing is the
/// decoder's: the head, then exactly `Content-Length` bytes of body (none without the header), so a
/// request framed here and handed to the decoder leaves it at the start of the next.
///
/// Thread safety: a value type of integers; `Sendable`.
package struct StrictRequestFrame: Sendable, Equatable {
    /// What the bytes at the start of a buffer are.
    package enum Outcome: Sendable, Equatable {
        /// The start of a request head in the subset, not yet whole.
        case incomplete
        /// Not a request in the subset, or not only: for NIO's decoder.
        case unframeable
        /// A request in the subset whose head is whole; its body may still be coming (its ``length``
        /// may go past the bytes read).
        case request(StrictRequestFrame)
    }

    /// The request's length in bytes, head and body.
    package let length: Int
    /// Where its body lies, from the start of the request.
    package let body: Range<Int>
    /// Whether it is `POST /v1/measure` with one `Host` and one `Content-Length`, keeping the connection
    /// alive (no `Connection` other than `keep-alive`): a request ``QuickMeasureHandler/takes(_:)``
    /// would take (when nothing before it is the router's), and ``HTTP1ConformanceHandler`` would let
    /// through unchanged. (Not every request those take: `Connection: keep-alive, x`, for one, is not.)
    package let isMeasureRequest: Bool

    /// The longest head framed; a longer one is unframeable.
    static let maximumHeadBytes = 16 * 1024
    /// The most header lines framed; more are unframeable.
    static let maximumHeaderLines = 64

    /// Reads the request at the start of `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: What the connection sent from the start of a request on (possibly more requests after).
    ///   - maximumBodyBytes: The longest body framed; a longer `Content-Length` is unframeable.
    ///   - measurePath: The target of a measure request.
    /// - Returns: Incomplete, unframeable, or where the request ends, once its head is whole. A prefix
    ///   of an unframeable head may read as incomplete: what decides is the first byte outside the subset.
    /// - Complexity: O(*h*) in the head's bytes.
    package static func read(_ bytes: UnsafeRawBufferPointer, maximumBodyBytes: Int,
                     measurePath: String = QuickMeasureHandler.path) -> Outcome {
        var reader = Reader(bytes: bytes)
        return reader.request(maximumBodyBytes: maximumBodyBytes, measurePath: measurePath)
    }

    /// The reading: a position in the bytes, and what the head said so far.
    private struct Reader {
        /// A byte past the end of the bytes read so far, or past the longest head.
        enum Stop: Error { case incomplete, unframeable }

        let bytes: UnsafeRawBufferPointer
        /// The bytes read, or the longest head, whichever is shorter.
        let limit: Int
        var position = 0

        init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
            limit = min(bytes.count, StrictRequestFrame.maximumHeadBytes)
        }

        mutating func request(maximumBodyBytes: Int, measurePath: String) -> Outcome {
            do {
                return try frame(maximumBodyBytes: maximumBodyBytes, measurePath: measurePath)
            } catch .incomplete {
                return .incomplete
            } catch {
                return .unframeable
            }
        }

        /// The next byte, not consumed.
        func peek() throws(Stop) -> UInt8 {
            guard position < limit else {
                throw position >= StrictRequestFrame.maximumHeadBytes ? .unframeable : .incomplete
            }
            return bytes[position]
        }

        /// Consumes `byte`, or stops.
        mutating func expect(_ byte: UInt8) throws(Stop) {
            guard try peek() == byte else { throw .unframeable }
            position += 1
        }

        /// Consumes `text`, byte by byte.
        mutating func expect(_ text: StaticString) throws(Stop) {
            for index in 0..<text.utf8CodeUnitCount { try expect(text.utf8Start[index]) }
        }

        /// Consumes the bytes `allowed` takes (at least one); returns where they start.
        mutating func run(_ allowed: (UInt8) -> Bool) throws(Stop) -> Range<Int> {
            let start = position
            while allowed(try peek()) { position += 1 }
            guard position > start else { throw .unframeable }
            return start..<position
        }

        func equals(_ range: Range<Int>, _ text: StaticString, ignoringCase: Bool) -> Bool {
            guard range.count == text.utf8CodeUnitCount else { return false }
            for (index, offset) in range.enumerated() {
                let byte = bytes[offset], expected = text.utf8Start[index]
                // Lowered by setting bit 5: exact for letters; for the token characters compared (letters
                // and `-`), no other byte lowers onto one of them.
                guard ignoringCase ? byte | 0x20 == expected : byte == expected else { return false }
            }
            return true
        }

        mutating func frame(maximumBodyBytes: Int, measurePath: String) throws(Stop) -> Outcome {
            // The sets read once a head, not once a byte (each read of a static is a check that it is made).
            let tokenBytes = Self.tokenBytes, targetBytes = Self.targetBytes
            let method = try run(tokenBytes.contains)
            guard Self.methods.contains(where: { equals(method, $0, ignoringCase: false) }) else { throw .unframeable }
            try expect(UInt8(ascii: " "))
            guard try peek() == UInt8(ascii: "/") else { throw .unframeable }
            let target = try run(targetBytes.contains)
            try expect(" HTTP/1.1\r\n")

            var hosts = 0, lengths = 0, length = 0, keepsAlive = true, lines = 0
            while try peek() != UInt8(ascii: "\r") {
                lines += 1
                guard lines <= StrictRequestFrame.maximumHeaderLines else { throw .unframeable }
                let name = try run(tokenBytes.contains)
                try expect(UInt8(ascii: ":"))
                while Self.isSpace(try peek()) { position += 1 }
                let start = position
                var end = position   // past the value's last byte that is not a space
                while Self.isValueByte(try peek()) {
                    if !Self.isSpace(bytes[position]) { end = position + 1 }
                    position += 1
                }
                try expect("\r\n")
                let value = start..<end
                switch name.count {
                case 4 where equals(name, "host", ignoringCase: true):
                    hosts += 1
                case 14 where equals(name, "content-length", ignoringCase: true):
                    // Digits alone, to the end of the line: NIO's decoder refuses a tab after them, and keeps a
                    // space in the value, where the quick handler's reading of it would fail.
                    lengths += 1
                    guard lengths == 1, (1...9).contains(value.count), value.upperBound == position - 2,
                          value.allSatisfy({ (0x30...0x39).contains(bytes[$0]) }) else { throw .unframeable }
                    length = value.reduce(0) { $0 * 10 + Int(bytes[$1] - 0x30) }
                    guard length <= maximumBodyBytes else { throw .unframeable }
                case 17 where equals(name, "transfer-encoding", ignoringCase: true),
                     6 where equals(name, "expect", ignoringCase: true),
                     7 where equals(name, "upgrade", ignoringCase: true),
                     // The decoder reads it as `Connection` (llhttp does): left to it, not read twice here.
                     16 where equals(name, "proxy-connection", ignoringCase: true):
                    throw .unframeable
                case 10 where equals(name, "connection", ignoringCase: true):
                    keepsAlive = keepsAlive && equals(value, "keep-alive", ignoringCase: true)
                default:
                    break
                }
            }
            try expect("\r\n")
            let headLength = position
            let isMeasure = equals(method, "POST", ignoringCase: false) && Self.equals(bytes[target], measurePath)
                && hosts == 1 && lengths == 1 && keepsAlive
            return .request(StrictRequestFrame(length: headLength + length, body: headLength..<(headLength + length),
                                               isMeasureRequest: isMeasure))
        }

        /// Whether `bytes` are the UTF-8 of `text`.
        static func equals(_ bytes: Slice<UnsafeRawBufferPointer>, _ text: String) -> Bool {
            var text = text
            return text.withUTF8 { bytes.elementsEqual($0) }   // contiguous bytes, not the string's UTF-8 view
        }

        /// The methods framed: those without special framing in the decoder (not `CONNECT`).
        static let methods: [StaticString] = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]

        /// RFC 9110's `tchar`.
        static let tokenBytes = ASCIISet(alphanumericsAnd: "!#$%&'*+-.^_`|~")
        /// RFC 3986's `pchar`, `/` and `?`: the characters of a path and query in origin form.
        static let targetBytes = ASCIISet(alphanumericsAnd: "-._~!$&'()*+,;=:@%/?")

        /// Visible ASCII, space and tab.
        static func isValueByte(_ byte: UInt8) -> Bool {
            (0x20...0x7E).contains(byte) || byte == 0x09
        }

        static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09
        }
    }
}

/// A set of ASCII bytes as two 64-bit masks: one test per byte of a head, no table look-up.
private struct ASCIISet: Sendable {
    private let low: UInt64, high: UInt64

    /// Letters, digits and the bytes of `others`.
    init(alphanumericsAnd others: StaticString) {
        var low: UInt64 = 0, high: UInt64 = 0
        var members = Array(UInt8(ascii: "a")...UInt8(ascii: "z")) + Array(UInt8(ascii: "A")...UInt8(ascii: "Z"))
            + Array(UInt8(ascii: "0")...UInt8(ascii: "9"))
        members += UnsafeBufferPointer(start: others.utf8Start, count: others.utf8CodeUnitCount)
        for byte in members {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }
        self.low = low
        self.high = high
    }

    func contains(_ byte: UInt8) -> Bool {
        byte < 64 ? low >> UInt64(byte) & 1 != 0 : byte < 128 && high >> UInt64(byte - 64) & 1 != 0
    }
}
