import TestSupport
import Foundation
import Testing
@testable import TextMeasureBatch

/// The batch's JSON writer: whatever a value holds, the text is JSON that other parsers read back
/// to the same value.
@Suite("JSON value output")
struct JSONValueTests {
    /// Foundation's reading of a serialized value (wrapped in an array: numbers and strings alone are
    /// fragments).
    func foundation(_ value: JSONValue) -> Any? {
        let text = "[" + value.serialized + "]"
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any])?.first
    }

    @Test func everyControlCharacterIsEscaped() throws {
        let all = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar($0)! })) + "\"\\/\u{7F}é😀\u{2028}"
        let text = JSONValue.string(all).serialized
        #expect(!text.utf8.contains { $0 < 0x20 }, "raw control character in \(text.debugDescription)")
        #expect(text.hasPrefix(#""\u0000\u0001"#))
        #expect(text.contains(#"\b"#) || text.contains(#"\u0008"#))
        #expect(text.contains(#"\n"#) && text.contains(#"\r"#) && text.contains(#"\t"#))
        #expect(foundation(.string(all)) as? String == all)
        #expect((try? JSONValue.scan(text))?.isSame(as: .string(all)) == true)
    }

    @Test func keysAreEscapedToo() {
        let value = JSONValue.object([("a\"b\\c\nd\u{0}", .int(1))])
        #expect(value.serialized == #"{"a\"b\\c\nd\u0000":1}"#)
        #expect((foundation(value) as? [String: Any])?["a\"b\\c\nd\u{0}"] as? Int == 1)
    }

    /// JSON has no NaN or infinity: they are written as `null`, never as `nan` or `inf`.
    @Test(arguments: [Double.nan, .infinity, -.infinity, .signalingNaN])
    func nonFiniteNumbersAreNull(value: Double) {
        #expect(JSONValue.number(value).serialized == "null")
        #expect(JSONValue.array([.number(value)]).serialized == "[null]")
    }

    /// Finite numbers, the edges of `Double` included, read back as the same number.
    @Test(arguments: [0, -0.0, 1, -1, 0.1, 1.5, 123, 1e15, 1e15 - 1, 123456789012345680, 1e-5, 1e300, -1e308,
                      .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude,
                      .leastNormalMagnitude, 9.223372036854776e18, 23.154296875] as [Double])
    func finiteNumbersRoundTrip(value: Double) throws {
        let text = JSONValue.number(value).serialized
        let read = try #require(foundation(.number(value)) as? NSNumber, "\(text) is not JSON")
        #expect(read.doubleValue == value, "\(value) → \(text) → \(read)")
        #expect((try? JSONValue.scan(text))?.numericValue == value)
        #expect(!text.contains("inf") && !text.contains("nan"))
    }

    @Test func integralNumbersAreWrittenAsIntegers() {
        #expect(JSONValue.number(46).serialized == "46")
        #expect(JSONValue.number(-0.0).serialized == "0")
        #expect(JSONValue.int(.min).serialized == "-9223372036854775808")
        #expect(JSONValue.number(23.154296875).serialized == "23.154296875")
    }

    /// Integers are spelled digit by digit into bytes, as `String(_:)` spells them.
    @Test func integerDigitsAreStringsDigits() {
        var rng = SplitMix64(seed: 0x4449_4749_5453_0001)
        var values: [Int] = [0, 1, -1, 9, 10, -10, 99, 100, .max, .min, .max - 1, .min + 1]
        for _ in 0..<1_000 { values.append(Int.random(in: .min ... .max, using: &rng) >> Int.random(in: 0..<63, using: &rng)) }
        for value in values {
            var bytes: [UInt8] = []
            JSONValue.append(value, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == String(value))
            #expect(JSONValue.int(value).serialized == String(value))
        }
    }

    /// Multiples of 2^-16 (heights and widths in layout units) are spelled by hand, exactly as
    /// `description` spells them, or left to it: at every magnitude from 2^-16 to 2^40, with every
    /// number of fraction digits, and at the edges of the hand-spelled range.
    @Test func dyadicNumbersAreSpelledAsDescriptionSpellsThem() {
        var rng = SplitMix64(seed: 0x4459_4144_4943_0001)
        var values: [Double] = [0.0001, 0.00009999999999999999, 0.5, 1.0000152587890625, 0.4999847412109375,
                                65535.9999847412109375, 262143.9990234375, 262144.0009765625, 4294967295.5,
                                4294967296.5, 1.0 / 65536, 3.0 / 65536, 70.82421875, -40.859375]
        for _ in 0..<20_000 {
            let units = UInt64.random(in: 1...(1 << 56), using: &rng) >> UInt64.random(in: 0..<56, using: &rng)
            let denominator = [1024.0, 65536, 64, 2][Int.random(in: 0..<4, using: &rng)]
            values.append(Double(units) / denominator * (Bool.random(using: &rng) ? 1 : -1))
        }
        var handSpelled = 0
        for value in values {
            var bytes: [UInt8] = []
            if JSONValue.appendSixteenthsOfAUnit(value, to: &bytes) {
                handSpelled += 1
                #expect(String(decoding: bytes, as: UTF8.self) == value.description, "\(value)")
            } else {
                #expect(bytes.isEmpty)
            }
        }
        #expect(handSpelled > 10_000)
    }

    /// Random values (fixed seed), nested, with every kind of string and number: each serializes to
    /// JSON that Foundation accepts and that the scanner reads back to the same value.
    @Test func randomValuesRoundTrip() throws {
        var random = SplitMix64(seed: 42)
        for _ in 0..<500 {
            let value = Self.randomValue(&random, depth: 0)
            let text = value.serialized
            #expect(foundation(value) != nil, "Foundation refused \(text)")
            let read = try #require(try? JSONValue.scan(text), "the scanner refused \(text)")
            #expect(read.isSame(as: value.withNonFiniteAsNull), "\(text)")
        }
    }

    static func randomValue(_ random: inout SplitMix64, depth: Int) -> JSONValue {
        let numbers: [Double] = [0, -0.0, 0.5, -3.25, .leastNonzeroMagnitude * 2024, 1e308, .infinity, .nan, 1e15, 123456.789]
        switch random.next() % (depth > 3 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .int(Int(truncatingIfNeeded: random.next()) >> Int(random.next() % 64))
        case 3: return .number(numbers.randomElement(using: &random)!)
        case 4:
            let scalars = (0..<Int(random.next() % 8)).map { _ -> Unicode.Scalar in
                let candidates: [UInt32] = [0, 0x1F, 0x22, 0x5C, 0x2F, 0x41, 0x7F, 0xE9, 0x2028, 0xFFFD, 0x1F600, 0x10FFFF]
                return Unicode.Scalar(candidates.randomElement(using: &random)!)!
            }
            return .string(String(String.UnicodeScalarView(scalars)))
        case 5: return .array((0..<Int(random.next() % 4)).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            return .object((0..<Int(random.next() % 4)).map { index in
                ("k\(index)\u{0}\"", randomValue(&random, depth: depth + 1))
            })
        }
    }
}

extension JSONValue {
    /// The value as it must read back: non-finite numbers become `null`.
    var withNonFiniteAsNull: JSONValue {
        switch self {
        case .number(let value) where !value.isFinite: .null
        case .array(let values): .array(values.map(\.withNonFiniteAsNull))
        case .object(let fields): .object(fields.map { ($0.0, $0.1.withNonFiniteAsNull) })
        default: self
        }
    }
}
