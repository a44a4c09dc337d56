import TextMeasure

/// A picture of a text wrapped at a width, drawn so that a person sees what the measurement means:
/// what `textmeasure render` writes.
///
/// On a white background (see ``PictureGeometry`` for the sizes):
/// - each line's box — the line's measured width by its own height (a line drawn with a taller
///   fallback font is taller), against the left edge, or the right edge in a right-to-left paragraph —
///   in alternating light blue and light green, outlined;
/// - each line's baseline, a thin blue line across its box;
/// - the text in black (color emoji in their colors), with the bundled or given fonts, rasterized by
///   FreeType, right-to-left runs in visual order;
/// - the width as a red vertical guide (text that fits inks nothing right of it; only a cluster wider
///   than a line, which no break can split, overflows it);
/// - the measured height as a dark bracket in the left margin and a dashed line across at its bottom;
/// - a caption under the text area, "3 lines × 23.157 px = 69.471 px" when the lines are equally
///   tall, else "3 lines of 21.792 to 24.176 px = 70.144 px", with the same fonts at 12 px (shortened
///   to "3 lines, 69.471 px" or "69.471 px" when the picture is too narrow for it).
///
/// The numbers are also in the PNG's text chunks (see ``metadata``).
///
/// Thread safety: an immutable value of `Sendable` parts. Each ``render(_:style:width:scale:measurer:decorations:)``
/// uses a FreeType rasterizer of its own, so any number of pictures can be drawn at once.
package struct TextPicture: Sendable {
    /// The measured lines and their glyphs.
    package let layout: GlyphLayout
    /// Sizes and positions.
    package let geometry: PictureGeometry
    /// The pixels and metadata.
    package let image: PNGImage

    /// The caption's font size, in layout pixels.
    package static let captionSize = 12.0

    private static let boxColors = [RGBA(hex: 0xDCE9FB), RGBA(hex: 0xE1F2DE)]
    private static let boxOutline = RGBA(hex: 0xA9C2E6)
    private static let baselineColor = RGBA(hex: 0x3B7DDD)
    private static let heightColor = RGBA(hex: 0x555555)
    private static let guideColor = RGBA(hex: 0xE53935)
    private static let captionColor = RGBA(hex: 0x333333)

    /// Measures `text` at `width` and draws it.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - style: Size, line height and line limit.
    ///   - width: The width to wrap at, in layout pixels.
    ///   - scale: Device pixels per layout pixel (2 for a retina picture).
    ///   - measurer: The measurer whose fonts draw the text and the caption.
    ///   - decorations: `false` draws the text alone on white (no boxes, guide, height or caption),
    ///     for checking where the glyphs ink.
    /// - Throws: ``TextMeasureError`` from measuring; ``RenderError`` when the picture would be too
    ///   large (``PictureGeometry/checkSize()``) or FreeType cannot open a font.
    package static func render(_ text: String, style: TextStyle, width: Double, scale: Double,
                               measurer: TextMeasurer, decorations: Bool = true) throws -> TextPicture {
        try render(StyledText(text), style: style, width: width, scale: scale, measurer: measurer, decorations: decorations)
    }

    /// Measures a styled text at `width` and draws it, each run in its face and size.
    ///
    /// - Parameters:
    ///   - text: The text and its spans.
    ///   - style: Size, line height and line limit.
    ///   - width: The width to wrap at, in layout pixels.
    ///   - scale: Device pixels per layout pixel (2 for a retina picture).
    ///   - measurer: The measurer whose fonts draw the text and the caption.
    ///   - decorations: `false` draws the text alone on white.
    /// - Throws: As ``render(_:style:width:scale:measurer:decorations:)-(String,_,_,_,_,_)``, and the
    ///   `TextMeasureError` of a span out of range.
    package static func render(_ styledText: StyledText, style: TextStyle, width: Double, scale: Double,
                               measurer: TextMeasurer, decorations: Bool = true) throws -> TextPicture {
        guard scale > 0 && scale.isFinite else { throw RenderError("the scale must be a positive number") }
        let text = styledText.text
        // The size is checked before any line is shaped for drawing: a long text at a narrow width is
        // refused after measuring alone (measuring again below costs little: the words are cached).
        let height = try measurer.measure(styledText, style: style, width: width).height
        try PictureGeometry(width: width, height: height, scale: scale).checkSize()
        let layout = styledText.spans.isEmpty ? try measurer.glyphLayout(of: text, style: style, width: width)
            : try measurer.glyphLayout(of: styledText, style: style, width: width)
        let measurement = layout.measurement
        let geometry = PictureGeometry(width: width, height: measurement.height, scale: scale)
        var canvas = Canvas(width: geometry.pixelWidth, height: geometry.pixelHeight)
        let rasterizer = try GlyphRasterizer()
        let thin = max(1, Int(scale.rounded()))

        if decorations {
            for (index, (line, measured)) in zip(layout.lines, measurement.lines).enumerated() {
                let left = lineLeft(line, width: width)
                let x0 = Int(geometry.x(left).rounded()), x1 = Int(geometry.x(left + line.width).rounded())
                let rows = geometry.rows(ofLineAt: measured.top, height: measured.height)
                guard x1 > x0 && !rows.isEmpty else { continue }
                canvas.fill(x0: x0, y0: rows.lowerBound, x1: x1, y1: rows.upperBound,
                            color: boxColors[index % boxColors.count])
                canvas.stroke(x0: x0, y0: rows.lowerBound, x1: x1, y1: rows.upperBound, thickness: 1, color: boxOutline)
                let baseline = Int(geometry.y(measured.baseline).rounded())
                canvas.fill(x0: x0, y0: baseline, x1: x1, y1: baseline + thin, color: baselineColor)
            }
            drawHeight(geometry, thickness: thin, on: &canvas)
        }
        for (line, measured) in zip(layout.lines, measurement.lines) {
            let originX = geometry.x(lineLeft(line, width: width))
            let baseline = geometry.y(measured.baseline).rounded()
            try draw(line, x: originX, baseline: baseline, scale: scale, color: .black, with: rasterizer, on: &canvas)
        }
        if decorations {
            // The guide over the text: overflowing ink stays visibly beyond it.
            let top = Int(geometry.y(-PictureGeometry.margin / 2).rounded())
            let bottom = Int(geometry.y(measurement.height + PictureGeometry.margin / 2).rounded())
            canvas.fill(x0: geometry.guideColumn, y0: top, x1: geometry.guideColumn + thin, y1: bottom, color: guideColor)
            // The longest caption that fits between the text area's left edge and the picture's right.
            var caption: GlyphLayout?
            for text in captions(for: measurement) {
                caption = try measurer.glyphLayout(of: text, style: TextStyle(size: captionSize), width: 1_000_000)
                if let line = caption?.lines.first, line.width <= width + PictureGeometry.margin { break }
            }
            if let caption, let line = caption.lines.first, let measured = caption.measurement.lines.first {
                let baseline = geometry.y(measurement.height + PictureGeometry.margin * 0.75 + measured.baseline)
                try draw(line, x: geometry.x(0), baseline: baseline.rounded(), scale: scale, color: captionColor,
                         with: rasterizer, on: &canvas)
            }
        }
        return TextPicture(layout: layout, geometry: geometry,
                           image: PNGImage(canvas: canvas, text: metadata(text, style: style, measurement: measurement,
                                                                            width: width, scale: scale)))
    }

    /// Where a line's box starts, in layout pixels from the text area's left: 0, or in a right-to-left
    /// paragraph against the width's right edge (a line wider than the width starts at 0 and
    /// overflows to the right, like a left-to-right one).
    package static func lineLeft(_ line: GlyphLine, width: Double) -> Double {
        line.isRightToLeft ? max(0, width - line.width) : 0
    }

    /// The caption: "1 line × 23.157 px = 23.157 px" when every line is equally tall, else "3 lines
    /// of 21.792 to 24.176 px = 70.144 px"; and whether the line limit cut the text.
    package static func caption(for measurement: TextMeasurement) -> String {
        let lines = measurement.lineCount == 1 ? "1 line" : "\(measurement.lineCount) lines"
        let shortest = measurement.lines.map(\.height).min() ?? measurement.lineHeight
        let each = shortest == measurement.lineHeight
            ? "× \(format(measurement.lineHeight)) px"
            : "of \(format(shortest)) to \(format(measurement.lineHeight)) px"
        return "\(lines) \(each) = \(format(measurement.height)) px"
            + (measurement.isTruncated ? " (truncated by --max-lines)" : "")
    }

    /// The caption and shorter forms of it for narrow pictures, longest first.
    static func captions(for measurement: TextMeasurement) -> [String] {
        let lines = measurement.lineCount == 1 ? "1 line" : "\(measurement.lineCount) lines"
        return [caption(for: measurement), "\(lines), \(format(measurement.height)) px", "\(format(measurement.height)) px"]
    }

    /// The PNG text chunks: `Software`, `Description` (the text), and under `textmeasure:` the width,
    /// size, scale, line count, tallest line, each line's height (comma-separated), height and
    /// truncation, as numbers.
    package static func metadata(_ text: String, style: TextStyle, measurement: TextMeasurement, width: Double,
                                 scale: Double) -> [(key: String, value: String)] {
        [("Software", "textmeasure render"), ("Description", text),
         ("textmeasure:width", format(width)), ("textmeasure:size", format(style.size)),
         ("textmeasure:scale", format(scale)), ("textmeasure:lines", String(measurement.lineCount)),
         ("textmeasure:line-height", format(measurement.lineHeight)),
         ("textmeasure:line-heights", measurement.lines.map { format($0.height) }.joined(separator: ",")),
         ("textmeasure:height", format(measurement.height)),
         ("textmeasure:truncated", measurement.isTruncated ? "true" : "false")]
    }

    /// A number to three decimals, integers without ".0" (as `textmeasure measure` prints them).
    package static func format(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
    }

    /// The measured height: a bracket in the left margin from the top of the text area to the height,
    /// and a dashed line across at the height.
    private static func drawHeight(_ geometry: PictureGeometry, thickness: Int, on canvas: inout Canvas) {
        let top = Int(geometry.y(0).rounded()), bottom = Int(geometry.y(geometry.height).rounded())
        let bracket = Int(geometry.x(-PictureGeometry.margin / 2).rounded())
        let tickEnd = Int(geometry.x(-PictureGeometry.margin / 4).rounded())
        canvas.fill(x0: bracket, y0: top, x1: bracket + thickness, y1: bottom, color: heightColor)
        canvas.fill(x0: bracket, y0: top, x1: tickEnd, y1: top + thickness, color: heightColor)
        canvas.fill(x0: bracket, y0: bottom - thickness, x1: tickEnd, y1: bottom, color: heightColor)
        let dash = Int((4 * geometry.scale).rounded()), gap = Int((3 * geometry.scale).rounded())
        var x = tickEnd
        let end = Int(geometry.x(geometry.width + PictureGeometry.margin / 2).rounded())
        while x < end {
            canvas.fill(x0: x, y0: bottom - thickness, x1: min(x + dash, end), y1: bottom, color: heightColor)
            x += dash + gap
        }
    }

    /// Draws a line's glyphs with the left edge of its content at device `x` and its baseline at
    /// device `baseline`.
    private static func draw(_ line: GlyphLine, x: Double, baseline: Double, scale: Double, color: RGBA,
                             with rasterizer: GlyphRasterizer, on canvas: inout Canvas) throws(RenderError) {
        for run in line.runs {
            for glyph in run.glyphs {
                try rasterizer.draw(glyph.id, of: run.face, size: run.size * scale, x: x + glyph.x * scale,
                                    baseline: baseline - glyph.y * scale, color: color, on: &canvas)
            }
        }
    }
}
