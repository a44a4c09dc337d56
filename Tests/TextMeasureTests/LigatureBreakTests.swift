import Testing
@testable import TextMeasure

/// A word broken inside a ligature ("fi", "ffi", Arabic lam-alef) is measured as the pieces draw:
/// shaped again on their own, as Pango and browsers do, not with the ligature's advance shared.
@Suite("Breaks inside ligatures")
struct LigatureBreakTests {
    let measurer = Fixtures.measurer

    func lines(_ text: String, size: Double, width: Double) throws -> [(text: String, width: Double)] {
        try measurer.measure(text, style: TextStyle(size: size), width: width).lines.map {
            (String(text[$0.range(in: text)]), $0.width)
        }
    }

    /// The width of `text` on one line of its own.
    func alone(_ text: String, size: Double) throws -> Double {
        try measurer.measure(text, style: TextStyle(size: size), width: 1e6).widestLineWidth
    }

    /// The example: "nif" (n, then f drawn alone) is 34.16 px, wider than 34; Pango and
    /// Chromium give three lines with the bundled Noto Sans.
    @Test func nifiqAt34PixelsTakesThreeLines() throws {
        let result = try lines("nifiq", size: 28, width: 34)
        #expect(result.map(\.text) == ["ni", "fi", "q"])
        for line in result {
            #expect(abs(line.width - (try alone(line.text, size: 28))) < 0.001, "\(line.text)")
        }
        // One letter a line: the ligature's pieces are an "f" and an "i" drawn alone.
        #expect(try lines("nifiq", size: 28, width: 16).map(\.text) == ["n", "i", "f", "i", "q"])
        #expect(try self.lines("nifiq", size: 28, width: 16)[2].width == alone("f", size: 28))
    }

    /// Every line of a Latin word broken inside its ligatures is as wide as its text set alone, at
    /// any width: the line before the break draws the ligature's head, the line after it its tail.
    @Test(arguments: [11.0, 13, 17, 24, 28])
    func brokenLinesAreAsWideAsTheirPiecesAlone(size: Double) throws {
        for word in ["official", "waffle", "nifiq", "affluent", "difficult", "offline", "fjord", "Schifffahrt"] {
            for width in stride(from: size * 0.3, through: size * 3, by: size * 0.15) {
                let result = try lines(word, size: size, width: width)
                for line in result {
                    let expected = try alone(line.text, size: size)
                    #expect(abs(line.width - expected) < 0.002,
                            "\(word) at \(size)/\(width): '\(line.text)' \(line.width) vs \(expected)")
                }
            }
        }
    }

    /// The lines' valid widths stay exact with ligature pieces: inside the range the lines are the
    /// same, just outside they change.
    @Test func validWidthsHoldAroundLigatureBreaks() throws {
        for text in Fixtures.corpus(named: "forced-breaks.txt") {
            let prepared = try measurer.prepare(text, style: TextStyle(size: 24))
            var previous = Int.max
            for width in stride(from: 6.0, through: 120, by: 3.5) {
                let result = try prepared.layout(width: width)
                let range = result.validWidths
                #expect(range.contains(width))
                #expect(result.lineCount <= previous, "\(text) at \(width)")
                previous = result.lineCount
                for probe in [range.lowerBound, (range.lowerBound + width) / 2] where probe > 0 {
                    #expect(try prepared.layout(width: probe).lines == result.lines, "\(text) at \(probe) in \(range)")
                }
                if range.upperBound.isFinite {
                    #expect(try prepared.layout(width: range.upperBound.nextDown).lines == result.lines)
                    #expect(try prepared.layout(width: range.upperBound + 0.001).lines != result.lines,
                            "upper bound \(range.upperBound) not tight for \(text) at \(width)")
                }
            }
        }
    }

    /// Only clusters inside a ligature carry a line-start adjustment, and text without ligatures
    /// prepares exactly as before (no adjustments at all).
    @Test func onlyLigaturePiecesAreAdjusted() throws {
        let plain = try measurer.prepare("The quick brown fox jumps over the lazy dog. 你好 مرحبا", style: TextStyle(size: 17))
        #expect(plain.lineStartAdjusts.isEmpty)
        let ligatures = try measurer.prepare("official waffle", style: TextStyle(size: 17))
        // The "ffi" ligature of "official" may start lines at its second "f" and its "i"; the "ffl" of
        // "waffle" at its second "f" and its "l".
        let flagged = ligatures.clusters.indices.filter { ligatures.clusters[$0].flags.contains(.adjustsLineStart) }
        #expect(flagged == ligatures.lineStartAdjusts.map { Int($0.cluster) })
        let text = Array("official waffle".utf8)
        let pieces = flagged.map { i in
            String(decoding: text[Int(ligatures.clusters[i].start)..<Int(ligatures.clusters[i].end)], as: UTF8.self)
        }
        #expect(pieces == ["f", "i", "f", "l"], "\(ligatures.lineStartAdjusts)")
    }
}
