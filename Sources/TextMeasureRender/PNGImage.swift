import CPNG

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An 8-bit RGBA picture with text metadata, written and read as a PNG file through libpng.
package struct PNGImage: Sendable {
    /// The pixels (their size is the picture's).
    package var canvas: Canvas
    /// Text chunks, in order: keyword (1 to 79 Latin-1 characters) and UTF-8 value.
    package var text: [(key: String, value: String)]

    /// Creates a picture from a canvas and its metadata.
    package init(canvas: Canvas, text: [(key: String, value: String)] = []) {
        self.canvas = canvas
        self.text = text
    }

    /// The value of the first text chunk named `key`, if any.
    package func text(for key: String) -> String? {
        text.first { $0.key == key }?.value
    }

    /// Writes the picture to `path` as a PNG (8-bit RGBA, the text as uncompressed iTXt chunks).
    ///
    /// - Throws: ``RenderError`` naming the file when it cannot be written.
    package func write(to path: String) throws(RenderError) {
        var message = [CChar](repeating: 0, count: 512)
        let keys = text.map { strdup($0.key) }, values = text.map { strdup($0.value) }
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        let status = canvas.pixels.withUnsafeBufferPointer { pixels in
            keys.map { UnsafePointer($0) }.withUnsafeBufferPointer { keys in
                values.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
                    cpng_write_rgba(path, pixels.baseAddress, UInt32(canvas.width), UInt32(canvas.height),
                                    keys.baseAddress, values.baseAddress, Int32(text.count), &message, message.count)
                }
            }
        }
        guard status == 0 else { throw RenderError("cannot write \(path): \(Self.string(message))") }
    }

    /// Reads the PNG file at `path` (any PNG, converted to 8-bit RGBA) with its text chunks.
    ///
    /// - Throws: ``RenderError`` naming the file when it cannot be read or is not a PNG.
    package static func read(from path: String) throws(RenderError) -> PNGImage {
        var message = [CChar](repeating: 0, count: 512)
        var rgba: UnsafeMutablePointer<UInt8>?
        var chunks: UnsafeMutablePointer<CChar>?
        var width: UInt32 = 0, height: UInt32 = 0, textSize = 0
        guard cpng_read_rgba(path, &rgba, &width, &height, &chunks, &textSize, &message, message.count) == 0,
              let rgba, let chunks else {
            throw RenderError("cannot read \(path): \(string(message))")
        }
        defer {
            free(rgba)
            free(chunks)
        }
        guard width > 0 && height > 0 else { throw RenderError("cannot read \(path): the picture is empty") }
        var canvas = Canvas(width: Int(width), height: Int(height))
        canvas.replacePixels(with: UnsafeBufferPointer(start: rgba, count: Int(width) * Int(height) * 4))
        let fields = UnsafeBufferPointer(start: chunks, count: textSize).split(separator: 0, omittingEmptySubsequences: false)
        var text: [(key: String, value: String)] = []
        var i = 0
        while i + 1 < fields.count {
            text.append((String(decoding: fields[i].map { UInt8(bitPattern: $0) }, as: UTF8.self),
                         String(decoding: fields[i + 1].map { UInt8(bitPattern: $0) }, as: UTF8.self)))
            i += 2
        }
        return PNGImage(canvas: canvas, text: text)
    }

    private static func string(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
