import Foundation
import TestSupport
import TextMeasure

/// Paths and shared fixtures for the tests.
enum Fixtures {
    /// The package root, found from this file's location.
    static let root = packageRoot()

    /// One measurer on the bundled fonts, shared by every test (it is thread-safe).
    static let measurer: TextMeasurer = {
        do { return try TextMeasurer() } catch { fatalError("bundled fonts: \(error)") }
    }()

    /// The multilingual corpus: one text per line, with `\n`, `\r`, `\t`, `\\` and `\uXXXX` escapes.
    static let corpus = corpus(named: "multilingual.txt")

    /// A corpus file of Tests/Corpus, in the multilingual corpus's format.
    static func corpus(named name: String) -> [String] {
        let path = root + "/Tests/Corpus/" + name
        guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
            fatalError("cannot read \(path)")
        }
        return contents.split(separator: "\n", omittingEmptySubsequences: true).map { unescape(String($0)) }
    }

    static func unescape(_ line: String) -> String {
        var out = String.UnicodeScalarView()
        var scalars = line.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\\", let next = scalars.next() else {
                out.append(scalar)
                continue
            }
            switch next {
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "u":
                var hex = ""
                for _ in 0..<4 { if let h = scalars.next() { hex.unicodeScalars.append(h) } }
                out.append(Unicode.Scalar(UInt32(hex, radix: 16)!)!)
            default: out.append(next)
            }
        }
        return String(out)
    }
}
