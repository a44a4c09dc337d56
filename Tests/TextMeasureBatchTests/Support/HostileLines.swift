import TestSupport

/// Generates batch input lines from a seed: valid items with ids, and every kind of hostile line the
/// seed corpus has (edge numbers, bad UTF-8, NULs, surrogate escapes, deep nesting, repeated keys,
/// truncations, random bytes, blank lines). Never a "\n" inside a line.
struct HostileLines {
    private var random: SplitMix64
    private var nextID = 0

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    static let texts: [String] = [
        "Hello, world", "", " ", "a b c d e f g h i j", "שלום עולם 123", "مرحبا بالعالم", "สวัสดีครับยินดีต้อนรับ",
        "नमस्ते दुनिया", "日本語のテキストです", "한국어 텍스트", "😀👍🏽👨‍👩‍👧‍👦🇯🇵", String(repeating: "\u{301}", count: 40),
        String(repeating: "\u{200D}", count: 40), "\u{202E}abc\u{2066}def\u{2069} \u{200F}x", "a\tb\nc\r\nd\u{2028}e\u{2029}",
        "\u{0}nul\u{0}", "\u{FFFD}\u{FFFF}\u{10FFFF}\u{E000}", String(repeating: "x", count: 300), "fi ffi ffl office",
        String(repeating: "word ", count: 120), "\u{FE0F}\u{E0067}\u{1F3F4}\u{E007F}", "∑∫√ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    ]
    /// Numbers for each field: in range (picked half the time), then out of range or of the wrong type.
    static let widths = (valid: ["100", "50.5", "1", "0.001", "1e9", "320", "17.25", "1E2"],
                         hostile: ["0.0009", "1000000001", "1e12", "1e300", "1e309", "-1e309", "-0", "0", "-5", "1e-320",
                                   "4.9e-324", "-1e308", "1.7976931348623157e308", "9223372036854775808", "\"10\"",
                                   "null", "true", "[]", "{}"])
    static let sizes = (valid: ["17", "13", "0.01", "10000", "1.5"],
                        hostile: ["10000.5", "1e19", "1e308", "1e309", "-0", "0", "1e-300", "\"x\""])
    static let maxLines = (valid: ["0", "1", "2", "2147483647"],
                           hostile: ["-1", "1.5", "1e3", "2147483648", "9223372036854775807", "9223372036854775808"])
    static let extras = ["null", "true", "false", "-12", "-1.5e3", "\"s\\u00e9\\n\"", "[]", "{}",
                         "[1,[2,{\"k\":[null]}]]", "{\"a\":{\"b\":null}}", "1e309", "123456789012345678901234567890",
                         "4.9e-324", "\"\\ud800\"", "\"\\ud83d\\ude00\""]

    /// The next line, with the id its output must echo when one is known.
    mutating func next() -> (bytes: [UInt8], id: Int?) {
        switch random.next() % 16 {
        case 0..<8: return item()
        case 8, 9: return (mutated(item().bytes), nil)
        case 10: return (Array([" ", "", "\t", " \t \r"].randomElement(using: &random)!.utf8), nil)
        case 11:
            let values = ["[1,2]", "\"text\"", "42", "null", "true", "{}", "[" + String(repeating: "[", count: 300),
                          String(repeating: "[", count: 255) + String(repeating: "]", count: 255)]
            return (Array(values.randomElement(using: &random)!.utf8), nil)
        case 12: return (randomBytes(count: Int(random.next() % 40)), nil)
        default: return (item(hostileText: true).bytes, nil)   // raw control bytes make it invalid JSON
        }
    }

    /// A JSON object with an id first, then text, width and maybe size, maxLines and extra fields, in
    /// random order; sometimes a key repeated (the first counts, so the id stays).
    private mutating func item(hostileText: Bool = false) -> (bytes: [UInt8], id: Int?) {
        nextID += 1
        var fields: [(String, [UInt8])] = []
        let text = Self.texts.randomElement(using: &random)!
        fields.append(("text", hostileText ? hostileString() : Self.quoted(text, escapingAll: random.next() % 3 == 0)))
        fields.append(("width", pick(Self.widths)))
        if random.next() % 3 == 0 { fields.append(("size", pick(Self.sizes))) }
        if random.next() % 3 == 0 { fields.append(("maxLines", pick(Self.maxLines))) }
        for _ in 0..<Int(random.next() % 4) {
            let key = ["meta", "n", "height", "error", "lineCount", "truncated", "id", "text", "width", "é"]
                .randomElement(using: &random)!
            fields.append((key, Array(Self.extras.randomElement(using: &random)!.utf8)))
        }
        if random.next() % 8 == 0 { fields.removeFirst() }   // no text
        fields.shuffle(using: &random)
        fields.insert(("id", Array(String(nextID).utf8)), at: 0)
        let whitespace: [[UInt8]] = [[], [], [0x20], [0x09], [0x0D], [0x20, 0x09]]
        var bytes: [UInt8] = Array("{".utf8)
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += whitespace.randomElement(using: &random)! + Self.quoted(key, escapingAll: false)
            bytes += whitespace.randomElement(using: &random)! + [UInt8(ascii: ":")] + value
        }
        bytes += Array("}".utf8)
        return (bytes, nextID)
    }

    /// A number from `choices`: in range half the time.
    private mutating func pick(_ choices: (valid: [String], hostile: [String])) -> [UInt8] {
        let list = random.next() % 2 == 0 ? choices.valid : choices.hostile
        return Array(list.randomElement(using: &random)!.utf8)
    }

    /// A JSON string literal for `text`: quotes, backslashes and control characters escaped; other
    /// characters raw, or (with `escapingAll`) as `\uXXXX`, surrogate pairs beyond the BMP.
    static func quoted(_ text: String, escapingAll: Bool) -> [UInt8] {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || (escapingAll && scalar.value > 0x7E):
                if scalar.value > 0xFFFF {
                    let v = scalar.value - 0x10000
                    out += hex4(0xD800 + (v >> 10)) + hex4(0xDC00 + (v & 0x3FF))
                } else {
                    out += hex4(scalar.value)
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return Array((out + "\"").utf8)
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// A string literal with raw bytes and escapes a well-behaved writer would not produce.
    private mutating func hostileString() -> [UInt8] {
        let pieces: [[UInt8]] = [
            [0xFF], [0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x00], [0x7F],
            Array("\\ud800".utf8), Array("\\udc00".utf8), Array("\\ud83d\\ude00".utf8), Array("\\u0000".utf8),
            Array("\\u200d".utf8), Array("\\u0301".utf8), Array("\\u202e".utf8), Array("\\n".utf8), Array("\\r\\n".utf8),
            Array("\\t".utf8), Array("\\/".utf8), Array("\\b\\f".utf8), Array("a b ".utf8), Array("😀".utf8),
            Array("\u{200D}".utf8), Array("\u{0301}".utf8), Array("\\x".utf8), [0x0D],
        ]
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        for _ in 0..<Int(random.next() % 12) { bytes += pieces.randomElement(using: &random)! }
        return bytes + [UInt8(ascii: "\"")]
    }

    /// A line damaged one way: cut short, a byte replaced, bad UTF-8 or a NUL put in.
    private mutating func mutated(_ line: [UInt8]) -> [UInt8] {
        var line = line
        let position = Int(random.next() % UInt64(line.count + 1))
        switch random.next() % 4 {
        case 0: line.removeSubrange(position...)
        case 1 where !line.isEmpty:
            var byte = UInt8(truncatingIfNeeded: random.next())
            if byte == 0x0A { byte = 0x0B }
            line[min(position, line.count - 1)] = byte
        case 2:
            let bad: [[UInt8]] = [[0xFF], [0xC3, 0x28], [0xED, 0xB0, 0x80]]
            line.insert(contentsOf: bad.randomElement(using: &random)!, at: position)
        default: line.insert(0x00, at: position)
        }
        return line
    }

    private mutating func randomBytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in
            let byte = UInt8(truncatingIfNeeded: random.next())
            return byte == 0x0A ? 0x20 : byte
        }
    }
}
