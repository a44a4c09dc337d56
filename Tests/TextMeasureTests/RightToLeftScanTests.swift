import Testing
import TestSupport
@testable import TextMeasure

/// `Preparer.mayHoldRightToLeft`, the quick look that spares a paragraph without right-to-left text
/// the call to ICU's bidi algorithm: equal to asking each scalar, at every offset of the 8-byte steps.
@Suite("Right-to-left scan")
struct RightToLeftScanTests {
    /// The scalars it must find: Hebrew to Arabic Extended, the presentation forms, the right-to-left
    /// scripts of plane 1 and the explicit right-to-left controls.
    static func isRightToLeft(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0590...0x08FF, 0xFB00...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF,
             0x200F, 0x202B, 0x202E, 0x2067: true
        default: false
        }
    }

    @Test func agreesWithAScalarByScalarLookAtEveryAlignment() {
        let pieces: [String] = ["a", "b ", "é", "ñ", "Ω", "Ж", "ש", "م", "ە", "\u{08A0}", "ก", "क", "中", "한", "😀",
                                "\u{200F}", "\u{200E}", "\u{202B}", "\u{2067}", "\u{2066}", "\u{FB1D}", "\u{FEFC}",
                                "\u{10800}", "\u{1E900}", "\u{0590}", "\u{058F}", "\u{0900}", " ", "1"]
        var random = SplitMix64(seed: 0x2710_B1D1)
        for _ in 0..<20_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...24, using: &random) {
                // Mostly left-to-right text, so that a right-to-left character, when there is one,
                // lands at every position of the 8-byte words.
                let piece = Int.random(in: 0..<10, using: &random) == 0 ? pieces.randomElement(using: &random)!
                    : pieces[Int.random(in: 0..<6, using: &random)]
                text += piece
            }
            let expected = text.unicodeScalars.contains(where: Self.isRightToLeft)
            var utf8 = text
            let found = utf8.withUTF8 { Preparer.mayHoldRightToLeft($0) }
            #expect(found == expected, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }
}
