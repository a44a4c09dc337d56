import Foundation
import Testing
import TestSupport
import TextMeasure
import TextMeasureRender

/// `textmeasure render`'s pictures: their size, where the glyphs ink, the visual order of
/// right-to-left runs, the metadata, and a golden picture per script group.
@Suite("Rendering")
struct RenderTests {
    static let measurer = try! TextMeasurer()
    static let style = TextStyle(size: 17)

    /// Whether a pixel holds ink (anything but the white background).
    static func isInked(_ color: RGBA) -> Bool {
        min(color.red, color.green, color.blue) < 200 || max(color.red, color.green, color.blue) - min(color.red, color.green, color.blue) > 40
    }

    @Test(arguments: [1.0, 2.0, 1.5, 0.5])
    func pictureIsWidthByHeightAtTheScale(scale: Double) throws {
        let picture = try TextPicture.render("Hello, world! Measuring text without rendering it.", style: Self.style,
                                             width: 200, scale: scale, measurer: Self.measurer)
        let height = picture.layout.measurement.height
        #expect(picture.layout.measurement.lineCount == 2)
        let expectedWidth = Int(((200 + 32) * scale).rounded(.up))
        let expectedHeight = Int(((height + 56) * scale - 1e-9).rounded(.up))
        #expect(picture.image.canvas.width == expectedWidth)
        #expect(picture.image.canvas.height == expectedHeight)

        let path = NSTemporaryDirectory() + "render-size-\(getpid())-\(scale).png"
        defer { unlink(path) }
        try picture.image.write(to: path)
        let read = try PNGImage.read(from: path)
        #expect(read.canvas.width == expectedWidth && read.canvas.height == expectedHeight)
        #expect(read.canvas.pixels == picture.image.canvas.pixels)
    }

    @Test func metadataHoldsTheMeasurement() throws {
        let text = "Hello, world — مرحبا 👋"
        let picture = try TextPicture.render(text, style: TextStyle(size: 16, maxLines: 1), width: 60, scale: 1,
                                             measurer: Self.measurer)
        let path = NSTemporaryDirectory() + "render-metadata-\(getpid()).png"
        defer { unlink(path) }
        try picture.image.write(to: path)
        let read = try PNGImage.read(from: path)
        let measured = try Self.measurer.measure(text, style: TextStyle(size: 16, maxLines: 1), width: 60)
        #expect(read.text(for: "Description") == text)
        #expect(read.text(for: "textmeasure:lines") == "1")
        #expect(read.text(for: "textmeasure:truncated") == "true")
        #expect(read.text(for: "textmeasure:height") == TextPicture.format(measured.height))
        #expect(read.text(for: "textmeasure:width") == "60")
    }

    /// In Pango's 1/1024 px units and the browser modes' 1/65536 px alike.
    @Test(arguments: [LineBreaking.pango, .browser])
    func glyphLinesAreTheMeasuredLines(breaking: LineBreaking) throws {
        var style = Self.style
        style.breaking = breaking
        for sample in RenderSample.all {
            let layout = try Self.measurer.glyphLayout(of: sample.text, style: style, width: sample.width)
            let measured = try Self.measurer.measure(sample.text, style: style, width: sample.width)
            #expect(layout.measurement == measured, "\(sample.name)")
            #expect(layout.lines.map(\.utf8Range) == measured.lines.map(\.utf8Range), "\(sample.name)")
            for line in layout.lines {
                // Shaped again as drawn, a line is as wide as measured, give or take a broken ligature.
                #expect(abs(line.drawnWidth - line.width) < 1, "\(sample.name): \(line.drawnWidth) vs \(line.width)")
            }
        }
    }

    /// Styled text draws each run in its face and size, on the lines measured.
    @Test(arguments: [LineBreaking.pango, .browser])
    func styledRunsDrawInTheirFacesAndSizes(breaking: LineBreaking) throws {
        let text = StyledText("Anna: parse_header() fails on CRLF, see issue 12 in the tracker",
                              spans: [TextSpan(0..<5, bold: true), TextSpan(6..<20, monospace: true),
                                      TextSpan(44..<52, italic: true, size: 26)])
        let style = TextStyle(size: 17, breaking: breaking)
        let layout = try Self.measurer.glyphLayout(of: text, style: style, width: 220)
        #expect(layout.measurement == (try Self.measurer.measure(text, style: style, width: 220)))
        for line in layout.lines { #expect(abs(line.drawnWidth - line.width) < 1, "\(line.drawnWidth) vs \(line.width)") }
        let runs = layout.lines.flatMap(\.runs)
        let faces = Set(runs.map { ($0.face.path as NSString).lastPathComponent })
        #expect(faces.isSuperset(of: ["NotoSans-Bold.ttf", "NotoSansMono-Regular.ttf", "NotoSans-Italic.ttf",
                                      "NotoSans-Regular.ttf"]), "\(faces)")
        #expect(runs.filter { ($0.face.path as NSString).lastPathComponent == "NotoSans-Italic.ttf" }.allSatisfy { $0.size == 26 })
        #expect(runs.filter { $0.size == 26 }.allSatisfy { ($0.face.path as NSString).lastPathComponent == "NotoSans-Italic.ttf" })
        // The picture is as tall as the measurement, the 26 px line taller than the others.
        let picture = try TextPicture.render(text, style: style, width: 220, scale: 1, measurer: Self.measurer)
        #expect(picture.layout.measurement.height == layout.measurement.height)
        let heights = layout.measurement.lines.map(\.height)
        #expect(heights.max()! > heights.min()!)
    }

    @Test(arguments: [LineBreaking.pango, .browser])
    func tabsAdvanceToTheMeasuredTabStops(breaking: LineBreaking) throws {
        var style = Self.style
        style.breaking = breaking
        let layout = try Self.measurer.glyphLayout(of: "a\tb\tlonger words\tc", style: style, width: 1000)
        let line = try #require(layout.lines.first)
        #expect(layout.lines.count == 1)
        #expect(abs(line.drawnWidth - line.width) < 0.01, "\(line.drawnWidth) vs \(line.width)")
    }

    @Test(arguments: RenderSample.all)
    func inkStaysInsideEveryLineBoxAndLeftOfTheWidth(sample: RenderSample) throws {
        for scale in [1.0, 2.0] {
            let picture = try TextPicture.render(sample.text, style: Self.style, width: sample.width, scale: scale,
                                                 measurer: Self.measurer, decorations: false)
            let canvas = picture.image.canvas
            let geometry = picture.geometry
            let measured = picture.layout.measurement.lines
            #expect(picture.layout.lines.count > 1, "\(sample.name) wraps")
            for (index, line) in picture.layout.lines.enumerated() {
                let left = TextPicture.lineLeft(line, width: sample.width)
                let columns = Int(geometry.x(left).rounded())..<Int(geometry.x(left + line.width).rounded())
                let rows = geometry.rows(ofLineAt: measured[index].top, height: measured[index].height)
                let inked = rows.reduce(0) { count, y in
                    count + columns.filter { Self.isInked(canvas.pixel(x: $0, y: y)) }.count
                }
                #expect(inked > columns.count / 4, "\(sample.name) line \(index) at scale \(scale): \(inked) pixels inked")
            }
            var beyond = 0
            for y in 0..<canvas.height {
                for x in geometry.guideColumn..<canvas.width where Self.isInked(canvas.pixel(x: x, y: y)) { beyond += 1 }
            }
            #expect(beyond == 0, "\(sample.name) at scale \(scale): \(beyond) pixels inked beyond the width")
        }
    }

    @Test func onlyAnUnbreakableClusterInksBeyondTheWidth() throws {
        // 12 px is narrower than "W" at 17 px: every line holds one cluster, and the Ws overflow.
        let picture = try TextPicture.render("WiW", style: Self.style, width: 12, scale: 1, measurer: Self.measurer,
                                             decorations: false)
        let lines = picture.layout.measurement.lines
        #expect(lines.count == 3)
        #expect(lines[0].width > 12 && lines[1].width < 12 && lines[2].width > 12)
        let canvas = picture.image.canvas
        let geometry = picture.geometry
        func inkedBeyond(line: Int) -> Int {
            geometry.rows(ofLineAt: lines[line].top, height: lines[line].height).reduce(0) { count, y in
                count + (geometry.guideColumn..<canvas.width).filter { Self.isInked(canvas.pixel(x: $0, y: y)) }.count
            }
        }
        #expect(inkedBeyond(line: 0) > 0)
        #expect(inkedBeyond(line: 1) == 0)
        #expect(inkedBeyond(line: 2) > 0)
    }

    @Test func rightToLeftRunsComeInVisualOrder() throws {
        // A left-to-right paragraph with an Arabic word: Latin, Arabic (level 1), Latin, left to right.
        let mixed = try Self.measurer.glyphLayout(of: "abc مرحبا def", style: Self.style, width: 1000)
        #expect(mixed.lines.count == 1)
        #expect(mixed.lines[0].isRightToLeft == false)
        // (Runs also change with the font: a space after the Arabic word is in another run.)
        #expect(Self.merged(mixed.lines[0].runs.map(\.level)) == [0, 1, 0])
        // A right-to-left paragraph: the number (level 2) is drawn left of the words before it, and the
        // line is set against the right edge.
        let arabic = try Self.measurer.glyphLayout(of: "الرقم 2025 هنا", style: Self.style, width: 1000)
        let line = arabic.lines[0]
        #expect(line.isRightToLeft)
        #expect(Self.merged(line.runs.map(\.level)) == [1, 2, 1])
        let xs = line.runs.map { $0.glyphs.first?.x ?? -1 }
        #expect(xs == xs.sorted())
        #expect(TextPicture.lineLeft(line, width: 1000) == 1000 - line.width)
        // Inside the right-to-left run for "الرقم" (visually rightmost), glyphs come left to right.
        let last = try #require(line.runs.last)
        #expect(last.glyphs.map(\.x) == last.glyphs.map(\.x).sorted())
    }

    /// `levels` with runs of equal levels merged into one.
    static func merged(_ levels: [UInt8]) -> [UInt8] {
        levels.reduce(into: []) { merged, level in
            if merged.last != level { merged.append(level) }
        }
    }

    /// Golden pictures, drawn by `scripts/render-examples` with the command: each must come out again
    /// with at most 0.5 % of its pixels off by more than a small amount (FreeType's antialiasing may
    /// move by a shade between builds; a moved line, box or glyph cannot hide in that budget).
    @Test(arguments: RenderSample.all)
    func goldenPicture(sample: RenderSample) throws {
        let golden = try PNGImage.read(from: sample.goldenPath)
        let picture = try TextPicture.render(sample.text, style: Self.style, width: sample.width, scale: 1,
                                             measurer: Self.measurer)
        let canvas = picture.image.canvas
        try #require(canvas.width == golden.canvas.width && canvas.height == golden.canvas.height,
                     "\(sample.name): \(canvas.width)×\(canvas.height), golden \(golden.canvas.width)×\(golden.canvas.height)")
        var differing = 0
        for i in stride(from: 0, to: canvas.pixels.count, by: 4) {
            let channels = (0..<3).map { abs(Int(canvas.pixels[i + $0]) - Int(golden.canvas.pixels[i + $0])) }
            if channels.max()! > 24 { differing += 1 }
        }
        let budget = canvas.width * canvas.height / 200
        #expect(differing <= budget, """
            \(sample.name): \(differing) pixels differ from \(sample.goldenPath) (budget \(budget)); \
            if the change is meant, run scripts/render-examples and look at the pictures
            """)
    }

    @Test func tooLargeAPictureIsRefused() throws {
        #expect(throws: RenderError.self) {
            try TextPicture.render("x", style: Self.style, width: 100_000, scale: 1, measurer: Self.measurer)
        }
    }
}
