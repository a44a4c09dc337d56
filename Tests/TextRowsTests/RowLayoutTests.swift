import Testing
@testable import TextRows
@testable import ListLayout
import TextMeasure

struct Message: Hashable, Sendable {
    var author: String
    var body: String
    var hasImage = false
}

@Suite("Row layouts")
struct RowLayoutTests {
    static let measurer: TextMeasurer = try! TextMeasurer()
    static let texts = PreparedTextCache(measurer: measurer)
    static let authorStyle = TextStyle(size: 15, maxLines: 1)
    static let bodyStyle = TextStyle(size: 17)
    static let layout = RowLayout<Message>(
        insets: RowInsets(top: 12, leading: 72, bottom: 12, trailing: 16),
        spacing: 4,
        minimumHeight: 64,
        elements: [
            .text(\.author, style: authorStyle),
            .text(\.body, style: bodyStyle, trailingInset: 8),
            .fixed(180, collapsesWhen: { !$0.hasImage }),
        ])

    func text(_ string: String, _ style: TextStyle, _ width: Double) throws -> TextMeasurement {
        try Self.measurer.measure(string, style: style, width: width)
    }

    @Test func heightIsInsetsPlusStackPlusSpacing() throws {
        let message = Message(author: "Ada Lovelace", body: "The Analytical Engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves.", hasImage: true)
        let width = 390.0
        let row = try Self.layout.measure(message, width: width, texts: Self.texts)
        let author = try text(message.author, Self.authorStyle, width - 88)
        let body = try text(message.body, Self.bodyStyle, width - 96)
        #expect(row.height == 12 + author.height + 4 + body.height + 4 + 180 + 12)
        #expect(row.lineCount == author.lineCount + body.lineCount)
    }

    @Test func emptyTextAndFixedPartsCollapseWithTheirSpacing() throws {
        let noBody = Message(author: "Grace Hopper", body: "")
        let row = try Self.layout.measure(noBody, width: 390, texts: Self.texts)
        let author = try text(noBody.author, Self.authorStyle, 302)
        #expect(row.height == max(64, 12 + author.height + 12))
        let keep = RowLayout<Message>(spacing: 10, elements: [
            .text(\.author, style: Self.authorStyle), .text(\.body, style: Self.bodyStyle, collapsesWhenEmpty: false),
        ])
        let kept = try keep.measure(noBody, width: 390, texts: Self.texts)
        #expect(kept.height == author.height + 10)   // an empty text that does not collapse: 0 lines, but its spacing stays
    }

    @Test func minimumHeightApplies() throws {
        // 12 + one 15 px line (20.4) + 12 is below the 64 px minimum.
        let row = try Self.layout.measure(Message(author: "A", body: ""), width: 390, texts: Self.texts)
        #expect(row.height == 64)
        let taller = try Self.layout.measure(Message(author: "A", body: "B"), width: 390, texts: Self.texts)
        #expect(taller.height > 64)
    }

    @Test func validWidthsAreTheIntersectionOfTheTextBlocksShiftedByInsets() throws {
        let message = Message(author: "Katherine Johnson", body: "Trajectory analysis for Freedom 7, America's first human spaceflight, in 1961.")
        let width = 300.0
        let row = try Self.layout.measure(message, width: width, texts: Self.texts)
        let author = try text(message.author, Self.authorStyle, width - 88)
        let body = try text(message.body, Self.bodyStyle, width - 96)
        let lower = max(author.validWidths.lowerBound + 88, body.validWidths.lowerBound + 96)
        let upper = min(author.validWidths.upperBound + 88, body.validWidths.upperBound + 96)
        #expect(row.validWidths == lower..<upper)
        #expect(row.validWidths.contains(width))
        for probe in [lower, (lower + width) / 2, upper.nextDown] where upper.isFinite {
            #expect(try Self.layout.measure(message, width: probe, texts: Self.texts).height == row.height)
        }
    }

    @Test func widthsNarrowerThanTheInsetsStillMeasure() throws {
        let row = try Self.layout.measure(Message(author: "Ada", body: "Notes"), width: 20, texts: Self.texts)
        #expect(row.height > 64)   // one cluster per line
        #expect(row.validWidths.lowerBound == 0)
    }

    @Test func aLayoutCacheReusesHeightsAcrossWidthsInsideTheirRange() throws {
        let cache = try HeightCache(layout: Self.layout, measurer: Self.measurer)
        let message = Message(author: "Margaret Hamilton", body: "Software engineering for the Apollo guidance computer.")
        let first = cache.measurement(for: message, width: 390)
        let inside = (first.validWidths.lowerBound + 390) / 2
        #expect(cache.height(for: message, width: inside) == first.height)
        #expect(cache.statistics.rangeHits == 1)
        #expect(cache.statistics.misses == 1)
    }

    /// The estimate learns from measured rows: once rows of a layout have been measured, estimates of
    /// similar rows that were not are closer to their true heights than before.
    @Test func estimatesLearnFromMeasuredRows() throws {
        let bodies = (0..<60).map { i in
            String(repeating: "Measured rows teach the estimate how wide this text really is. ", count: 1 + i % 5) + "\(i)"
        }
        let messages = bodies.map { Message(author: "Reader", body: $0) }
        let training = Array(messages.prefix(40)), heldOut = Array(messages.suffix(20))
        let cache = try HeightCache(layout: Self.layout, measurer: Self.measurer)
        let width = 360.0
        func meanError() -> Double {
            heldOut.map { message in
                let exact = (try? Self.layout.measure(message, width: width, texts: Self.texts).height) ?? 0
                return abs(cache.estimatedHeight(for: message, width: width) - exact) / exact
            }.reduce(0, +) / Double(heldOut.count)
        }
        let before = meanError()
        for message in training { _ = cache.height(for: message, width: width) }
        let after = meanError()
        #expect(after < before, "mean relative error \(before) before learning, \(after) after")
        // Held-out rows were only estimated, never measured.
        #expect(heldOut.allSatisfy { cache.cachedHeight(for: $0, width: width) == nil })
    }

    @Test func invalidStylesAreRefusedWhenTheCacheIsMade() {
        let bad = RowLayout<Message>(elements: [.text(\.body, style: TextStyle(size: -1))])
        #expect(throws: TextMeasureError.invalidSize(-1)) { try HeightCache(layout: bad, measurer: Self.measurer) }
    }

    /// A chat message whose sender name is bold, run into its body.
    struct StyledMessage: Hashable, Sendable {
        var text: StyledText
    }

    @Test func styledBlocksMeasureTheirSpansAndHeightsKeyOnThem() throws {
        let style = TextStyle(size: 15)
        let layout = RowLayout<StyledMessage>(insets: RowInsets(all: 8), elements: [.styledText(\.text, style: style)])
        let cache = try HeightCache(layout: layout, measurer: Self.measurer)
        let body = "Anna: the build is green again, and parse_header() handles CRLF input now."
        let plain = StyledMessage(text: StyledText(body))
        let styled = StyledMessage(text: StyledText(body, spans: [TextSpan(0..<5, bold: true),
                                                                 TextSpan(36..<50, monospace: true, size: 22)]))
        for width in [140.0, 220, 300] {
            let expected = try Self.measurer.measure(styled.text, style: style, width: width - 16).height + 16
            #expect(cache.height(for: styled, width: width) == expected)
            #expect(cache.height(for: plain, width: width)
                    == (try Self.measurer.measure(body, style: style, width: width - 16)).height + 16)
            #expect(cache.height(for: styled, width: width) != cache.height(for: plain, width: width))
        }
    }

    @Test func styledBlocksWithBadSpansMeasureAsPlainTextInsteadOfFailing() throws {
        let style = TextStyle(size: 15)
        let layout = RowLayout<StyledMessage>(elements: [.styledText(\.text, style: style)])
        let cache = try HeightCache(layout: layout, measurer: Self.measurer)
        let bad = StyledMessage(text: StyledText("short", spans: [TextSpan(0..<99, bold: true)]))
        #expect(cache.height(for: bad, width: 200) == (try Self.measurer.measure("short", style: style, width: 200)).height)
    }
}
