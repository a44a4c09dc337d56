import Foundation
import TestSupport
import TextMeasure

/// Paths and shared fixtures for the tests.
enum Fixtures {
    /// The package root, found from this file's location.
    static let root = packageRoot()

    /// A new, empty folder of this test's own, removed when the test process exits: fonts are shared
    /// per path across the process, so a test that counts what its faces load puts them under paths no
    /// other test uses.
    static func freshFolder(named prefix: String) throws -> URL {
        URL(fileURLWithPath: try TemporaryFolders.make(prefix: prefix))
    }

    /// One measurer on the bundled fonts, shared by every test (it is thread-safe).
    static let measurer: TextMeasurer = {
        do { return try TextMeasurer() } catch { fatalError("bundled fonts: \(error)") }
    }()

    /// The multilingual corpus (see `Corpus`).
    static let corpus = corpus(named: "multilingual.txt")

    /// The styled corpus (`Tests/Corpus/styled.jsonl`, made by `Tools/corpus/make_styled.py`): one
    /// JSON object per line in the batch's form, `{"text": …, "spans": [{"start", "end", "bold"?,
    /// "italic"?, "mono"?, "size"?}]}`.
    static let styledCorpus: [StyledText] = {
        let path = root + "/Tests/Corpus/styled.jsonl"
        guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else { fatalError("cannot read \(path)") }
        return contents.split(separator: "\n").map { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let text = object["text"] as? String else { fatalError("\(path): bad line \(line)") }
            let spans = (object["spans"] as? [[String: Any]] ?? []).map { span in
                TextSpan(start: span["start"] as? Int ?? 0, end: span["end"] as? Int ?? 0,
                         bold: span["bold"] as? Bool ?? false, italic: span["italic"] as? Bool ?? false,
                         monospace: span["mono"] as? Bool ?? false, size: (span["size"] as? NSNumber)?.doubleValue)
            }
            return StyledText(text, spans: spans)
        }
    }()

    /// A corpus file of Tests/Corpus, in the multilingual corpus's format, read by the shared loader.
    static func corpus(named name: String) -> [String] {
        let path = root + "/Tests/Corpus/" + name
        guard let texts = Corpus.load(from: path) else { fatalError("cannot read \(path)") }
        return texts
    }
}
