import Dispatch
import Foundation
import TestSupport
import Testing
import TextMeasureSupport
import TextMeasure
import TextMeasureStore

/// Several threads, store objects and processes on one file (run under the thread sanitizer too:
/// `swift test --sanitize=thread --filter StoreConcurrency`).
@Suite("StoreConcurrency")
struct StoreConcurrencyTests {
    let measurer = StoreFixtures.measurer

    @Test func threadsAndTwoStoreObjectsShareOneFile() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let stores = [try HeightStore(path: path), try HeightStore(path: path)]
        let caches = stores.map { PreparedTextCache(measurer: measurer, capacity: 16, store: $0) }
        let queries = StoreFixtures.texts(120).enumerated().map { index, text in
            MeasureRequest(text: text, style: TextStyle(size: 15), width: Double([240, 320, 600][index % 3]))
        }
        let expected = try queries.map { query in
            try measurer.prepare(query.text, style: query.style).layout(width: query.width, withLines: false)
        }
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            let cache = caches[thread % 2]
            for round in 0..<3 {
                let slice = Array(queries[((thread * 15 + round * 40) % 120)...].prefix(30))
                let results = cache.measurements(for: slice)
                for (query, result) in zip(slice, results) {
                    guard let index = queries.firstIndex(of: query), case .success(let m) = result,
                          m.height == expected[index].height, m.lineCount == expected[index].lineCount,
                          m.isTruncated == expected[index].isTruncated else {
                        failures.withLock { $0 += 1 }
                        continue
                    }
                }
                if round == 1 { stores[thread % 2].flush() }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        for store in stores { store.flush() }
        let reader = try HeightStore(path: path)
        let stored = reader.measurements(for: queries, fonts: measurer.cascade)
        #expect(stored.allSatisfy { $0 != nil })
        for (stored, expected) in zip(stored, expected) {
            #expect(stored?.measurement == expected)
        }
        #expect(stores.allSatisfy { !$0.isDisabled })
    }

    @Test func twoProcessesShareOneFile() throws {
        let folder = StoreFixtures.folder()
        let path = folder + "/heights.sqlite"
        let count = ThreadSanitizerRun.size(4_000, sanitized: 1_000)   // either way, both measure at once
        let input = StoreFixtures.batchInput(count)
        let inputPath = folder + "/input.jsonl"
        try #require(FileManager.default.createFile(atPath: inputPath, contents: Data(input.utf8)), "cannot write \(inputPath)")
        let tool = StoreFixtures.executable.path
        let both = try StoreFixtures.shell("""
            '\(tool)' batch --store '\(path)' < '\(inputPath)' > '\(folder)/a.out' 2> '\(folder)/a.err' &
            '\(tool)' batch --store '\(path)' < '\(inputPath)' > '\(folder)/b.out' 2> '\(folder)/b.err' &
            wait
            """)
        #expect(both.status == 0)
        let reference = try StoreFixtures.reference(input)
        for name in ["a", "b"] {
            #expect(FileManager.default.contents(atPath: "\(folder)/\(name).out") == Data(reference.utf8))
            let errors = FileManager.default.contents(atPath: "\(folder)/\(name).err").map { String(decoding: $0, as: UTF8.self) }
            #expect(errors == "", "\(name): \(errors ?? "no file")")
        }
        let third = try StoreFixtures.run(["batch", "--store", path, "--stats"], input: input)
        #expect(third.stdout == reference)
        #expect(third.stderr.contains("height store: \(count) hits, 0 misses"), "\(third.stderr)")
    }
}
