import ArgumentParser
import TextMeasure
import TextMeasureBatch
import TextMeasureRender

/// `textmeasure render`: draws a measured text to a PNG, so that a person sees what the numbers mean.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw a text wrapped at a width to a PNG: lines, boxes, baselines, the width and the height.",
        discussion: """
            The picture is (width + 32) × (height + 56) pixels times --scale: a 16 px margin left, right and \
            above the text area (the width by the measured height), and a 40 px footer with the caption \
            "N lines × line height = height" (or "N lines of h1 to h2 = height" when some lines are taller: \
            a line is as tall as the fonts on it). Each line's box is shaded with its baseline in blue, the \
            width is the red vertical line, the height the dashed line and the bracket at the left. Only \
            a cluster wider than a line (nothing can break it) inks beyond the red line. The numbers are \
            also stored in the PNG's text chunks (textmeasure:lines, textmeasure:height, ...).
            """)

    // Size, line height, --max-lines and --breaking: the lines drawn are the lines `measure` finds
    // with the same options.
    @OptionGroup var style: StyleOptions

    @Option(help: "The width to wrap at, in pixels.")
    var width: Double

    @Option(help: SpansOption.help)
    var spans: String?

    @Option(help: "Device pixels per pixel: 2 for a retina picture.")
    var scale: Double = 1

    @Option(name: [.short, .long], help: ArgumentHelp("The PNG file to write.", valueName: "path"))
    var output: String

    @Argument(help: "The text to draw.")
    var text: String

    /// The scales accepted: enough for any screen, small enough that a mistyped value fails fast.
    static let scales: ClosedRange<Double> = 0.25...8

    func validate() throws {
        do {
            try MeasurementLimits.check(width: width)
        } catch {
            throw ValidationError(error.message(naming: StyleOptions.option))
        }
        guard scale.isFinite && Self.scales.contains(scale) else {
            throw ValidationError("--scale \(scale) is out of range: must be from 0.25 to 8")
        }
        _ = try SpansOption.parse(spans)
    }

    func run() throws {
        let measurer = try style.makeMeasurer()
        let picture: TextPicture
        do {
            picture = try TextPicture.render(StyledText(text, spans: try SpansOption.parse(spans)), style: style.style,
                                             width: width, scale: scale, measurer: measurer)
        } catch let error as TextMeasureError {
            throw CLIError(message: error.message(naming: { $0.hasPrefix("spans") ? "--" + $0 : StyleOptions.option($0) }))
        } catch {
            throw CLIError(message: "\(error)")
        }
        do {
            try picture.image.write(to: output)
        } catch {
            throw CLIError(message: error.message)
        }
        let geometry = picture.geometry
        try OutputWriter.standardOutput.writeResult("\(output): \(geometry.pixelWidth) × \(geometry.pixelHeight) px; "
                                                    + TextPicture.caption(for: picture.layout.measurement) + "\n")
    }
}
