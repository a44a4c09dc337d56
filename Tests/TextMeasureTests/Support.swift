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

    /// The multilingual corpus (see `Corpus`).
    static let corpus: [String] = {
        let path = root + "/Tests/Corpus/multilingual.txt"
        guard let texts = Corpus.load(from: path) else { fatalError("cannot read \(path)") }
        return texts
    }()
}
