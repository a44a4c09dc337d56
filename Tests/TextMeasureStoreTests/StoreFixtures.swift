import GRDB
import Foundation
import TestSupport
import TextMeasure
import TextMeasureSupport
import TextMeasureStore

/// Temporary folders, measurers and the executable for the store's tests.
enum StoreFixtures {
    static let root = packageRoot()

    /// The bundled measurer, shared (thread-safe).
    static let measurer: TextMeasurer = {
        do { return try TextMeasurer() } catch { fatalError("bundled fonts: \(error)") }
    }()

    /// The built `textmeasure`, beside the test bundle.
    static let executable: URL = {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("textmeasure")
    }()

    /// The built `textmeasure-store` (the commands with the store linked in), beside `textmeasure`.
    static let storeExecutable = executable.deletingLastPathComponent().appendingPathComponent("textmeasure-store")

    /// A new empty folder, world-writable for the tests that run the tool as another user, removed when
    /// the test process exits.
    static func folder() -> String {
        do { return try TemporaryFolders.make(prefix: "store", permissions: 0o777) } catch {
            fatalError("cannot make a temporary folder: \(error)")
        }
    }

    /// Warnings collected instead of printed.
    final class Warnings: Sendable {
        private let lines = Locked<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        var sink: @Sendable (String) -> Void { { [lines] line in lines.withLock { $0.append(line) } } }
    }

    /// Texts of the corpus, numbered so that each is distinct.
    static func texts(_ count: Int) -> [String] {
        let corpus = (try? String(contentsOfFile: root + "/Tests/Corpus/multilingual.txt", encoding: .utf8))?
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty } ?? ["fallback text"]
        return (0..<count).map { "#\($0) " + corpus[$0 % corpus.count] }
    }

    /// JSON Lines input for `textmeasure batch`.
    static func batchInput(_ count: Int, widths: [Int] = [240, 320, 600]) -> String {
        texts(count).enumerated().map { index, text in
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\t", with: "\\t").replacingOccurrences(of: "\r", with: "\\r")
            return "{\"text\":\"\(escaped)\",\"width\":\(widths[index % widths.count]),\"id\":\(index)}\n"
        }.joined()
    }

    /// Runs the tool.
    static func run(_ arguments: [String], input: String = "") throws -> ProcessRunner.Outcome {
        try ProcessRunner.run(executable, arguments, input: input)
    }

    /// Fills a store at `path` with `count` measured texts and returns their queries.
    @discardableResult
    static func fill(_ path: String, count: Int = 50) throws -> [MeasureRequest] {
        let store = try HeightStore(path: path)
        let cache = PreparedTextCache(measurer: measurer, store: store)
        let queries = texts(count).map { MeasureRequest(text: $0, style: TextStyle(size: 15), width: 320) }
        _ = cache.measurements(for: queries)
        store.flush()
        return queries
    }

    /// The file opened with GRDB directly (to damage or inspect it), waiting for other connections'
    /// locks as a `HeightStore` does: the last connection of a store closing checkpoints its WAL under
    /// an exclusive lock.
    static func openDirectly(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(HeightStore.busyTimeout)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// What the tool prints for `input` with no store: the reference.
    static func reference(_ input: String) throws -> String {
        try run(["batch"], input: input).stdout
    }
}

extension StoreFixtures {
    /// Runs a shell command line.
    static func shell(_ command: String, input: String = "") throws -> ProcessRunner.Outcome {
        try ProcessRunner.shell(command, input: input)
    }
}
