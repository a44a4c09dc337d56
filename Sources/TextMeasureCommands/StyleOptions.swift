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

    @Option(name: .customLong("bold-font"), help: ArgumentHelp(
        "A font file for bold spans; repeat for their cascade (default: the bundled bold faces with the bundled fonts, else --font's).",
        valueName: "path"))
    package var boldFonts: [String] = []

    @Option(name: .customLong("italic-font"), help: ArgumentHelp(
        "A font file for italic spans; repeat for their cascade.", valueName: "path"))
    package var italicFonts: [String] = []

    @Option(name: .customLong("bold-italic-font"), help: ArgumentHelp(
        "A font file for bold italic spans; repeat for their cascade (default: the bold cascade).", valueName: "path"))
    package var boldItalicFonts: [String] = []

    @Option(name: .customLong("mono-font"), help: ArgumentHelp(
        "A font file for monospaced spans; repeat for their cascade.", valueName: "path"))
    package var monoFonts: [String] = []

    @Option(name: .customLong("mono-bold-font"), help: ArgumentHelp(
        "A font file for bold monospaced spans; repeat for their cascade (default: the monospace cascade).",
        valueName: "path"))
    package var monoBoldFonts: [String] = []

    @Option(help: "Font size in pixels.")
    package var size: Double = 17

    @Option(name: .customLong("max-lines"), help: "Most lines shown; 0 = unlimited.")
    package var maxLines: Int = 0

    @Option(name: .customLong("line-height"), help: """
        Fixed line height in pixels (default: the natural line height, each line as tall as the fonts \
        on it make it).
        """)
    package var lineHeight: Double?

    @Option(name: .customLong("line-height-multiple"), help: """
        Line height as a multiple of the size (default: the natural line height, as for --line-height).
        """)
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

    /// The font arguments of every face.
    package var faceFonts: FaceFonts {
        FaceFonts(regular: fonts, bold: boldFonts, italic: italicFonts, boldItalic: boldItalicFonts, monospace: monoFonts,
                  monospaceBold: monoBoldFonts)
    }

    /// The measurer for these fonts; a font that cannot be used stops the command with its reason.
    func makeMeasurer() throws -> TextMeasurer {
        try Self.makeMeasurer(fonts: faceFonts)
    }

    /// The measurer for the font arguments `fonts`: the bundled fonts (every face) when none is
    /// given; otherwise the regular cascade given, or the bundled one, and each face given.
    package static func makeMeasurer(fonts: FaceFonts) throws -> TextMeasurer {
        do throws(FontError) {
            if fonts.isEmpty { return try BundledMeasurer.measurer() }
            // Faces not given: the bundled ones with the bundled regular cascade, else the regular.
            let bundled = fonts.regular.isEmpty ? try FontCascades.bundled() : nil
            func face(_ paths: [String], _ fallback: FontCascade?) throws(FontError) -> FontCascade? {
                paths.isEmpty ? fallback : try FontCascade(files: paths.map(Self.fontFile))
            }
            guard let regular = try face(fonts.regular, bundled?.regular) else { throw .emptyCascade }
            return TextMeasurer(cascades: FontCascades(
                regular: regular, bold: try face(fonts.bold, bundled?.bold),
                italic: try face(fonts.italic, bundled?.italic), boldItalic: try face(fonts.boldItalic, bundled?.boldItalic),
                monospace: try face(fonts.monospace, bundled?.monospace),
                monospaceBold: try face(fonts.monospaceBold, bundled?.monospaceBold)))
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

/// The `--spans` option of `measure` and `render`: a styled text's spans as a batch line gives them.
package enum SpansOption {
    /// The help shown for `--spans`.
    static let help = ArgumentHelp("""
        Bold, italic, monospaced or resized stretches, as a batch line's "spans": a JSON array of \
        {"start", "end", "bold", "italic", "mono", "size"} (start and end count Unicode scalars of the \
        text, end exclusive).
        """, valueName: "json")

    /// The spans `argument` holds.
    /// - Throws: A `ValidationError` naming what is wrong (not JSON; a span's index and field).
    static func parse(_ argument: String?) throws -> [TextSpan] {
        guard let argument else { return [] }
        var bytes = argument
        let value = bytes.withUTF8 { try? JSONScanner.parse($0) }
        guard let value else { throw ValidationError("--spans is not JSON: \(argument)") }
        switch BatchProcessor.spans(value) {
        case .success(let spans): return spans
        case .failure(let error): throw ValidationError("--spans: \(error.message)")
        }
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
