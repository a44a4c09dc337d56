import Foundation
import Testing
import TestSupport
import TextMeasure

/// Line counts against Pango, the independent reference: same font files, WORD_CHAR wrapping,
/// unrounded positions (see Tools/pango-reference/pango_lines.c). Needs `libpango1.0-dev`
/// (`scripts/bootstrap` installs it); the test fails, never skips, when it is missing.
@Suite("Pango differential")
struct PangoDifferentialTests {
    static let sizes: [Double] = [11, 13, 15.5, 17, 24]
    static let widths: [Double] = [12, 37, 64, 100, 150, 180, 213.5, 240, 320, 375, 480, 1000]

    struct Case {
        var text: String
        var size: Double
        var width: Double
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\t", with: "\\t")
    }

    /// Builds the harness into a temporary folder; returns its path.
    static func buildHarness() throws -> String {
        let output = NSTemporaryDirectory() + "pango-lines-\(getpid())"
        let source = Fixtures.root + "/Tools/pango-reference/pango_lines.c"
        let build = try ProcessRunner.shell(
            "cc -O2 '\(source)' $(pkg-config --cflags --libs pangocairo pangoft2 fontconfig) -o '\(output)'")
        guard build.status == 0 else {
            throw HarnessError(message: "cannot build the Pango harness (install libpango1.0-dev: scripts/bootstrap): \(build.stderr)")
        }
        return output
    }

    struct HarnessError: Error, CustomStringConvertible { var message: String; var description: String { message } }

    @Test("≥ 99 % identical line counts on the multilingual corpus")
    func lineCountsAgreeWithPango() throws {
        let harness = try Self.buildHarness()
        defer { unlink(harness) }
        let cases = Fixtures.corpus.flatMap { text in
            Self.sizes.flatMap { size in Self.widths.map { Case(text: text, size: size, width: $0) } }
        }
        let input = cases.map { "\($0.size)\t\($0.width)\t\(Self.escape($0.text))" }.joined(separator: "\n") + "\n"
        let fonts = BundledFonts.fileNames.map { "'\(Fixtures.root)/Fonts/\($0)'" }.joined(separator: " ")
        let run = try ProcessRunner.shell("'\(harness)' \(fonts)", input: input)
        #expect(run.status == 0, "harness failed: \(run.stderr)")
        let reference = run.lines
        try #require(reference.count == cases.count, "harness answered \(reference.count) of \(cases.count) items")

        var prepared: [String: PreparedText] = [:]
        var agreements = 0
        var report: [String] = []
        for (item, answer) in zip(cases, reference) {
            let fields = answer.split(separator: "\t", omittingEmptySubsequences: false)
            let expected = Int(fields[0])!
            let key = "\(item.size)|\(item.text)"
            let text = try prepared[key] ?? Fixtures.measurer.prepare(item.text, style: TextStyle(size: item.size))
            prepared[key] = text
            let ours = try text.layout(width: item.width)
            if ours.lineCount == expected {
                agreements += 1
            } else {
                let ourWidths = ours.lines.map { String(Int(($0.width * 1024).rounded())) }.joined(separator: ",")
                report.append("size \(item.size) width \(item.width): ours \(ours.lineCount) [\(ourWidths)] pango \(expected) [\(fields.count > 1 ? fields[1] : "")] \(Self.escape(item.text))")
            }
        }
        let agreement = Double(agreements) / Double(cases.count)
        let summary = "Pango agreement: \(agreements)/\(cases.count) = \(String(format: "%.2f", agreement * 100)) %"
        print(summary)
        let reportPath = Fixtures.root + "/.build/pango-disagreements.txt"
        try? ([summary] + report).joined(separator: "\n").write(toFile: reportPath, atomically: true, encoding: .utf8)
        for line in report.prefix(15) { print("  " + line) }
        #expect(agreement >= 0.99, "\(summary); all disagreements in \(reportPath)")
    }
}
