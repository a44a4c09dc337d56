import CUnicodeBreak
import Dispatch
import Testing

/// `cub_scalar_properties` answers planes 0 and 1 from a table it fills on first use: the table's
/// answers are ICU's, whichever thread fills an entry and however many fill it at once.
@Suite("Scalar properties")
struct ScalarPropertiesTests {
    @Test func knownScalars() {
        #expect(Int(cub_scalar_properties(0x20)) == CUB_HANGING_SPACE | CUB_FONT_NEUTRAL)
        #expect(Int(cub_scalar_properties(0x09)) == CUB_HANGING_SPACE | CUB_FONT_NEUTRAL)
        #expect(Int(cub_scalar_properties(0x200D)) == CUB_FONT_NEUTRAL | CUB_DEFAULT_IGNORABLE)   // ZWJ, a format character
        #expect(Int(cub_scalar_properties(0x61)) == 0)
        #expect(Int(cub_scalar_properties(0x1F600)) == CUB_EMOJI_PRESENTATION | CUB_EXTENDED_PICTOGRAPHIC)
        #expect(Int(cub_scalar_properties(0x2764)) == CUB_EXTENDED_PICTOGRAPHIC)   // ❤ is text by default
        #expect(Int(cub_scalar_properties(0xE0100)) == CUB_FONT_NEUTRAL | CUB_DEFAULT_IGNORABLE)   // past the table: ICU each time
        #expect(Int(cub_scalar_properties(0xAD)) == CUB_FONT_NEUTRAL | CUB_DEFAULT_IGNORABLE)   // soft hyphen
        #expect(Int(cub_scalar_properties(0x01)) == CUB_FONT_NEUTRAL)   // a control: a hex box where no font has it
    }

    /// Four threads walk planes 0 and 1 at once, from different starts, so that they race to fill
    /// the same entries; every answer, first or later, equals ICU's.
    @Test func theTableAnswersAsICUDoesFromEveryThread() {
        let count = 0x20000
        let mismatches = UnsafeMutableBufferPointer<Int>.allocate(capacity: 4)
        mismatches.initialize(repeating: 0)
        defer { mismatches.deallocate() }
        let slots = SendableSlots(base: mismatches.baseAddress!)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            var wrong = 0
            for step in 0..<count {
                let scalar = UInt32((step + thread * count / 4) % count)
                let expected = cub_scalar_properties_uncached(scalar)
                if cub_scalar_properties(scalar) != expected || cub_scalar_properties(scalar) != expected { wrong += 1 }
            }
            slots.base[thread] = wrong
        }
        #expect(Array(mismatches) == [0, 0, 0, 0])
    }
}

/// Per-thread result slots, each written by one thread only.
private struct SendableSlots: @unchecked Sendable {
    let base: UnsafeMutablePointer<Int>
}
