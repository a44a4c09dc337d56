#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small JSON parser for batch input lines: one pass over the UTF-8 bytes, no Foundation. It keeps
/// object keys in input order, repeated ones included (the caller decides which of a repeated key
/// counts), tells integers from other numbers, and for a batch item says where each field's key and
/// value are in the bytes, so that echoed fields go back out as they came in (``EchoedFields``).
///
/// What it makes of the corners RFC 8259 leaves open:
/// - Strings: bytes that are not valid UTF-8, and `\uXXXX` escapes of lone surrogates (a high one not
///   followed by an escaped low one, or a low one alone), become U+FFFD, as a UTF-8 decoder would
///   treat them; an escaped pair becomes its one scalar. Raw control characters (below U+0020) are
///   refused, as JSON requires.
/// - Numbers: integers that fit in `Int` become ``JSONValue/int(_:)``; the rest, integers beyond
///   `Int` included, ``JSONValue/number(_:)``, the nearest `Double`. A magnitude beyond
///   `Double.greatestFiniteMagnitude` (`1e309`) becomes ±infinity and one below the smallest
///   subnormal becomes 0: callers check finiteness (the batch refuses an infinite width or size by
///   name, and ``JSONValue`` writes a non-finite number as `null`).
/// - Nesting deeper than ``maximumDepth`` is refused (the parser recurses).
package struct JSONScanner {
    /// The deepest nesting of arrays and objects accepted.
    package static let maximumDepth = 256

    package struct Failure: Error {}

    /// A batch item parsed by ``parse(_:textLike:)``: its value, and where its text's string token is.
    package struct Item {
        /// The parsed value. When ``textIsPrevious`` is true, the text field's value is an empty string
        /// standing in for the previous item's text, which it equals.
        package var value: JSONValue
        /// The first top-level `"text"` field's string token as written, quotes and escapes included
        /// (its bytes, in the line parsed); nil when the value is no object or has no such field, or
        /// the field's value is no string.
        package var text: UnsafeBufferPointer<UInt8>?
        /// Whether ``text`` holds the same bytes as the token passed to ``parse(_:textLike:)``, in which
        /// case that string was not decoded.
        package var textIsPrevious = false
        /// When the value is an object: where each of its fields' key token (quotes included) and
        /// value are in the line parsed, in the order of its fields; empty otherwise.
        package var fieldRanges: [FieldRange] = []
    }

    /// Where one field of an object is in the bytes parsed: its key's string token as written, quotes
    /// included, and its value from its first byte to its last.
    package struct FieldRange {
        package var key: Range<Int>
        package var value: Range<Int>
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// For ``parse(_:textLike:)``: whether the top-level `"text"` field is looked for, the previous
    /// item's token, and what was found.
    private var findsText = false
    private var previousText: UnsafeBufferPointer<UInt8>?
    private var text: Range<Int>?
    private var sawText = false
    private var textIsPrevious = false
    /// For ``parse(_:textLike:)``: where the top-level object's fields are noted (see
    /// ``Item/fieldRanges``). A pointer to the caller's array, not an array: the scanner then holds no
    /// reference to retain and release, and the usual line (``item(_:textLike:)``), which notes none,
    /// costs nothing for it.
    private var fieldNotes: UnsafeMutablePointer<[FieldRange]>?
    /// For ``scan(elementsOf:)``: where the top-level array's elements are noted (a pointer, as
    /// ``fieldNotes``).
    private var elementNotes: UnsafeMutablePointer<[Range<Int>]>?

    /// Parses one complete JSON value from UTF-8 bytes; anything but white space after it is an error.
    /// Invalid UTF-8 inside strings becomes U+FFFD.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue {
        var scanner = JSONScanner(bytes: bytes)
        return try scanner.complete()
    }

    /// Parses a batch item as ``parse(_:)`` does, and also finds the string token of its text: the
    /// first top-level field named `"text"` (the one a batch reads), when its value is a string. When
    /// that token's bytes equal `previous` (quotes and escapes as written: equal bytes are equal
    /// strings), the string is not decoded again: a batch item whose text is the previous item's costs
    /// a comparison, not a decoding.
    ///
    /// - Parameters:
    ///   - bytes: One line's UTF-8.
    ///   - previous: The previous item's ``Item/text`` token, or nil.
    /// - Returns: The value, where its text token is and where its fields are (see ``Item``).
    /// - Throws: ``Failure`` exactly when ``parse(_:)`` does.
    /// - Complexity: O(*n*) in the line's length; the text, when it is the previous one, is compared
    ///   byte for byte (`memcmp`) instead of decoded.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, textLike previous: UnsafeBufferPointer<UInt8>?)
        throws(Failure) -> Item {
        var scanner = JSONScanner(bytes: bytes)
        scanner.findsText = true
        scanner.previousText = previous
        var fieldRanges: [FieldRange] = []
        let value = try withUnsafeMutablePointer(to: &fieldRanges) { notes throws(Failure) in
            scanner.fieldNotes = notes
            return try scanner.complete()
        }
        let text = scanner.text.map { UnsafeBufferPointer(rebasing: bytes[$0]) }
        return Item(value: value, text: text, textIsPrevious: scanner.textIsPrevious, fieldRanges: fieldRanges)
    }

    /// What a request body's one JSON value is, as ``scan(elementsOf:)`` sees it.
    package enum TopLevel: Sendable, Equatable {
        case object, array, other
    }

    /// Checks one complete JSON value as ``parse(_:)`` does, without making it (no string is decoded,
    /// no array of values built), and when it is an array, says where each of its elements is in the
    /// bytes (from its first byte to its last), so that each can be read again as a batch line (a
    /// request body of items, say: each item is then parsed once, by the batch, not twice).
    ///
    /// - Parameter bytes: The UTF-8 of one JSON value.
    /// - Returns: Whether the value is an object, an array or something else, and the array's
    ///   elements' ranges in `bytes` (empty unless it is an array).
    /// - Throws: ``Failure`` exactly when ``parse(_:)`` does.
    /// - Complexity: O(*n*) in the bytes; allocates only the array of ranges.
    package static func scan(elementsOf bytes: UnsafeBufferPointer<UInt8>) throws(Failure)
        -> (kind: TopLevel, elements: [Range<Int>]) {
        var scanner = JSONScanner(bytes: bytes)
        var elements: [Range<Int>] = []
        scanner.skipWhitespace()
        guard scanner.index < bytes.count else { throw Failure() }
        let kind: TopLevel = switch bytes[scanner.index] {
        case UInt8(ascii: "["): .array
        case UInt8(ascii: "{"): .object
        default: .other
        }
        try withUnsafeMutablePointer(to: &elements) { notes throws(Failure) in
            scanner.elementNotes = notes
            try scanner.skipValue(depth: 0)
        }
        scanner.skipWhitespace()
        guard scanner.index == bytes.count else { throw Failure() }
        return (kind, elements)
    }

    /// The fields a batch reads from an item, of the types it accepts (see ``item(_:textLike:)``).
    package struct ItemFields {
        /// The text; empty when ``textIsPrevious``.
        package var text: String
        /// The text's string token as written (see ``Item/text``).
        package var textToken: UnsafeBufferPointer<UInt8>
        /// Whether ``textToken`` holds the same bytes as the previous item's token (see ``Item``).
        package var textIsPrevious: Bool
        /// The width, an integer or not.
        package var width: Double
        /// The size, an integer or not, if given.
        package var size: Double?
        /// The most lines, if given.
        package var maxLines: Int?
        /// The name of the line-breaking rules, if given (not checked against the names).
        package var breaking: String?
        /// The item's other fields, to echo: each key once, the output's own keys left out, bytes as
        /// written (see ``EchoedFields``).
        package var echoed: EchoedFields
    }

    /// ``parse(_:textLike:)`` for the usual batch line, without making an array of its fields: an
    /// object with a string `"text"` and a number `"width"`, at most a number `"size"`, an integer
    /// `"maxLines"` and a string `"breaking"` besides, each of these keys once, any other keys (see
    /// ``ItemFields/echoed``), the keys it reads written without escapes. A line with `"spans"` (a
    /// styled text) is not the usual line: nil.
    ///
    /// - Parameters:
    ///   - bytes: One line's UTF-8.
    ///   - previous: The previous item's text token, as for ``parse(_:textLike:)``.
    /// - Returns: The fields; nil for any other line, valid or not, which ``parse(_:textLike:)``
    ///   reads (to the same fields, when it is such an object).
    /// - Complexity: O(*n*) in the line's length, as ``parse(_:textLike:)``.
    package static func item(_ bytes: UnsafeBufferPointer<UInt8>, textLike previous: UnsafeBufferPointer<UInt8>?)
        -> ItemFields? {
        var scanner = JSONScanner(bytes: bytes)
        scanner.findsText = true
        scanner.previousText = previous
        guard let fields = try? scanner.itemObject(depth: 0) else { return nil }
        scanner.skipWhitespace()
        return scanner.index == bytes.count ? fields : nil
    }

    /// ``scan(elementsOf:)`` that reads each element of an array as a batch item as it comes to it, and
    /// hands it to `each` there and then, nothing kept: a request body of usual items is read once,
    /// not checked whole and then read again item by item.
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 of one JSON value.
    ///   - each: Called for each element of an array, in order, as it is read: where it is in `bytes`
    ///     (the ranges ``scan(elementsOf:)`` gives) and its fields as ``item(_:textLike:)`` reads its
    ///     bytes alone, without a previous text, or nil when it is no usual item. When the bytes turn
    ///     out not to be JSON further on, the elements before were handed over all the same.
    /// - Returns: Whether the value is an object, an array or something else.
    /// - Throws: ``Failure`` exactly when ``scan(elementsOf:)`` does.
    /// - Complexity: O(*n*) in the bytes; each usual item decodes its text and notes its other fields.
    package static func scan(itemsOf bytes: UnsafeBufferPointer<UInt8>,
                             each: (Range<Int>, ItemFields?) -> Void) throws(Failure) -> TopLevel {
        var scanner = JSONScanner(bytes: bytes)
        scanner.skipWhitespace()
        guard scanner.index < bytes.count, bytes[scanner.index] == UInt8(ascii: "[") else {
            return try scan(elementsOf: bytes).kind
        }
        scanner.index += 1
        scanner.skipWhitespace()
        if scanner.index < bytes.count && bytes[scanner.index] == UInt8(ascii: "]") {
            scanner.index += 1
        } else {
            while true {
                scanner.skipWhitespace()
                let start = scanner.index
                var item: ItemFields?
                if start < bytes.count && bytes[start] == UInt8(ascii: "{") {
                    scanner.findsText = true
                    scanner.text = nil
                    scanner.textIsPrevious = false
                    // The array is depth 0 (as `skipValue` counts), the item 1.
                    item = try? scanner.itemObject(depth: 1)
                    scanner.findsText = false
                }
                if case .none = item {
                    // Anything else, or an item read only in part: checked (or refused) as `scan(elementsOf:)` does.
                    scanner.index = start
                    try scanner.skipValue(depth: 1)
                }
                each(start..<scanner.index, item)
                scanner.skipWhitespace()
                guard scanner.index < bytes.count else { throw Failure() }
                if bytes[scanner.index] == UInt8(ascii: ",") { scanner.index += 1; continue }
                guard bytes[scanner.index] == UInt8(ascii: "]") else { throw Failure() }
                scanner.index += 1
                break
            }
        }
        scanner.skipWhitespace()
        guard scanner.index == bytes.count else { throw Failure() }
        return .array
    }

    /// The fields ``item(_:textLike:)`` reads by name (their keys as raw values).
    private enum ItemField: String {
        case text, width, size, maxLines, breaking, spans
    }

    /// The field that `count` bytes at `bytes` name, or nil.
    private static func readField(_ bytes: UnsafePointer<UInt8>, count: Int) -> ItemField? {
        func spells(_ word: StaticString) -> Bool { memcmp(bytes, word.utf8Start, count) == 0 }
        switch count {
        case 4: return spells("text") ? .text : spells("size") ? .size : nil
        case 5: return spells("width") ? .width : spells("spans") ? .spans : nil
        case 8: return spells("maxLines") ? .maxLines : spells("breaking") ? .breaking : nil
        default: return nil
        }
    }

    /// The object ``item(_:textLike:)`` reads, at nesting `depth` (0 for a line's item); nil, or a
    /// failure, for anything else. The index is then past its `}`.
    private mutating func itemObject(depth: Int) throws(Failure) -> ItemFields? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{"), let base = bytes.baseAddress else { return nil }
        index += 1
        var text: String?, width: Double?, size: Double?, maxLines: Int?, breaking: String?
        var echoed = EchoedFields()
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            let start = index + 1
            let end = Self.firstSpecialByte(in: bytes, from: start)
            guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
            let field = Self.readField(base + start, count: end - start)
            var other: String?
            let keyStart = index
            if field == nil {
                other = try key()   // as `object` reads it: a literal for "id", else decoded
            } else {
                index = end + 1
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if let field {
                let isString = bytes[index] == UInt8(ascii: "\"")
                let isNumber = bytes[index] == UInt8(ascii: "-")
                    || (bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9"))
                switch field {
                case .text:
                    guard text == nil, isString else { return nil }
                    sawText = true
                    guard case .string(let value) = try textValue() else { return nil }
                    text = value
                case .width:
                    guard width == nil, isNumber else { return nil }
                    width = try numberValue()
                case .size:
                    guard size == nil, isNumber else { return nil }
                    size = try numberValue()
                case .maxLines:
                    guard maxLines == nil, isNumber, case .int(let value) = try number() else { return nil }
                    maxLines = value
                case .breaking:
                    guard breaking == nil, isString else { return nil }
                    breaking = try string()
                case .spans:
                    return nil   // read with the line's array of fields
                }
            } else if let other {
                // Validated, not made: it is echoed as written.
                let valueStart = index
                try skipValue(depth: depth + 1)
                echoed.add(key: other, keyBytes: UnsafeBufferPointer(rebasing: bytes[keyStart..<end + 1]),
                           valueBytes: UnsafeBufferPointer(rebasing: bytes[valueStart..<index]))
            }
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "}") else { return nil }
            index += 1
            break
        }
        guard let text, let width, let token = self.text else { return nil }
        return ItemFields(text: text, textToken: UnsafeBufferPointer(rebasing: bytes[token]), textIsPrevious: textIsPrevious,
                          width: width, size: size, maxLines: maxLines, breaking: breaking, echoed: echoed)
    }

    /// A number as a `Double`, integer or not.
    private mutating func numberValue() throws(Failure) -> Double {
        guard let value = try number().numberValue else { throw Failure() }
        return value
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The one value the bytes hold, with nothing but white space after it.
    private mutating func complete() throws(Failure) -> JSONValue {
        let value = try value(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw Failure() }
        return value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
            index += 1
        }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth < Self.maximumDepth else { throw Failure() }
        skipWhitespace()
        guard index < bytes.count else { throw Failure() }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try number()
        }
    }

    /// Reads past one value, checking it as ``value(depth:)`` does, without making it: no strings, no
    /// arrays of elements or fields (an echoed field's value is written back from its bytes).
    private mutating func skipValue(depth: Int) throws(Failure) {
        guard depth < Self.maximumDepth else { throw Failure() }
        skipWhitespace()
        guard index < bytes.count else { throw Failure() }
        switch bytes[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let isObject = bytes[index] == UInt8(ascii: "{")
            let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            index += 1
            skipWhitespace()
            if index < bytes.count && bytes[index] == close { index += 1; return }
            while true {
                if isObject {
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Failure() }
                    try skipString()
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw Failure() }
                    index += 1
                }
                skipWhitespace()
                let start = index
                try skipValue(depth: depth + 1)
                if depth == 0 && !isObject, let notes = elementNotes { notes.pointee.append(start..<index) }
                skipWhitespace()
                guard index < bytes.count else { throw Failure() }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == close { index += 1; return }
                throw Failure()
            }
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try number()
        }
    }

    /// Reads past a string token, checking it as ``string()`` does, without decoding it.
    private mutating func skipString() throws(Failure) {
        index += 1   // opening quote
        while true {
            index = Self.firstSpecialByte(in: bytes, from: index)
            guard index < bytes.count, bytes[index] >= 0x20 else { throw Failure() }
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                return
            }
            // A backslash: one of the escapes `string()` reads.
            index += 1
            guard index < bytes.count else { throw Failure() }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                 UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                break
            case UInt8(ascii: "u"): _ = try hex4()
            default: throw Failure()
            }
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var fields: [(String, JSONValue)] = []
        fields.reserveCapacity(4)   // a batch line's text, width, size and one more: one allocation
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object(fields) }
        let notes = depth == 0 ? fieldNotes : nil
        notes?.pointee.reserveCapacity(4)
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Failure() }
            let keyStart = index
            let key = try self.key()
            let keyEnd = index
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw Failure() }
            index += 1
            skipWhitespace()
            let valueStart = index
            if depth == 0 && findsText && !sawText && key == "text" {
                sawText = true
                fields.append((key, try textValue()))
            } else {
                fields.append((key, try value(depth: depth + 1)))
            }
            notes?.pointee.append(FieldRange(key: keyStart..<keyEnd, value: valueStart..<index))
            skipWhitespace()
            guard index < bytes.count else { throw Failure() }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(fields) }
            throw Failure()
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(values) }
        while true {
            skipWhitespace()
            values.append(try value(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw Failure() }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(values) }
            throw Failure()
        }
    }

    /// The value of the item's text field (see ``parse(_:textLike:)``): a string token equal to the
    /// previous one is skipped, not decoded; another string is decoded and its token noted.
    private mutating func textValue() throws(Failure) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return try value(depth: 1) }
        let start = index
        // A token equal to a whole valid one (closing quote included) is that string: the bytes are
        // read the same way up to the same closing quote.
        if let previous = previousText, let base = bytes.baseAddress, let previousBase = previous.baseAddress,
           previous.count <= bytes.count - index, memcmp(base + index, previousBase, previous.count) == 0 {
            index += previous.count
            text = start..<index
            textIsPrevious = true
            return .string("")
        }
        let value = JSONValue.string(try string())
        text = start..<index
        return value
    }

    /// The index of the first byte at or after `start` that ends a string's plain run: a `"`, a `\\` or
    /// a control character (below 0x20); `bytes.count` when there is none. The same bytes are the ones
    /// `JSONValue` escapes when it writes a string. Eight bytes at a time
    /// (SWAR): for each predicate, `(w − k·0x01…) & ~w & 0x80…` sets the high bit of every byte of `w`
    /// that is zero (with `w` the word XOR the byte sought) or below `k`, exact at its lowest byte
    /// (borrows only mark bytes above a true one), so the lowest bit of the three masks together is
    /// the first byte. Bytes of 0x80 and above (UTF-8 past ASCII) never match.
    ///
    /// - Complexity: O(*n*) in the bytes skipped, about two instructions a byte.
    static func firstSpecialByte(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var index = start
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
            let mask = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash
                        | (word &- ones &* 0x20) & ~word) & highs
            if mask != 0 { return index + mask.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < bytes.count {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return index }
            index += 1
        }
        return index
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw Failure() }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw Failure() }
        index += count
    }

    /// An object's key: a string, taken from ``commonKey(_:count:)`` when it is written as one of the
    /// keys a batch line usually holds, not decoded from the bytes again.
    private mutating func key() throws(Failure) -> String {
        let start = index + 1
        let end = Self.firstSpecialByte(in: bytes, from: start)
        if end < bytes.count, bytes[end] == UInt8(ascii: "\""), let base = bytes.baseAddress,
           let key = Self.commonKey(base + start, count: end - start) {
            index = end + 1
            return key
        }
        return try string()
    }

    /// The key a batch line usually holds that `count` bytes at `bytes` spell ("text", "width", "size",
    /// "maxLines", "breaking", "id"), or nil. Literals, which are small strings: no allocation, no
    /// reference count (a table of them cost four retains and releases a key).
    private static func commonKey(_ bytes: UnsafePointer<UInt8>, count: Int) -> String? {
        if count == 2 { return memcmp(bytes, "id", 2) == 0 ? "id" : nil }
        return readField(bytes, count: count)?.rawValue
    }

    private mutating func string() throws(Failure) -> String {
        index += 1   // opening quote
        let start = index
        // Fast path: no escapes.
        index = Self.firstSpecialByte(in: bytes, from: index)
        guard index < bytes.count else { throw Failure() }
        guard bytes[index] >= 0x20 else { throw Failure() }
        if bytes[index] == UInt8(ascii: "\"") {
            defer { index += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }
        // With escapes: the string's UTF-8 is built in a byte array, decoded once at the end (raw bytes
        // that are not valid UTF-8 become U+FFFD, as on the fast path).
        var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            }
            guard byte >= 0x20 else { throw Failure() }
            if byte != UInt8(ascii: "\\") {
                utf8.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw Failure() }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code) {
                    // A high surrogate pairs with an escaped low one right after it; without one it is
                    // a lone surrogate, and what follows it is read on its own.
                    let next = index
                    if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try hex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            index = next
                        }
                    }
                }
                // Lone surrogates (high or low) are the only codes that are not scalars.
                let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                utf8.append(contentsOf: UTF8.encode(scalar)!)
            default: throw Failure()
            }
        }
        throw Failure()
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw Failure() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Failure()
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// JSON's number grammar; integers that fit become `.int`, the rest `.number`.
    ///
    /// The digits are read into an integer as they are checked. An integer that fits is that integer;
    /// a number with a fraction, no exponent and at most 15 significant digits is that integer divided
    /// by a power of ten up to 10^22: both are exact `Double`s and the division rounds once, so the
    /// result is the correctly rounded value (Clinger's fast path), as `Double(String)` gives. Anything
    /// else goes through `Double(String)`.
    private mutating func number() throws(Failure) -> JSONValue {
        let start = index
        var isInteger = true
        let isNegative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { throw Failure() }
        // The digits read so far as an integer (negative for a negative number), while it fits.
        var significand = 0, fits = true, significantDigits = 0, fractionDigits = 0
        func add(_ byte: UInt8) {
            let digit = Int(byte &- UInt8(ascii: "0"))
            if significand != 0 || digit != 0 { significantDigits += 1 }
            guard fits else { return }
            let (times10, overflow1) = significand.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = isNegative ? times10.subtractingReportingOverflow(digit)
                                              : times10.addingReportingOverflow(digit)
            if overflow1 || overflow2 { fits = false } else { significand = sum }
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                add(bytes[index])
                index += 1
            }
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                add(bytes[index])
                index += 1
            }
            guard index > digits else { throw Failure() }
            fractionDigits = index - digits
        }
        var hasExponent = false
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            isInteger = false
            hasExponent = true
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw Failure() }
        }
        if fits && isInteger { return .int(significand) }
        if fits && !hasExponent && significantDigits <= 15 && fractionDigits <= 22 {
            // |significand| < 10^15 < 2^53 and 10^fractionDigits ≤ 10^22 are exact; -0.0 keeps its sign.
            let value = Double(significand.magnitude) / Self.powersOfTen[fractionDigits]
            return .number(isNegative ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let int = Int(text) { return .int(int) }
        guard let double = Double(text) else { throw Failure() }
        return .number(double)
    }

    /// 10^0 … 10^22, every one an exact `Double`.
    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { power, _ in power * 10 }
    }
}
