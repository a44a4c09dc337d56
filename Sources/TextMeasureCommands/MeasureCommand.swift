import ArgumentParser
import TextMeasure
import TextMeasureBatch

struct MeasureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Measure one text at one width.")

    @OptionGroup var style: StyleOptions

    @Option(help: "The width to wrap at, in pixels.")
    var width: Double

    @Option(help: ArgumentHelp("""
        A height store, a SQLite file or postgres://USER@HOST:PORT/DATABASE (default: $TEXTMEASURE_STORE): \
        the result is taken from it when stored (unless --json asks for the lines), and saved to it otherwise.
        """, valueName: "path|url"))
    var store: String?

    @Option(help: SpansOption.help)
    var spans: String?

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Argument(help: "The text to measure.")
    var text: String

    func validate() throws {
        do {
            try MeasurementLimits.check(width: width)
        } catch {
            throw ValidationError(error.message(naming: StyleOptions.option))
        }
        _ = try SpansOption.parse(spans)
    }

    func run() throws {
        let store = HeightStoreAccess.location(option: self.store)
        // Without the store linked in, this hands the process over to textmeasure-store.
        let link = try store.map { _ in try HeightStoreAccess.current() }
        let measurer = try style.makeMeasurer()
        let result: TextMeasurement
        let styled = StyledText(text, spans: try SpansOption.parse(spans))
        do {
            if let path = store, let link {
                let heightStore = link.open(path: path)
                let texts = PreparedTextCache(measurer: measurer, capacity: 1, store: heightStore)
                result = try texts.measure(styled, style: style.style, width: width, withLines: json)
                heightStore?.flush()
            } else {
                result = try measurer.measure(styled, style: style.style, width: width)
            }
        } catch {
            throw CLIError(message: error.message(naming: { $0.hasPrefix("spans") ? "--" + $0 : StyleOptions.option($0) }))
        }
        let output: String
        if json {
            var fields: [(String, JSONValue)] = [
                ("height", .number(result.height)),
                ("lineCount", .int(result.lineCount)),
                ("truncated", .bool(result.isTruncated)),
                ("lineHeight", .number(result.lineHeight)),
                ("widestLine", .number(result.widestLineWidth)),
                ("validWidths", .array([.number(result.validWidths.lowerBound),
                                        result.validWidths.upperBound.isFinite ? .number(result.validWidths.upperBound) : .null])),
            ]
            fields.append(("lines", .array(result.lines.map { line in
                .object([("text", .string(String(text[line.range(in: text)]))), ("width", .number(line.width)),
                         ("top", .number(line.top)), ("height", .number(line.height)),
                         ("baseline", .number(line.baseline))])
            })))
            output = JSONValue.object(fields).serialized + "\n"
        } else {
            let upper = result.validWidths.upperBound.isFinite ? format(result.validWidths.upperBound) : "∞"
            output = """
                height: \(format(result.height)) px
                lines: \(result.lineCount)\(result.isTruncated ? " (truncated)" : "")
                \(lineHeights(result)) px
                same lines for widths: \(format(result.validWidths.lowerBound)) ..< \(upper) px

                """
        }
        try OutputWriter.standardOutput.writeResult(output)
    }

    /// "line height: 21.792" when every line is that tall, else "tallest line: 24.176" (each line's
    /// height is in `--json`'s lines). Read from the height, line count and tallest line alone, so that
    /// an answer from the store, which keeps no lines, prints the same.
    private func lineHeights(_ result: TextMeasurement) -> String {
        let uniform = result.height == Double(result.lineCount) * result.lineHeight
        return (uniform ? "line height: " : "tallest line: ") + format(result.lineHeight)
    }

    /// A number to three decimals, integers without ".0" (heights are at most a few billion pixels,
    /// but the formatting does not depend on that).
    private func format(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
    }
}
