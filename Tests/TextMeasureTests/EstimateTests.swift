import Foundation
import TestSupport
import Testing
@testable import TextMeasure

@Suite("Estimates")
struct EstimateTests {
    let measurer = Fixtures.measurer
    static let widths: [Double] = [160, 240, 320, 480, 720]
    static let sizes: [Double] = [13, 17]

    /// The conservative estimate is an upper bound: it never undercounts the lines or the height, at
    /// any width, including widths narrower than a glyph, in both engines' line heights.
    @Test(.disabled(if: ThreadSanitizerRun.isActive, "single-threaded"), arguments: [LineBreaking.pango, .browser])
    func conservativeEstimateNeverUndercounts(breaking: LineBreaking) throws {
        for text in Fixtures.corpus {
            for size in [11.0, 15.5, 24] {
                for width in [8.0, 30, 64] + Self.widths {
                    let style = TextStyle(size: size, breaking: breaking)
                    let exact = try measurer.measure(text, style: style, width: width)
                    let estimate = try measurer.estimate(text, style: style, width: width)
                    #expect(estimate.maximumLineCount >= exact.lineCount, "\(estimate.maximumLineCount) < \(exact.lineCount) at \(width)/\(size): \(text)")
                    #expect(estimate.maximumHeight >= exact.height)
                }
            }
        }
        let limited = try measurer.estimate(String(repeating: "word ", count: 200), style: TextStyle(size: 17, maxLines: 3), width: 100)
        #expect(limited.maximumLineCount == 3)
        #expect(try measurer.estimate("", style: TextStyle(size: 17), width: 100).height == 0)
    }

    /// Accuracy of the expected estimate over the corpus (reported in the README).
    @Test func expectedEstimateAccuracy() throws {
        var report: [String] = ["width  median  p95   (relative height error, \(Fixtures.corpus.count) texts × sizes \(Self.sizes))"]
        for width in Self.widths {
            var errors: [Double] = []
            for text in Fixtures.corpus {
                for size in Self.sizes {
                    let style = TextStyle(size: size)
                    let exact = try measurer.measure(text, style: style, width: width)
                    let estimate = try measurer.estimate(text, style: style, width: width)
                    errors.append(abs(estimate.height - exact.height) / exact.height)
                }
            }
            errors.sort()
            let median = errors[errors.count / 2], p95 = errors[Int(Double(errors.count) * 0.95)]
            report.append(String(format: "%5.0f  %5.1f%%  %5.1f%%", width, median * 100, p95 * 100))
            #expect(median <= 0.10, "median error \(median) at \(width)")
            #expect(p95 <= 0.60, "p95 error \(p95) at \(width)")
        }
        print(report.joined(separator: "\n"))
    }

    /// With the natural line height, an estimate's lines are as tall as a line of the fonts its
    /// scripts are drawn with: a Thai paragraph's as Noto Sans Thai's, a Latin one's as Noto Sans's,
    /// a paragraph mixing both as their union; the bound's as every font that could draw them.
    @Test func estimatesTakeTheirScriptsLineHeights() throws {
        let style = TextStyle(size: 16)
        let thai = try measurer.estimate("ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ", style: style, width: 100)
        let measuredThai = try measurer.measure("ไทย", style: style, width: 100).height
        #expect(thai.lineCount > 1)
        #expect(thai.height == Double(thai.lineCount) * measuredThai)
        #expect(thai.maximumHeight >= Double(thai.maximumLineCount) * measuredThai)
        let latin = try measurer.estimate("Hello there, general Kenobi", style: style, width: 1000)
        #expect(latin.height == (try measurer.lineHeight(for: style)))
        let mixed = try measurer.estimate("abc ไทย", style: style, width: 1000)
        #expect(mixed.height == (try measurer.measure("abc ไทย", style: style, width: 1000)).height)
        // A fixed line height: lines × that height, whatever the scripts.
        let fixed = try measurer.estimate("ภาษาไทย\nabc", style: TextStyle(size: 16, lineHeight: .fixed(30)), width: 1000)
        #expect(fixed.height == Double(fixed.lineCount) * 30)
    }

    /// Hard breaks count as the style's line breaking makes them: where every paragraph fits on one
    /// line, the expected line count is the measured one in each mode (a U+2028 just before the
    /// text's end starts no line in `.pango`; a line feed ending the text starts none in the browser
    /// modes, where a lone `\r`, U+2028 and U+2029 break nothing).
    @Test(arguments: LineBreaking.allCases)
    func estimatesCountHardBreaksAsLayoutDoes(breaking: LineBreaking) throws {
        let texts = ["a\n", "a\u{2028}", "a\u{2028}\n", "a\u{2028}\u{2028}", "a\u{2028}\u{2029}", "\u{2028}",
                     "\n\n", "\n", "\r", "a\rb", "a\r\nb", "a\r\n", "a\u{2029}b", "a\u{2028}b", "a\n\nb",
                     "ab\u{2028}\r\ncd\u{2029}", "x\u{2028}\u{2028}y\n"]
        let style = TextStyle(size: 15, breaking: breaking)
        var counts: [Int] = []
        for text in texts {
            let exact = try measurer.measure(text, style: style, width: 1000)
            let estimate = try measurer.estimate(text, style: style, width: 1000)
            #expect(estimate.lineCount == exact.lineCount, "\(breaking) \(text.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(estimate.maximumLineCount >= exact.lineCount)
            counts.append(estimate.lineCount)
        }
        // The modes differ where their hard breaks do: "a\n", "a\u{2028}", "\r", "a\rb".
        let expected = breaking == .pango ? [2, 1, 2, 2] : [1, 1, 1, 1]
        #expect([counts[0], counts[1], counts[8], counts[9]] == expected)
    }

    @Test func estimatesRefuseBadInput() {
        #expect(throws: TextMeasureError.invalidWidth(0)) { try measurer.estimate("x", style: TextStyle(), width: 0) }
        #expect(throws: TextMeasureError.invalidSize(0)) { try measurer.estimate("x", style: TextStyle(size: 0), width: 10) }
    }

    /// The ASCII shortcut of the script classes answers as the walk through the blocks does.
    @Test func asciiScriptClassesMatchTheBlocks() {
        for scalar in UInt32(0)..<0x80 { #expect(ScriptClass.of(scalar) == ScriptClass.ofBlock(scalar), "U+\(scalar)") }
    }
}
