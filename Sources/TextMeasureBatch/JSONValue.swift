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

    /// Compact JSON text (see ``write(to:)``).
    package var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends compact JSON text, valid whatever the value holds: strings escape `"`, `\\` and every
    /// control character below U+0020; an integral number below 10¹⁵ in magnitude is written as an
    /// integer (`-0.0` as `0`), another finite one as Swift's shortest round-tripping form (`1e-05`,
    /// `1.7976931348623157e+308`, both valid JSON), and a non-finite one, which JSON cannot express,
    /// as `null`.
    package func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .number(let value):
            if value.isFinite && value == value.rounded() && abs(value) < 1e15 {
                out += String(Int(value))
            } else if value.isFinite {
                out += "\(value)"
            } else {
                out += "null"
            }
        case .string(let value): JSONValue.writeString(value, to: &out)
        case .array(let values):
            out += "["
            for (i, value) in values.enumerated() {
                if i > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (i, (key, value)) in fields.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ string: String, to out: inout String) {
        out += "\""
        // Runs of bytes that need no escaping are appended whole. Every byte to escape is ASCII, and
        // the bytes of a multi-byte UTF-8 sequence are all 0x80 or above, so runs split only between
        // scalars.
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                out += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<index]), as: UTF8.self)
                switch byte {
                case 0x22: out += "\\\""
                case 0x5C: out += "\\\\"
                case 0x0A: out += "\\n"
                case 0x0D: out += "\\r"
                case 0x09: out += "\\t"
                default:
                    let hex = String(byte, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
                runStart = index + 1
            }
            out += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart...]), as: UTF8.self)
        }
        out += "\""
    }
}
