import Foundation
import Testing
import TextMeasure
@testable import TextMeasureBatch

/// Styled text in the batch protocol: `"spans": [{"start", "end", "bold"?, "italic"?, "mono"?,
/// "size"?}]` (Unicode scalars of `"text"`, `end` exclusive). A line with good spans gets the
/// library's styled measurement; a line with a bad span gets an error naming the span's index and
/// field, and the lines around it are measured.
@Suite("Batch spans")
struct BatchSpansTests {
    let measurer = BatchHarness.measurer

    func output(_ lines: [String]) throws -> [String] {
        try BatchHarness.run(Array((lines.joined(separator: "\n") + "\n").utf8), chunk: 64)
    }

    func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func styledLinesGetTheLibrarysStyledMeasurement() throws {
        let text = "Anna: see parse_header() in main.c, it breaks on CRLF"
        let spans = [TextSpan(0..<5, bold: true), TextSpan(10..<24, monospace: true), TextSpan(28..<34, italic: true, size: 24)]
        let json = #"[{"start":0,"end":5,"bold":true},{"start":10,"end":24,"mono":true},{"start":28,"end":34,"italic":true,"size":24}]"#
        for breaking in LineBreaking.allCases {
            for width in [90.0, 160, 300] {
                let lines = try output([
                    #"{"text":"\#(text)","width":\#(width),"breaking":"\#(breaking.rawValue)","spans":\#(json),"id":7}"#,
                    #"{"text":"\#(text)","width":\#(width),"breaking":"\#(breaking.rawValue)","id":8}"#,
                ])
                let style = TextStyle(size: 17, breaking: breaking)
                let styled = try measurer.measure(StyledText(text, spans: spans), style: style, width: width)
                let plain = try measurer.measure(text, style: style, width: width)
                let first = try object(lines[0]), second = try object(lines[1])
                #expect(first["height"] as? Double == styled.height && first["lineCount"] as? Int == styled.lineCount)
                #expect(second["height"] as? Double == plain.height && second["lineCount"] as? Int == plain.lineCount)
                #expect(first["id"] as? Int == 7 && first["spans"] == nil, "spans are read, not echoed: \(lines[0])")
            }
        }
    }

    /// The same text token on consecutive lines with other spans is not laid out from the previous
    /// line's prepared text.
    @Test func consecutiveLinesWithTheSameTextAndOtherSpansAreMeasuredApart() throws {
        let text = "Big heading over body text that wraps"
        let lines = try output([
            #"{"text":"\#(text)","width":120}"#,
            #"{"text":"\#(text)","width":120,"spans":[{"start":0,"end":11,"size":30}]}"#,
            #"{"text":"\#(text)","width":120,"spans":[{"start":0,"end":11,"bold":true}]}"#,
            #"{"text":"\#(text)","width":120}"#,
        ])
        let heights = try lines.map { try object($0)["height"] as? Double }
        let expected = try [[], [TextSpan(0..<11, size: 30)], [TextSpan(0..<11, bold: true)], []].map {
            try measurer.measure(StyledText(text, spans: $0), style: TextStyle(size: 17), width: 120).height
        }
        #expect(heights == expected.map { $0 })
        #expect(Set(expected).count >= 2)
    }

    @Test func badSpansAreErrorsNamingTheSpanAndFieldWhileTheOtherLinesGoOn() throws {
        let cases: [(spans: String, error: String)] = [
            (#""bold""#, #""spans" must be an array of objects"#),
            (#"[{"start":0,"end":2},3]"#, #""spans[1]" must be an object"#),
            (#"[{"end":2}]"#, #""spans[0].start" is missing"#),
            (#"[{"start":0,"end":2.5}]"#,
             #""spans[0].end" 2.5 is not an integer: must be an integer from 0 to the text's count of Unicode scalars"#),
            (#"[{"start":1.0,"end":2}]"#, #""spans[0].start" 1.0 is not an integer: must be an integer from 0, written"#),
            (#"[{"start":"0","end":2}]"#, #""spans[0].start" must be an integer from 0"#),
            (#"[{"start":0,"end":2,"bold":"yes"}]"#, #""spans[0].bold" must be true or false"#),
            (#"[{"start":0,"end":2,"mono":1}]"#, #""spans[0].mono" must be true or false"#),
            (#"[{"start":0,"end":2,"size":"big"}]"#, #""spans[0].size" must be a number"#),
            (#"[{"start":0,"end":1},{"start":3,"end":1,"bold":true}]"#, #""spans[1].start" 3 is after "spans[1].end" 1"#),
            (#"[{"start":0,"end":6,"italic":true}]"#, #""spans[0].end" 6 is past the end of the text: it has 5 Unicode scalars"#),
            (#"[{"start":-1,"end":2}]"#, #""spans[0].start" -1 is out of range"#),
            (#"[{"start":0,"end":2,"size":0}]"#, #""spans[0].size" 0 is out of range: must be a finite number from 0.01 to 10000"#),
        ]
        var input: [String] = []
        for (spans, _) in cases {
            input.append(#"{"text":"héllo","width":100,"spans":\#(spans),"id":"bad"}"#)
            input.append(#"{"text":"héllo","width":100,"spans":[{"start":0,"end":5,"bold":true,"color":"red"}]}"#)
        }
        let lines = try output(input)
        #expect(lines.count == input.count)
        let good = try measurer.measure(StyledText("héllo", spans: [TextSpan(0..<5, bold: true)]), style: TextStyle(size: 17),
                                        width: 100)
        for (index, (_, error)) in cases.enumerated() {
            let bad = try object(lines[2 * index]), after = try object(lines[2 * index + 1])
            let message = try #require(bad["error"] as? String, "\(lines[2 * index])")
            #expect(message.hasPrefix(error), "\(message)")
            #expect(bad["id"] as? String == "bad")
            #expect(after["height"] as? Double == good.height, "the next line is measured: \(lines[2 * index + 1])")
        }
    }

    @Test func tooManySpansAreRefused() throws {
        let many = Array(repeating: #"{"start":0,"end":1,"bold":true}"#, count: 10_001).joined(separator: ",")
        let lines = try output([#"{"text":"x","width":100,"spans":[\#(many)]}"#])
        #expect(try object(lines[0])["error"] as? String == #""spans" has 10001 spans: at most 10000 are allowed"#)
    }
}
