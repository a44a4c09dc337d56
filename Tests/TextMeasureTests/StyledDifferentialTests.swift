import Foundation
import Testing
import TextMeasure

/// Styled text against both engines, on the styled corpus (`Tests/Corpus/styled.jsonl`: 1,500 texts
/// in the held-out corpus's 14 script groups with bold sender names, bold matched words, italic
/// phrases, code spans, size changes and overlaps; `Tools/corpus/README.md`), at 13, 17 and 24 px ×
/// 64, 120, 180, 240, 320 and 480 px: ``LineBreaking/pango`` against Pango 1.50 run here with a
/// `PangoAttrList` per text, ``LineBreaking/browser`` against Chromium 156's committed fixture
/// (`Tests/Fixtures/chromium/styled.tsv`, `<span>` runs). Heights with the natural line height,
/// within 0.5 px. Every disagreement is written to `.build/`.
@Suite("Styled differential")
struct StyledDifferentialTests {
    static let sizes = [13.0, 17, 24]
    static let widths = [64.0, 120, 180, 240, 320, 480]

    @Test("`.pango` agrees with Pango on styled text: line counts and heights")
    func styledTextAgreesWithPango() throws {
        let corpus = Fixtures.styledCorpus
        #expect(corpus.count == 1_500)
        let cases = corpus.flatMap { text in
            Self.sizes.flatMap { size in
                Self.widths.map { PangoReference.Case(text: text.text, size: size, width: $0, spans: text.spans) }
            }
        }
        let comparison = try PangoReference.compare(cases, reportName: "pango-styled-disagreements.txt")
        print("Pango agreement on styled text: \(comparison.summary)")
        #expect(comparison.agreement >= Self.pangoLines, "\(comparison.summary); see .build/pango-styled-disagreements.txt")
        #expect(comparison.heightAgreement >= Self.pangoHeights, "\(comparison.summary); see .build/pango-styled-disagreements.txt")
    }

    @Test("`.browser` agrees with Chromium on styled text, per script")
    func styledTextAgreesWithChromium() throws {
        let corpus = Fixtures.styledCorpus
        let path = Fixtures.root + "/Tests/Fixtures/chromium/styled.tsv"
        var prepared: [String: PreparedText] = [:]
        var tally: [String: (lines: Int, heights: Int, total: Int)] = [:]
        var disagreements: [String] = []
        for row in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            guard !row.hasPrefix("#"), !row.hasPrefix("line\t") else { continue }
            let fields = row.split(separator: "\t")
            guard fields.count == 5, let line = Int(fields[0]), let size = Double(fields[1]), let width = Double(fields[2]),
                  let lineCount = Int(fields[3]), let height = Double(fields[4]), corpus.indices.contains(line - 1) else {
                throw ChromiumDifferentialTests.FixtureError(description: "\(path): bad row '\(row)'")
            }
            let text = corpus[line - 1]
            let key = "\(line)|\(size)"
            let layout = try prepared[key] ?? Fixtures.measurer.prepare(text, style: TextStyle(size: size, breaking: .browser))
            prepared[key] = layout
            let ours = try layout.layout(width: width)
            let linesAgree = ours.lineCount == lineCount
            let heightAgrees = abs(ours.height - height) <= PangoReference.heightTolerance
            for group in [ChromiumDifferentialTests.script(of: text.text), "all"] {
                tally[group, default: (0, 0, 0)].total += 1
                if linesAgree { tally[group, default: (0, 0, 0)].lines += 1 }
                if heightAgrees { tally[group, default: (0, 0, 0)].heights += 1 }
            }
            if !linesAgree || !heightAgrees {
                disagreements.append("styled:\(line) size \(size) width \(width): ours \(ours.lineCount) "
                    + "[\(ours.lines.map { String(format: "%.3f", $0.width) }.joined(separator: ","))] chromium \(lineCount); "
                    + "height ours \(ours.height) [\(ours.lines.map { String(format: "%g", $0.height) }.joined(separator: ","))] "
                    + "chromium \(height) \(PangoReference.escape(text.text))\(PangoReference.spansField(text.spans))")
            }
        }
        let summary = tally.keys.sorted { ($0 == "all" ? 1 : 0, $0) < ($1 == "all" ? 1 : 0, $1) }.map { group in
            let (lines, heights, total) = tally[group]!
            func percent(_ count: Int) -> String { String(format: "%.2f", 100 * Double(count) / Double(total)) }
            return "\(group): line counts \(lines)/\(total) = \(percent(lines)) %, heights \(heights)/\(total) = \(percent(heights)) %"
        }
        try? (summary + [""] + disagreements).joined(separator: "\n")
            .write(toFile: Fixtures.root + "/.build/chromium-styled-disagreements.txt", atomically: true, encoding: .utf8)
        print("Chromium agreement on styled text (.browser):\n  " + summary.joined(separator: "\n  "))
        let all = try #require(tally["all"])
        #expect(all.total == 27_000)
        #expect(Double(all.lines) >= Self.chromiumLines * Double(all.total), "\(summary.last ?? "")")
        #expect(Double(all.heights) >= Self.chromiumHeights * Double(all.total), "\(summary.last ?? "")")
    }

    /// The least agreement allowed (issue 32's bar was 99 % and 98 % for Pango; each is now under what
    /// is measured, in the README's table, by a few tenths, so that a regression fails).
    static let pangoLines = 0.996, pangoHeights = 0.994
    static let chromiumLines = 0.996, chromiumHeights = 0.993
}
