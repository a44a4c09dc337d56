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

    @Option(help: """
        Prepared texts kept for reuse: a text seen again (at another width, say) is laid out from its \
        prepared form instead of being shaped again. Each takes a few kilobytes.
        """)
    var cachedTexts = 256

    func run() throws {
        // The first lines are read before waiting for the fonts, which may still be loading.
        var input = LineReader(descriptor: STDIN_FILENO)
        var lines = input.next(maxLines: max(1, chunk))
        let measurer = try style.makeMeasurer()
        let processor = BatchProcessor(measurer: measurer, style: style.style, preparedTexts: max(1, cachedTexts))
        while let chunk = lines {
            StandardStream.write(processor.process(chunk), to: STDOUT_FILENO)
            lines = input.next(maxLines: max(1, self.chunk))
        }
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

    init(measurer: TextMeasurer, style: TextStyle, preparedTexts: Int) {
        self.measurer = measurer
        self.style = style
        texts = PreparedTextCache(measurer: measurer, capacity: preparedTexts)
    }

    /// Processes lines on all cores; returns the output lines, in input order, each ending in "\n".
    func process(_ lines: Lines) -> String {
        // Blocks of lines, each written into one string, spread over the cores; small blocks so that no
        // core waits long for the last one. The lines are still bytes: decoding them is work the cores
        // share, not the reading thread's alone.
        let blockSize = 16
        let blockCount = (lines.count + blockSize - 1) / blockSize
        let outputs = UnsafeMutableBufferPointer<String>.allocate(capacity: max(1, blockCount))
        outputs.initialize(repeating: "")
        defer {
            _ = outputs.deinitialize()
            outputs.deallocate()
        }
        let slots = SendableBuffer(outputs.baseAddress!)
        CPUSpread.forEach(blockCount) { block in
            var text = ""
            lines.bytes.withUnsafeBufferPointer { bytes in
                for index in (block * blockSize)..<min(lines.count, (block + 1) * blockSize) {
                    process(UnsafeBufferPointer(rebasing: bytes[lines.ranges[index]])).write(to: &text)
                    text += "\n"
                }
            }
            slots.base[block] = text   // each block is written by exactly one thread
        }
        return outputs.joined()
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

    /// Processes one line's UTF-8 bytes.
    func process(_ line: UnsafeBufferPointer<UInt8>) -> Outcome {
        guard let value = try? JSONScanner.parse(line) else {
            let isBlank = String(decoding: line, as: UTF8.self).allSatisfy(\.isWhitespace)
            return Self.error(isBlank ? "blank line" : "invalid JSON")
        }
        guard case .object(let fields) = value else { return Self.error("each line must be a JSON object") }
        // One pass over the fields (the first of a repeated key wins); no dictionary per line.
        var field: (text: JSONValue?, width: JSONValue?, size: JSONValue?, maxLines: JSONValue?)
        var extras: [(String, JSONValue)] = []
        for (key, value) in fields {
            switch key {
            case "text": if field.text == nil { field.text = value }
            case "width": if field.width == nil { field.width = value }
            case "size": if field.size == nil { field.size = value }
            case "maxLines": if field.maxLines == nil { field.maxLines = value }
            default: extras.append((key, value))
            }
        }

        guard let textValue = field.text else { return Self.error("missing field \"text\"", extras) }
        guard case .string(let text) = textValue else { return Self.error("\"text\" must be a string", extras) }
        guard let widthValue = field.width else { return Self.error("missing field \"width\"", extras) }
        guard let width = Self.number(widthValue) else { return Self.error("\"width\" must be a number", extras) }
        guard width.isFinite, width > 0 else { return Self.error("\"width\" must be a finite number greater than 0", extras) }
        var style = self.style
        if let sizeValue = field.size {
            guard let size = Self.number(sizeValue) else { return Self.error("\"size\" must be a number", extras) }
            guard size.isFinite, size > 0 else { return Self.error("\"size\" must be a finite number greater than 0", extras) }
            style.size = size
        }
        if let maxLinesValue = field.maxLines {
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

/// Lines read from standard input, still as bytes: their UTF-8 (or not) and where each line is.
struct Lines: Sendable {
    var bytes: [UInt8]
    /// Each line's bytes in `bytes`, without its "\n" or "\r\n".
    var ranges: [Range<Int>]
    var count: Int { ranges.count }
}

/// Reads lines from a file descriptor in 64 KiB blocks, many at a time, without decoding them (the
/// cores that process the lines do that). Lines end as `readLine` ends them: "\n" or "\r\n"; a last
/// line without one still counts.
struct LineReader {
    private let descriptor: Int32
    /// Bytes read but not yet handed out (the start of an unfinished line).
    private var pending: [UInt8] = []
    /// Where each read lands before it is appended.
    private var block = [UInt8](repeating: 0, count: 1 << 16)
    private var atEnd = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next lines, at most `maxLines` of them (fewer at the end of the input), or nil at its end.
    mutating func next(maxLines: Int) -> Lines? {
        var bytes = pending
        pending = []
        var ranges: [Range<Int>] = []
        var start = 0, scanned = 0
        while ranges.count < maxLines {
            if let newline = Self.newline(in: bytes, from: scanned) {
                var end = newline
                if end > start && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                ranges.append(start..<end)
                start = newline + 1
                scanned = start
            } else if atEnd {
                if start < bytes.count { ranges.append(start..<bytes.count) }
                start = bytes.count
                break
            } else {
                scanned = bytes.count
                fill(&bytes)
            }
        }
        pending = Array(bytes[start...])
        bytes.removeSubrange(start...)
        return ranges.isEmpty ? nil : Lines(bytes: bytes, ranges: ranges)
    }

    /// The index of the first "\n" at or after `start` (`memchr`: vectorized, unlike a loop over bytes).
    private static func newline(in bytes: [UInt8], from start: Int) -> Int? {
        bytes.withUnsafeBytes { raw -> Int? in
            guard start < raw.count, let base = raw.baseAddress,
                  let found = memchr(base + start, 0x0A, raw.count - start) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    private mutating func fill(_ bytes: inout [UInt8]) {
        // From a file, room for the rest of it (up to 16 MiB) at once; from a pipe, room that doubles.
        // Growing by small steps would copy the input several times over, into fresh memory each time.
        let spare = bytes.capacity - bytes.count
        var info = stat()
        let position = lseek(descriptor, 0, SEEK_CUR)
        if fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && position >= 0 {
            let needed = min(max(Int(info.st_size) - Int(position), 0) + 1, 1 << 24)
            if spare < needed { bytes.reserveCapacity(bytes.count + needed) }
        } else if spare < 1 << 16 {
            bytes.reserveCapacity(max(2 * bytes.capacity, bytes.count + (1 << 16)))
        }
        let count = block.withUnsafeMutableBytes { raw -> Int in
            while true {
                let read = Glibc.read(descriptor, raw.baseAddress!, raw.count)
                if read < 0 && errno == EINTR { continue }
                return read
            }
        }
        if count > 0 {
            bytes.append(contentsOf: block[..<count])
        } else {
            atEnd = true
        }
    }
}
