import Foundation
import Testing
import TestSupport
import TextMeasure

/// `textmeasure batch|measure --store` and `textmeasure store`, end to end.
@Suite("textmeasure --store")
struct StoreCLITests {
    @Test func secondRunAnswersFromTheStoreWithIdenticalBytes() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let input = StoreFixtures.batchInput(500) + "{\"text\":\"x\",\"width\":-1}\nnot json\n"
        let first = try StoreFixtures.run(["batch", "--store", path, "--stats"], input: input)
        let second = try StoreFixtures.run(["batch", "--store", path, "--stats"], input: input)
        #expect(first.status == 0 && second.status == 0)
        #expect(first.stdout == (try StoreFixtures.reference(input)))
        #expect(second.stdout == first.stdout)
        #expect(first.stderr.contains("height store: 0 hits, 500 misses, 500 written"), "\(first.stderr)")
        #expect(second.stderr.contains("height store: 500 hits, 0 misses, 0 written"), "\(second.stderr)")
    }

    @Test func measureWithStore() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let arguments = ["measure", "--width", "120", "--store", path, "Hello, world — 你好，世界 — مرحبا بالعالم"]
        let plain = try StoreFixtures.run(Array(arguments[0...2]) + [arguments[5]])
        let first = try StoreFixtures.run(arguments)
        let second = try StoreFixtures.run(arguments)
        #expect(first.stdout == plain.stdout)
        #expect(second.stdout == plain.stdout)
        let stats = try StoreFixtures.run(["store", "stats", path])
        #expect(stats.stdout.contains("entries: 1"), "\(stats.stdout)")
    }

    @Test func storeStatsVacuumClear() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        _ = try StoreFixtures.run(["batch", "--store", path], input: StoreFixtures.batchInput(100, widths: [320]))
        let stats = try StoreFixtures.run(["store", "stats", path])
        #expect(stats.status == 0)
        #expect(stats.stdout.contains("entries: 100"), "\(stats.stdout)")
        #expect(stats.stdout.contains("layout version: \(TextMeasurer.layoutVersion)"))
        #expect(try StoreFixtures.run(["store", "vacuum", path]).status == 0)
        #expect(try StoreFixtures.run(["store", "clear", path]).status == 0)
        #expect(try StoreFixtures.run(["store", "stats", path]).stdout.contains("entries: 0"))
        let missing = try StoreFixtures.run(["store", "stats", StoreFixtures.folder() + "/none/x.sqlite"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("folder does not exist"))
    }

    /// `textmeasure` itself does not link the store: the same commands run `textmeasure-store`,
    /// which answers them directly too.
    @Test func textmeasureStoreRunsTheSameCommands() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let input = StoreFixtures.batchInput(40)
        let handedOver = try StoreFixtures.run(["batch", "--store", path], input: input)
        let direct = try ProcessRunner.run(StoreFixtures.storeExecutable, ["batch", "--store", path, "--stats"],
                                           input: input)
        #expect(handedOver.status == 0 && direct.status == 0)
        #expect(direct.stdout == handedOver.stdout)
        #expect(direct.stdout == (try StoreFixtures.reference(input)))
        #expect(direct.stderr.contains("height store: 40 hits, 0 misses, 0 written"), "\(direct.stderr)")
        let linked = try StoreFixtures.shell("ldd '\(StoreFixtures.executable.path)' || true")
        #expect(!linked.stdout.contains("libsqlite3"), "\(linked.stdout)")
    }

    /// Without `textmeasure-store` beside it, `textmeasure` says how to build it, having read no input.
    @Test func storeSaysHowToBuildAMissingStoreExecutable() throws {
        let folder = StoreFixtures.folder()
        let copy = URL(fileURLWithPath: folder).appendingPathComponent("textmeasure")
        try FileManager.default.copyItem(at: StoreFixtures.executable, to: copy)
        for arguments in [["batch", "--store", folder + "/h.sqlite"], ["store", "stats", folder + "/h.sqlite"],
                          ["measure", "--width", "100", "--store", folder + "/h.sqlite", "x"]] {
            let outcome = try ProcessRunner.run(copy, arguments, input: "{\"text\":\"x\",\"width\":100}\n")
            #expect(outcome.status == 1, "\(arguments)")
            #expect(outcome.stdout.isEmpty)
            #expect(outcome.stderr.contains("swift build -c release --product textmeasure-store"), "\(outcome.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/h.sqlite"))
    }
}
