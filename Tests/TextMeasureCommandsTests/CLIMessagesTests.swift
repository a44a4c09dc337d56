import Foundation
import TestSupport
import Testing

/// What the commands say: option values out of range named with the range, and help that gives the
/// whole item format and the defaults as they are.
@Suite("textmeasure CLI messages")
struct CLIMessagesTests {
    func run(_ arguments: [String], input: String = "") throws -> ProcessRunner.Outcome {
        try ProcessRunner.run(CLITests.executable, arguments, input: input)
    }

    /// The help as one line: ArgumentParser wraps it at 80 columns.
    func help(_ arguments: [String]) throws -> String {
        try run(arguments).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `--cached-texts` of 2^29 or more trapped in the prepared-text cache (SIGILL); now every value
    /// out of range is refused before any input is read, naming the option, the value and the range.
    @Test(arguments: ["536870912", "9223372036854775807", "268435457", "0", "-1"])
    func batchCachedTextsOutOfRangeIsRefused(value: String) throws {
        let result = try run(["batch", "--cached-texts=\(value)"], input: "{\"text\":\"a\",\"width\":100}\n")
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("--cached-texts \(value) is out of range: must be an integer from 1 to 268435456"),
                "\(result.stderr)")
    }

    @Test func batchCachedTextsAtTheMaximumMeasures() throws {
        let result = try run(["batch", "--cached-texts", "268435456"], input: "{\"text\":\"a\",\"width\":100}\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count == 1 && result.lines[0].hasPrefix("{\"lineCount\":1,"))
    }

    /// A negative face index named "0 face(s)" of a one-face file.
    @Test func negativeFontFaceIndexNamesTheFacesThereAre() throws {
        let font = CLITests.root + "/Fonts/NotoSans-Regular.ttf"
        let result = try run(["measure", "--font", "\(font)#-1", "--width", "100", "Hello"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("font file \(font): face index -1 is out of range: must be 0 (the file has 1 face)"),
                "\(result.stderr)")
    }

    /// The item format in `batch --help` has `"spans"` (styled text).
    @Test func batchHelpGivesSpans() throws {
        let text = try help(["batch", "--help"])
        #expect(text.contains(#""spans"?: [{"start": Int, "end": Int, "bold"?: Bool, "italic"?: Bool, "mono"?: Bool, "size"?: Number}]"#),
                "\(text)")
    }

    /// `--line-height`'s default is the natural line height (each line as tall as its fonts), not the
    /// primary font's, in every command that has it.
    @Test(arguments: [["measure", "--help"], ["batch", "--help"], ["render", "--help"]])
    func lineHeightHelpSaysTheDefaultIsNatural(arguments: [String]) throws {
        let text = try help(arguments)
        #expect(text.contains("(default: the natural line height, each line as tall as the fonts on it make it)"), "\(text)")
        #expect(!text.contains("primary font's"))
    }
}
