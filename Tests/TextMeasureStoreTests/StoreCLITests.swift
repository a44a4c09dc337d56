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

    /// A bare `textmeasure batch` (run without ArgumentParser) takes its store from $TEXTMEASURE_STORE
    /// as `batch` with options does; an empty value names none.
    @Test func bareBatchUsesTheStoreTheEnvironmentNames() throws {
        let folder = StoreFixtures.folder()
        let path = folder + "/from-environment.sqlite"
        let input = StoreFixtures.batchInput(60)
        let tool = StoreFixtures.executable.path
        let bare = try StoreFixtures.shell("TEXTMEASURE_STORE='\(path)' '\(tool)' batch", input: input)
        #expect(bare.status == 0, "\(bare.stderr)")
        #expect(bare.stdout == (try StoreFixtures.reference(input)))
        #expect(FileManager.default.fileExists(atPath: path))
        // What the bare run measured is in the store: the parsed form finds all of it there.
        let parsed = try StoreFixtures.shell("TEXTMEASURE_STORE='\(path)' '\(tool)' batch --stats", input: input)
        #expect(parsed.stdout == bare.stdout)
        #expect(parsed.stderr.contains("height store: 60 hits, 0 misses, 0 written"), "\(parsed.stderr)")
        // An empty value: no store, nothing created.
        let none = try StoreFixtures.shell("cd '\(folder)' && TEXTMEASURE_STORE= '\(tool)' batch", input: input)
        #expect(none.stdout == bare.stdout)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".sqlite") }
                    == ["from-environment.sqlite"])
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

    /// `store stats|vacuum|clear|export` on a file that does not exist say so and create nothing (no
    /// store, no copy), where opening it would have made an empty store.
    @Test func storeCommandsRefuseAMissingFileAndCreateNothing() throws {
        let folder = StoreFixtures.folder()
        let path = folder + "/nothere.sqlite"
        for action in ["stats", "vacuum", "clear", "export"] {
            let arguments = ["store", action, path] + (action == "export" ? [folder + "/copy.sqlite"] : [])
            let outcome = try StoreFixtures.run(arguments)
            #expect(outcome.status == 1, "\(action)")
            #expect(outcome.stdout.isEmpty, "\(action)")
            #expect(outcome.stderr.contains("\(path): no such height store (the file does not exist); store \(action) creates none"),
                    "\(action): \(outcome.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
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
