import Foundation
import TestSupport
import Testing

/// `textmeasure batch --cached-megabytes`: the byte bound on prepared texts kept for reuse.
@Suite("textmeasure batch memory options")
struct BatchMemoryOptionsTests {
    func run(_ arguments: [String], input: String) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run(CLITests.executable, arguments, input: input)
    }

    @Test func cachedMegabytesBoundsWhatIsKept() throws {
        let input = (0..<6).map { "{\"text\":\"text \($0 % 2)\",\"width\":100}" }.joined(separator: "\n") + "\n"
        let none = try run(["batch", "--stats", "--chunk", "1", "--cached-megabytes", "0"], input: input)
        let some = try run(["batch", "--stats", "--chunk", "1", "--cached-megabytes", "1"], input: input)
        #expect(none.status == 0 && some.status == 0)
        #expect(none.stderr.contains("prepared texts: 0 reused, 6 shaped, 0 held (0 KiB), 6 too large to keep"),
                "\(none.stderr)")
        #expect(some.stderr.contains("prepared texts: 4 reused, 2 shaped, 2 held"), "\(some.stderr)")
        #expect(none.lines == some.lines)
    }
}
