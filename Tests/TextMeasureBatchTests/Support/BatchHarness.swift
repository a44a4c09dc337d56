import Foundation
import Testing
import TextMeasure
@testable import TextMeasureBatch

/// Runs batch input the way the command does (``LineReader`` over a file, chunks of lines, the
/// ``BatchProcessor`` with the bundled fonts) and checks what comes out against the protocol:
/// the same checks as the `FuzzBatch` fuzz target, plus the prepared-text cache.
enum BatchHarness {
    /// The bundled fonts, loaded once for the whole test target.
    static let measurer: TextMeasurer = {
        do {
            return try TextMeasurer()
        } catch {
            fatalError("the bundled fonts did not load: \(error)")
        }
    }()

    /// The processor under test; its cache lives as long as the tests (as the command's does).
    static let processor = BatchProcessor(measurer: measurer, style: TextStyle(size: 17), preparedTexts: 256)

    /// The package's root folder (this file is Tests/TextMeasureBatchTests/Support/BatchHarness.swift).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The output lines (without their "\n") for `input`, read `chunk` lines at a time.
    static func run(_ input: [UInt8], chunk: Int) throws -> [String] {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("batch-harness-\(UUID().uuidString)").path
        try Data(input).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var reader = LineReader(descriptor: descriptor)
        var output = ""
        while let lines = try reader.next(maxLines: chunk) {
            output += processor.process(lines)
        }
        #expect(output.isEmpty || output.hasSuffix("\n"), "the output does not end in a newline")
        return output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// The input's lines as `LineReader` must find them (written independently of it): split at "\n",
    /// a "\r" before it dropped, a last line without "\n" counted.
    static func lines(of input: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var start = 0
        for index in input.indices where input[index] == 0x0A {
            let end = index > start && input[index - 1] == 0x0D ? index - 1 : index
            lines.append(Array(input[start..<end]))
            start = index + 1
        }
        if start < input.count { lines.append(Array(input[start...])) }
        return lines
    }

    /// Runs `input` and checks every output line.
    /// - Parameters:
    ///   - input: batch input, any bytes.
    ///   - chunk: lines per `LineReader.next` call.
    ///   - ids: for each input line, the `"id"` its output must echo, or nil where none is known.
    ///   - name: what the input is, for failure messages.
    /// - Returns: the output lines.
    @discardableResult
    static func check(_ input: [UInt8], chunk: Int, ids: [Int?]? = nil, name: String,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let inputLines = lines(of: input)
        let outputs = try run(input, chunk: chunk)
        try #require(outputs.count == inputLines.count,
                     "\(name): \(inputLines.count) input lines gave \(outputs.count) output lines",
                     sourceLocation: sourceLocation)
        // A processor with an empty cache for each line: the shared cache must change nothing.
        for (index, (line, output)) in zip(inputLines, outputs).enumerated() {
            let fresh = BatchProcessor(measurer: measurer, style: processor.style, preparedTexts: 1)
            var alone = ""
            line.withUnsafeBufferPointer { fresh.process($0).write(to: &alone) }
            #expect(output == alone, "\(name), line \(index): batch gave \(output), the line alone \(alone)",
                    sourceLocation: sourceLocation)
            checkShape(output, input: line, name: "\(name), line \(index)", sourceLocation: sourceLocation)
            checkEchoedAsSent(output, input: line, name: "\(name), line \(index)", sourceLocation: sourceLocation)
            if let ids, let id = ids[index] {
                #expect((try? JSONValue.scan(output))?["id"]?.numericValue == Double(id),
                        "\(name), line \(index): id \(id) not echoed in \(output)", sourceLocation: sourceLocation)
            }
        }
        return outputs
    }

    /// Checks that one output line is valid JSON (by Foundation's parser), holds no key twice, and is
    /// either an error or a measurement.
    ///
    /// Echoed fields come back as sent, and JSON allows what Foundation refuses (lone surrogate
    /// escapes, numbers beyond `Double` such as `1e999`): when Foundation refuses a line that echoes
    /// the fields of an `input` line, it must take the line without them (what the batch wrote
    /// itself), and ``checkEchoedAsSent(_:input:name:sourceLocation:)`` checks the rest.
    static func checkShape(_ line: String, input: [UInt8]? = nil, name: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        let own = object == nil && input != nil
            ? (try? JSONSerialization.jsonObject(with: Data(resultFields(of: line)))) as? [String: Any] : nil
        guard object != nil || own != nil else {
            Issue.record("\(name): not a JSON object: \(line)", sourceLocation: sourceLocation)
            return
        }
        guard case .object(let fields)? = try? JSONValue.scan(line), object.map({ fields.count == $0.count }) ?? true,
              Set(fields.map(\.0)).count == fields.count else {
            Issue.record("\(name): a key repeated, or the scanner disagrees: \(line)", sourceLocation: sourceLocation)
            return
        }
        let value = JSONValue.object(fields)
        if let error = value["error"] {
            guard case .string = error else {
                Issue.record("\(name): \"error\" is not a string: \(line)", sourceLocation: sourceLocation)
                return
            }
            #expect(value["lineCount"] == nil && value["height"] == nil && value["truncated"] == nil,
                    "\(name): an error with a measurement's key: \(line)", sourceLocation: sourceLocation)
            return
        }
        guard case .int(let lineCount)? = value["lineCount"], lineCount >= 0,
              let height = value["height"]?.numericValue, height.isFinite, height >= 0,
              case .bool? = value["truncated"] else {
            Issue.record("\(name): neither an error nor a measurement: \(line)", sourceLocation: sourceLocation)
            return
        }
    }

    /// Checks that each field of an output line besides the result's own has its key and its value
    /// byte for byte as some field of the input line (when that line is UTF-8: bytes that are not come
    /// back as U+FFFD).
    static func checkEchoedAsSent(_ line: String, input: [UInt8], name: String,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        guard String(validating: input, as: UTF8.self) != nil else { return }
        let output = Array(line.utf8)
        output.withUnsafeBufferPointer { bytes in
            guard let item = try? JSONScanner.parse(bytes, textLike: nil), case .object(let fields) = item.value else { return }
            for (field, range) in zip(fields, item.fieldRanges)
            where !["error", "lineCount", "height", "truncated"].contains(field.0) {
                let key = Array(bytes[range.key]), value = Array(bytes[range.value])
                #expect(contains(input, key) && contains(input, value),
                        "\(name): \(String(decoding: key, as: UTF8.self)) is not echoed as sent: \(line)",
                        sourceLocation: sourceLocation)
            }
        }
    }

    /// The output's own fields (`error`, or `lineCount`, `height` and `truncated`) as an object, as
    /// written: the line without its echoed fields.
    static func resultFields(of line: String) -> [UInt8] {
        let output = Array(line.utf8)
        return output.withUnsafeBufferPointer { bytes in
            guard let item = try? JSONScanner.parse(bytes, textLike: nil), case .object(let fields) = item.value else { return [] }
            let own = zip(fields, item.fieldRanges).filter { ["error", "lineCount", "height", "truncated"].contains($0.0.0) }
            return Array("{".utf8) + own.map { Array(bytes[$0.1.key]) + [UInt8(ascii: ":")] + Array(bytes[$0.1.value]) }
                .joined(separator: [UInt8(ascii: ",")]) + Array("}".utf8)
        }
    }

    /// Whether `bytes` holds `part` somewhere.
    static func contains(_ bytes: [UInt8], _ part: [UInt8]) -> Bool {
        guard part.count <= bytes.count else { return false }
        return (0...(bytes.count - part.count)).contains { start in bytes[start..<(start + part.count)].elementsEqual(part) }
    }
}
