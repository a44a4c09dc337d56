/// Splits text at hard breaks. Each paragraph is laid out on its own.
///
/// - ``LineBreaking/pango``: `\n`, `\r\n`, `\r`, U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR
///   break; a text ending in a hard break ends with an empty paragraph, which takes one line (as in
///   Pango and UIKit). But a U+2028 only ends its line in Pango (an item of its own, within its
///   paragraph): one just before another hard break or the text's end starts no line, and the two
///   separate one paragraph from the next (`"a\u{2028}"` is one line, `"a\u{2028}\n"` two).
/// - the browser modes: only `\n` and `\r\n` (CSS segment breaks) break, and one at the very end of
///   the text ends the last line without starting an empty one (`"a\n"` is one line, `"\n\n"` two).
///   A lone `\r`, U+2028 and U+2029 stay in their paragraph as characters.
enum Paragraphs {
    /// Calls `body(start, end)` with the byte range of each paragraph, separators excluded.
    ///
    /// - Parameters:
    ///   - bytes: The text's UTF-8 bytes.
    ///   - breaking: Whose hard breaks apply.
    ///   - body: Called once per paragraph, in order.
    /// - Complexity: O(*n*) in the text's bytes.
    static func forEach(in bytes: UnsafeBufferPointer<UInt8>, breaking: LineBreaking = .pango,
                        _ body: (Int, Int) -> Void) {
        var start = 0
        var i = 0
        let count = bytes.count
        if breaking.isBrowser {
            while i < count {
                if bytes[i] == 0x0A {
                    let end = i > start && bytes[i - 1] == 0x0D ? i - 1 : i
                    body(start, end)
                    i += 1
                    start = i
                } else {
                    i += 1
                }
            }
            if start < count || count == 0 { body(start, count) }
            return
        }
        while i < count {
            let length = Self.separatorLength(bytes, at: i)
            guard length > 0 else {
                i += 1
                continue
            }
            body(start, i)
            let endsLine = Self.isLineSeparator(bytes, at: i, length: length)
            i += length
            if endsLine {
                // A U+2028 only ends its line: the text's end, or another separator but a U+2028
                // right after it, starts no paragraph.
                if i == count { return }
                let next = Self.separatorLength(bytes, at: i)
                if !Self.isLineSeparator(bytes, at: i, length: next) { i += next }
            }
            start = i
        }
        body(start, count)
    }

    /// The length of the hard break (LF, CR, CR LF, U+2028 or U+2029) at `index`, 0 if none.
    @inline(__always)
    private static func separatorLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let count = bytes.count
        guard index < count else { return 0 }
        switch bytes[index] {
        case 0x0A: return 1
        case 0x0D: return index + 1 < count && bytes[index + 1] == 0x0A ? 2 : 1
        case 0xE2:
            return index + 2 < count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9)
                ? 3 : 0
        default: return 0
        }
    }

    /// Whether the hard break of `length` bytes at `index` is a U+2028 (E2 80 A8).
    @inline(__always)
    private static func isLineSeparator(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, length: Int) -> Bool {
        length == 3 && bytes[index + 2] == 0xA8
    }
}
