import ArgumentParser
import TextMeasure

/// Options shared by `measure` and `batch`: fonts and text style.
struct StyleOptions: ParsableArguments {
    @Option(name: .customLong("font"), help: ArgumentHelp(
        "A font file; repeat for a fallback cascade, primary first. PATH#N selects face N of a collection.",
        valueName: "path"))
    var fonts: [String] = []

    @Option(help: "Font size in pixels.")
    var size: Double = 17

    @Option(name: .customLong("max-lines"), help: "Most lines shown; 0 = unlimited.")
    var maxLines: Int = 0

    @Option(name: .customLong("line-height"), help: "Fixed line height in pixels (default: the primary font's).")
    var lineHeight: Double?

    @Option(name: .customLong("line-height-multiple"), help: "Line height as a multiple of the size.")
    var lineHeightMultiple: Double?

    func validate() throws {
        guard size.isFinite, size > 0 else { throw ValidationError("--size must be a finite number greater than 0 (got \(size))") }
        guard maxLines >= 0 else { throw ValidationError("--max-lines must be 0 (unlimited) or more (got \(maxLines))") }
        if lineHeight != nil && lineHeightMultiple != nil {
            throw ValidationError("give either --line-height or --line-height-multiple, not both")
        }
        if let lineHeight, !(lineHeight.isFinite && lineHeight >= 0) {
            throw ValidationError("--line-height must be a finite number, 0 or more (got \(lineHeight))")
        }
        if let lineHeightMultiple, !(lineHeightMultiple.isFinite && lineHeightMultiple >= 0) {
            throw ValidationError("--line-height-multiple must be a finite number, 0 or more (got \(lineHeightMultiple))")
        }
    }

    var style: TextStyle {
        let height: LineHeight = lineHeight.map { .fixed($0) } ?? lineHeightMultiple.map { .multiple($0) } ?? .natural
        return TextStyle(size: size, lineHeight: height, maxLines: maxLines)
    }

    /// The measurer for these fonts; a font that cannot be used stops the command with its reason.
    func makeMeasurer() throws -> TextMeasurer {
        do {
            if fonts.isEmpty { return try BundledMeasurer.measurer() }
            return try TextMeasurer(fonts: fonts.map(Self.fontFile))
        } catch {
            throw CLIError(message: error.description)
        }
    }

    static func fontFile(_ argument: String) -> FontFile {
        if let hash = argument.lastIndex(of: "#"), let index = Int(argument[argument.index(after: hash)...]) {
            return FontFile(path: String(argument[..<hash]), faceIndex: index)
        }
        return FontFile(path: argument)
    }
}

/// A failure reported as `Error: <message>` with exit status 1.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
