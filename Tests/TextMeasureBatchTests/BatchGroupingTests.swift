import TestSupport
import Testing
import TextMeasure
@testable import TextMeasureBatch

/// A block's lines that repeat the previous line's text token in the same style are laid out from
/// that line's prepared text (see ``BatchProcessor``): every outcome must be the one the line gets
/// alone, from a processor with an empty cache, whatever comes between the repeats.
@Suite("Batch grouping of repeated texts")
struct BatchGroupingTests {
    /// A processor of its own per test, so that its statistics are the test's.
    func processor() -> BatchProcessor {
        BatchProcessor(measurer: BatchHarness.measurer, style: TextStyle(size: 17), preparedTexts: 256)
    }

    /// The lines as the batch reads them.
    func lines(_ lines: [String]) -> Lines {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for line in lines {
            let start = bytes.count
            bytes += Array(line.utf8)
            ranges.append(start..<bytes.count)
            bytes.append(0x0A)
        }
        return Lines(bytes: bytes, ranges: ranges)
    }

    /// The outcome of `line` processed alone by a processor with an empty cache.
    func alone(_ line: String) -> String {
        let fresh = BatchProcessor(measurer: BatchHarness.measurer, style: TextStyle(size: 17), preparedTexts: 1)
        var out = ""
        Array(line.utf8).withUnsafeBufferPointer { fresh.process($0).write(to: &out) }
        return out
    }

    /// Processes `input` as one batch and checks each output line against the line alone; returns
    /// the processor's statistics.
    @discardableResult
    func check(_ input: [String], sourceLocation: SourceLocation = #_sourceLocation) -> PreparedTextCache.Statistics {
        let processor = processor()
        let output = processor.process(lines(input))
        let outputs = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(outputs.count == input.count, sourceLocation: sourceLocation)
        for (line, result) in zip(input, outputs) {
            #expect(result == alone(line), "\(line)", sourceLocation: sourceLocation)
        }
        return processor.texts.statistics
    }

    /// No lines, no blocks: not even an empty one.
    @Test func noLinesNoBlocks() {
        #expect(processor().outputBlocks(lines([])).isEmpty)
        #expect(processor().process(lines([])) == "")
    }

    @Test func sameTextAtEightWidths() {
        let text = "The same message, measured at every width of a list that is being resized by hand"
        let widths = [60, 90, 120, 180, 240, 300, 343, 716]
        let statistics = check(widths.map { #"{"text":"\#(text)","width":\#($0),"id":\#($0)}"# })
        // Prepared once; the seven others reuse it (counted as hits) without asking the cache.
        #expect(statistics.misses == 1)
        #expect(statistics.hits == 7)
        // Results differ by width: the reuse did not answer every line with the first's layout.
        let counts = Set(widths.map { alone(#"{"text":"\#(text)","width":\#($0)}"#) })
        #expect(counts.count > 3)
    }

    /// Size, line limit and line breaking are part of what is reused: the same text in another style
    /// right after is measured in its own style.
    @Test func sameTextInOtherStylesConsecutively() {
        let text = #"a\nword-breaking line with a hyphen-ated word and more words after it"#
        var input: [String] = []
        for width in [50, 80, 200] {
            input.append(#"{"text":"\#(text)","width":\#(width)}"#)
            input.append(#"{"text":"\#(text)","width":\#(width),"size":13}"#)
            input.append(#"{"text":"\#(text)","width":\#(width),"size":13.5}"#)
            input.append(#"{"text":"\#(text)","width":\#(width),"size":13.5,"maxLines":2}"#)
            input.append(#"{"maxLines":1,"text":"\#(text)","width":\#(width),"size":13.5}"#)
            for breaking in ["pango", "browser", "browser-strict"] {
                input.append(#"{"text":"\#(text)","width":\#(width),"breaking":"\#(breaking)"}"#)
                input.append(#"{"text":"\#(text)","breaking":"\#(breaking)","width":\#(width + 1)}"#)
                input.append(#"{"text":"\#(text)","width":\#(width),"breaking":"\#(breaking)","maxLines":1}"#)
            }
        }
        let statistics = check(input)
        #expect(statistics.hits > 0)
    }

    /// Lines that fail between repeats keep their own errors, with their own extras, and do not
    /// change what the repeats after them reuse.
    @Test func errorsBetweenRepeats() {
        let text = "Errors come and go between repeats of this text"
        let item = { (width: String) in #"{"text":"\#(text)","width":\#(width)"# }
        let input = [
            item("100") + #","id":1}"#,
            item("0") + #","id":2}"#,                        // width out of range
            item("\"wide\"") + "}",                          // width not a number
            item("100") + #","size":-3}"#,                   // size out of range
            item("100") + #","breaking":"chrome"}"#,         // unknown line breaking
            item("100") + #","maxLines":1.5}"#,              // line limit not an integer
            item("120") + #","unknown":[1,{"text":"x"}],"height":3}"#,   // extras echoed, output keys not
            item("120"),                                     // invalid JSON: no closing brace
            "",                                              // blank line
            "   ",
            #"{"width":100}"#,                               // no text
            #"{"text":5,"width":100}"#,                      // text not a string
            #"{"text":5,"text":"\#(text)","width":100}"#,   // the first text counts
            #"{"text":"\#(text)","text":5,"width":100}"#,
            #"["text","\#(text)"]"#,                         // no object
            #"{"id":{"text":"\#(text)","width":100},"text":"other","width":100}"#,   // a nested text is not the item's
            item("140") + #","id":3}"#,
            item("150") + "}",
            item("1e400") + "}",
            #"{"text":"\#(text)"}"#,                         // no width
            item("160") + "}",
        ]
        let statistics = check(input)
        #expect(statistics.hits > 0)
    }

    /// Escaped and literal spellings of the same text are the same text (the outcome is the same) but
    /// not the same token; a token that starts like the previous one is not it.
    @Test func escapesAndLiteralEqualText() {
        let input = [
            #"{"text":"ab c","width":100}"#,
            #"{"text":"a\u0062 c","width":101}"#,
            #"{"text":"ab c","width":102}"#,
            #"{"text":"ab c ","width":103}"#,
            #"{"text":"ab c","width":104}"#,
            #"{"text":"ab","width":105}"#,
            #"{"text" : "ab c" ,"width":106}"#,
            #"{"te\u0078t":"ab c","width":107}"#,
            #"{"text":"line\none","width":108}"#,
            #"{"text":"line\none","width":109}"#,
            #"{"text":"line\u000aone","width":110}"#,
            #"{"text":"quote \" inside","width":111}"#,
            #"{"text":"quote \" inside","width":112}"#,
            #"{"text":"quote \" inside\\","width":113}"#,
            #"{"text":"\ud800","width":114}"#,
            #"{"text":"\ud800","width":115}"#,
            #"{"text":"\ufffd","width":116}"#,
            "{\"text\":\"\u{FFFD}\",\"width\":117}",
            "{\"text\":\"\u{FFFD}\",\"width\":118,\"size\":12}",
        ]
        let statistics = check(input)
        #expect(statistics.hits > 0)
    }

    /// Seeded random lines from a few texts (some spelled two ways), styles, widths and errors, in
    /// runs of repeats: every outcome is the line's alone.
    @Test func randomRunsOfRepeats() {
        var rng = SplitMix64(seed: 0x6752_4F55_5049_4E47)
        let texts = [#"short"#, #"sh\u006Frt"#, #"A longer message that wraps onto several lines at most widths"#,
                     #"مرحبا بالعالم، هذه رسالة"#, #"line one\nline two"#, #"line one\u000aline two"#, ""]
        let styles = ["", #","size":13"#, #","breaking":"browser""#, #","maxLines":1"#, #","size":0"#,
                      #","breaking":"x""#]
        var input: [String] = []
        while input.count < 400 {
            let text = texts.randomElement(using: &rng)!
            let style = Int.random(in: 0..<3, using: &rng) == 0 ? styles.randomElement(using: &rng)! : ""
            for _ in 0..<Int.random(in: 1...9, using: &rng) {
                let width = [#""w""#, "0", "-5", "20", "73.5", "180", "343", "1000"].randomElement(using: &rng)!
                switch Int.random(in: 0..<12, using: &rng) {
                case 0: input.append(#"{"text":"\#(text)","width":\#(width)"#)   // invalid JSON
                case 1: input.append(#"{"text":"\#(text)","width":\#(width)\#(styles.randomElement(using: &rng)!)}"#)
                default: input.append(#"{"text":"\#(text)","width":\#(width)\#(style),"n":\#(input.count)}"#)
                }
            }
        }
        let statistics = check(input)
        #expect(statistics.hits > 50)
    }

    // MARK: the scanner's side

    func item(_ line: String, after previous: String?) throws -> (JSONScanner.Item, token: String?) {
        let bytes = Array(line.utf8), previousBytes = previous.map { Array($0.utf8) } ?? []
        return try bytes.withUnsafeBufferPointer { buffer in
            try previousBytes.withUnsafeBufferPointer { previousBuffer in
                let item = try JSONScanner.parse(buffer, textLike: previous == nil ? nil : previousBuffer)
                return (item, item.text.map { String(decoding: $0, as: UTF8.self) })
            }
        }
    }

    @Test func scannerFindsTheItemsTextToken() throws {
        let first = try item(#"{"id":{"text":"no"},"text" : "a\"b" , "text":"c"}"#, after: nil)
        #expect(first.token == #""a\"b""#)
        #expect(!first.0.textIsPrevious)
        #expect(first.0.value["text"]?.isSame(as: .string("a\"b")) == true)

        let same = try item(#"{"width":3,"text":"a\"b"}"#, after: #""a\"b""#)
        #expect(same.token == #""a\"b""#)
        #expect(same.0.textIsPrevious)
        #expect(same.0.value["width"]?.isSame(as: .int(3)) == true)

        let longer = try item(#"{"text":"a\"bc"}"#, after: #""a\"b""#)
        #expect(!longer.0.textIsPrevious)
        #expect(longer.0.value["text"]?.isSame(as: .string("a\"bc")) == true)

        let notString = try item(#"{"text":1,"text":"a"}"#, after: #""a""#)
        #expect(notString.token == nil && !notString.0.textIsPrevious)

        let nested = try item(#"[{"text":"a"}]"#, after: #""a""#)
        #expect(nested.token == nil && !nested.0.textIsPrevious)
        #expect(nested.0.value.isSame(as: .array([.object([("text", .string("a"))])])))

        // Invalid JSON after an equal token is refused as by `parse`.
        #expect(throws: JSONScanner.Failure.self) { try item(#"{"text":"a""#, after: #""a""#) }
        #expect(throws: JSONScanner.Failure.self) { try item(#"{"text":"a"}x"#, after: #""a""#) }
    }
}
