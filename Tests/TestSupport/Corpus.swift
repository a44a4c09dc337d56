import Foundation

/// The multilingual corpus (`Tests/Corpus/multilingual.txt`): one text per line, with `\n`, `\r`, `\t`,
/// `\\` and `\uXXXX` escapes. The one loader for it: the tests use it through `TestSupport`, and the
/// benchmarks compile this same file (a symbolic link in Benchmarks/), so both read the same texts.
public enum Corpus {
    /// The corpus file's texts, unescaped; empty lines are skipped.
    ///
    /// - Parameter path: The corpus file.
    /// - Returns: The texts in file order, or nil if the file cannot be read.
    public static func load(from path: String) -> [String]? {
        guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return contents.split(separator: "\n", omittingEmptySubsequences: true).map { unescape(String($0)) }
    }

    /// A corpus line with its escapes replaced: `\n`, `\r`, `\t`, `\uXXXX` (four hex digits), and a
    /// backslash before any other character stands for that character. A `\u` without four hex digits
    /// naming a scalar stays as written.
    public static func unescape(_ line: String) -> String {
        var out = String.UnicodeScalarView()
        var scalars = line.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "\\", let next = scalars.popFirst() else {
                out.append(scalar)
                continue
            }
            switch next {
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "u":
                let hex = String(String.UnicodeScalarView(scalars.prefix(4)))
                if hex.count == 4, let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value) {
                    out.append(decoded)
                    scalars = scalars.dropFirst(4)
                } else {
                    out.append(contentsOf: "\\u".unicodeScalars)
                }
            default: out.append(next)
            }
        }
        return String(out)
    }
}
