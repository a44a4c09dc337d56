@testable import TextMeasureBatch

extension JSONValue {
    /// Parses UTF-8 bytes with ``JSONScanner``.
    static func scan(_ bytes: [UInt8]) throws(JSONScanner.Failure) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONScanner.Failure) in try JSONScanner.parse(buffer) }
    }

    /// Parses a string's UTF-8 with ``JSONScanner``.
    static func scan(_ text: String) throws(JSONScanner.Failure) -> JSONValue {
        try scan(Array(text.utf8))
    }

    /// Whether two values say the same thing: integers and other numbers compare by value (a `Double`
    /// written as an integer comes back as one), objects by their fields in order.
    func isSame(as other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.int, _), (.number, _): numericValue.map { a in other.numericValue.map { $0 == a } ?? false } ?? false
        case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.isSame(as: $1) }
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1.isSame(as: $1.1) }
        default: false
        }
    }

    /// The number, for `.int` and `.number`.
    var numericValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The first value of `key`, when this is an object.
    subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.0 == key }?.1
    }
}
