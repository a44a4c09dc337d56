import Foundation
import TextMeasure
import TextMeasureBatch

/// The batch protocol under fuzzing: arbitrary bytes are batch input (one or more lines), read by the
/// real ``LineReader`` and measured by the real ``BatchProcessor`` with the bundled fonts.
///
/// What must hold for every input, or the fuzzer traps (`fatalError`) so that libFuzzer reports it:
/// - exactly one output line per input line (lines end as `LineReader` ends them: "\n" or "\r\n", a
///   last line without one still counts);
/// - each output line is a JSON object (checked with Foundation's `JSONSerialization`, a parser
///   independent of ``JSONScanner``) without repeated keys; echoed fields come back as the input
///   wrote them, and where Foundation refuses one that JSON allows (`1e999`, a lone surrogate
///   escape), the line without its echoed fields must be one, and each echoed field's key and value
///   must be bytes of the input line (when it is UTF-8);
/// - it holds either `"error"` (a string) and none of the measurement's keys, or `"lineCount"` (an
///   integer, 0 or more), `"height"` (a finite number, 0 or more) and `"truncated"` (a boolean);
/// - it is the line the processor gives for that input line alone, so the output is in input order,
///   and the line it gives for all the lines at once as the items of one request (`serve`'s path),
///   measured or, once their texts are held, laid out alone (`serve`'s quick path) (whether the
///   prepared-text cache changes results is for `TextMeasureBatchTests`: checking it here, with a
///   second, empty cache, took a third of each execution);
/// - the lines joined as one request body's array and read as `serve`'s quick path reads it
///   (``JSONScanner/scan(itemsOf:each:)``, each element written as it is handed over) fail exactly
///   when the body's check does, give its elements, and give each element held the output of its
///   bytes processed as a line.
enum BatchFuzzer {
    /// The processor, with the bundled fonts loaded once per process and its cache kept across inputs
    /// (as the command keeps it across chunks).
    static let processor: BatchProcessor = {
        do {
            return BatchProcessor(measurer: try TextMeasurer(), style: TextStyle(size: 17), preparedTexts: 256)
        } catch {
            fatalError("FuzzBatch: cannot load the bundled fonts: \(error)")
        }
    }()

    /// A temporary file (already unlinked) that holds each input for the line reader: in memory
    /// (`/dev/shm`) where there is one.
    private static let descriptor: Int32 = {
        for folder in ["/dev/shm", "/tmp"] {
            var template = Array("\(folder)/fuzz-batch-XXXXXX".utf8CString)
            let descriptor = mkstemp(&template)
            if descriptor >= 0 {
                unlink(&template)
                return descriptor
            }
        }
        fatalError("FuzzBatch: mkstemp failed (errno \(errno))")
    }()

    /// Runs one input through the batch and checks what came out.
    /// - Parameter input: the bytes of the batch input, any bytes at all.
    static func check(_ input: UnsafeBufferPointer<UInt8>) {
        let expectedLines = lineCount(of: input)
        // Chunk sizes vary with the input so that lines are also split across `LineReader.next` calls.
        let chunk = [1, 2, 3, 4096][input.count % 4]
        let output = runBatch(input, chunk: chunk)
        let outputLines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard output.isEmpty || output.hasSuffix("\n") else { fail("output does not end in a newline", input) }
        guard outputLines.count == expectedLines else {
            fail("\(expectedLines) input lines gave \(outputLines.count) output lines", input)
        }
        // Each output line against the line processed alone, and against the lines processed together
        // as one request's items (one look-up for all, as `serve` does).
        var lines: [UnsafeBufferPointer<UInt8>] = []
        forEachLine(of: input) { lines.append($0) }
        let together = processor.process(lines)
        // Every text is now prepared: serve's quick path (layout alone, on the event loop, written as it
        // goes) answers the same, newline between two, or, when the cache has already let a text go,
        // declines.
        var written: [UInt8] = []
        let counts = processor.writeIfHeld(lines, separator: UInt8(ascii: "\n"), to: &written)
        let writtenLines = counts == nil ? [] : written.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if let counts, counts.measured + counts.failed != lines.count || writtenLines.count != max(1, lines.count) {
            fail("written from held texts: \(counts) for \(lines.count) lines, \(writtenLines.count) written", input)
        }
        for (index, line) in lines.enumerated() {
            let produced = String(outputLines[index])
            checkShape(of: produced, line: index, inputLine: line, input: input)
            var expected = ""
            processor.process(line).write(to: &expected)
            guard produced == expected else {
                fail("line \(index): batch gave \(produced), the line alone \(expected)", input)
            }
            var asItem = ""
            together[index].write(to: &asItem)
            guard asItem == expected else {
                fail("line \(index): as a request's item \(asItem), the line alone \(expected)", input)
            }
            if counts != nil {
                let held = String(decoding: writtenLines[index], as: UTF8.self)
                guard held == expected else {
                    fail("line \(index): written from held texts \(held), the line alone \(expected)", input)
                }
            }
        }
        checkAsOneBody(lines, input: input)
    }

    /// The lines as the elements of one request body's array, read as `serve`'s quick path reads them.
    private static func checkAsOneBody(_ lines: [UnsafeBufferPointer<UInt8>], input: UnsafeBufferPointer<UInt8>) {
        var body: [UInt8] = [UInt8(ascii: "[")]
        for (index, line) in lines.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: line)
        }
        body.append(UInt8(ascii: "]"))
        body.withUnsafeBufferPointer { body in
            let reference = try? JSONScanner.scan(elementsOf: body)
            var ranges: [Range<Int>] = []
            var counts = BatchProcessor.HeldCounts()
            let kind = try? JSONScanner.scan(itemsOf: body) { range, item in
                ranges.append(range)
                let element = UnsafeBufferPointer(rebasing: body[range])
                var written: [UInt8] = []
                guard processor.writeIfHeld(item, line: element, to: &written, counts: &counts) else { return }
                var expected: [UInt8] = []
                processor.process(element).write(to: &expected)
                guard written == expected else {
                    fail("element \(ranges.count - 1) of the lines as one body: written \(String(decoding: written, as: UTF8.self)), "
                         + "the element alone \(String(decoding: expected, as: UTF8.self))", input)
                }
            }
            guard (kind == nil) == (reference == nil) else {
                fail("the lines as one body: read \(kind.map { "\($0)" } ?? "as invalid"), checked "
                     + (reference == nil ? "as invalid" : "as valid"), input)
            }
            if let kind, let reference, kind != reference.kind || ranges != reference.elements {
                fail("the lines as one body: read \(kind) \(ranges), checked \(reference.kind) \(reference.elements)", input)
            }
        }
    }

    /// Writes the input to the temporary file and reads it back through `LineReader`, `chunk` lines at a
    /// time, as the command does.
    private static func runBatch(_ input: UnsafeBufferPointer<UInt8>, chunk: Int) -> String {
        guard ftruncate(descriptor, 0) == 0 else { fatalError("FuzzBatch: ftruncate failed") }
        var written = 0
        while written < input.count {
            let count = pwrite(descriptor, input.baseAddress! + written, input.count - written, off_t(written))
            guard count > 0 else { fatalError("FuzzBatch: pwrite failed (errno \(errno))") }
            written += count
        }
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { fatalError("FuzzBatch: lseek failed") }
        var reader = LineReader(descriptor: descriptor)
        var output = ""
        do {
            while let lines = try reader.next(maxLines: chunk) {
                output += processor.process(lines)
            }
        } catch {
            fatalError("FuzzBatch: reading the temporary file failed: \(error)")
        }
        return output
    }

    /// How many lines `LineReader` must find: one per "\n", plus a last line without one.
    static func lineCount(of input: UnsafeBufferPointer<UInt8>) -> Int {
        let newlines = input.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        return newlines + (input.last.map { $0 != 0x0A } ?? false ? 1 : 0)
    }

    /// Calls `body` with each line's bytes, without its "\n" or "\r\n" (written independently of
    /// `LineReader`, which is under test).
    static func forEachLine(of input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        for index in input.indices where input[index] == 0x0A {
            let end = index > start && input[index - 1] == 0x0D ? index - 1 : index
            body(UnsafeBufferPointer(rebasing: input[start..<end]))
            start = index + 1
        }
        if start < input.count { body(UnsafeBufferPointer(rebasing: input[start...])) }
    }

    /// The output's own keys; every other field of an output line is echoed from its input line.
    private static let resultKeys: Set<String> = ["error", "lineCount", "height", "truncated"]

    /// Checks that one output line is an error or a measurement, as the protocol says, and that its
    /// echoed fields are the input line's bytes.
    private static func checkShape(of line: String, line index: Int, inputLine: UnsafeBufferPointer<UInt8>,
                                   input: UnsafeBufferPointer<UInt8>) {
        // The scanner keeps every field in order (JSONSerialization keeps one of repeated keys silently),
        // tells integers from other numbers and says where each field's bytes are.
        let output = Array(line.utf8)
        let scanned = output.withUnsafeBufferPointer { try? JSONScanner.parse($0, textLike: nil) }
        guard let scanned, case .object(let fields) = scanned.value, Set(fields.map(\.0)).count == fields.count else {
            fail("line \(index) repeats a key or does not scan: \(line)", input)
        }
        func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> { output[range] }
        let echoed = zip(fields, scanned.fieldRanges).filter { !resultKeys.contains($0.0.0) }
        if String(validating: inputLine, as: UTF8.self) != nil {
            for (field, range) in echoed where !contains(inputLine, bytes(range.key)) || !contains(inputLine, bytes(range.value)) {
                fail("line \(index): \(field.0) is not echoed as sent: \(line)", input)
            }
        }
        // Valid JSON by a parser independent of the scanner under test: the whole line, or what the
        // batch wrote itself when Foundation refuses an echoed field.
        var object = (try? JSONSerialization.jsonObject(with: Data(output))) as? [String: Any]
        if object == nil {
            let own = zip(fields, scanned.fieldRanges).filter { resultKeys.contains($0.0.0) }
                .map { Array(bytes($0.1.key)) + [UInt8(ascii: ":")] + Array(bytes($0.1.value)) }
            object = (try? JSONSerialization.jsonObject(with: Data([UInt8(ascii: "{")] + own.joined(separator: [UInt8(ascii: ",")])
                                                                   + [UInt8(ascii: "}")]))) as? [String: Any]
            guard let object, object.count == fields.count - echoed.count else {
                fail("line \(index) is not a JSON object: \(line)", input)
            }
        } else if object?.count != fields.count {
            fail("line \(index) repeats a key: \(line)", input)
        }
        func value(_ key: String) -> JSONValue? { fields.first { $0.0 == key }?.1 }
        let measurementKeys = ["lineCount", "height", "truncated"]
        if let error = value("error") {
            guard case .string = error else { fail("line \(index): \"error\" is not a string: \(line)", input) }
            guard measurementKeys.allSatisfy({ value($0) == nil }) else {
                fail("line \(index) holds an error and a measurement key: \(line)", input)
            }
            return
        }
        guard case .int(let lineCount)? = value("lineCount"), lineCount >= 0 else {
            fail("line \(index): \"lineCount\" is not an integer, 0 or more: \(line)", input)
        }
        let height: Double? = switch value("height") {
        case .int(let int)?: Double(int)
        case .number(let double)?: double
        default: nil
        }
        guard let height, height.isFinite, height >= 0 else {
            fail("line \(index): \"height\" is not a finite number, 0 or more: \(line)", input)
        }
        guard case .bool? = value("truncated") else {
            fail("line \(index): \"truncated\" is not a boolean: \(line)", input)
        }
    }

    /// Whether `bytes` holds `part` somewhere.
    private static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ part: ArraySlice<UInt8>) -> Bool {
        guard part.count <= bytes.count else { return false }
        return (0...(bytes.count - part.count)).contains { start in bytes[start..<(start + part.count)].elementsEqual(part) }
    }

    /// Stops the process with a message that libFuzzer reports, with the input (when it is short).
    private static func fail(_ message: String, _ input: UnsafeBufferPointer<UInt8>) -> Never {
        let shown = input.count <= 512 ? String(decoding: input, as: UTF8.self).debugDescription : "\(input.count) bytes"
        fatalError("FuzzBatch: \(message)\ninput: \(shown)")
    }
}
