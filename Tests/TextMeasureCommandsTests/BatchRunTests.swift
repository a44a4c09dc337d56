import Testing
@testable import TextMeasureCommands

/// What a batch looks at in its first lines before its fonts are loaded.
@Suite("textmeasure batch start")
struct BatchRunTests {
    static func namesModes(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBufferPointer { BatchRun.namesModes($0) }
    }

    /// A line naming a mode of its own, wherever it is, makes the batch prepare every mode's
    /// dictionaries; the word alone, in a text, does not.
    @Test func linesNamingAModeAreFound() {
        #expect(!Self.namesModes(""))
        #expect(!Self.namesModes(#"{"text":"ภาษาไทย","width":90}"#))
        #expect(!Self.namesModes(#"{"text":"breaking news","width":90}"#))
        #expect(Self.namesModes(#"{"text":"ภาษาไทย","width":90,"breaking":"browser"}"#))
        let line = #"{"text":"a","width":9}"# + "\n"   // 24 bytes
        #expect(Self.namesModes(String(repeating: line, count: 500) + #""breaking""#))
        // Past the first 64 KiB (the bytes whose dictionaries are prepared), a name is not looked for.
        #expect(Self.namesModes(String(repeating: "a", count: 65_526) + #""breaking""#))
        #expect(!Self.namesModes(String(repeating: "a", count: 65_527) + #""breaking""#))
        #expect(!Self.namesModes(#""breaking"#))
    }
}
