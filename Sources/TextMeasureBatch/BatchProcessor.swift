import TextMeasureSupport
import TextMeasure

/// Turns one input line into one output value. Thread-safe: its caches are.
///
/// Items go through a ``PreparedTextCache`` keyed by (text, style): a text seen before in the same
/// style is laid out again from its prepared form (arithmetic only, a fraction of a microsecond), so an
/// identical item or the same text at another width costs no shaping. A height cache in front of it
/// would only add a second look-up: answering from a valid width range saves less than it costs.
///
/// Lines are processed in blocks, and within a block a line whose text is written exactly as the
/// previous measured line's (the same bytes between the same quotes) in the same style is laid out
/// from that line's prepared text: no decoding, hashing or cache look-up (the same text at several
/// widths usually comes as consecutive lines). Such reuses count as the cache's hits.
package struct BatchProcessor: Sendable {
    package let measurer: TextMeasurer
    package let style: TextStyle
    package let texts: PreparedTextCache

    /// A processor keeping at most `preparedTexts` prepared texts of at most `preparedTextBytes` bytes
    /// in all (see ``PreparedTextCache``).
    /// With a `store`, each block of lines not found in memory is looked up in it in one read, and
    /// what is measured is queued for it (see ``PreparedTextCache``).
    package init(measurer: TextMeasurer, style: TextStyle, preparedTexts: Int,
                 preparedTextBytes: Int = PreparedTextCache.defaultMaximumBytes,
                 store: (any MeasurementStore)? = nil) {
        self.measurer = measurer
        self.style = style
        texts = PreparedTextCache(measurer: measurer, capacity: preparedTexts, maximumBytes: preparedTextBytes,
                                  store: store)
    }

    /// Processes lines on all cores; returns the output lines, in input order, each ending in "\n".
    ///
    /// - Parameter lines: The input lines.
    /// - Returns: The output, one line per input line.
    /// - Complexity: That of ``outputBlocks(_:)``, and a copy of its output.
    package func process(_ lines: Lines) -> String {
        String(decoding: outputBlocks(lines).joined(), as: UTF8.self)
    }

    /// Processes lines on all cores; returns the output lines' UTF-8, in input order, each ending in
    /// "\n", in blocks to be written one after another (``OutputWriter/write(_:through:)``).
    ///
    /// The blocks are the ones the cores wrote, as bytes: joining them into one `String`, which
    /// checked their UTF-8 again (they are written valid), was serial work after every chunk, 0.2 to
    /// 0.6 ms of 4,096 multi-width lines during which the other cores waited.
    ///
    /// - Parameter lines: The input lines.
    /// - Returns: One block per 16 lines; with a height store, one block per CPU (at least 128 lines).
    /// - Complexity: Linear in the lines' bytes, and the measuring of the texts not in the caches.
    package func outputBlocks(_ lines: Lines) -> [[UInt8]] {
        // Blocks of lines, each written into one array, spread over the cores; small blocks so that no
        // core waits long for the last one. The lines are still bytes: decoding them is work the cores
        // share, not the reading thread's alone.
        // With a store, one block per core: each block is one look-up (a read transaction, or a round
        // trip to a database server, whose every hop between threads and processes costs more than
        // the look-up itself), all of them at once.
        let blockSize = texts.store == nil ? 16 : max(128, (lines.count + CPUSpread.cpuCount - 1) / CPUSpread.cpuCount)
        let blockCount = (lines.count + blockSize - 1) / blockSize
        // Not through `unsafeUninitializedCapacity` when empty: that would write the count into the
        // empty array storage every thread shares.
        guard blockCount > 0 else { return [] }
        return [[UInt8]](unsafeUninitializedCapacity: blockCount) { outputs, initialized in
            outputs.initialize(repeating: [])
            initialized = blockCount
            let slots = SendableBuffer(outputs.baseAddress!)
            CPUSpread.forEach(blockCount) { block in
                var out: [UInt8] = []
                out.reserveCapacity(64 * blockSize)   // a result line is about 50 bytes: grown once at most
                let indices = (block * blockSize)..<min(lines.count, (block + 1) * blockSize)
                lines.bytes.withUnsafeBufferPointer { bytes in
                    if texts.store != nil {
                        for outcome in process(indices.map { UnsafeBufferPointer(rebasing: bytes[lines.ranges[$0]]) }) {
                            outcome.write(to: &out)
                            out.append(UInt8(ascii: "\n"))
                        }
                        return
                    }
                    var previous: Previous?
                    var reused = 0
                    for index in indices {
                        process(UnsafeBufferPointer(rebasing: bytes[lines.ranges[index]]), after: &previous, reused: &reused)
                            .write(to: &out)
                        out.append(UInt8(ascii: "\n"))
                    }
                    if reused > 0 { texts.countHits(reused) }
                }
                slots.base[block] = out   // each block is written by exactly one thread
            }
        }
    }

    /// What became of one input line: its result or error, and the fields it echoes.
    package enum Outcome {
        case measured(TextMeasurement, extras: EchoedFields)
        case failed(String, extras: EchoedFields)

        /// Appends the output line (without its newline).
        package func write(to out: inout String) {
            var bytes: [UInt8] = []
            write(to: &bytes)
            out += String(decoding: bytes, as: UTF8.self)
        }

        /// Appends the output line's UTF-8 (without its newline).
        package func write(to out: inout [UInt8]) {
            switch self {
            case .measured(let result, let extras):
                JSONValue.append("{\"lineCount\":", to: &out)
                JSONValue.append(result.lineCount, to: &out)
                JSONValue.append(",\"height\":", to: &out)
                JSONValue.number(result.height).write(to: &out)
                JSONValue.append(result.isTruncated ? ",\"truncated\":true" : ",\"truncated\":false", to: &out)
                if !extras.isEmpty { out.append(contentsOf: extras.bytes) }
                out.append(UInt8(ascii: "}"))
            case .failed(let message, let extras):
                JSONValue.append("{\"error\":", to: &out)
                JSONValue.string(message).write(to: &out)
                out.append(contentsOf: extras.bytes)
                out.append(UInt8(ascii: "}"))
            }
        }
    }

    /// Processes one line's UTF-8 bytes.
    package func process(_ line: UnsafeBufferPointer<UInt8>) -> Outcome {
        measure(parse(line))
    }

    /// What a block keeps of the last line it measured, for the lines after it: the text's string
    /// token as written (in the block's input) and the prepared text (which holds its style).
    struct Previous {
        var text: UnsafeBufferPointer<UInt8>
        var prepared: PreparedText
    }

    /// Processes one line of a block: as ``process(_:)-(UnsafeBufferPointer<UInt8>)``, but a line
    /// whose text token has the bytes of `previous`'s and whose style is the same is laid out from
    /// `previous`'s prepared text, without decoding its text, hashing it or asking the cache. Equal
    /// tokens are equal texts, and a prepared text depends on nothing but its text and style, so the
    /// outcome is the one ``process(_:)-(UnsafeBufferPointer<UInt8>)`` gives; the other fields (width,
    /// extras) are read and checked as for any line, so errors stay the line's own.
    ///
    /// - Parameters:
    ///   - line: The line's UTF-8 bytes; they must outlive the block (`previous` points into them).
    ///   - previous: The block's last measured line; nil at the block's start. Replaced by this line
    ///     when this line prepares (or finds in the cache) a text of its own.
    ///   - reused: Incremented when the line reuses `previous`'s prepared text.
    /// - Returns: The line's outcome.
    /// - Complexity: A reused text costs its comparison (`memcmp`) and the layout; any other line
    ///   what ``process(_:)-(UnsafeBufferPointer<UInt8>)`` costs.
    func process(_ line: UnsafeBufferPointer<UInt8>, after previous: inout Previous?, reused: inout Int) -> Outcome {
        let parsed: Parsed, token: UnsafeBufferPointer<UInt8>?, isPrevious: Bool
        // The usual line's fields straight from the scanner; any other line through its array of fields.
        if let item = JSONScanner.item(line, textLike: previous?.text) {
            parsed = request(text: item.text, width: item.width, size: item.size, maxLines: item.maxLines,
                             breaking: item.breaking, spans: [], extras: item.echoed)
            (token, isPrevious) = (item.textToken, item.textIsPrevious)
        } else {
            guard let item = try? JSONScanner.parse(line, textLike: previous?.text) else { return Self.unreadable(line) }
            parsed = parse(item: item, in: line)
            (token, isPrevious) = (item.text, item.textIsPrevious)
        }
        switch parsed {
        case .failed(let outcome):
            return outcome
        case .request(let request):
            do throws(TextMeasureError) {
                if isPrevious, let previous, previous.prepared.style == request.style,
                   previous.prepared.spans == request.measure.spans {
                    reused += 1
                    return .measured(try previous.prepared.layout(width: request.width, withLines: false),
                                     extras: request.extras)
                }
                // The same token in another style: its text, which the scanner did not decode.
                let text = isPrevious ? token.map(Self.decode) ?? request.text : request.text
                // As `PreparedTextCache.measure` without a store: the width was checked when parsed.
                let prepared = try texts.prepared(TextKey(text), spans: request.measure.spans, style: request.style)
                let measurement = try prepared.layout(width: request.width, withLines: false)
                if let token { previous = Previous(text: token, prepared: prepared) }
                return .measured(measurement, extras: request.extras)
            } catch {
                return Self.error(error, request.extras)
            }
        }
    }

    /// The string a valid JSON string token holds.
    static func decode(_ token: UnsafeBufferPointer<UInt8>) -> String {
        guard case .string(let text)? = try? JSONScanner.parse(token) else { return "" }   // a valid token, from a parse
        return text
    }

    /// Processes several lines with one batched look-up (memory, then the store) for all of them.
    /// The HTTP server measures a request body's items with it, each item's bytes as a line, so that
    /// their fields are echoed as written.
    ///
    /// - Parameter lines: Each line's (or item's) UTF-8 bytes.
    /// - Returns: One outcome per line, in order.
    /// - Complexity: One measurement per line (shaping unless the text and style were prepared before
    ///   or the store holds it).
    package func process(_ lines: [UnsafeBufferPointer<UInt8>]) -> [Outcome] {
        measure(lines.map(parse))
    }

    /// ``process(_:)-([UnsafeBufferPointer<UInt8>])`` when measuring the lines is layout alone (the text
    /// of every line that can be measured is prepared and held in memory), written as it goes: each
    /// line's output (``Outcome/write(to:)``) appended to `out`, `separator` between two, without lists
    /// of parsed lines, requests, results and outcomes between parsing and writing. Nil as soon as a
    /// line's text is not held, with `out` partly written, nothing measured after it and no hit
    /// counted: the HTTP server answers such a request on its event loop, and hands any other to its
    /// measuring threads.
    ///
    /// - Parameters:
    ///   - lines: Each line's (or item's) UTF-8 bytes.
    ///   - separator: The byte written between two lines' outputs.
    ///   - out: Where the outputs are appended.
    /// - Returns: How many lines were measured and how many got an error object, or nil.
    /// - Complexity: Parsing the lines, one look-up (a lock) and one layout per line.
    package func writeIfHeld(_ lines: [UnsafeBufferPointer<UInt8>], separator: UInt8,
                             to out: inout [UInt8]) -> (measured: Int, failed: Int)? {
        var counts = HeldCounts()
        for (index, line) in lines.enumerated() {
            if index > 0 { out.append(separator) }
            guard write(parse(line), to: &out, counts: &counts) else { return nil }
        }
        countHits(of: counts)
        return (counts.measured, counts.failed)
    }

    /// What ``writeIfHeld(_:separator:to:)`` counts as it writes, for a caller that writes items one at
    /// a time (``writeIfHeld(_:line:to:counts:)``) and hands the counts to ``countHits(of:)`` at the end.
    package struct HeldCounts: Sendable {
        /// Items measured successfully.
        package fileprivate(set) var measured = 0
        /// Items answered with an error object.
        package fileprivate(set) var failed = 0
        /// Items whose text was found held: the cache's hits.
        fileprivate var found = 0

        /// No item written yet.
        package init() {}
    }

    /// One item of ``writeIfHeld(_:separator:to:)``, for a caller that reads items one at a time (the
    /// HTTP server, as ``JSONScanner/scan(itemsOf:each:)`` reads a request body): its output appended
    /// to `out` when its text is held, or it cannot be measured.
    ///
    /// - Parameters:
    ///   - item: The item's fields as the scanner read them; nil: the item is read from `line`.
    ///   - line: The item's bytes.
    ///   - out: Where its output is appended.
    ///   - counts: Counted into; hand them to ``countHits(of:)`` once every item is written.
    /// - Returns: False, with nothing written or counted, when its text is not held.
    /// - Complexity: One look-up (a lock) and one layout; parsing `line` when `item` is nil.
    package func writeIfHeld(_ item: JSONScanner.ItemFields?, line: UnsafeBufferPointer<UInt8>,
                             to out: inout [UInt8], counts: inout HeldCounts) -> Bool {
        guard let item else { return write(parse(line), to: &out, counts: &counts) }
        // Read where the scanner keeps them: no request made of the fields, whose text and echoed
        // fields would be copied into it and destroyed with it.
        let style: TextStyle
        do throws(StyleRefusal) {
            style = try self.style(width: item.width, size: item.size, maxLines: item.maxLines, breaking: item.breaking)
        } catch {
            error.outcome(item.echoed).write(to: &out)
            counts.failed += 1
            return true
        }
        return write(text: item.text, spans: [], style: style, width: item.width, extras: item.echoed, to: &out,
                     counts: &counts)
    }

    /// Counts the hits of items written by ``writeIfHeld(_:line:to:counts:)``.
    package func countHits(of counts: HeldCounts) {
        if counts.found > 0 { texts.countHits(counts.found) }
    }

    /// Writes one parsed item's output if it can be measured from a held text, or cannot be measured.
    private func write(_ parsed: Parsed, to out: inout [UInt8], counts: inout HeldCounts) -> Bool {
        switch parsed {
        case .failed(let outcome):
            outcome.write(to: &out)
            counts.failed += 1
        case .request(let request):
            return write(text: request.text, spans: request.measure.spans, style: request.style, width: request.width,
                         extras: request.extras, to: &out, counts: &counts)
        }
        return true
    }

    /// Writes the output of a checked item if its text is held: ``write(_:to:counts:)`` for a request's
    /// parts.
    private func write(text: String, spans: [TextSpan], style: TextStyle, width: Double, extras: EchoedFields,
                       to out: inout [UInt8], counts: inout HeldCounts) -> Bool {
        guard let prepared = texts.held(TextKey(text), spans: spans, style: style) else { return false }
        counts.found += 1
        do throws(TextMeasureError) {
            let measurement = try prepared.layout(width: width, withLines: false)
            Outcome.measured(measurement, extras: extras).write(to: &out)
            counts.measured += 1
        } catch {
            Self.error(error, extras).write(to: &out)
            counts.failed += 1
        }
        return true
    }

    private func measure(_ parsed: Parsed) -> Outcome {
        switch parsed {
        case .failed(let outcome):
            return outcome
        case .request(let request):
            do throws(TextMeasureError) {
                let result = try texts.measure(TextKey(request.text), spans: request.measure.spans, style: request.style,
                                               width: request.width, withLines: false)
                return .measured(result, extras: request.extras)
            } catch {
                return Self.error(error, request.extras)
            }
        }
    }

    private func measure(_ parsed: [Parsed]) -> [Outcome] {
        outcomes(parsed, texts.measurements(for: Self.requests(of: parsed)))
    }

    /// What the lines that parsed ask to measure, in order.
    private static func requests(of parsed: [Parsed]) -> [MeasureRequest] {
        var requests: [MeasureRequest] = []
        for case .request(let request) in parsed { requests.append(request.measure) }
        return requests
    }

    /// The outcomes of `parsed` lines, given `results` for their requests in order.
    private func outcomes(_ parsed: [Parsed], _ results: [Result<TextMeasurement, TextMeasureError>]) -> [Outcome] {
        var results = results.makeIterator()
        return parsed.map { parsed in
            switch parsed {
            case .failed(let outcome):
                return outcome
            case .request(let request):
                let extras = request.extras
                switch results.next() {
                case .success(let result)?: return .measured(result, extras: extras)
                case .failure(let error)?: return Self.error(error, extras)
                case nil: return Self.error("internal error: no result", extras)   // one result per query
                }
            }
        }
    }

    /// One input line read: what to measure, or the outcome already (an error).
    enum Parsed {
        case request(Request)
        case failed(Outcome)
    }

    /// What a valid line asks for: its text (not yet hashed), style and width, checked, and the fields
    /// to echo.
    struct Request {
        var measure: MeasureRequest
        var extras: EchoedFields

        var text: String { measure.text }
        var style: TextStyle { measure.style }
        var width: Double { measure.width }
    }

    /// Parses and checks one line's UTF-8 bytes: the usual line straight from the scanner, any other
    /// through its array of fields (as ``process(_:after:reused:)`` reads a line).
    func parse(_ line: UnsafeBufferPointer<UInt8>) -> Parsed {
        if let item = JSONScanner.item(line, textLike: nil) { return request(from: item) }
        guard let item = try? JSONScanner.parse(line, textLike: nil) else { return .failed(Self.unreadable(line)) }
        return parse(item: item, in: line)
    }

    /// Checks the fields of a usual line, as ``JSONScanner/item(_:textLike:)`` reads it without a
    /// previous text.
    private func request(from item: JSONScanner.ItemFields) -> Parsed {
        request(text: item.text, width: item.width, size: item.size, maxLines: item.maxLines,
                breaking: item.breaking, spans: [], extras: item.echoed)
    }

    /// The error for a line that is not JSON.
    static func unreadable(_ line: UnsafeBufferPointer<UInt8>) -> Outcome {
        let isBlank = String(decoding: line, as: UTF8.self).allSatisfy(\.isWhitespace)
        return error(isBlank ? "blank line" : "invalid JSON")
    }

    /// Reads and checks one parsed item's fields; the others are echoed as `line` holds them.
    ///
    /// - Parameters:
    ///   - item: The item as ``JSONScanner/parse(_:textLike:)`` read it from `line`.
    ///   - line: The bytes it was read from.
    func parse(item: JSONScanner.Item, in line: UnsafeBufferPointer<UInt8>) -> Parsed {
        guard case .object(let fields) = item.value else { return .failed(Self.error("each line must be a JSON object")) }
        // One pass over the fields (the first of a repeated key wins); no dictionary per line. Where each
        // field is, -1 for none: positions, not copies of the values (a copy and a destruction each).
        var at = (text: -1, width: -1, size: -1, maxLines: -1, breaking: -1, spans: -1)
        var extras = EchoedFields()
        for position in fields.indices {
            let key = fields[position].0
            switch key {
            case "text": if at.text < 0 { at.text = position }
            case "width": if at.width < 0 { at.width = position }
            case "size": if at.size < 0 { at.size = position }
            case "maxLines": if at.maxLines < 0 { at.maxLines = position }
            case "breaking": if at.breaking < 0 { at.breaking = position }
            case "spans": if at.spans < 0 { at.spans = position }
            default:
                let range = item.fieldRanges[position]
                extras.add(key: key, keyBytes: UnsafeBufferPointer(rebasing: line[range.key]),
                           valueBytes: UnsafeBufferPointer(rebasing: line[range.value]))
            }
        }
        return parse(fields: fields, at: at, extras: extras)
    }

    /// ``parse(item:)``'s checks of the types of the fields the batch reads, at their positions `at`
    /// in `fields` (-1 for none).
    private func parse(fields: [(String, JSONValue)],
                       at: (text: Int, width: Int, size: Int, maxLines: Int, breaking: Int, spans: Int),
                       extras: EchoedFields) -> Parsed {
        guard at.text >= 0 else { return .failed(Self.error("missing field \"text\"", extras)) }
        guard case .string(let text) = fields[at.text].1 else {
            return .failed(Self.error("\"text\" must be a string", extras))
        }
        guard at.width >= 0 else { return .failed(Self.error("missing field \"width\"", extras)) }
        guard let width = fields[at.width].1.numberValue else {
            return .failed(Self.error("\"width\" must be a number", extras))
        }
        var size: Double?, maxLines: Int?, breaking: String?
        if at.size >= 0 {
            guard let value = fields[at.size].1.numberValue else {
                return .failed(Self.error("\"size\" must be a number", extras))
            }
            size = value
        }
        if at.maxLines >= 0 {
            guard case .int(let value) = fields[at.maxLines].1 else {
                let range = "from \(MeasurementLimits.maxLines.lowerBound) (unlimited) to \(MeasurementLimits.maxLines.upperBound)"
                return .failed(Self.error(Self.notAnInteger("\"maxLines\"", fields[at.maxLines].1, range: range), extras))
            }
            maxLines = value
        }
        if at.breaking >= 0 {
            guard case .string(let name) = fields[at.breaking].1 else {
                return .failed(Self.error(Self.breakingError, extras))
            }
            breaking = name
        }
        var spans: [TextSpan] = []
        if at.spans >= 0 {
            switch Self.spans(fields[at.spans].1) {
            case .success(let read): spans = read
            case .failure(let error): return .failed(Self.error(error.message, extras))
            }
        }
        return request(text: text, width: width, size: size, maxLines: maxLines, breaking: breaking, spans: spans,
                       extras: extras)
    }

    /// The error for an integer field (`"maxLines"`, a span's `"start"` and `"end"`) whose value is not
    /// one: a number with a fraction or an exponent (`2.5`, `2.0`, `1e3`: JSON does not tell them
    /// apart from integers, but the batch takes integers only as written) is named with the range, a
    /// number beyond 64 bits is out of range, and any other value is of the wrong type.
    ///
    /// - Parameters:
    ///   - field: The field as the message names it (`"\"maxLines\""`).
    ///   - value: Its value.
    ///   - range: The integers allowed (`from 0 (unlimited) to 2147483647`).
    /// - Returns: The message.
    static func notAnInteger(_ field: String, _ value: JSONValue, range: String) -> String {
        guard case .number(let number) = value else { return "\(field) must be an integer \(range)" }
        if number.rounded() == number && abs(number) >= 0x1p63 {
            // Written as an integer or not, too large for any range the batch has.
            return "\(field) \(number) is out of range: must be an integer \(range)"
        }
        return "\(field) \(number) is not an integer: must be an integer \(range), written without a fraction or an exponent"
    }

    /// A message naming what is wrong with a `"spans"` value.
    package struct SpanError: Error {
        package var message: String
    }

    /// The spans of a `"spans"` value: an array of objects, each with integer `"start"` and `"end"`
    /// (Unicode scalars of the text, `end` exclusive) and optional booleans `"bold"`, `"italic"` and
    /// `"mono"` and number `"size"`. Other keys are ignored (a client may send its own, such as a
    /// link's target). Whether the spans lie in the text, and the sizes' range, the measurement checks
    /// (``TextMeasureError/invalidSpanRange(span:start:end:scalarCount:)``), naming the span the same way.
    ///
    /// - Returns: The spans, or a message naming the span's index and field.
    package static func spans(_ value: JSONValue) -> Result<[TextSpan], SpanError> {
        guard case .array(let elements) = value else { return .failure(SpanError(message: "\"spans\" must be an array of objects")) }
        guard MeasurementLimits.spans.contains(elements.count) else {
            return .failure(SpanError(message: TextMeasureError.tooManySpans(count: elements.count).message(naming: { "\"\($0)\"" })))
        }
        var spans: [TextSpan] = []
        spans.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .object(let fields) = element else {
                return .failure(SpanError(message: "\"spans[\(index)]\" must be an object"))
            }
            func field(_ name: String) -> JSONValue? { fields.first { $0.0 == name }?.1 }
            func integer(_ name: String) -> Result<Int, SpanError> {
                guard let value = field(name) else { return .failure(SpanError(message: "\"spans[\(index)].\(name)\" is missing")) }
                guard case .int(let integer) = value else {
                    let range = name == "end" ? "from 0 to the text's count of Unicode scalars" : "from 0"
                    return .failure(SpanError(message: notAnInteger("\"spans[\(index)].\(name)\"", value, range: range)))
                }
                return .success(integer)
            }
            func flag(_ name: String) -> Result<Bool, SpanError> {
                guard let value = field(name) else { return .success(false) }
                guard case .bool(let flag) = value else {
                    return .failure(SpanError(message: "\"spans[\(index)].\(name)\" must be true or false"))
                }
                return .success(flag)
            }
            do throws(SpanError) {
                let start = try integer("start").get(), end = try integer("end").get()
                let bold = try flag("bold").get(), italic = try flag("italic").get(), mono = try flag("mono").get()
                var size: Double?
                if let value = field("size") {
                    guard let number = value.numberValue else {
                        return .failure(SpanError(message: "\"spans[\(index)].size\" must be a number"))
                    }
                    size = number
                }
                spans.append(TextSpan(start: start, end: end, bold: bold, italic: italic, monospace: mono, size: size))
            } catch {
                return .failure(error)
            }
        }
        return .success(spans)
    }

    /// Checks an item's fields, read and of the right types (nil for one it does not have), and makes
    /// its request.
    private func request(text: String, width: Double, size: Double?, maxLines: Int?, breaking: String?,
                         spans: [TextSpan], extras: EchoedFields) -> Parsed {
        do throws(StyleRefusal) {
            let style = try self.style(width: width, size: size, maxLines: maxLines, breaking: breaking)
            return .request(Request(measure: MeasureRequest(text: text, spans: spans, style: style, width: width),
                                    extras: extras))
        } catch {
            return .failed(error.outcome(extras))
        }
    }

    /// Why an item's style or width is refused.
    private enum StyleRefusal: Error {
        /// A `"breaking"` that names no ``LineBreaking``.
        case breaking
        /// A width or style outside the library's ranges.
        case limits(TextMeasureError)

        /// The item's error outcome.
        func outcome(_ extras: EchoedFields) -> Outcome {
            switch self {
            case .breaking: BatchProcessor.error(BatchProcessor.breakingError, extras)
            case .limits(let error): BatchProcessor.error(error, extras)
            }
        }
    }

    /// The processor's style with an item's size, line limit and line breaking (nil for those it does
    /// not give), checked with its width.
    private func style(width: Double, size: Double?, maxLines: Int?, breaking: String?) throws(StyleRefusal) -> TextStyle {
        var style = self.style
        if let size { style.size = size }
        if let maxLines { style.maxLines = maxLines }
        if let breaking {
            guard let breaking = LineBreaking(rawValue: breaking) else { throw .breaking }
            style.breaking = breaking
        }
        // Ranges are the library's own (`MeasurementLimits`), checked before any work; what the
        // measurement may still refuse (ICU failing on the text) is reported the same way.
        do throws(TextMeasureError) {
            try MeasurementLimits.check(width: width)
            try MeasurementLimits.check(style)
        } catch {
            throw .limits(error)
        }
        return style
    }

    /// The error for a `"breaking"` that names no ``LineBreaking``.
    static let breakingError = "\"breaking\" must be "
        + LineBreaking.allCases.map { "\"\($0.rawValue)\"" }.dropLast().joined(separator: ", ")
        + " or \"\(LineBreaking.allCases.last!.rawValue)\""

    /// Whether `key` is one of the output's own fields, which input fields of the same name do not
    /// overwrite. (Literals: no hashing, no lazily made set.)
    static func isOutputKey(_ key: String) -> Bool {
        switch key {
        case "error", "lineCount", "height", "truncated": true
        default: false
        }
    }

    static func error(_ message: String, _ extras: EchoedFields = EchoedFields()) -> Outcome {
        .failed(message, extras: extras)
    }

    /// The outcome of a line the library refused with `error`, its fields named as in the input's JSON.
    static func error(_ error: TextMeasureError, _ extras: EchoedFields) -> Outcome {
        .failed(error.message(naming: { "\"\($0)\"" }), extras: extras)
    }
}
