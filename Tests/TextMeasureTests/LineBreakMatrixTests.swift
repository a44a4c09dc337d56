import CUnicodeBreak
import Foundation
import TestSupport
import Testing
@testable import TextMeasure

/// Break opportunities in the browser modes against Chromium 156's, character by character: each
/// fixture row is a short text (a character before, one under test, one after) and the code point
/// offsets where Chromium ends its lines at min-content width (`overflow-wrap: normal`), where every
/// opportunity ends a line. Made by `Tools/chromium-reference/break_matrix.py`, committed, so no
/// browser is needed. Ours: `cub_analyze_with`, then ``BrowserBreakRules``, as ``Preparer`` does.
@Suite("Line-break matrices against Chromium")
struct LineBreakMatrixTests {
    struct Row {
        var strictness: Int32
        var text: String
        var breaks: [Int]
    }

    static func rows(_ name: String) throws -> [Row] {
        let path = Fixtures.root + "/Tests/Fixtures/chromium/\(name).tsv"
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { row in
            guard !row.hasPrefix("#"), !row.hasPrefix("strictness\t") else { return nil }
            let fields = row.split(separator: "\t", omittingEmptySubsequences: false)
            let strictness: Int32? = switch fields.first {
            case "normal": Int32(CUB_STRICTNESS_NORMAL)
            case "strict": Int32(CUB_STRICTNESS_STRICT)
            default: nil
            }
            let breaks = fields.count == 3 && fields[2] != "-" ? fields[2].split(separator: ",").compactMap { Int($0) } : []
            guard let strictness, fields.count == 3,
                  fields[2] == "-" || breaks.count == fields[2].split(separator: ",").count else {
                throw ChromiumDifferentialTests.FixtureError(description: "\(path): bad row '\(row)'")
            }
            return Row(strictness: strictness, text: Corpus.unescape(String(fields[1])), breaks: breaks)
        }
    }

    /// The code point offsets, strictly inside `text`, of the browser modes' break opportunities.
    static func breaks(_ text: String, strictness: Int32) -> [Int] {
        let bytes = Array(text.utf8)
        var flags = [UInt8](repeating: 0, count: bytes.count + 1)
        bytes.withUnsafeBufferPointer { bytes in
            flags.withUnsafeMutableBufferPointer { flags in
                let status = bytes.withMemoryRebound(to: CChar.self) {
                    cub_analyze_with($0.baseAddress, Int32($0.count), flags.baseAddress, strictness)
                }
                #expect(status == 0)
                BrowserBreakRules.apply(to: flags, bytes: bytes, strictness: strictness)
            }
        }
        var offsets: [Int] = []
        var scalar = 0
        for (i, byte) in bytes.enumerated() where byte & 0xC0 != 0x80 {
            if i > 0 && flags[i] & UInt8(CUB_LINE_BREAK) != 0 { offsets.append(scalar) }
            scalar += 1
        }
        return offsets
    }

    /// Quotation marks between East Asian and other characters (Unicode 15.1's LB19a: a break before
    /// "“" and after "”" between two East Asian characters, none around "\"" and "'"), after and before
    /// marks, brackets, small kana and the rest, in both strictness values: every row as Chromium.
    @Test func quotationMarksBreakAsChromium() throws {
        let rows = try Self.rows("quote-breaks")
        #expect(rows.count == 17_280)
        var disagreements: [String] = []
        for row in rows {
            let ours = Self.breaks(row.text, strictness: row.strictness)
            if ours != row.breaks {
                disagreements.append("\(row.strictness) \(row.text.debugDescription): Chromium \(row.breaks), ours \(ours)")
            }
        }
        let differing = disagreements.count
        #expect(differing == 0, "rows that differ, the first 20:\n\(disagreements.prefix(20).joined(separator: "\n"))")
        // The matrix holds both kinds of answer: the rule is not vacuous.
        #expect(rows.contains { $0.text == "中“中" && $0.breaks == [1] })
        #expect(rows.contains { $0.text == "中”中" && $0.breaks == [2] })
    }
}
