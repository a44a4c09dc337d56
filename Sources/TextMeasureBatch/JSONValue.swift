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
                out.append(contentsOf: value.description.utf8)
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
            out.append(contentsOf: buffer[end...])
        }
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
