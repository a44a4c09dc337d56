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
            checkShape(output, name: "\(name), line \(index)", sourceLocation: sourceLocation)
            if let ids, let id = ids[index] {
                #expect((try? JSONValue.scan(output))?["id"]?.numericValue == Double(id),
                        "\(name), line \(index): id \(id) not echoed in \(output)", sourceLocation: sourceLocation)
            }
        }
        return outputs
    }

    /// Checks that one output line is valid JSON (by Foundation's parser), holds no key twice, and is
    /// either an error or a measurement.
    static func checkShape(_ line: String, name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let parsed = try? JSONSerialization.jsonObject(with: Data(line.utf8))
        guard let object = parsed as? [String: Any] else {
            Issue.record("\(name): not a JSON object: \(line)", sourceLocation: sourceLocation)
            return
        }
        guard case .object(let fields)? = try? JSONValue.scan(line), fields.count == object.count,
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
}
