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

    /// A corpus file of Tests/Corpus, in the multilingual corpus's format, read by the shared loader.
    static func corpus(named name: String) -> [String] {
        let path = root + "/Tests/Corpus/" + name
        guard let texts = Corpus.load(from: path) else { fatalError("cannot read \(path)") }
        return texts
    }
}
