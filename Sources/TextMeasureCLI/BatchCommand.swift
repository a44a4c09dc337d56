import ArgumentParser
import TextMeasure

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Measure JSON Lines from standard input, one result line per input line.",
        discussion: """
            Each input line is {"text": String, "width": Number, "size"?: Number, "maxLines"?: Int}; \
            "size" and "maxLines" override the options. Each output line is \
            {"lineCount": Int, "height": Number, "truncated": Bool} followed by the input's other fields \
            (an "id", say), or {"error": "<why>"} for a line that cannot be measured. Output order is \
            input order; the exit status is 0 whatever the lines held.
            """)

    @OptionGroup var style: StyleOptions

    @Flag(help: "Print cache statistics to standard error at the end.")
    var stats = false

    @Option(help: "Lines measured together; each chunk is spread over all cores, then written in order.")
    var chunk = 4096

    func run() throws {
        let measurer = try style.makeMeasurer()
        let processor = BatchProcessor(measurer: measurer, style: style.style)
        var lines: [String] = []
        lines.reserveCapacity(chunk)
        func flush() {
            StandardStream.write(processor.process(lines), to: STDOUT_FILENO)
            lines.removeAll(keepingCapacity: true)
        }
        var input = LineReader(descriptor: STDIN_FILENO)
        while let line = input.next() {
            lines.append(line)
            if lines.count >= max(1, chunk) { flush() }
        }
        flush()
        if stats {
            let t = processor.texts.statistics
            StandardStream.write("""
                prepared texts: \(t.hits) reused, \(t.misses) shaped, \(t.entries) held
                shaped pieces: \(measurer.shapingStatistics.pieceHits) reused, \(measurer.shapingStatistics.pieceMisses) shaped, \(measurer.shapingStatistics.runsShapedWhole) runs shaped whole

                """, to: STDERR_FILENO)
        }
    }
}

/// Turns one input line into one output value. Thread-safe: its caches are.
///
/// Items go through a ``PreparedTextCache`` keyed by (text, style): a text seen before in the same
/// style is laid out again from its prepared form (arithmetic only, a fraction of a microsecond), so an
/// identical item or the same text at another width costs no shaping. A height cache in front of it
/// would only add a second look-up: answering from a valid width range saves less than it costs.
struct BatchProcessor: Sendable {
    let measurer: TextMeasurer
    let style: TextStyle
    let texts: PreparedTextCache
    static let knownFields: Set<String> = ["text", "width", "size", "maxLines"]

    init(measurer: TextMeasurer, style: TextStyle, preparedTexts: Int = 10_000) {
        self.measurer = measurer
        self.style = style
        texts = PreparedTextCache(measurer: measurer, capacity: preparedTexts)
    }

    /// Processes lines on all cores; returns the output lines, in input order, each ending in "\n".
    func process(_ lines: [String]) -> String {
        // Blocks of lines, each written into one string, spread over the cores; small blocks so that no
        // core waits long for the last one.
        let blockSize = 16
        let blocks = Array(stride(from: 0, to: lines.count, by: blockSize))
        return TextMeasurer.concurrentMap(blocks) { start in
            var text = ""
            for line in lines[start..<min(lines.count, start + blockSize)] {
                process(line).write(to: &text)
                text += "\n"
            }
            return text
        }.joined()
    }

    /// What became of one input line.
    enum Outcome {
        case measured(TextMeasurement, extras: [(String, JSONValue)])
        case failed(String, extras: [(String, JSONValue)])

        /// Appends the output line (without its newline).
        func write(to out: inout String) {
            switch self {
            case .measured(let result, let extras):
                out += "{\"lineCount\":"
                out += String(result.lineCount)
                out += ",\"height\":"
                JSONValue.number(result.height).write(to: &out)
                out += result.isTruncated ? ",\"truncated\":true" : ",\"truncated\":false"
                for (key, value) in extras {
                    out += ","
                    JSONValue.string(key).write(to: &out)
                    out += ":"
                    value.write(to: &out)
                }
                out += "}"
            case .failed(let message, let extras):
                JSONValue.object([("error", .string(message))] + extras).write(to: &out)
            }
        }
    }

    func process(_ line: String) -> Outcome {
        if line.allSatisfy(\.isWhitespace) { return Self.error("blank line") }
        guard let value = try? JSONScanner.parse(line) else { return Self.error("invalid JSON") }
        guard case .object(let fields) = value else { return Self.error("each line must be a JSON object") }
        let extras = fields.filter { !Self.knownFields.contains($0.0) }
        let field = Dictionary(fields, uniquingKeysWith: { first, _ in first })

        guard let textValue = field["text"] else { return Self.error("missing field \"text\"", extras) }
        guard case .string(let text) = textValue else { return Self.error("\"text\" must be a string", extras) }
        guard let widthValue = field["width"] else { return Self.error("missing field \"width\"", extras) }
        guard let width = Self.number(widthValue) else { return Self.error("\"width\" must be a number", extras) }
        guard width.isFinite, width > 0 else { return Self.error("\"width\" must be a finite number greater than 0", extras) }
        var style = self.style
        if let sizeValue = field["size"] {
            guard let size = Self.number(sizeValue) else { return Self.error("\"size\" must be a number", extras) }
            guard size.isFinite, size > 0 else { return Self.error("\"size\" must be a finite number greater than 0", extras) }
            style.size = size
        }
        if let maxLinesValue = field["maxLines"] {
            guard case .int(let maxLines) = maxLinesValue else {
                return Self.error("\"maxLines\" must be an integer", extras)
            }
            guard maxLines >= 0 else { return Self.error("\"maxLines\" must be 0 (unlimited) or more", extras) }
            style.maxLines = maxLines
        }
        do {
            _ = try measurer.lineHeight(for: style)   // the checks `TextStyle` itself makes (size range, ...)
        } catch {
            return Self.error(error.description, extras)
        }
        // `lineHeight(for:)` validated the style and the guards above the width, so this cannot fail.
        guard let result = try? texts.measure(TextKey(text), style: style, width: width, withLines: false) else {
            preconditionFailure("batch item failed to measure after validation")
        }
        return .measured(result, extras: extras)
    }

    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let int): Double(int)
        case .number(let double): double
        default: nil
        }
    }

    static func error(_ message: String, _ extras: [(String, JSONValue)] = []) -> Outcome {
        .failed(message, extras: extras)
    }
}

/// Writes to standard output or error without Foundation (which would add its start-up cost, and
/// Foundation's own ICU, to every run of the command).
enum StandardStream {
    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return   // a closed pipe: nothing more can be delivered
                }
                offset += written
            }
        }
    }
}

/// Reads lines from a file descriptor in 64 KiB blocks (much faster than `readLine`, which this
/// otherwise matches: "\n" or "\r\n" ends a line, a last line without one still counts, invalid UTF-8
/// is repaired with U+FFFD).
struct LineReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    mutating func next() -> String? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = newline + 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                return line
            }
            fill()
        }
    }

    private mutating func fill() {
        buffer.removeSubrange(0..<start)
        start = 0
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: 1 << 16))
        let count = buffer.withUnsafeMutableBytes { raw -> Int in
            while true {
                let read = Glibc.read(descriptor, raw.baseAddress! + old, 1 << 16)
                if read < 0 && errno == EINTR { continue }
                return read
            }
        }
        buffer.removeSubrange((old + max(0, count))...)
        if count <= 0 { atEnd = true }
    }
}
