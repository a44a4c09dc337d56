import Foundation
import Testing
@testable import TextMeasure

/// Styled text: how spans combine, which faces they draw with, what they change in widths and
/// heights, and what they refuse. Agreement with Pango and Chromium over a styled corpus is
/// `StyledDifferentialTests`' job; these pin the rules down one by one.
@Suite("Styled text")
struct StyledTextTests {
    let measurer = Fixtures.measurer

    /// The style runs of `text` with `spans` in a 17 px style, as (first scalar, face, size).
    func runs(_ text: String, _ spans: [TextSpan]) throws -> [(scalar: Int, face: FaceKind, size: Double)] {
        var text = text
        let resolved: Result<StyleRuns?, TextMeasureError> = text.withUTF8 { bytes in
            Result { () throws(TextMeasureError) in try StyleRuns.resolve(spans, utf8: bytes, size: 17) }
        }
        guard let runs = try resolved.get() else { return [] }
        let scalarAt = Dictionary(uniqueKeysWithValues: text.unicodeScalars.indices.enumerated().map {
            (text.utf8.distance(from: text.utf8.startIndex, to: $0.element), $0.offset)
        })
        return runs.starts.map { (scalarAt[$0.byte]!, runs.styles[$0.style].face, runs.styles[$0.style].size) }
    }

    @Test func overlappingSpansCombineByTheRules() throws {
        // Any span sets bold, italic or monospace; the last span with a size sets the size.
        let resolved = try runs("abcdefghij", [
            TextSpan(0..<6, bold: true, size: 20),
            TextSpan(3..<9, italic: true, size: 12),
            TextSpan(5..<7, monospace: true),
        ])
        let expected: [(Int, FaceKind, Double)] = [
            (0, .bold, 20), (3, .boldItalic, 12), (5, .monospaceBold, 12), (6, .monospace, 12),
            (7, .italic, 12), (9, .regular, 17),
        ]
        #expect(resolved.count == expected.count)
        for (got, want) in zip(resolved, expected) {
            #expect(got.scalar == want.0 && got.face == want.1 && got.size == want.2, "\(got) != \(want)")
        }
        // An earlier span's size shows where no later sized span covers it.
        let sizes = try runs("abcdefghij", [TextSpan(0..<10, size: 30), TextSpan(2..<4, size: 10)])
        #expect(sizes.map(\.scalar) == [0, 2, 4] && sizes.map(\.size) == [30, 10, 30])
    }

    @Test func scalarOffsetsCountCodePointsNotBytesOrCharacters() throws {
        // "é" as e + U+0301 is two scalars; "👍🏽" is two scalars and eight bytes.
        let resolved = try runs("e\u{301}x👍🏽y", [TextSpan(2..<5, bold: true)])
        #expect(resolved.map(\.scalar) == [0, 2, 5] && resolved.map(\.face) == [.regular, .bold, .regular])
    }

    @Test func spansThatStyleNothingMeasureAsPlainText() throws {
        let text = "Styled text with nothing styled: the same lines and heights as the plain text."
        for breaking in LineBreaking.allCases {
            let style = TextStyle(size: 15, breaking: breaking)
            let plain = try measurer.measure(text, style: style, width: 180)
            for spans in [[], [TextSpan(3..<3, bold: true)], [TextSpan(0..<10)], [TextSpan(0..<10, size: 15)]] {
                #expect(try measurer.measure(StyledText(text, spans: spans), style: style, width: 180) == plain)
            }
        }
    }

    @Test func boldIsWiderAndMonospaceIsMonospaced() throws {
        let style = TextStyle(size: 20)
        let plain = try measurer.measure("Meeting notes", style: style, width: 1000).widestLineWidth
        let bold = try measurer.measure(StyledText("Meeting notes", spans: [TextSpan(0..<13, bold: true)]),
                                        style: style, width: 1000).widestLineWidth
        #expect(bold > plain)
        // Noto Sans Mono advances 0.6 em for every character, spaces included.
        for text in ["iiii iiii", "WWWW WWWW"] {
            let mono = try measurer.measure(StyledText(text, spans: [TextSpan(0..<9, monospace: true)]),
                                            style: style, width: 1000)
            #expect(abs(mono.widestLineWidth - 9 * 0.6 * 20) < 0.01, "\(text): \(mono.widestLineWidth)")
        }
    }

    @Test func facesWithoutABoldDrawRegular() throws {
        // Droid Sans Fallback has no bold bundled: bold CJK is as wide as regular CJK (no emboldening).
        let style = TextStyle(size: 17)
        let plain = try measurer.measure("中文字体测试", style: style, width: 1000)
        let bold = try measurer.measure(StyledText("中文字体测试", spans: [TextSpan(0..<6, bold: true)]),
                                        style: style, width: 1000)
        #expect(bold.widestLineWidth == plain.widestLineWidth && bold.height == plain.height)
    }

    @Test(arguments: LineBreaking.allCases)
    func aLargerSpanMakesItsLineTaller(breaking: LineBreaking) throws {
        let style = TextStyle(size: 16, breaking: breaking)
        let text = StyledText("Title in large type, then the body text that follows it on later lines",
                              spans: [TextSpan(0..<5, size: 32)])
        let measured = try measurer.measure(text, style: style, width: 220)
        let plainLine = try measurer.lineHeight(for: style)
        #expect(measured.lineCount > 1)
        // The first line holds the 32 px run: as tall as Noto Sans at 32 px (Pango: exact; Blink: the
        // rounded metrics), about twice the others.
        let large = try measurer.lineHeight(for: TextStyle(size: 32, breaking: breaking))
        #expect(measured.lines[0].height == large)
        for line in measured.lines.dropFirst() { #expect(line.height == plainLine) }
        #expect(measured.height == measured.lines.reduce(0) { $0 + $1.height })
    }

    @Test func aSmallerSpanKeepsTheBrowserStrutButNotPangos() throws {
        // Blink's line box holds the paragraph's strut whatever is on it; Pango's only the fonts that draw.
        let text = StyledText("tiny", spans: [TextSpan(0..<4, size: 8)])
        let browser = try measurer.measure(text, style: TextStyle(size: 20, breaking: .browser), width: 500)
        #expect(browser.height == (try measurer.lineHeight(for: TextStyle(size: 20, breaking: .browser))))
        let pango = try measurer.measure(text, style: TextStyle(size: 20), width: 500)
        #expect(pango.height == (try measurer.lineHeight(for: TextStyle(size: 8))))
    }

    @Test func aGraphemeClusterTakesTheStyleOfItsFirstScalar() throws {
        // A span starting between "e" and its combining accent styles nothing of the cluster; one
        // starting on the "e" styles all of it.
        let style = TextStyle(size: 20)
        let plain = try measurer.measure("xe\u{301}x", style: style, width: 1000)
        let inside = try measurer.measure(StyledText("xe\u{301}x", spans: [TextSpan(2..<3, bold: true)]),
                                          style: style, width: 1000)
        #expect(inside == plain)
        let whole = try measurer.measure(StyledText("xe\u{301}x", spans: [TextSpan(1..<2, bold: true)]), style: style,
                                         width: 1000)
        let boldCluster = try measurer.measure(StyledText("xe\u{301}x", spans: [TextSpan(1..<3, bold: true)]),
                                               style: style, width: 1000)
        #expect(whole.widestLineWidth == boldCluster.widestLineWidth && whole.widestLineWidth != plain.widestLineWidth)
    }

    @Test func preparedStyledTextLaysOutAsMeasuredAtEveryWidth() throws {
        let text = StyledText("Anna: did you see parse_header() in main.c? It breaks on CRLF input.",
                              spans: [TextSpan(0..<5, bold: true), TextSpan(18..<32, monospace: true),
                                      TextSpan(58..<62, italic: true, size: 22)])
        for breaking in LineBreaking.allCases {
            let style = TextStyle(size: 15, breaking: breaking)
            let prepared = try measurer.prepare(text, style: style)
            #expect(prepared.spans == text.spans)
            for width in stride(from: 40.0, through: 600, by: 7.25) {
                let laidOut = try prepared.layout(width: width)
                #expect(laidOut == (try measurer.measure(text, style: style, width: width)))
                // The valid widths hold and are tight, as for plain text.
                #expect(laidOut.validWidths.contains(width))
                let lower = laidOut.validWidths.lowerBound, upper = laidOut.validWidths.upperBound
                if lower > 0.01 { #expect(try prepared.layout(width: lower - 0.01).lines != laidOut.lines) }
                if upper.isFinite { #expect(try prepared.layout(width: upper).lines != laidOut.lines) }
            }
        }
    }

    @Test func badSpansAreRefusedNamingTheSpanAndField() throws {
        let cases: [(TextSpan, TextMeasureError, String)] = [
            (TextSpan(start: -1, end: 2), .invalidSpanRange(span: 1, start: -1, end: 2, scalarCount: 5),
             "spans[1].start -1 is out of range: must be an integer from 0"),
            (TextSpan(start: 4, end: 2), .invalidSpanRange(span: 1, start: 4, end: 2, scalarCount: 5),
             "spans[1].start 4 is after spans[1].end 2"),
            (TextSpan(start: 0, end: 6), .invalidSpanRange(span: 1, start: 0, end: 6, scalarCount: 5),
             "spans[1].end 6 is past the end of the text: it has 5 Unicode scalars"),
            (TextSpan(start: 0, end: 1, size: .nan), .invalidSpanSize(span: 1, size: .nan), "spans[1].size nan"),
            (TextSpan(start: 0, end: 1, size: 20_000), .invalidSpanSize(span: 1, size: 20_000),
             "spans[1].size 20000 is out of range: must be a finite number from 0.01 to 10000"),
        ]
        for (bad, expected, message) in cases {
            let text = StyledText("héllo", spans: [TextSpan(0..<1, bold: true), bad])
            #expect {
                _ = try measurer.measure(text, style: TextStyle(), width: 100)
            } throws: { error in
                guard let error = error as? TextMeasureError else { return false }
                if case .invalidSpanSize(let span, let size) = expected, size.isNaN {
                    guard case .invalidSpanSize(span, let got) = error, got.isNaN else { return false }
                } else if error != expected {
                    return false
                }
                return error.description.hasPrefix(message)
            }
        }
        let many = StyledText("x", spans: Array(repeating: TextSpan(0..<1, bold: true), count: 10_001))
        #expect(throws: TextMeasureError.tooManySpans(count: 10_001)) {
            _ = try measurer.prepare(many, style: TextStyle())
        }
    }

    @Test func manySpansResolveInLinearishTime() throws {
        // 10,000 nested sized spans over a 20,000-character text: resolved by sweeping, not span by
        // interval (which would be 10^8 steps).
        let text = String(repeating: "ab ", count: 6_667)
        let spans = (0..<10_000).map { TextSpan($0..<(20_000 - $0), bold: $0 % 2 == 0, size: Double(10 + $0 % 7)) }
        let measured = try measurer.measure(StyledText(text, spans: spans), style: TextStyle(size: 14), width: 400)
        #expect(measured.lineCount > 100)
    }

    @Test func fontsGivenPerFaceAreUsedAndMissingFacesFallBack() throws {
        let folder = try BundledFonts.files()[0].path.replacingOccurrences(of: "/NotoSans-Regular.ttf", with: "")
        let regular = try FontCascade(files: [FontFile(path: folder + "/NotoSans-Regular.ttf")])
        let mono = try FontCascade(files: [FontFile(path: folder + "/NotoSansMono-Regular.ttf")])
        let onlyMono = TextMeasurer(cascades: FontCascades(regular: regular, monospace: mono))
        let style = TextStyle(size: 10)
        let text = StyledText("iiii", spans: [TextSpan(0..<4, bold: true, monospace: true)])
        // Bold monospace falls back to monospace; bold alone to regular.
        #expect(try onlyMono.measure(text, style: style, width: 500).widestLineWidth == 24)
        let bold = try onlyMono.measure(StyledText("iiii", spans: [TextSpan(0..<4, bold: true)]), style: style, width: 500)
        #expect(bold == (try onlyMono.measure("iiii", style: style, width: 500)))
        // A measurer of one cascade draws every face with it.
        let single = TextMeasurer(cascade: regular)
        #expect(try single.measure(text, style: style, width: 500) == (try single.measure("iiii", style: style, width: 500)))
    }

    @Test func styledTextIsMeasuredAlikeFromManyThreads() async throws {
        let texts = (0..<64).map { i in
            StyledText("Row \(i): **bold** and `code` and big text \(i * 7)",
                       spans: [TextSpan(0..<(4 + i % 3), bold: true), TextSpan(12..<20, monospace: i % 2 == 0),
                               TextSpan(25..<28, italic: true, size: Double(12 + i % 9))])
        }
        let serial = try texts.map { try measurer.measure($0, style: TextStyle(size: 15), width: 160) }
        let fresh = try TextMeasurer()
        try await withThrowingTaskGroup(of: (Int, TextMeasurement).self) { group in
            for (index, text) in texts.enumerated() {
                group.addTask { (index, try fresh.measure(text, style: TextStyle(size: 15), width: 160)) }
            }
            for try await (index, measured) in group { #expect(measured == serial[index]) }
        }
    }
}
