import Testing
import TestSupport
@testable import TextMeasure

/// `TextMeasurement.Lines` keeps four lines inline and the rest in an array: it must behave exactly
/// as an array of the same lines whatever is done to it, on both sides of that boundary.
@Suite("Measurement lines")
struct MeasurementLinesTests {
    typealias Line = TextMeasurement.Line

    static func line(_ n: Int) -> Line {
        Line(utf8Range: n..<(n + 1 + n % 3), width: Double(n) * 1.25)
    }

    @Test func appendsReadBackInOrderAcrossTheInlineBoundary() {
        var lines = TextMeasurement.Lines()
        var model: [Line] = []
        #expect(lines.isEmpty)
        for n in 0..<11 {
            lines.append(Self.line(n))
            model.append(Self.line(n))
            #expect(lines.count == model.count)
            #expect(Array(lines) == model)
            #expect(lines.last == Self.line(n))
            #expect(lines == TextMeasurement.Lines(model))
        }
        #expect(lines.map(\.width) == model.map(\.width))
        #expect(lines.description == model.description)
    }

    @Test func equalityAndHashingAreThoseOfTheLinesInOrder() {
        let three: TextMeasurement.Lines = [Self.line(0), Self.line(1), Self.line(2)]
        var built = TextMeasurement.Lines()
        for n in 0..<3 { built.append(Self.line(n)) }
        #expect(three == built)
        #expect(three.hashValue == built.hashValue)
        #expect(three.hashValue == [Self.line(0), Self.line(1), Self.line(2)].hashValue)
        #expect(three != [Self.line(0), Self.line(1)])
        #expect(three != [Self.line(0), Self.line(1), Self.line(3)])
        // Placeholders past the count never take part: a value shrunk back to inline equals one built so.
        var shrunk = TextMeasurement.Lines((0..<6).map(Self.line))
        shrunk.removeLast(3)
        #expect(shrunk == three)
        #expect(shrunk.hashValue == three.hashValue)
        #expect(TextMeasurement.Lines() == [])
        #expect(Set([three, built, shrunk]).count == 1)
    }

    /// Seeded random edits (append, set, insert, remove, replace) applied to `Lines` and to an array
    /// give the same lines after every step.
    @Test func randomEditsMatchAnArray() {
        var random = SplitMix64(seed: 0x4C696E6573)
        for _ in 0..<200 {
            var lines = TextMeasurement.Lines()
            var model: [Line] = []
            for _ in 0..<40 {
                let n = Int.random(in: 0..<1_000, using: &random)
                switch Int.random(in: 0..<6, using: &random) {
                case 0, 1:
                    lines.append(Self.line(n)); model.append(Self.line(n))
                case 2 where !model.isEmpty:
                    let index = Int.random(in: 0..<model.count, using: &random)
                    lines[index] = Self.line(n); model[index] = Self.line(n)
                case 3:
                    let index = Int.random(in: 0...model.count, using: &random)
                    lines.insert(Self.line(n), at: index); model.insert(Self.line(n), at: index)
                case 4 where !model.isEmpty:
                    let index = Int.random(in: 0..<model.count, using: &random)
                    #expect(lines.remove(at: index) == model.remove(at: index))
                default:
                    let lower = Int.random(in: 0...model.count, using: &random)
                    let upper = Int.random(in: lower...model.count, using: &random)
                    let new = (0..<Int.random(in: 0..<6, using: &random)).map { Self.line(n + $0) }
                    lines.replaceSubrange(lower..<upper, with: new); model.replaceSubrange(lower..<upper, with: new)
                }
                #expect(Array(lines) == model)
                #expect(lines == TextMeasurement.Lines(model))
            }
        }
    }

    /// Layout reports lines into the inline storage and past it: the same lines as a text's
    /// paragraphs laid out one by one.
    @Test func layoutFillsLinesPastTheInlineCapacity() throws {
        let measurer = Fixtures.measurer
        let style = TextStyle(size: 16)
        let paragraphs = (0..<7).map { "Paragraph \($0) of a text with seven lines" }
        let result = try measurer.measure(paragraphs.joined(separator: "\n"), style: style, width: 2_000)
        #expect(result.lineCount == 7)
        #expect(result.lines.count == 7)
        var offset = 0
        for (index, paragraph) in paragraphs.enumerated() {
            let alone = try measurer.measure(paragraph, style: style, width: 2_000)
            #expect(result.lines[index].utf8Range == offset..<(offset + paragraph.utf8.count))
            #expect(result.lines[index].width == alone.lines[0].width)
            offset += paragraph.utf8.count + 1
        }
    }
}
