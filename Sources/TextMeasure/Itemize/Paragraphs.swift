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
            let byte = bytes[i]
            if byte == 0x0A || byte == 0x0D {
                body(start, i)
                i += (byte == 0x0D && i + 1 < count && bytes[i + 1] == 0x0A) ? 2 : 1
                start = i
            } else if byte == 0xE2, i + 2 < count, bytes[i + 1] == 0x80, bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9 {
                body(start, i)
                i += 3
                if bytes[i - 1] == 0xA8 { i += Self.separatorLength(bytes, at: i) }
                start = i
            } else {
                i += 1
            }
        }
        // A text ending in U+2028 (and nothing after it) has no empty paragraph after it.
        if start < count || count < 3 || bytes[count - 1] != 0xA8 || bytes[count - 2] != 0x80 || bytes[count - 3] != 0xE2 {
            body(start, count)
        }
    }

    /// The length of the paragraph separator (LF, CR, CR LF or U+2029) at `index`, 0 if none.
    private static func separatorLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let count = bytes.count
        guard index < count else { return 0 }
        switch bytes[index] {
        case 0x0A: return 1
        case 0x0D: return index + 1 < count && bytes[index + 1] == 0x0A ? 2 : 1
        case 0xE2: return index + 2 < count && bytes[index + 1] == 0x80 && bytes[index + 2] == 0xA9 ? 3 : 0
        default: return 0
        }
    }
}
