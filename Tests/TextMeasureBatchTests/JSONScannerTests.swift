import TestSupport
import Testing
@testable import TextMeasureBatch

/// The batch's JSON parser: RFC 8259's grammar, and what it decides where the RFC leaves a choice
/// (see ``JSONScanner``).
@Suite("JSON scanner")
struct JSONScannerTests {
    func string(_ json: String) throws -> String? {
        guard case .string(let value) = try JSONValue.scan(json) else { return nil }
        return value
    }

    func string(bytes: [UInt8]) throws -> String? {
        guard case .string(let value) = try JSONValue.scan(bytes) else { return nil }
        return value
    }

    func rejects(_ json: String) -> Bool {
        (try? JSONValue.scan(json)) == nil
    }

    // MARK: strings

    /// The word-at-a-time search for the end of a string's plain run finds the byte a byte-by-byte
    /// search finds: on seeded random bytes (each of `"`, `\`, a control character, ASCII and bytes past
    /// ASCII likely at every one of the eight positions of a word), from every start.
    @Test func firstSpecialByteIsTheFirstQuoteBackslashOrControl() {
        var rng = SplitMix64(seed: 0x4A53_4F4E_5357_4152)
        let alphabet: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x41, 0x7F, 0x80, 0xA2, 0xDC, 0xFF]
        var checked = 0
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...40, using: &rng)
            // Mostly plain bytes, so that runs of several words occur before a special one.
            let bytes = (0..<count).map { _ in
                Int.random(in: 0..<4, using: &rng) == 0 ? alphabet.randomElement(using: &rng)!
                    : [0x61, 0xC3, 0xA9, 0x20][Int.random(in: 0..<4, using: &rng)]
            }
            bytes.withUnsafeBufferPointer { buffer in
                for start in 0...count {
                    let expected = (start..<count).first { bytes[$0] == 0x22 || bytes[$0] == 0x5C || bytes[$0] < 0x20 } ?? count
                    #expect(JSONScanner.firstSpecialByte(in: buffer, from: start) == expected, "\(bytes) from \(start)")
                    checked += 1
                }
            }
        }
        #expect(checked > 40_000)
    }

    @Test func escapes() throws {
        #expect(try string(#""\n\t\"\\\/\b\f\r""#) == "\n\t\"\\/\u{8}\u{C}\r")
        #expect(try string(#""a\u00e9\u20AC\u0041z""#) == "aé€Az")
        #expect(try string(#""\u0000""#) == "\u{0}")
        #expect(try string(#""""#) == "")
        #expect(try string("\"raw é 😀 \u{7F}\"") == "raw é 😀 \u{7F}")
    }

    @Test(arguments: [#""\x""#, #""\u12""#, #""\u12G4""#, #""\"#, #""abc"#, #""\U0041""#, #""\'""#])
    func invalidEscapesAndUnterminatedStringsAreRefused(json: String) {
        #expect(rejects(json))
    }

    /// Raw control characters are not JSON; DEL (0x7F) is.
    @Test func rawControlCharactersAreRefused() throws {
        for byte in UInt8(0)..<0x20 {
            #expect((try? JSONValue.scan([0x22, 0x61, byte, 0x22])) == nil, "byte \(byte)")
        }
        #expect(try string(bytes: [0x22, 0x7F, 0x22]) == "\u{7F}")
    }

    @Test func surrogatePairsBecomeOneScalar() throws {
        #expect(try string(#""\ud83d\ude00""#) == "😀")
        #expect(try string(#""\uD83D\uDC4D\uD83C\uDFFD""#) == "👍🏽")
        #expect(try string(#""\udbff\udfff""#) == "\u{10FFFF}")
    }

    @Test func loneSurrogatesBecomeReplacementCharacters() throws {
        #expect(try string(#""\ud800""#) == "\u{FFFD}")
        #expect(try string(#""\udc00x""#) == "\u{FFFD}x")
        #expect(try string(#""a\ud800b""#) == "a\u{FFFD}b")
        #expect(try string(#""\ud800\u0041""#) == "\u{FFFD}A")                 // high, then not a low one
        #expect(try string(#""\ud800\ud83d\ude00""#) == "\u{FFFD}😀")          // high, high, low
        #expect(try string(#""\ud800\n""#) == "\u{FFFD}\n")
        #expect(try string(#""\ude00\ud83d""#) == "\u{FFFD}\u{FFFD}")          // low before high
        #expect(rejects(#""\ud800\u12""#))                                      // a bad escape stays bad
    }

    /// Bytes that are not UTF-8 become U+FFFD, inside strings and keys, on the fast path (no escapes)
    /// and the slow one.
    @Test(arguments: [[0xFF], [0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80]] as [[UInt8]])
    func invalidUTF8BecomesReplacementCharacters(bad: [UInt8]) throws {
        for escape in [[], Array(#"\n"#.utf8)] as [[UInt8]] {
            let decoded = try #require(try string(bytes: [0x22, 0x61] + bad + escape + [0x62, 0x22]))
            let scalars = Array(decoded.unicodeScalars)
            #expect(scalars.first == "a" && scalars.last == "b")
            let middle = scalars.dropFirst().dropLast().filter { $0 != "\n" }
            #expect(!middle.isEmpty && middle.allSatisfy { $0 == "\u{FFFD}" }, "\(bad): \(decoded.debugDescription)")
        }
        let object = try JSONValue.scan([0x7B, 0x22] + bad + [0x22, 0x3A, 0x31, 0x7D])
        guard case .object(let fields) = object else { Issue.record("not an object"); return }
        #expect(fields.first?.0.unicodeScalars.allSatisfy { $0 == "\u{FFFD}" } == true)
    }

    // MARK: numbers

    @Test func integersThatFitAreInts() throws {
        #expect(try JSONValue.scan("0").isSame(as: .int(0)))
        #expect(try JSONValue.scan("-12").isSame(as: .int(-12)))
        guard case .int(let max) = try JSONValue.scan("9223372036854775807"),
              case .int(let min) = try JSONValue.scan("-9223372036854775808") else {
            Issue.record("Int's bounds did not parse as .int")
            return
        }
        #expect(max == .max && min == .min)
        guard case .int(let zero) = try JSONValue.scan("-0") else { Issue.record("-0 is not an int"); return }
        #expect(zero == 0)
    }

    /// Integers beyond `Int` become the nearest `Double`, not a trap.
    @Test func integersBeyondIntBecomeDoubles() throws {
        guard case .number(let above) = try JSONValue.scan("9223372036854775808"),
              case .number(let below) = try JSONValue.scan("-9223372036854775809"),
              case .number(let huge) = try JSONValue.scan("123456789012345678901234567890") else {
            Issue.record("not .number")
            return
        }
        #expect(above == 9_223_372_036_854_775_808.0)
        #expect(below == -9_223_372_036_854_775_808.0)
        #expect(huge == 1.2345678901234568e29)
    }

    /// The edges of `Double`: the largest finite value and the smallest subnormal survive; beyond
    /// them, ±infinity and 0 (which every caller must check: the batch refuses them as widths).
    @Test func edgesOfDouble() throws {
        func number(_ json: String) throws -> Double? {
            guard case .number(let value) = try JSONValue.scan(json) else { return nil }
            return value
        }
        #expect(try number("1.7976931348623157e308") == .greatestFiniteMagnitude)
        #expect(try number("-1.7976931348623157e308") == -.greatestFiniteMagnitude)
        #expect(try number("4.9e-324") == .leastNonzeroMagnitude)
        #expect(try number("1e-320") == Double("1e-320")!)   // subnormal: a literal would warn
        #expect(try number("1e309") == .infinity)
        #expect(try number("-1e309") == -.infinity)
        #expect(try number("1e-400") == 0)
        #expect(try number("-0.0")?.sign == .minus)
        #expect(try number("1E+2") == 100)
        #expect(try number("1e-7") == 1e-7)
        #expect(try number("0.5") == 0.5)
    }

    /// Numbers read digit by digit (integers, and fractions of at most 15 significant digits by one
    /// division) are the ones `Int(String)` and `Double(String)` give, on seeded random spellings:
    /// short and long, with leading and trailing zeros, at every fraction length up to 25, near the
    /// 15-digit and `Int` limits, with and without exponents, and negative zeros.
    @Test func numbersAreWhatTheStandardLibraryReads() throws {
        var random = SplitMix64(seed: 0x6E756D62657273)
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
        }
        var checked = 0
        for _ in 0..<60_000 {
            var text = Bool.random(using: &random) ? "-" : ""
            let integerDigits = Int.random(in: 0...20, using: &random)
            let integer = integerDigits == 0 ? "0" : String(Int.random(in: 1...9, using: &random)) + digits(integerDigits - 1)
            text += integer
            switch Int.random(in: 0..<4, using: &random) {
            case 0: break
            case 1, 2: text += "." + digits(Int.random(in: 1...25, using: &random))
            default:
                text += "." + digits(Int.random(in: 1...6, using: &random)) + "e" + ["", "+", "-"].randomElement(using: &random)!
                    + String(Int.random(in: 0...30, using: &random))
            }
            let value = try JSONValue.scan(text)
            if let int = Int(text), !text.contains(".") && !text.contains("e") {
                #expect(value.isSame(as: .int(int)), "\(text)")
            } else {
                let double = try #require(Double(text))
                guard case .number(let parsed) = value else { Issue.record("\(text) is not a number"); continue }
                #expect(parsed.bitPattern == double.bitPattern, "\(text): \(parsed) against \(double)")
            }
            checked += 1
        }
        #expect(checked == 60_000)
        for text in ["0.1", "0.3", "-0.0", "0.000000000000000000001", "123456789012345.6", "1234567890123456.7",
                     "999999999999999.9", "0.1234567890123456789012", "4503599627370497.5", "17.5", "390.25"] {
            guard case .number(let parsed) = try JSONValue.scan(text) else { Issue.record("\(text) is not a number"); continue }
            #expect(parsed.bitPattern == Double(text)!.bitPattern, "\(text)")
        }
    }

    /// `JSONScanner.item` (the batch's usual line, read without an array of fields) on 20,000 seeded
    /// lines mixing its keys with others, repeated keys, escaped keys, values of every type, white
    /// space and broken syntax: it answers exactly for the objects it is meant for, and then with
    /// the fields `parse(_:textLike:)` finds, the other fields in the same order, the same text
    /// token, and the same verdict on whether the text is the previous line's. (Outcomes, echoed
    /// fields and errors through the whole processor: `BatchRobustnessTests`.)
    @Test func itemReadsTheUsualLineAsParseDoes() {
        var random = SplitMix64(seed: 0x17E3_F1E1D5)
        func pick<T>(_ choices: [T]) -> T { choices[Int(random.next() % UInt64(choices.count))] }
        let keys = ["text", "width", "size", "maxLines", "breaking", "id", "height", "te\\u0078t", "texts", ""]
        let values: [String: [String]] = [
            "string": [#""hello world""#, #""ภาษาไทย \n ok""#, #""""#, #""\u00e9\"q""#, #""browser""#, #""pango""#,
                       #""pan\u0067o""#],
            "int": ["0", "300", "-5", "17", "2", "-0", "-9223372036854775808"],
            "number": ["300.5", "1e3", "1e309", "0.25", "-0.0", "9223372036854775808", "1e-400"],
            "other": ["true", "null", "[1,2]", #"{"a":1}"#, "[]", "{}"],
            "broken": ["01", "\"open", "1.", "tru", ""],
        ]
        let previous = Array(#""hello world""#.utf8)
        var fast = 0, withOthers = 0
        for _ in 0..<20_000 {
            var fields: [(key: String, kind: String, value: String)] = []
            // Half the lines start from the usual keys (text and width, some of the others, in any
            // order), some with a key added; the rest from any keys.
            var chosen = (0..<Int(random.next() % 6)).map { _ in pick(keys) }
            if random.next() % 2 == 0 {
                chosen = ["text", "width"] + ["size", "maxLines", "breaking"].filter { _ in random.next() % 2 == 0 }
                if random.next() % 4 == 0 { chosen.append(pick(keys)) }
                chosen.shuffle(using: &random)
            }
            for key in chosen {
                let kind = random.next() % 8 == 0 ? pick(["other", "broken"])
                    : key == "text" || key == "breaking" ? pick(["string", "string", "string", "int"])
                    : key == "maxLines" ? pick(["int", "int", "number"])
                    : pick(["int", "number", "string"])
                fields.append((key, kind, pick(values[kind]!)))
            }
            let space = pick(["", " ", "\t", " \r\n "])
            var line = "{" + space + fields.map { #""\#($0.key)""# + space + ":" + space + $0.value }
                .joined(separator: "," + space) + space + "}"
            var broken = false   // something around the object
            if random.next() % 40 == 0 {
                let before = pick(["[", " x", "", "{", "\u{A0}"]), after = pick(["", "}", " 1", ",", "\u{A0}"])
                line = before + line + after
                broken = !before.isEmpty || !after.isEmpty
            }
            let bytes = Array(line.utf8)
            let first = Dictionary(fields.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
            let read = ["text", "width", "size", "maxLines", "breaking"]
            let meant = !broken && fields.allSatisfy { $0.kind != "broken" && !$0.key.contains("\\") && (!read.contains($0.key) || $0.kind != "other") }
                && read.allSatisfy { key in fields.filter { $0.key == key }.count <= 1 }
                && first["text"]?.kind == "string" && first["width"].map { $0.kind == "int" || $0.kind == "number" } == true
                && first["size"].map { $0.kind == "int" || $0.kind == "number" } != false
                && first["maxLines"].map { $0.kind == "int" } != false
                && first["breaking"].map { $0.kind == "string" } != false
            bytes.withUnsafeBufferPointer { line in
                previous.withUnsafeBufferPointer { previous in
                    let item = JSONScanner.item(line, textLike: previous)
                    #expect((item != nil) == meant, "\(String(decoding: line, as: UTF8.self))")
                    guard let item else { return }
                    fast += 1
                    guard let parsed = try? JSONScanner.parse(line, textLike: previous),
                          case .object(let all) = parsed.value else {
                        Issue.record("item read a line parse refuses: \(String(decoding: line, as: UTF8.self))")
                        return
                    }
                    func value(_ key: String) -> JSONValue? { all.first { $0.0 == key }?.1 }
                    #expect(value("text")?.isSame(as: .string(item.text)) == true)
                    #expect(Array(item.textToken) == Array(parsed.text!) && item.textIsPrevious == parsed.textIsPrevious)
                    #expect(value("width")?.numberValue == item.width)
                    #expect(value("size")?.numberValue == item.size)
                    if case .int(let lines)? = value("maxLines") { #expect(lines == item.maxLines) } else { #expect(item.maxLines == nil) }
                    if case .string(let name)? = value("breaking") { #expect(name == item.breaking) } else { #expect(item.breaking == nil) }
                    // The same fields echoed as the general path's ranges give them.
                    var others = EchoedFields()
                    for (field, range) in zip(all, parsed.fieldRanges) where !read.contains(field.0) {
                        others.add(key: field.0, keyBytes: UnsafeBufferPointer(rebasing: line[range.key]),
                                   valueBytes: UnsafeBufferPointer(rebasing: line[range.value]))
                    }
                    #expect(others.bytes == item.echoed.bytes, "\(String(decoding: line, as: UTF8.self))")
                    if all.contains(where: { !read.contains($0.0) }) { withOthers += 1 }
                }
            }
        }
        #expect(fast > 1_000 && withOthers > 200, "only \(fast) lines read by item, \(withOthers) with other keys")
    }

    /// Keys spelled as the usual batch keys and keys that only start or end like them, or escape
    /// them, all read as written.
    @Test func commonKeysReadAsWritten() throws {
        let json = #"{"text":1,"texts":2,"tex":3,"te\u0078t":4,"width":5,"maxLines":6,"breaking":7,"id":8,"i":9,"":10}"#
        guard case .object(let fields) = try JSONValue.scan(json) else { Issue.record("not an object"); return }
        #expect(fields.map(\.0) == ["text", "texts", "tex", "text", "width", "maxLines", "breaking", "id", "i", ""])
        for (index, field) in fields.enumerated() { #expect(field.1.isSame(as: .int(index + 1)), "\(field.0)") }
    }

    @Test(arguments: ["01", "-01", "00", "1.", ".5", "+1", "1e", "1e+", "-", "0x10", "NaN", "Infinity", "-Infinity",
                      "1.e5", "--1", "1ee5", "1e5.5", "1_000", "١"])
    func invalidNumbersAreRefused(json: String) {
        #expect(rejects(json))
        #expect(rejects("[" + json + "]"))
    }

    // MARK: structure

    @Test func nestingUpToTheLimit() throws {
        let depth = JSONScanner.maximumDepth
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(!rejects(arrays))
        #expect(rejects("[" + arrays + "]"))
        let objects = String(repeating: #"{"a":"#, count: depth - 1) + "1" + String(repeating: "}", count: depth - 1)
        #expect(!rejects(objects))
        #expect(rejects(#"{"a":"# + objects + "}"))
        // Far deeper input is refused without exhausting the stack.
        #expect(rejects(String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)))
        #expect(rejects(String(repeating: "[", count: 200_000)))
    }

    /// Every field is kept, in order, repeated keys included: which one counts is the caller's choice.
    @Test func repeatedKeysAreKeptInOrder() throws {
        let value = try JSONValue.scan(#"{"a":1,"b":2,"a":3}"#)
        guard case .object(let fields) = value else { Issue.record("not an object"); return }
        #expect(fields.map(\.0) == ["a", "b", "a"])
        #expect(value["a"]?.numericValue == 1)
    }

    @Test(arguments: ["{} x", "{}}", "1 2", #""a""b""#, "{},", "[]]", "null null", "truex", "{}\u{0}", "{}\u{A0}"])
    func trailingGarbageIsRefused(json: String) {
        #expect(rejects(json))
    }

    @Test(arguments: ["", " ", "\t\r\n", "{", "[", #"{"a"}"#, #"{"a":}"#, "{,}", #"{"a":1,}"#, "{1:2}", "[1,]", "[,1]",
                      "[1 2]", #"{"a" 1}"#, "{'a':1}", "tru", "nul", "fals", "True", "NULL", "\u{FEFF}{}", "\u{C}{}"])
    func malformedValuesAreRefused(json: String) {
        #expect(rejects(json))
    }

    /// JSON's four white space characters anywhere between tokens; nothing else counts as white space.
    @Test func whitespace() throws {
        let value = try JSONValue.scan(" \t\r\n{ \t\r\n\"a\" \t\r\n: \t\r\n[ 1 , true ,null ] \t\r\n} \t\r\n")
        #expect(value.isSame(as: .object([("a", .array([.int(1), .bool(true), .null]))])))
        #expect(rejects("{\u{B}}"))
        #expect(rejects("{\u{C}}"))
        #expect(rejects("\u{A0}{}"))
    }

    @Test func literalsAndContainers() throws {
        #expect(try JSONValue.scan("true").isSame(as: .bool(true)))
        #expect(try JSONValue.scan("false").isSame(as: .bool(false)))
        #expect(try JSONValue.scan("null").isSame(as: .null))
        #expect(try JSONValue.scan("[]").isSame(as: .array([])))
        #expect(try JSONValue.scan("{}").isSame(as: .object([])))
        #expect(try JSONValue.scan(#"[{"":[]},"x",-1.5]"#).isSame(as: .array([.object([("", .array([]))]), .string("x"), .number(-1.5)])))
    }

    /// `scan(elementsOf:)` (a request body split into items without making values) accepts exactly what
    /// `parse` accepts, says what the value is, and its ranges hold the array's elements: on seeded
    /// random bodies built from valid and broken pieces, and on every test body above.
    @Test func scanAcceptsWhatParseAcceptsAndFindsTheElements() throws {
        var random = SplitMix64(seed: 0x5343_414E_454C_54)
        func pick<T>(_ choices: [T]) -> T { choices[Int(random.next() % UInt64(choices.count))] }
        let pieces = [#"{"text":"héllo \u00e9\"x","width":300}"#, #"{"a":[1,{"b":null}],"c":"\ud800"}"#, "{}", "[]",
                      #""s""#, "1.5e3", "-0", "true", "null", "[1,[2,[3]]]", "01", "\"open", "{,}", "[1,]", "tru",
                      #"{"a" 1}"#, " ", "\t", ",", "]", "[", "{", "}", #""\x""#, "\u{1}"]
        var checked = 0, arrays = 0
        for _ in 0..<5_000 {
            var body = ""
            switch random.next() % 3 {
            case 0:   // an array of pieces
                body = "[" + (0..<Int(random.next() % 5)).map { _ in pick(pieces) }.joined(separator: pick([",", ", ", " ,", ",,"])) + "]"
            case 1:   // one piece, maybe with something after it
                body = pick(pieces) + (random.next() % 4 == 0 ? pick(pieces) : "")
            default:  // pieces run together
                body = (0..<Int(1 + random.next() % 4)).map { _ in pick(pieces) }.joined()
            }
            if random.next() % 5 == 0 { body = pick([" ", "\n", "\r\n\t"]) + body + pick(["", " ", "\n"]) }
            let bytes = Array(body.utf8)
            let parsed = try? JSONValue.scan(bytes)
            let scanned = try? bytes.withUnsafeBufferPointer { buffer throws(JSONScanner.Failure) in
                try JSONScanner.scan(elementsOf: buffer)
            }
            #expect((parsed == nil) == (scanned == nil), "\(body)")
            guard let parsed, let scanned else { continue }
            checked += 1
            switch parsed {
            case .array(let values):
                arrays += 1
                #expect(scanned.kind == .array, "\(body)")
                #expect(scanned.elements.count == values.count, "\(body)")
                for (range, value) in zip(scanned.elements, values) {
                    let element = try JSONValue.scan(Array(bytes[range]))
                    #expect(element.isSame(as: value), "\(body): \(range)")
                }
            case .object:
                #expect(scanned.kind == .object && scanned.elements.isEmpty, "\(body)")
            default:
                #expect(scanned.kind == .other && scanned.elements.isEmpty, "\(body)")
            }
        }
        #expect(checked > 500 && arrays > 200, "\(checked) valid bodies, \(arrays) arrays")
    }

    /// `scan(itemsOf:each:)` reads a body as `scan(elementsOf:)` checks it (same failures, kinds and
    /// element ranges), and hands each element over as `item(_:textLike:)` reads its bytes alone: usual items (fields in
    /// any order, other fields echoed, escapes, nesting), items it leaves to the full parse (`spans`, a
    /// repeated or mistyped field), other values and broken ones.
    @Test func scanItemsReadsEachElementAsAnItem() throws {
        var random = SplitMix64(seed: 0x4954_454D_5343_414E)
        func pick<T>(_ choices: [T]) -> T { choices[Int(random.next() % UInt64(choices.count))] }
        let texts = [#""text":"Hello""#, #""text":"h\u00e9llo \"q\" \ud83d\ude00""#, #""text" : "dé\/jà""#]
        let widths = [#""width":300"#, #""width":-1.5e2"#, #""width": 0"#]
        let fields = [#""size":17"#, #""maxLines":2"#, #""maxLines":2.5"#, #""breaking":"browser""#, #""id":"a-1""#,
                      #""id":[1,{"x":null}]"#, #""w\u0069dth":3"#, #""spans":[]"#, #""text":5"#, #""meta":{"a":[[[]]]}"#,
                      #""lines":1"#, #""width":2"#]
        let broken = [#""text":"\x""#, #""width":"#, #""ok":tru"#, #""a" 1"#]
        let others = ["1", "\"s\"", "[]", "{}", "null", "[{\"text\":\"a\",\"width\":1}]", "{", "]"]
        var compared = 0, items = 0, failures = 0
        for _ in 0..<4_000 {
            let elements = (0..<Int(random.next() % 5)).map { _ in
                if random.next() % 8 == 0 { return pick(others) }
                var object = [pick(texts), pick(widths)]
                for _ in 0..<Int(random.next() % 3) {
                    let field = random.next() % 12 == 0 ? pick(broken) : pick(fields)
                    object.insert(field, at: Int(random.next() % UInt64(object.count + 1)))
                }
                if random.next() % 2 == 0 { object.swapAt(0, 1) }
                return "{" + object.joined(separator: pick([",", " , ", ",\n"])) + "}"
            }
            var body = "[" + elements.joined(separator: pick([",", ", ", "\n,"])) + "]"
            if random.next() % 8 == 0 { body = pick(["", " ", "{}", "\"x\""]) + body + pick(["", " ", "]", ","]) }
            let bytes = Array(body.utf8)
            try bytes.withUnsafeBufferPointer { buffer in
                let reference = try? JSONScanner.scan(elementsOf: buffer)
                var elements: [(range: Range<Int>, item: JSONScanner.ItemFields?)] = []
                let kind = try? JSONScanner.scan(itemsOf: buffer) { elements.append(($0, $1)) }
                #expect((reference == nil) == (kind == nil), "\(body)")
                guard let reference, let kind else { failures += 1; return }
                #expect(kind == reference.kind, "\(body)")
                #expect(elements.map(\.range) == reference.elements, "\(body)")
                for element in elements {
                    let alone = JSONScanner.item(UnsafeBufferPointer(rebasing: buffer[element.range]), textLike: nil)
                    #expect((element.item == nil) == (alone == nil), "\(body): \(element.range)")
                    guard let item = element.item, let alone else { continue }
                    items += 1
                    #expect(item.text == alone.text && item.width == alone.width && item.size == alone.size
                            && item.maxLines == alone.maxLines && item.breaking == alone.breaking
                            && !item.textIsPrevious && item.echoed.bytes == alone.echoed.bytes
                            && item.echoed.count == alone.echoed.count, "\(body): \(element.range)")
                    #expect(Array(item.textToken) == Array(alone.textToken), "\(body): \(element.range)")
                }
                compared += 1
            }
        }
        #expect(compared > 1_000 && items > 500 && failures > 200, "\(compared) bodies, \(items) items, \(failures) refused")
    }

    /// The nesting limit counts the array an item is in: a value nested as deep as `parse` refuses in a
    /// body is refused there too, however the item around it is read.
    @Test func scanItemsKeepsTheNestingLimit() {
        var accepted: Set<Bool> = []
        for depth in JSONScanner.maximumDepth - 4...JSONScanner.maximumDepth {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let body = Array(#"[{"text":"a","width":1,"deep":\#(nested)}]"#.utf8)
            body.withUnsafeBufferPointer { buffer in
                let reference = try? JSONScanner.scan(elementsOf: buffer)
                let scanned = try? JSONScanner.scan(itemsOf: buffer) { _, _ in }
                #expect((reference == nil) == (scanned == nil), "depth \(depth)")
                accepted.insert(reference != nil)
            }
        }
        #expect(accepted == [true, false])
    }
}
