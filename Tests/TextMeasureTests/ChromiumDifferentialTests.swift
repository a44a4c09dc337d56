import Foundation
import Testing
import TextMeasure

/// Line counts in ``LineBreaking/browser`` against headless Chromium 156, from the committed fixtures
/// (`Tests/Fixtures/chromium/*.tsv`, made by `Tools/chromium-reference/chromium_lines.py fixtures`):
/// no browser is needed to run it. Every disagreement is written to
/// `.build/chromium-disagreements.txt`; what they are and why: `docs/chromium-differences.md`.
@Suite("Chromium differential")
struct ChromiumDifferentialTests {
    /// One fixture row: a corpus text at a size and a width, and Chromium's line count.
    struct Case {
        var corpus: String
        var line: Int
        var text: String
        var size: Double
        var width: Double
        var lineCount: Int
    }

    /// The fewest agreeing layouts allowed per dominant script (see ``script(of:)``) and overall
    /// ("all"): one below what was measured (in the comment), so that any regression of two layouts
    /// fails; Latin, the issue's target of 100 %, allows none. What the disagreements left are, and
    /// why: `docs/chromium-differences.md`.
    static let minimumAgreeing: [String: Int] = [
        "Arabic": 1_137,                                // 1,138 / 1,140 = 99.82 %
        "Chinese (Han)": 599,                           // 600 / 600
        "Cyrillic": 479,                                // 480 / 480
        "Devanagari": 839,                              // 840 / 840
        "Greek": 299,                                   // 300 / 300
        "Hangul": 466,                                  // 467 / 480 = 97.29 % (Chromium's fallback quirk)
        "Hebrew": 479,                                  // 480 / 480
        "Japanese (Kana + Han)": 539,                   // 540 / 540
        "Latin": 6_720,                                 // 6,720 / 6,720 = 100 %
        "Thai": 528,                                    // 529 / 540 = 97.96 % (ICU dictionaries)
        "emoji": 539,                                   // 540 / 540
        "math/symbols": 58,                             // 59 / 60
        "mixed": 719,                                   // 720 / 720
        "other (digits, punctuation, spaces)": 119,     // 120 / 120
        "all": 13_532,                                  // 13,533 / 13,560 = 99.80 %
    ]

    @Test("`.browser` agrees with Chromium per script")
    func lineCountsAgreeWithChromium() throws {
        let cases = try Self.cases(corpus: "multilingual") + Self.cases(corpus: "forced-breaks")
        #expect(cases.count == 13_560)
        var prepared: [String: PreparedText] = [:]
        var tally: [String: (agree: Int, total: Int)] = [:]
        var disagreements: [String] = []
        for item in cases {
            let key = "\(item.size)|\(item.text)"
            let text = try prepared[key]
                ?? Fixtures.measurer.prepare(item.text, style: TextStyle(size: item.size, breaking: .browser))
            prepared[key] = text
            let ours = try text.layout(width: item.width)
            let agrees = ours.lineCount == item.lineCount
            for group in [Self.script(of: item.text), "all"] {
                tally[group, default: (0, 0)].total += 1
                if agrees { tally[group, default: (0, 0)].agree += 1 }
            }
            if !agrees {
                let widths = ours.lines.map { String(format: "%.3f", $0.width) }.joined(separator: ",")
                disagreements.append("\(item.corpus):\(item.line) size \(item.size) width \(item.width): "
                    + "ours \(ours.lineCount) [\(widths)] chromium \(item.lineCount) \(PangoReference.escape(item.text))")
            }
        }
        let summary = tally.keys.sorted { ($0 == "all" ? 1 : 0, $0) < ($1 == "all" ? 1 : 0, $1) }.map { group in
            let (agree, total) = tally[group]!
            return "\(group): \(agree)/\(total) = \(String(format: "%.2f", 100 * Double(agree) / Double(total))) %"
        }
        try? (summary + [""] + disagreements).joined(separator: "\n")
            .write(toFile: Fixtures.root + "/.build/chromium-disagreements.txt", atomically: true, encoding: .utf8)
        print("Chromium agreement (.browser):\n  " + summary.joined(separator: "\n  "))
        for (group, (agree, total)) in tally {
            let minimum = Self.minimumAgreeing[group] ?? total
            #expect(agree >= minimum, "\(group): \(agree)/\(total), at least \(minimum) expected; disagreements in .build/chromium-disagreements.txt")
        }
        // The issue's target: 99.5 % overall.
        #expect(Double(tally["all"]!.agree) >= 0.995 * Double(cases.count))
    }

    /// The rows of `Tests/Fixtures/chromium/<corpus>.tsv` with their texts from `Tests/Corpus/<corpus>.txt`.
    static func cases(corpus: String) throws -> [Case] {
        let texts = Fixtures.corpus(named: corpus + ".txt")
        let path = Fixtures.root + "/Tests/Fixtures/chromium/\(corpus).tsv"
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { row in
            guard !row.hasPrefix("#"), !row.hasPrefix("line\t") else { return nil }
            let fields = row.split(separator: "\t")
            guard fields.count == 4, let line = Int(fields[0]), let size = Double(fields[1]),
                  let width = Double(fields[2]), let count = Int(fields[3]), texts.indices.contains(line - 1) else {
                throw FixtureError(description: "\(path): bad row '\(row)'")
            }
            return Case(corpus: corpus, line: line, text: texts[line - 1], size: size, width: width, lineCount: count)
        }
    }

    struct FixtureError: Error, CustomStringConvertible { var description: String }

    /// A text's dominant script, as `Tools/chromium-reference/compare.py` classes it: letters vote by
    /// their script (digits, punctuation, spaces and marks do not); Kana with Han holding ≥ 60 % of
    /// the votes is Japanese, else a script with ≥ 75 % wins, else "mixed".
    static func script(of text: String) -> String {
        var votes: [String: Int] = [:]
        for scalar in text.unicodeScalars {
            if let script = script(of: scalar) { votes[script, default: 0] += 1 }
        }
        let total = votes.values.reduce(0, +)
        guard total > 0 else { return "other (digits, punctuation, spaces)" }
        let kana = votes["Kana"] ?? 0
        if kana > 0 && Double(kana + (votes["Han"] ?? 0)) >= 0.6 * Double(total) { return "Japanese (Kana + Han)" }
        let (top, count) = votes.max { ($0.value, $1.key) < ($1.value, $0.key) }!
        guard Double(count) >= 0.75 * Double(total) else { return "mixed" }
        return top == "Han" ? "Chinese (Han)" : top
    }

    private static func script(of scalar: Unicode.Scalar) -> String? {
        let value = scalar.value
        if (0x1F000...0x1FAFF).contains(value) || (0x2600...0x27BF).contains(value) || value == 0x200D
            || value == 0xFE0F || (0x1F1E6...0x1F1FF).contains(value) {
            return "emoji"
        }
        guard let name = scalar.properties.name else { return nil }
        let prefixes: [(String, String)] = [
            ("LATIN", "Latin"), ("CYRILLIC", "Cyrillic"), ("GREEK", "Greek"), ("ARABIC", "Arabic"),
            ("HEBREW", "Hebrew"), ("DEVANAGARI", "Devanagari"), ("THAI", "Thai"), ("HIRAGANA", "Kana"),
            ("KATAKANA", "Kana"), ("HANGUL", "Hangul"), ("CJK UNIFIED", "Han"), ("CJK COMPATIBILITY IDEOGRAPH", "Han"),
            ("MATHEMATICAL", "math/symbols"),
        ]
        if let match = prefixes.first(where: { name.hasPrefix($0.0) }) { return match.1 }
        switch scalar.properties.generalCategory {
        case .mathSymbol, .otherSymbol: return "math/symbols"
        default: return nil
        }
    }
}
