import Foundation
import TestSupport
import TextMeasure

/// Pango 1.50 as the reference for line counts and heights: builds Tools/pango-reference/pango_lines.c,
/// feeds it items, and compares its answers with ours. Used by every differential test.
enum PangoReference {
    /// One layout to compare: a text at a size and a width (pixels).
    struct Case {
        var text: String
        var size: Double
        var width: Double
        /// A styled text's spans (see `StyledText`); none for plain text.
        var spans: [TextSpan] = []
    }

    /// How our line counts and heights compared with Pango's.
    struct Comparison {
        var agreements: Int
        /// Layouts whose height is within ``heightTolerance`` of Pango's layout height.
        var heightAgreements = 0
        /// Layouts whose every line is exactly as tall as Pango's, in Pango units (1/1024 px).
        var exactHeightAgreements = 0
        var total: Int
        /// One line per disagreement in count or height: size, width, both line counts with their
        /// widths, both heights with each line's (1/1024 px), text.
        var disagreements: [String]

        var agreement: Double { total == 0 ? 1 : Double(agreements) / Double(total) }
        var heightAgreement: Double { total == 0 ? 1 : Double(heightAgreements) / Double(total) }
        var summary: String {
            "line counts \(agreements)/\(total) = \(String(format: "%.2f", agreement * 100)) %, "
                + "heights \(heightAgreements)/\(total) = \(String(format: "%.2f", heightAgreement * 100)) %"
        }
    }

    /// How far our height may be from Pango's and still agree, in pixels (what a user would see).
    static let heightTolerance = 0.5

    struct HarnessError: Error, CustomStringConvertible { var message: String; var description: String { message } }

    /// Every text at every size and width, in that order.
    static func cases(texts: [String], sizes: [Double], widths: [Double]) -> [Case] {
        texts.flatMap { text in sizes.flatMap { size in widths.map { Case(text: text, size: size, width: $0) } } }
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\t", with: "\\t")
    }

    /// The harness's SPANS field for `spans` (a tab, then `start,end,flags,size` joined by `;`), or
    /// nothing for plain text.
    static func spansField(_ spans: [TextSpan]) -> String {
        guard !spans.isEmpty else { return "" }
        return "\t" + spans.map { span in
            let flags = (span.bold ? "b" : "") + (span.italic ? "i" : "") + (span.monospace ? "m" : "")
            return "\(span.start),\(span.end),\(flags.isEmpty ? "-" : flags),\(span.size.map { "\($0)" } ?? "-")"
        }.joined(separator: ";")
    }

    /// Builds the harness into a temporary folder; returns its path.
    static func buildHarness() throws -> String {
        let output = NSTemporaryDirectory() + "pango-lines-\(getpid())-\(UUID().uuidString)"
        let source = Fixtures.root + "/Tools/pango-reference/pango_lines.c"
        let build = try ProcessRunner.shell(
            "cc -O2 '\(source)' $(pkg-config --cflags --libs pangocairo pangoft2 fontconfig) -o '\(output)'")
        guard build.status == 0 else {
            throw HarnessError(message: "cannot build the Pango harness (install libpango1.0-dev: scripts/bootstrap): \(build.stderr)")
        }
        return output
    }

    /// Lays out every case with Pango and with `measurer` (each text prepared once per size) and
    /// compares the line counts and the heights (Pango's layout height: its lines' logical heights
    /// added up); writes the summary and every disagreement to `.build/<reportName>`.
    static func compare(_ cases: [Case], measurer: TextMeasurer = Fixtures.measurer,
                        reportName: String) throws -> Comparison {
        let harness = try buildHarness()
        defer { unlink(harness) }
        let input = cases.map { "\($0.size)\t\($0.width)\t\(escape($0.text))" + spansField($0.spans) }
            .joined(separator: "\n") + "\n"
        let regular = BundledFonts.fileNames.map { "'\(Fixtures.root)/Fonts/\($0)'" }.joined(separator: " ")
        // The monospaced faces are what fontconfig matches for `monospace`, the family Pango draws
        // hex boxes' digits in, as the measurer does (see `HexBoxDigitFaces`); they are in no family
        // list, so they draw nothing else.
        let monospace = [BundledFonts.monospaceFileNames[0], BundledFonts.monospaceBoldFileNames[0]]
        var fonts = monospace.map { "--face '\(Fixtures.root)/Fonts/\($0)'" }.joined(separator: " ") + " " + regular
        if cases.contains(where: { !$0.spans.isEmpty }) {
            // The other faces of styled text, for fontconfig to pick by weight and slant; the mono list.
            let faces = Set(BundledFonts.boldFileNames + BundledFonts.italicFileNames + BundledFonts.boldItalicFileNames
                            + BundledFonts.monospaceFileNames + BundledFonts.monospaceBoldFileNames)
                .subtracting(BundledFonts.fileNames).sorted()
            fonts = faces.map { "--face '\(Fixtures.root)/Fonts/\($0)'" }.joined(separator: " ")
                + " --mono-family 'Noto Sans Mono' " + regular
        }
        let run = try ProcessRunner.shell("'\(harness)' \(fonts)", input: input)
        guard run.status == 0 else { throw HarnessError(message: "harness failed: \(run.stderr)") }
        let reference = run.lines
        guard reference.count == cases.count else {
            throw HarnessError(message: "harness answered \(reference.count) of \(cases.count) items")
        }

        var prepared: [String: PreparedText] = [:]
        var comparison = Comparison(agreements: 0, total: cases.count, disagreements: [])
        for (item, answer) in zip(cases, reference) {
            let fields = answer.split(separator: "\t", omittingEmptySubsequences: false)
            guard let expected = fields.first.flatMap({ Int($0) }) else {
                throw HarnessError(message: "harness answered '\(answer)'")
            }
            let key = "\(item.size)|\(item.text)|\(item.spans)"
            let text = try prepared[key] ?? measurer.prepare(StyledText(item.text, spans: item.spans),
                                                             style: TextStyle(size: item.size))
            prepared[key] = text
            let ours = try text.layout(width: item.width)
            let pangoHeights = fields.count > 2 ? fields[2].split(separator: ",").compactMap { Int($0) } : []
            guard pangoHeights.count == expected else {
                throw HarnessError(message: "harness answered '\(answer)': \(expected) lines, \(pangoHeights.count) heights")
            }
            let pangoHeight = Double(pangoHeights.reduce(0, +)) / 1024
            let countAgrees = ours.lineCount == expected
            let heightAgrees = abs(ours.height - pangoHeight) <= heightTolerance
            if countAgrees { comparison.agreements += 1 }
            if heightAgrees { comparison.heightAgreements += 1 }
            if countAgrees && ours.lines.map({ Int(($0.height * 1024).rounded()) }) == pangoHeights {
                comparison.exactHeightAgreements += 1
            }
            if !countAgrees || !heightAgrees {
                func units(_ values: [Double]) -> String { values.map { String(Int(($0 * 1024).rounded())) }.joined(separator: ",") }
                comparison.disagreements.append(
                    "size \(item.size) width \(item.width): ours \(ours.lineCount) [\(units(ours.lines.map(\.width)))] "
                        + "pango \(expected) [\(fields.count > 1 ? fields[1] : "")]; height ours \(ours.height) "
                        + "[\(units(ours.lines.map(\.height)))] pango \(pangoHeight) [\(fields.count > 2 ? fields[2] : "")] "
                        + escape(item.text) + spansField(item.spans))
            }
        }
        let reportPath = Fixtures.root + "/.build/" + reportName
        try? ([comparison.summary] + comparison.disagreements).joined(separator: "\n")
            .write(toFile: reportPath, atomically: true, encoding: .utf8)
        return comparison
    }
}
