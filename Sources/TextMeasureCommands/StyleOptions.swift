import ArgumentParser
import TextMeasure
import TextMeasureBatch

/// Options shared by `measure`, `batch`, `render` and `textmeasure-serve`: fonts and text style (for
/// `batch` and the server, the style of items that do not set their own).
package struct StyleOptions: ParsableArguments {
    @Option(name: .customLong("font"), help: ArgumentHelp(
        "A font file; repeat for a fallback cascade, primary first. PATH#N selects face N of a collection.",
        valueName: "path"))
    package var fonts: [String] = []

    @Option(help: "Font size in pixels.")
    package var size: Double = 17

    @Option(name: .customLong("max-lines"), help: "Most lines shown; 0 = unlimited.")
    package var maxLines: Int = 0

    @Option(name: .customLong("line-height"), help: "Fixed line height in pixels (default: the primary font's).")
    package var lineHeight: Double?

    @Option(name: .customLong("line-height-multiple"), help: "Line height as a multiple of the size.")
    package var lineHeightMultiple: Double?

    @Option(help: ArgumentHelp("""
        Whose line-breaking rules: pango (the default), browser (Chromium's, for white-space: pre-wrap; \
        overflow-wrap: anywhere) or browser-strict (the same with line-break: strict).
        """, valueName: "rules"))
    package var breaking: LineBreaking = .pango

    package init() {}

    package func validate() throws {
        if lineHeight != nil && lineHeightMultiple != nil {
            throw ValidationError("give either --line-height or --line-height-multiple, not both")
        }
        do {
            try MeasurementLimits.check(style)
        } catch {
            throw ValidationError(error.message(naming: Self.option))
        }
    }

    /// The command-line option for a field of ``MeasurementLimits`` (as ``TextMeasureError`` names it).
    static func option(_ field: String) -> String {
        switch field {
        case "lineHeight": "--line-height"
        case "lineHeightMultiple": "--line-height-multiple"
        case "maxLines": "--max-lines"
        default: "--" + field
        }
    }

    /// The style these options give.
    package var style: TextStyle {
        let height: LineHeight = lineHeight.map { .fixed($0) } ?? lineHeightMultiple.map { .multiple($0) } ?? .natural
        return TextStyle(size: size, lineHeight: height, maxLines: maxLines, breaking: breaking)
    }

    /// The measurer for these fonts; a font that cannot be used stops the command with its reason.
    func makeMeasurer() throws -> TextMeasurer {
        try Self.makeMeasurer(fonts: fonts)
    }

    /// The measurer for the font arguments `fonts` (the bundled fonts when empty).
    static func makeMeasurer(fonts: [String]) throws -> TextMeasurer {
        do {
            if fonts.isEmpty { return try BundledMeasurer.measurer() }
            return try TextMeasurer(fonts: fonts.map(Self.fontFile))
        } catch {
            throw CLIError(message: error.description)
        }
    }

    /// The font file a `--font` argument names (`PATH#N`: face N of a collection).
    package static func fontFile(_ argument: String) -> FontFile {
        if let hash = argument.lastIndex(of: "#"), let index = Int(argument[argument.index(after: hash)...]) {
            return FontFile(path: String(argument[..<hash]), faceIndex: index)
        }
        return FontFile(path: argument)
    }
}

/// A failure reported as `Error: <message>` with exit status 1.
package struct CLIError: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }

    package init(message: String) {
        self.message = message
    }
}

extension OutputWriter {
    /// Writes a command's result, failing the command with the reason when it cannot be written (a
    /// full disk, a closed descriptor): the commands do not `print`, which ignores such failures.
    /// - Parameter text: The whole output, newlines included.
    /// - Throws: ``CLIError`` naming the system's reason.
    func writeResult(_ text: String) throws(CLIError) {
        do {
            try write(text)
        } catch {
            throw CLIError(message: error.description)
        }
    }
}
