/// The fields of a batch item that its result echoes: every field but the ones the batch reads, each
/// key once (the first), never one of the output's own keys, and each written back byte for byte as
/// the input held it.
///
/// Byte for byte because a value read and written again is another value: `12345678901234567890`
/// would come back as `1.2345678901234567e+19`, `1e999` as `null`, `-0` as `0`, `"\u00e9"` as `"é"`.
/// Only fields of input that the scanner validated are added, so their bytes are JSON; the one
/// change is that bytes that are not UTF-8 (which JSON does not allow, and which the scanner reads as
/// U+FFFD) are written as U+FFFD, so that the output stays UTF-8.
///
/// Keys are compared as the scanner decodes them: `"id"` and `"\u0069d"` are one key, and a line
/// holding both echoes the first only, so that no output holds a key twice (JSON readers disagree on
/// which of a repeated key counts). Keys named like the output's own fields (``BatchProcessor/isOutputKey(_:)``)
/// are left out for the same reason.
///
/// ```swift
/// var echoed = EchoedFields()
/// echoed.add(key: "id", keyBytes: line[keyRange], valueBytes: line[valueRange])   // `"id"`, `12345678901234567890`
/// out += echoed.bytes                                                             // `,"id":12345678901234567890`
/// ```
///
/// Thread safety: a value type; `Sendable` (it holds its own copy of the bytes).
package struct EchoedFields: Sendable {
    /// `,KEY:VALUE` for each field, in input order, ready to follow a result's own fields in its object.
    package private(set) var bytes: [UInt8] = []
    /// How many fields ``bytes`` holds.
    package private(set) var count = 0
    /// Where the first field's key token is in ``bytes``. The usual line echoes one field (an id), and
    /// every line's fields are copied and destroyed several times on the way to the output: its key
    /// is kept as a position, not a `String` of its own, and the keys are decoded into ``keys`` only
    /// when a second field comes.
    private var firstKey = 0..<0
    /// The decoded keys, from the second field on; past eight of them, a set as well (a linear search
    /// is the faster below that). Optional arrays, not empty ones: nil costs a line without a second
    /// field nothing to copy or destroy.
    private var keys: [String]?
    private var keySet: Set<String>?

    /// No fields.
    package init() {}

    /// Whether there are no fields to echo.
    package var isEmpty: Bool { count == 0 }

    /// Adds a field unless its key was added before or is one of the output's own.
    ///
    /// - Parameters:
    ///   - key: The key, decoded (as the scanner reads it), to compare with the others.
    ///   - keyBytes: The key's string token as written, quotes included.
    ///   - valueBytes: The value as written, from its first byte to its last (white space inside a
    ///     container kept, none around it).
    /// - Complexity: O(*n*) in the field's bytes, plus O(*k*) in the fields added for the first eight
    ///   keys and O(1) expected past them.
    package mutating func add(key: String, keyBytes: UnsafeBufferPointer<UInt8>, valueBytes: UnsafeBufferPointer<UInt8>) {
        guard !BatchProcessor.isOutputKey(key), isNew(key) else { return }
        bytes.reserveCapacity(bytes.count + keyBytes.count + valueBytes.count + 2)
        bytes.append(UInt8(ascii: ","))
        let keyStart = bytes.count
        Self.appendUTF8(keyBytes, to: &bytes)
        if count == 0 { firstKey = keyStart..<bytes.count }
        bytes.append(UInt8(ascii: ":"))
        Self.appendUTF8(valueBytes, to: &bytes)
        count += 1
    }

    /// Notes `key`; false when it was added before.
    private mutating func isNew(_ key: String) -> Bool {
        if count == 0 { return true }
        if keys == nil {
            // The first key, decoded from its token as the scanner decodes it (bytes that were not UTF-8
            // are U+FFFD in both).
            let first = bytes.withUnsafeBufferPointer { bytes in
                guard case .string(let first)? = try? JSONScanner.parse(UnsafeBufferPointer(rebasing: bytes[firstKey]))
                else { return "" }   // a string token, from a validated line
                return first
            }
            keys = [first]
        }
        if keys!.count < 8 {
            guard !keys!.contains(key) else { return false }
            keys!.append(key)
            return true
        }
        if keySet == nil { keySet = Set(keys!) }
        return keySet!.insert(key).inserted
    }

    /// Appends `raw`, with every byte sequence that is not UTF-8 replaced by U+FFFD (as the scanner
    /// decodes it). ASCII, the usual field, is copied as it is after a check of eight bytes at a time.
    private static func appendUTF8(_ raw: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard !isASCII(raw) else {
            out.append(contentsOf: raw)
            return
        }
        // Valid UTF-8 comes out of the decoding unchanged; the rest with U+FFFD in place of what is not.
        var text = String(decoding: raw, as: UTF8.self)
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// Whether every byte is below 0x80.
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var index = 0
        var high: UInt64 = 0
        while index + 8 <= bytes.count {
            high |= UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            high |= UInt64(base[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}
