/// A JSON value that keeps what batch input lines carry, so extra fields can be echoed back in their
/// order; serializes compactly.
package enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// The value as a number, an integer or not (what the batch accepts for a width or a size); nil
    /// for any other value.
    package var numberValue: Double? {
        switch self {
        case .int(let int): Double(int)
        case .number(let double): double
        default: nil
        }
    }

    /// Compact JSON text (see ``write(to:)-(inout [UInt8])``).
    package var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends compact JSON text to a string (see ``write(to:)-(inout [UInt8])``).
    package func write(to out: inout String) {
        var bytes: [UInt8] = []
        write(to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends compact JSON text as UTF-8, valid whatever the value holds: strings escape `"`, `\\` and
    /// every control character below U+0020; an integral number below 10¹⁵ in magnitude is written as
    /// an integer (`-0.0` as `0`), another finite one as Swift's shortest round-tripping form
    /// (`1e-05`, `1.7976931348623157e+308`, both valid JSON), and a non-finite one, which JSON cannot
    /// express, as `null`. Bytes, not a `String`: appending to a string costs hundreds of instructions
    /// a piece, a batch line has several, and the batch turns a block's bytes into text once.
    package func write(to out: inout [UInt8]) {
        switch self {
        case .null: Self.append("null", to: &out)
        case .bool(let value): Self.append(value ? "true" : "false", to: &out)
        case .int(let value): Self.append(value, to: &out)
        case .number(let value):
            if value.isFinite && value == value.rounded() && abs(value) < 1e15 {
                Self.append(Int(value), to: &out)
            } else if value.isFinite {
                if !Self.appendSixteenthsOfAUnit(value, to: &out) { out.append(contentsOf: value.description.utf8) }
            } else {
                Self.append("null", to: &out)
            }
        case .string(let value): JSONValue.writeString(value, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (i, value) in values.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in fields.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends a literal's UTF-8.
    static func append(_ literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends an integer's decimal digits (what `String(value)` spells).
    static func append(_ value: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        // The magnitude as unsigned, so that `Int.min` has one too.
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // room for UInt64's 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var end = buffer.count
            repeat {
                end -= 1
                buffer[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            appendBytes(UnsafeRawBufferPointer(rebasing: buffer[end...]), to: &out)
        }
    }

    /// Appends `value` as `description` spells it when it is a multiple of 2^-16 from 0.0001 up to
    /// 2^32 whose exact decimal expansion is its shortest round-trip spelling (heights and widths are
    /// such multiples: layout units are 1/1024 or 1/65,536 px); false, appending nothing, otherwise.
    /// The expansion, with *d* digits after the point, is the shortest spelling when every spelling
    /// with fewer digits, at least 10^-*d* away, is further than half a unit in the last place: then it
    /// is what `description` prints, at a tenth of the cost (one per result line).
    static func appendSixteenthsOfAUnit(_ value: Double, to out: inout [UInt8]) -> Bool {
        let magnitude = abs(value)
        let units = magnitude * 65_536   // exact: a power of two
        guard magnitude >= 0.0001, magnitude < 4_294_967_296, units == units.rounded(.towardZero) else { return false }
        // The fraction in 1/65,536ths, then in 10^-16ths (65,536 × 152,587,890,625 = 10^16): its 16
        // digits, two at a time, then without trailing zeros.
        var fraction = (UInt64(units) & 0xFFFF) &* 152_587_890_625
        var buffer: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &buffer) { digits in
            let pairs = Self.digitPairs.utf8Start
            for index in stride(from: 14, through: 0, by: -2) {
                let pair = Int(fraction % 100) &* 2
                fraction /= 100
                digits[index] = pairs[pair]
                digits[index + 1] = pairs[pair + 1]
            }
            var count = 16
            while count > 1 && digits[count - 1] == UInt8(ascii: "0") { count -= 1 }
            // ulp × 4 < 10^-count, as powers of two: exponent - 50 < -count × log2(10), rounded up.
            guard (50 - magnitude.exponent) * 1_000 > count * 3_322 else { return false }
            if value < 0 { out.append(UInt8(ascii: "-")) }
            append(Int(magnitude), to: &out)
            out.append(UInt8(ascii: "."))
            appendBytes(UnsafeRawBufferPointer(rebasing: digits[..<count]), to: &out)
            return true
        }
    }

    /// "00", "01", … "99".
    private static let digitPairs: StaticString = """
        0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// Appends raw bytes as one copy (a slice of a raw buffer is appended byte by byte, with a
    /// capacity check each).
    private static func appendBytes(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    private static func writeString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Runs of bytes that need no escaping are appended whole; the bytes to escape are the ones that
        // end a string's plain run when reading it (`JSONScanner.firstSpecialByte`). Every one is ASCII,
        // and the bytes of a multi-byte UTF-8 sequence are all 0x80 or above, so runs split only between
        // scalars.
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            while true {
                let index = JSONScanner.firstSpecialByte(in: bytes, from: runStart)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                guard index < bytes.count else { break }
                let byte = bytes[index]
                switch byte {
                case 0x22: append("\\\"", to: &out)
                case 0x5C: append("\\\\", to: &out)
                case 0x0A: append("\\n", to: &out)
                case 0x0D: append("\\r", to: &out)
                case 0x09: append("\\t", to: &out)
                default:
                    let hex: StaticString = "0123456789abcdef"
                    append("\\u00", to: &out)
                    out.append(hex.utf8Start[Int(byte >> 4)])
                    out.append(hex.utf8Start[Int(byte & 0xF)])
                }
                runStart = index + 1
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
