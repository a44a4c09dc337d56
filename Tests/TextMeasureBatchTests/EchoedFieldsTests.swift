import Testing
import TextMeasure
@testable import TextMeasureBatch

/// Fields a batch line holds besides the ones the batch reads come back in its result byte for byte,
/// whichever way the line is read: the scanner's usual-line path, its general path (an escaped or
/// repeated key), the height store's path (lines of a block read together), errors alike.
@Suite("Echoed fields")
struct EchoedFieldsTests {
    /// Values that a number or string made and written again would change.
    static let fields = #""id":12345678901234567890,"big":1e999,"z":-0,"e":1E+2,"f":1.50,"#
        + #""s":"\u00e9\n\/","nested":[1, {"a" : 2.50, "b":[ ]}],"t":true,"n":null"#
    static let echoed = "," + fields + "}"

    /// The output line for `line`: alone, and as one of a block read together (the store's path).
    func outcomes(_ line: String) -> (alone: String, block: String) {
        var alone = "", block = ""
        Array(line.utf8).withUnsafeBufferPointer { bytes in
            BatchHarness.processor.process(bytes).write(to: &alone)
            BatchHarness.processor.process([bytes])[0].write(to: &block)
        }
        return (alone, block)
    }

    @Test func theUsualLineEchoesItsFieldsAsSent() {
        let line = #"{"text":"a","width":100,"# + Self.fields + "}"
        // The usual line: the scanner's own path, no array of fields.
        let usual = Array(line.utf8).withUnsafeBufferPointer { JSONScanner.item($0, textLike: nil) }
        #expect(usual != nil)
        let (alone, block) = outcomes(line)
        #expect(alone.hasPrefix(#"{"lineCount":1,"#))
        #expect(alone.hasSuffix(Self.echoed), "\(alone)")
        #expect(block == alone)
    }

    /// A repeated key or an escaped one sends the line through the general path: the same bytes.
    @Test func theGeneralPathEchoesAsSent() {
        for line in [#"{"text":"a","text":"b","width":100,"# + Self.fields + "}",
                     #"{"te\u0078t":"a","width":100,"# + Self.fields + "}"] {
            let usual = Array(line.utf8).withUnsafeBufferPointer { JSONScanner.item($0, textLike: nil) }
            #expect(usual == nil, "\(line)")
            let (alone, block) = outcomes(line)
            #expect(alone.hasPrefix(#"{"lineCount":1,"#))
            #expect(alone.hasSuffix(Self.echoed), "\(alone)")
            #expect(block == alone)
        }
    }

    @Test func errorsEchoAsSent() {
        let (alone, block) = outcomes(#"{"width":100,"# + Self.fields + "}")
        #expect(alone == #"{"error":"missing field \"text\"""# + Self.echoed)
        #expect(block == alone)
        let (refused, _) = outcomes(#"{"text":"a","width":1e999,"# + Self.fields + "}")
        #expect(refused.hasPrefix(#"{"error":"\"width\" "#) && refused.hasSuffix(Self.echoed), "\(refused)")
    }

    /// Keys as written, escapes kept; a key is one key however it is escaped, and the first counts;
    /// output keys stay out, escaped or not; white space around the colon is not kept.
    @Test func keysAsWrittenEachOnce() {
        let (alone, block) = outcomes(#"{"text":"a","width":100,"\u0069d" : 1,"id":2,"h\u00e9":3,"\u0068eight":4,"x":5}"#)
        #expect(alone.hasSuffix(#""truncated":false,"\u0069d":1,"h\u00e9":3,"x":5}"#), "\(alone)")
        #expect(block == alone)
    }

    /// Bytes that are not UTF-8 (read as U+FFFD) come back as U+FFFD, so that the output is UTF-8;
    /// the rest of the field as sent.
    @Test func bytesThatAreNotUTF8ComeBackAsReplacementCharacters() {
        let line = Array(#"{"text":"a","width":100,"s":"\u00e9"#.utf8) + [0xFF, 0xC3] + Array(#"é","k\#u{FF}":1}"#.utf8)
        var out: [UInt8] = []
        line.withUnsafeBufferPointer { BatchHarness.processor.process($0).write(to: &out) }
        let text = String(decoding: out, as: UTF8.self)
        #expect(String(validating: out, as: UTF8.self) != nil)
        #expect(text.hasSuffix(#""s":"\u00e9\#u{FFFD}\#u{FFFD}é","k\#u{FF}":1}"#), "\(text)")
    }

    /// Many fields: past the first eight keys the repeated ones are still left out.
    @Test func repeatedKeysPastEight() {
        let keys = (0..<12).map { #""k\#($0)":\#($0)"# } + (0..<12).map { #""k\#($0)":-\#($0)"# }
        let (alone, _) = outcomes(#"{"text":"a","width":100,"# + keys.joined(separator: ",") + "}")
        #expect(alone.hasSuffix("," + keys.prefix(12).joined(separator: ",") + "}"), "\(alone)")
    }
}
