import TestSupport
import Foundation
import Testing
import TextMeasure
@testable import TextMeasureBatch

/// No input may take the batch down: generated hostile input, the fuzz seed corpus and every input a
/// fuzzer ever crashed on go through the real line reader and processor, and every output line must
/// be there, in order, valid JSON, an error or a measurement, the same as the line processed alone
/// with an empty cache.
@Suite("Batch robustness")
struct BatchRobustnessTests {
    /// Thousands of generated lines, valid and hostile mixed, with "\n" or "\r\n" endings.
    @Test(arguments: [(seed: 1, chunk: 64), (seed: 2, chunk: 1), (seed: 3, chunk: 4096)] as [(seed: UInt64, chunk: Int)])
    func generatedLines(seed: UInt64, chunk: Int) throws {
        var generator = HostileLines(seed: seed)
        var random = SplitMix64(seed: seed ^ 0xFACE)
        var input: [UInt8] = []
        var ids: [Int?] = []
        let count = seed == 1 ? 2_000 : 600
        for index in 0..<count {
            let (line, id) = generator.next()
            input += line
            ids.append(id)
            // The last line may go without a newline, unless it is empty (then it would not be a line).
            if index == count - 1 && !line.isEmpty && random.next() % 2 == 0 { break }
            input += random.next() % 3 == 0 ? [0x0D, 0x0A] : [0x0A]
        }
        let outputs = try BatchHarness.check(input, chunk: chunk, ids: ids, name: "seed \(seed)")
        // Most items are valid: the ids were checked on many measured lines, not only on errors.
        let measured = outputs.filter { $0.hasPrefix("{\"lineCount\":") }.count
        #expect(measured > count / 10, "only \(measured) of \(count) lines measured")
    }

    /// Every seed of the fuzz corpus and every regression input, in several chunk sizes.
    @Test func fuzzCorpusAndRegressions() throws {
        let folders = ["Fuzz/corpus/batch", "Fuzz/regressions/batch"].map { BatchHarness.packageRoot + "/" + $0 }
        var replayed = 0
        for folder in folders {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            for (index, name) in names.enumerated() {
                let data = try #require(FileManager.default.contents(atPath: folder + "/" + name))
                try BatchHarness.check(Array(data), chunk: [1, 3, 4096][index % 3], name: name)
                replayed += 1
            }
        }
        #expect(replayed >= 100)
    }

    /// A line of 1 MB (one text) and input of 10,000 short lines, generated here rather than committed.
    @Test func largeInput() throws {
        let text = String(repeating: "lorem ipsum dolor sit amet ", count: 40_000)
        let long = Array("{\"id\":1,\"text\":\"\(text)\",\"width\":300}\n".utf8)
        let outputs = try BatchHarness.run(long, chunk: 4096)
        try #require(outputs.count == 1)
        BatchHarness.checkShape(outputs[0], name: "1 MB line")
        #expect(outputs[0].hasPrefix("{\"lineCount\":"))

        let many = (0..<10_000).map { "{\"id\":\($0),\"text\":\"row \($0 % 50)\",\"width\":\(40 + $0 % 200)}" }
            .joined(separator: "\n")
        let rows = try BatchHarness.run(Array(many.utf8), chunk: 512)
        try #require(rows.count == 10_000)
        for (index, row) in rows.enumerated() where index % 97 == 0 {
            #expect((try? JSONValue.scan(row))?["id"]?.numericValue == Double(index))
        }
    }

    // MARK: what the processor makes of fields

    func outcome(_ line: String) -> String {
        var out = ""
        Array(line.utf8).withUnsafeBufferPointer { BatchHarness.processor.process($0).write(to: &out) }
        return out
    }

    /// The first of a repeated key counts, for the item's fields and for echoed ones alike, and each
    /// echoed field comes back once.
    @Test func firstOfARepeatedKeyWins() throws {
        let line = outcome(#"{"id":1,"text":"a","text":5,"width":100,"width":"x","id":2,"meta":[1],"meta":null}"#)
        #expect(line.hasPrefix(#"{"lineCount":1,"#))
        #expect(line.hasSuffix(#","id":1,"meta":[1]}"#), "\(line)")
        let many = (0..<20).map { #""k\#($0 % 10)":\#($0)"# }.joined(separator: ",")
        let echoed = outcome(#"{"text":"a","width":100,"# + many + "}")
        #expect(echoed.hasSuffix(#""k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9}"#), "\(echoed)")
    }

    /// Input fields named like the output's own are not echoed: a reader keeping the last of a
    /// repeated key would otherwise see the input's value.
    @Test func outputKeysAreNotEchoed() {
        let measured = outcome(#"{"text":"a","width":100,"height":"x","lineCount":-1,"truncated":null,"error":"no","id":3}"#)
        #expect(measured.hasPrefix(#"{"lineCount":1,"height":"#))
        #expect(measured.hasSuffix(#""truncated":false,"id":3}"#), "\(measured)")
        let failed = outcome(#"{"width":100,"lineCount":2,"height":1,"truncated":true,"id":4}"#)
        #expect(failed == #"{"error":"missing field \"text\"","id":4}"#)
    }

    /// What the numbers at the edges of `Double` become as fields: refused by name, never trapping,
    /// never used as a width when infinite.
    @Test(arguments: ["1e309", "-1e309", "1e12", "1e300", "1.7976931348623157e308", "-0", "0", "1e-320",
                      "4.9e-324", "-1e308", "9223372036854775808"])
    func edgeWidthsAreRefusedByName(width: String) {
        let line = outcome(#"{"text":"a","width":\#(width)}"#)
        #expect(line.hasPrefix(#"{"error":"\"width\" "#), "\(line)")
        #expect(line.contains("out of range"), "\(line)")
    }

    @Test(arguments: ["1e19", "1e308", "1e309", "-0", "1e-300", "10000.5"])
    func edgeSizesAreRefusedByName(size: String) {
        let line = outcome(#"{"text":"a","width":100,"size":\#(size)}"#)
        #expect(line.hasPrefix(#"{"error":"\"size\" "#), "\(line)")
    }

    @Test(arguments: ["1e3", "1.5", "9223372036854775808", "-1", "2147483648"])
    func edgeMaxLinesAreRefused(maxLines: String) {
        let line = outcome(#"{"text":"a","width":100,"maxLines":\#(maxLines)}"#)
        #expect(line.hasPrefix(#"{"error":"\"maxLines\" "#), "\(line)")
    }

    /// Echoed numbers come back as they were written, whatever `Double` or `Int` would make of them.
    @Test func echoedEdgeNumbers() {
        let line = outcome(#"{"text":"a","width":100,"big":1e309,"tiny":4.9e-324,"huge":9223372036854775808,"z":-0}"#)
        #expect(line.hasSuffix(#""big":1e309,"tiny":4.9e-324,"huge":9223372036854775808,"z":-0}"#), "\(line)")
    }

    /// `"breaking"` picks the line-breaking rules per line; anything but their names is refused by name.
    @Test func breakingField() {
        #expect(outcome(#"{"text":"a\n","width":100}"#).hasPrefix(#"{"lineCount":2,"#))
        #expect(outcome(#"{"text":"a\n","width":100,"breaking":"pango"}"#).hasPrefix(#"{"lineCount":2,"#))
        #expect(outcome(#"{"text":"a\n","width":100,"breaking":"browser"}"#).hasPrefix(#"{"lineCount":1,"#))
        #expect(outcome(#"{"text":"a\n","width":100,"breaking":"browser-strict"}"#).hasPrefix(#"{"lineCount":1,"#))
        let refusal = #"{"error":"\"breaking\" must be \"pango\", \"browser\" or \"browser-strict\"","id":7}"#
        for value in [#""chrome""#, "1", "null", #""Browser""#, "[]"] {
            #expect(outcome(#"{"text":"a","width":100,"id":7,"breaking":"# + value + "}") == refusal, "\(value)")
        }
    }

    /// Lone surrogate escapes in the text are measured as U+FFFD, like invalid UTF-8 bytes.
    @Test func loneSurrogatesAreMeasuredAsReplacementCharacters() {
        let escaped = outcome(#"{"text":"\ud800","width":100}"#)
        let replacement = outcome(#"{"text":"\ufffd","width":100}"#)
        let invalidUTF8 = outcome("{\"text\":\"\u{FFFD}\",\"width\":100}")
        #expect(escaped.hasPrefix(#"{"lineCount":1,"#))
        #expect(escaped == replacement)
        #expect(escaped == invalidUTF8)
    }
}
