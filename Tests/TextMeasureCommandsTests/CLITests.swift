import Foundation
import TestSupport
import Testing

/// End-to-end tests of the `textmeasure` executable, run as a separate process.
@Suite("textmeasure CLI")
struct CLITests {
    static let root = packageRoot()

    /// The built executable sits beside the test bundle.
    static let executable: URL = {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return products.appendingPathComponent("textmeasure")
    }()

    func run(_ arguments: [String], input: String = "") throws -> ProcessRunner.Outcome {
        try ProcessRunner.run(Self.executable, arguments, input: input)
    }

    func json(_ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    // MARK: measure

    @Test func measurePrintsHeightAndLineCount() throws {
        let result = try run(["measure", "--width", "200", "Hello, world! Measuring text without rendering it."])
        #expect(result.status == 0)
        #expect(result.stdout.contains("height: 46.309 px"))
        #expect(result.stdout.contains("lines: 2"))
    }

    @Test func measureJSON() throws {
        let result = try run(["measure", "--size", "16", "--width", "120", "--max-lines", "2", "--json",
                              "Hello, world! Measuring text without rendering it."])
        #expect(result.status == 0)
        let object = try json(result.stdout)
        #expect(object["lineCount"] as? Int == 2)
        #expect(object["truncated"] as? Bool == true)
        #expect((object["height"] as? Double).map { abs($0 - 2 * 21.792) < 0.01 } == true)
        #expect((object["lines"] as? [[String: Any]])?.first?["text"] as? String == "Hello, world! ")
    }

    @Test func measureLineHeightOptions() throws {
        let fixed = try json(run(["measure", "--width", "50", "--line-height", "20", "--json", "a\nb\nc"]).stdout)
        #expect(fixed["height"] as? Double == 60)
        let multiple = try json(run(["measure", "--size", "10", "--width", "50", "--line-height-multiple", "1.5", "--json", "a"]).stdout)
        #expect(multiple["height"] as? Double == 15)
        let both = try run(["measure", "--width", "50", "--line-height", "20", "--line-height-multiple", "2", "a"])
        #expect(both.status != 0)
        #expect(both.stderr.contains("--line-height"))
    }

    @Test func measureBreakingOption() throws {
        let pango = try json(run(["measure", "--width", "100", "--json", "a\n"]).stdout)
        #expect(pango["lineCount"] as? Int == 2)
        let browser = try json(run(["measure", "--width", "100", "--breaking", "browser", "--json", "a\n"]).stdout)
        #expect(browser["lineCount"] as? Int == 1)
        let strict = try json(run(["measure", "--width", "100", "--breaking", "browser-strict", "--json", "a\n"]).stdout)
        #expect(strict["lineCount"] as? Int == 1)
        let bad = try run(["measure", "--width", "100", "--breaking", "chrome", "a"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--breaking"), "\(bad.stderr)")
        #expect(bad.stderr.contains("browser"))
        // Batch: the option is the default of lines without "breaking".
        let batch = try run(["batch", "--breaking", "browser"],
                            input: #"{"text":"a\n","width":100}"# + "\n" + #"{"text":"a\n","width":100,"breaking":"pango"}"# + "\n")
        #expect(batch.lines.map { $0.hasPrefix(#"{"lineCount":1,"#) } == [true, false], "\(batch.stdout)")
    }

    @Test(arguments: ["0", "-5", "nan", "inf"])
    func measureRefusesBadWidths(width: String) throws {
        let result = try run(["measure", "--width=\(width)", "text"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--width \(width) is out of range: must be a finite number from 0.001 to 1000000000"))
    }

    @Test func measureNamesAMissingFont() throws {
        let result = try run(["measure", "--font", "/no/such/font.ttf", "--width", "100", "x"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("/no/such/font.ttf"))
    }

    @Test func measureNamesACorruptFont() throws {
        let path = NSTemporaryDirectory() + "cli-corrupt-\(getpid()).ttf"
        try Data(repeating: 7, count: 300).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let result = try run(["measure", "--font", Self.root + "/Fonts/NotoSans-Regular.ttf", "--font", path, "--width", "100", "x"])
        #expect(result.status != 0)
        #expect(result.stderr.contains(path))
        #expect(result.stderr.contains("not a usable font file"))
    }

    @Test func measureWithOwnFontsAndCollectionIndex() throws {
        let font = Self.root + "/Fonts/NotoSans-Regular.ttf"
        let ok = try run(["measure", "--font", "\(font)#0", "--width", "100", "--json", "Hello"])
        #expect(ok.status == 0)
        #expect(try json(ok.stdout)["lineCount"] as? Int == 1)
        let bad = try run(["measure", "--font", "\(font)#4", "--width", "100", "Hello"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("index 4 is out of range"))
    }

    /// `--spans` takes a batch line's spans; bad ones are refused naming the span and field.
    @Test func measureAndRenderStyledText() throws {
        let text = "Anna: see parse_header() in main.c"
        let spans = #"[{"start":0,"end":5,"bold":true},{"start":10,"end":24,"mono":true,"size":22}]"#
        let styled = try json(run(["measure", "--width", "150", "--json", "--spans", spans, text]).stdout)
        let plain = try json(run(["measure", "--width", "150", "--json", text]).stdout)
        #expect(styled["height"] as? Double != plain["height"] as? Double)
        let batch = try run(["batch"], input: #"{"text":"\#(text)","width":150,"spans":\#(spans)}"# + "\n")
        #expect(try json(batch.stdout)["height"] as? Double == styled["height"] as? Double)
        let past = try run(["measure", "--width", "150", "--spans", #"[{"start":0,"end":99,"bold":true}]"#, "Anna"])
        #expect(past.status != 0 && past.stderr.contains("--spans[0].end 99 is past the end of the text: it has 4 Unicode scalars"))
        let missing = try run(["measure", "--width", "150", "--spans", #"[{"end":2}]"#, "Anna"])
        #expect(missing.status != 0 && missing.stderr.contains(#""spans[0].start" is missing"#))
        let path = NSTemporaryDirectory() + "styled-\(getpid()).png"
        defer { unlink(path) }
        let render = try run(["render", "--width", "150", "--spans", spans, "-o", path, text])
        #expect(render.status == 0 && FileManager.default.fileExists(atPath: path))
    }

    /// `--bold-font` and the other face options give a face its own cascade.
    @Test func faceFontOptions() throws {
        let fonts = Self.root + "/Fonts/"
        let spans = #"[{"start":0,"end":4,"bold":true}]"#
        func width(_ extra: [String]) throws -> Double? {
            try json(run(["measure", "--width", "500", "--json", "--spans", spans] + extra + ["iiii"]).stdout)["widestLine"] as? Double
        }
        let bundledBold = try width([])
        let monoAsBold = try width(["--bold-font", fonts + "NotoSansMono-Regular.ttf"])
        let regularOnly = try width(["--font", fonts + "NotoSans-Regular.ttf"])
        #expect(monoAsBold.map { abs($0 - 4 * 0.6 * 17) < 0.01 } == true, "\(String(describing: monoAsBold))")
        #expect(bundledBold != regularOnly && bundledBold != monoAsBold)
        let missing = try run(["measure", "--width", "100", "--mono-font", "/nonexistent.ttf", "Hi"])
        #expect(missing.status != 0 && missing.stderr.contains("/nonexistent.ttf"))
    }

    /// Values the library refuses are refused by the options too, naming the option, the value and the
    /// range; none reaches a trap (a line height of 1e19 once trapped formatting the height).
    @Test(arguments: [
        (["--line-height", "1e19"], "--line-height 1e+19 is out of range: must be a finite number from 0 to 100000"),
        (["--line-height", "1e308"], "--line-height 1e+308 is out of range"),
        (["--line-height-multiple=-1"], "--line-height-multiple -1 is out of range: must be a finite number from 0 to 1000"),
        (["--size", "1e6"], "--size 1000000 is out of range: must be a finite number from 0.01 to 10000"),
        (["--max-lines", "3000000000"], "--max-lines 3000000000 is out of range"),
        (["--width", "1e12"], "--width 1000000000000 is out of range"),
    ])
    func measureRefusesValuesOutOfRange(options: [String], message: String) throws {
        let arguments = options.contains("--width") ? options : options + ["--width", "100"]
        let result = try run(["measure"] + arguments + ["text"])
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    /// The largest values allowed measure and print (the height is formatted without trapping).
    @Test func measureAtTheLimits() throws {
        let result = try run(["measure", "--line-height", "100000", "--size", "10000", "--width", "1e9", "--json", "a b"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try json(result.stdout)["height"] as? Double == 100_000)
    }

    /// Face indexes beyond 16 bits used to pick face 0 silently (2^31) or trap (2^32).
    @Test(arguments: ["2147483648", "4294967296", "65536"])
    func fontFaceIndexOutOfRange(index: String) throws {
        let font = Self.root + "/Fonts/NotoSans-Regular.ttf"
        let result = try run(["measure", "--font", "\(font)#\(index)", "--width", "100", "Hello"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("index \(index) is out of range"), "\(result.stderr)")
    }

    /// Output that cannot be written, or input that cannot be read, is a failure with a reason, not
    /// an empty success.
    @Test(arguments: [
        ("> /dev/full", "cannot write standard output: No space left on device"),
        (">&-", "cannot write standard output: Bad file descriptor"),
        ("< /", "cannot read standard input: Is a directory"),
    ])
    func batchReportsInputAndOutputFailures(redirection: String, message: String) throws {
        let input = redirection.hasPrefix("<") ? "" : "printf '{\"text\":\"a\",\"width\":9}\\n' | "
        let result = try ProcessRunner.shell("\(input)'\(Self.executable.path)' batch \(redirection)")
        #expect(result.status == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    /// `measure` too: its result is written or the command fails, in both output formats.
    @Test(arguments: [("> /dev/full", "No space left on device"), (">&-", "Bad file descriptor")],
          ["", "--json"])
    func measureReportsOutputFailures(redirection: (String, String), format: String) throws {
        let result = try ProcessRunner.shell(
            "'\(Self.executable.path)' measure \(format) --width 100 Hello \(redirection.0)")
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot write standard output: \(redirection.1)"), "\(result.stderr)")
    }

    @Test func bundledFontsAreFoundFromAnotherWorkingDirectory() throws {
        let result = try ProcessRunner.run(Self.executable, ["measure", "--width", "100", "日本語 😀"],
                                           directory: URL(fileURLWithPath: "/"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("lines: 1"))
    }

    // MARK: batch

    @Test func batchAnswersEveryLineInOrder() throws {
        let input = """
            {"text":"Hello world","width":50,"id":7}
            {"text":"Hello world","width":500,"id":"b","meta":{"k":[1,true,null]}}
            {"text":"a b c d e f","width":10,"maxLines":2,"size":20}
            {"text":"","width":100}

            """
        let result = try run(["batch", "--size", "16"], input: input)
        #expect(result.status == 0)
        let lines = try result.lines.map(json)
        try #require(lines.count == 4)
        #expect(lines[0]["lineCount"] as? Int == 2)
        #expect(lines[0]["id"] as? Int == 7)
        #expect(lines[1]["lineCount"] as? Int == 1)
        #expect(lines[1]["id"] as? String == "b")
        #expect((lines[1]["meta"] as? [String: Any])?["k"] != nil)
        #expect(lines[2]["lineCount"] as? Int == 2)
        #expect(lines[2]["truncated"] as? Bool == true)
        #expect(lines[3]["lineCount"] as? Int == 0)
        #expect(lines[3]["height"] as? Double == 0)
    }

    @Test func batchReportsBadLinesAndGoesOn() throws {
        let cases: [(String, String)] = [
            ("", "blank line"),
            ("   ", "blank line"),
            ("not json", "invalid JSON"),
            ("{\"text\":\"a\"", "invalid JSON"),
            ("[1,2]", "must be a JSON object"),
            ("\"text\"", "must be a JSON object"),
            ("{\"width\":10}", "missing field \\\"text\\\""),
            ("{\"text\":\"a\"}", "missing field \\\"width\\\""),
            ("{\"text\":5,\"width\":10}", "\\\"text\\\" must be a string"),
            ("{\"text\":\"a\",\"width\":\"10\"}", "\\\"width\\\" must be a number"),
            ("{\"text\":\"a\",\"width\":0}", "\\\"width\\\" 0 is out of range: must be a finite number from 0.001 to 1000000000"),
            ("{\"text\":\"a\",\"width\":-3}", "\\\"width\\\" -3 is out of range: must be a finite number from 0.001 to 1000000000"),
            ("{\"text\":\"a\",\"width\":1e999}", "\\\"width\\\" inf is out of range: must be a finite number from 0.001 to 1000000000"),
            // Widths the library refuses crashed the whole batch once (a precondition after a laxer check).
            ("{\"text\":\"a\",\"width\":1e12}", "\\\"width\\\" 1000000000000 is out of range: must be a finite number from 0.001 to 1000000000"),
            ("{\"text\":\"a\",\"width\":1e300}", "\\\"width\\\" 1e+300 is out of range: must be a finite number from 0.001 to 1000000000"),
            ("{\"text\":\"a\",\"width\":1e-300}", "\\\"width\\\" 1e-300 is out of range: must be a finite number from 0.001 to 1000000000"),
            ("{\"text\":\"a\",\"width\":10,\"size\":0}", "\\\"size\\\" 0 is out of range: must be a finite number from 0.01 to 10000"),
            ("{\"text\":\"a\",\"width\":10,\"size\":1e19}", "\\\"size\\\" 1e+19 is out of range"),
            ("{\"text\":\"a\",\"width\":10,\"maxLines\":9223372036854775807}", "\\\"maxLines\\\" 9223372036854775807 is out of range"),
            ("{\"text\":\"a\",\"width\":10} x", "invalid JSON"),
            ("{\"text\":\"a\",\"width\":01}", "invalid JSON"),
            ("{\"text\":\"a\",\"width\":10,\"size\":\"big\"}", "\\\"size\\\" must be a number"),
            ("{\"text\":\"a\",\"width\":10,\"maxLines\":1.5}",
             "\\\"maxLines\\\" 1.5 is not an integer: must be an integer from 0 (unlimited) to 2147483647, written without a fraction or an exponent"),
            // An integral number written with a fraction is named with the range too (JSON has one number type).
            ("{\"text\":\"a\",\"width\":10,\"maxLines\":2.0}",
             "\\\"maxLines\\\" 2.0 is not an integer: must be an integer from 0 (unlimited) to 2147483647"),
            ("{\"text\":\"a\",\"width\":10,\"maxLines\":1e19}",
             "\\\"maxLines\\\" 1e+19 is out of range: must be an integer from 0 (unlimited) to 2147483647"),
            ("{\"text\":\"a\",\"width\":10,\"maxLines\":\"2\"}",
             "\\\"maxLines\\\" must be an integer from 0 (unlimited) to 2147483647"),
            ("{\"text\":\"a\",\"width\":10,\"maxLines\":-1}", "\\\"maxLines\\\" -1 is out of range: must be an integer from 0 (unlimited) to 2147483647"),
        ]
        let good = "{\"text\":\"ok\",\"width\":100,\"id\":1}"
        let input = cases.map { $0.0 + "\n" + good }.joined(separator: "\n") + "\n"
        let result = try run(["batch"], input: input)
        #expect(result.status == 0)
        let lines = result.lines
        try #require(lines.count == cases.count * 2)
        for (index, (line, message)) in cases.enumerated() {
            #expect(lines[2 * index].contains("\"error\":"), "no error for \(line)")
            #expect(lines[2 * index].contains(message), "\(lines[2 * index]) should say \(message) for \(line)")
            #expect(lines[2 * index + 1] == "{\"lineCount\":1,\"height\":23.154296875,\"truncated\":false,\"id\":1}")
        }
    }

    @Test func bareBatchSkipsParsingButBehavesAsTheParsedDefaults() throws {
        // `textmeasure batch` alone runs without ArgumentParser (`BatchRun`); with an option it is
        // parsed. Both must give the same bytes, errors included.
        let texts = ["Hello, world", "The quick brown fox jumps over the lazy dog.", "مرحبا بالعالم", "日本語のテキスト",
                     "नमस्ते दुनिया", "ภาษาไทย", "emoji 👩‍👩‍👧 ok", "official waffle"]
        var lines = try (0..<40).map { index in
            let object: [String: Any] = ["text": texts[index % texts.count], "width": 60 + 37 * index, "id": index]
            return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        lines.append("{\"text\":\"a\",\"width\":1e12}")
        let input = lines.joined(separator: "\n") + "\n"
        let bare = try run(["batch"], input: input)
        let parsed = try run(["batch", "--size", "17"], input: input)
        #expect(bare.status == 0 && parsed.status == 0)
        #expect(bare.lines.count == 41)
        #expect(bare.lines.last?.contains("\"error\"") == true)
        #expect(bare.lines == parsed.lines)
    }

    @Test func batchReusesPreparedTexts() throws {
        let item = "{\"text\":\"The same message, measured again and again\",\"width\":WIDTH}"
        let widths = [120, 120, 240, 120, 241, 480]
        let input = widths.map { item.replacingOccurrences(of: "WIDTH", with: String($0)) }.joined(separator: "\n") + "\n"
        let result = try run(["batch", "--stats", "--chunk", "1"], input: input)   // one line at a time: exact counts
        #expect(result.lines.count == widths.count)
        #expect(result.lines[0] == result.lines[1])
        #expect(result.stderr.contains("prepared texts: 5 reused, 1 shaped"), "\(result.stderr)")
        // Wider is never more lines.
        let counts = try result.lines.map { try #require(json($0)["lineCount"] as? Int) }
        #expect(counts[0] > counts[5])
        #expect(zip(widths, counts).allSatisfy { width, count in
            zip(widths, counts).allSatisfy { $0.0 < width || $0.1 <= count }
        })
    }

    /// `--cached-texts` bounds the prepared texts kept: with room for one, two texts taking turns are
    /// shaped every time; with room for two, once each.
    @Test func batchCachedTextsBoundsReuse() throws {
        let input = (0..<6).map { "{\"text\":\"text \($0 % 2)\",\"width\":100}" }.joined(separator: "\n") + "\n"
        let one = try run(["batch", "--stats", "--chunk", "1", "--cached-texts", "1"], input: input)
        let two = try run(["batch", "--stats", "--chunk", "1", "--cached-texts", "2"], input: input)
        #expect(one.stderr.contains("prepared texts: 0 reused, 6 shaped, 1 held"), "\(one.stderr)")
        #expect(two.stderr.contains("prepared texts: 4 reused, 2 shaped, 2 held"), "\(two.stderr)")
        #expect(one.lines == two.lines)
    }

    /// A batch loads before its fonts only the line-break dictionaries of its default mode (unless its
    /// first lines name modes of their own); a line in another mode, later, loads its own when it comes
    /// and gets what a batch of its mode alone gives it (a regression guard for that later loading).
    @Test func batchLinesInOtherModesBreakDictionaryTextAsThatModeAlone() throws {
        let texts = ["ภาษาไทยง่ายนิดเดียว ภาษาไทย", "ພາສາລາວ ພາສາລາວ", "ភាសាខ្មែរភាសាខ្មែរ", "မြန်မာစာမြန်မာစာ"]
        func lines(_ mode: String?) -> [String] {
            texts.flatMap { text in
                [30, 70, 120].map { width in
                    #"{"text":"\#(text)","width":\#(width)\#(mode.map { #","breaking":"\#($0)""# } ?? "")}"#
                }
            }
        }
        for mode in ["pango", "browser", "browser-strict"] {
            let alone = try run(["batch", "--breaking", mode], input: lines(nil).joined(separator: "\n") + "\n")
            #expect(alone.status == 0)
            for other in ["pango", "browser", "browser-strict"] where other != mode {
                // A first chunk of the default mode, then lines of `mode` (a later chunk: not scanned).
                let input = (lines(nil) + Array(repeating: #"{"text":"a","width":9}"#, count: 2_000) + lines(mode))
                let mixed = try run(["batch", "--breaking", other, "--chunk", "16"],
                                    input: input.joined(separator: "\n") + "\n")
                #expect(mixed.status == 0)
                #expect(Array(mixed.lines.suffix(alone.lines.count)) == alone.lines, "\(mode) after \(other)")
            }
        }
        // The modes differ on this text (a check that the lines above are not all alike).
        let pango = try run(["batch"], input: lines(nil).joined(separator: "\n") + "\n")
        let browser = try run(["batch", "--breaking", "browser"], input: lines(nil).joined(separator: "\n") + "\n")
        #expect(pango.lines != browser.lines)
    }

    /// The batch moves its threads to CPUs of their own while it works (see CPUSpread); restricted to
    /// one CPU (no CPU to move a second thread to) it must still answer every line, the same answers.
    @Test func batchOnOneCPUGivesTheSameResults() throws {
        let input = (0..<200).map { "{\"text\":\"Row \($0): some words to wrap here\",\"width\":\(60 + $0)}" }
            .joined(separator: "\n") + "\n"
        let free = try run(["batch"], input: input)
        let oneCPU = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/taskset"),
                                           ["-c", "0", Self.executable.path, "batch"], input: input)
        #expect(oneCPU.status == 0)
        #expect(oneCPU.lines.count == 200)
        #expect(oneCPU.lines == free.lines)
    }

    /// Line endings, a line longer than one 64 KiB read, blank lines and chunk boundaries: one output
    /// line per input line, the same results whatever the chunk size.
    @Test func batchSplitsLinesLikeReadLine() throws {
        let long = String(repeating: "word ", count: 16_000)   // 80 KB: spans two reads
        let input = "{\"text\":\"a b\",\"width\":50,\"id\":1}\r\n"
            + "\n"
            + "{\"text\":\"\(long)\",\"width\":300,\"id\":2}\n"
            + "{\"text\":\"caf\u{E9}\",\"width\":50,\"id\":3}\r\n"
            + "{\"text\":\"last, no newline\",\"width\":50,\"id\":4}"
        let whole = try run(["batch"], input: input)
        let chunked = try run(["batch", "--chunk", "2"], input: input)
        #expect(whole.lines.count == 5)
        #expect(chunked.lines == whole.lines)
        #expect(whole.lines[1].contains("blank line"))
        let ids = try [0, 2, 3, 4].map { try json(whole.lines[$0])["id"] as? Int }
        #expect(ids == [1, 2, 3, 4])
        #expect(try json(whole.lines[2])["lineCount"] as? Int ?? 0 > 200)
    }

    @Test func batchEchoesIdsOnErrors() throws {
        let result = try run(["batch"], input: "{\"id\":42,\"text\":\"a\",\"width\":-1}\n")
        #expect(try json(result.lines[0])["id"] as? Int == 42)
    }

    @Test func batchWithoutTrailingNewlineAndEmptyInput() throws {
        #expect(try run(["batch"], input: "{\"text\":\"a\",\"width\":9}").lines.count == 1)
        let empty = try run(["batch"], input: "")
        #expect(empty.status == 0)
        #expect(empty.stdout.isEmpty)
    }

    @Test func batchNamesAMissingFont() throws {
        let result = try run(["batch", "--font", "/missing.otf"], input: "{\"text\":\"a\",\"width\":9}\n")
        #expect(result.status != 0)
        #expect(result.stderr.contains("/missing.otf"))
    }
}
