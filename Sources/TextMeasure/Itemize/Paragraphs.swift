/// Splits text at hard breaks: `\n`, `\r\n`, `\r`, U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR.
/// Each paragraph is laid out on its own; a text ending in a hard break ends with an empty paragraph,
/// which takes one line (as in Pango, UIKit and browsers).
enum Paragraphs {
    /// Calls `body(start, end)` with the byte range of each paragraph, separators excluded.
    static func forEach(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Int, Int) -> Void) {
        var start = 0
        var i = 0
        let count = bytes.count
        while i < count {
            let byte = bytes[i]
            if byte == 0x0A || byte == 0x0D {
                body(start, i)
                i += (byte == 0x0D && i + 1 < count && bytes[i + 1] == 0x0A) ? 2 : 1
                start = i
            } else if byte == 0xE2, i + 2 < count, bytes[i + 1] == 0x80, bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9 {
                body(start, i)
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        body(start, count)
    }
}
