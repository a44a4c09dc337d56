import Dispatch
import Foundation
import Testing
import TestSupport

/// `textmeasure serve` as a process: the main command hands over to `textmeasure-serve`, which
/// stops cleanly on SIGTERM.
@Suite("textmeasure serve process")
struct ServeProcessTests {
    /// The built executables sit beside the test bundle.
    static let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    /// Starts `textmeasure serve --port 0 arguments…`; returns the process and the port it printed.
    static func startServe(_ arguments: [String] = []) async throws -> (ChildProcess, Int) {
        let process = ChildProcess()
        process.executableURL = Self.products.appendingPathComponent("textmeasure")
        process.arguments = ["serve", "--port", "0"] + arguments
        let output = Pipe()
        process.standardOutput = .pipe(output)
        try process.run()
        let (port, _) = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: ProcessRunner.listeningPort(output)) }
        }
        guard let port else {
            process.terminate()
            throw CancellationError()
        }
        return (process, port)
    }

    /// Sends SIGTERM; returns the exit status.
    static func stop(_ process: ChildProcess) async -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
    }

    @Test func serveRunsTheServerAndStopsOnSIGTERM() async throws {
        let (process, port) = try await Self.startServe()
        defer { if process.isRunning { process.terminate() } }
        let reply = try await HTTPTestClient.request(port: port, "GET", "/healthz")
        #expect(reply.status == 200)
        #expect(await Self.stop(process) == 0)
    }

    /// `--store`: a server stopped by SIGTERM has written what it measured; the next server (another
    /// process) answers the same request from the file, with the same bytes.
    @Test func serveWithAStoreAnswersTheNextProcessFromIt() async throws {
        let folder = NSTemporaryDirectory() + "serve-store-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/heights.sqlite"
        let items = (0..<24).map { index in
            #"{"text":"Row \#(index): a text stored by one server and read by the next","width":\#(90 + 10 * index),"id":\#(index)}"#
        }
        let body = "[" + items.joined(separator: ",") + "]"

        let (first, firstPort) = try await Self.startServe(["--store", path])
        defer { if first.isRunning { first.terminate() } }
        // The first request with a new store file digests the font files (22 MB; long in a debug build
        // with the thread sanitizer on a busy machine), the next server reads their digests from it.
        let measured = try await HTTPTestClient.request(port: firstPort, "POST", "/v1/measure", body: body, timeout: 600)
        #expect(measured.status == 200)
        #expect(await Self.stop(first) == 0)

        let (second, secondPort) = try await Self.startServe(["--store", path])
        defer { if second.isRunning { second.terminate() } }
        let stored = try await HTTPTestClient.request(port: secondPort, "POST", "/v1/measure", body: body, timeout: 300)
        #expect(stored.status == 200)
        #expect(stored.body == measured.body)
        let metrics = try await HTTPTestClient.request(port: secondPort, "GET", "/metrics")
        #expect(metrics.body.contains("textmeasure_store_hits 24.0\n"), "\(metrics.body)")
        #expect(metrics.body.contains("textmeasure_store_misses 0.0\n"))
        #expect(metrics.body.contains("textmeasure_store_hit_ratio 1.0\n"))
        #expect(await Self.stop(second) == 0)
    }

    /// A server stopped by SIGTERM closes its store: the write-ahead log is folded into the file, so
    /// that the `.sqlite` file copied alone holds every row measured.
    @Test func sigtermLeavesEveryRowInTheStoreFile() async throws {
        let folder = NSTemporaryDirectory() + "serve-wal-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/heights.sqlite"
        let items = (0..<600).map { #"{"text":"Row \#($0): measured, stored, and copied with its file alone","width":300}"# }

        let (server, port) = try await Self.startServe(["--store", path])
        defer { if server.isRunning { server.terminate() } }
        let measured = try await HTTPTestClient.request(port: port, "POST", "/v1/measure",
                                                        body: "[" + items.joined(separator: ",") + "]", timeout: 600)
        #expect(measured.status == 200)
        #expect(await Self.stop(server) == 0)

        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
        #expect(log == 0, "\(log) bytes left in the log")
        let copy = folder + "/copy.sqlite"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let stats = ChildProcess()
        stats.executableURL = Self.products.appendingPathComponent("textmeasure")
        stats.arguments = ["store", "stats", copy]
        let output = Pipe()
        stats.standardOutput = .pipe(output)
        try stats.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        stats.waitUntilExit()
        #expect(text.contains("entries: 600\n"), "\(text)")
    }

    /// `--breaking` is the default of items without `"breaking"`.
    @Test func serveBreakingOption() async throws {
        let (server, port) = try await Self.startServe(["--breaking", "browser"])
        defer { if server.isRunning { server.terminate() } }
        let body = #"[{"text":"a\n","width":100},{"text":"a\n","width":100,"breaking":"pango"}]"#
        let answer = try await HTTPTestClient.request(port: port, "POST", "/v1/measure", body: body)
        #expect(answer.status == 200)
        #expect(answer.body.hasPrefix(#"[{"lineCount":1,"#), "\(answer.body)")
        #expect(answer.body.contains(#"},{"lineCount":2,"#), "\(answer.body)")
        #expect(await Self.stop(server) == 0)
    }

    @Test func serveSaysHowToBuildAMissingServer() throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("serve-missing-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("textmeasure")
        try FileManager.default.copyItem(at: Self.products.appendingPathComponent("textmeasure"), to: copy)
        let process = ChildProcess()
        process.executableURL = copy
        process.arguments = ["serve"]
        let error = Pipe()
        process.standardError = .pipe(error)
        try process.run()
        let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(text.contains("swift build -c release --product textmeasure-serve"))
    }

    @Test func serveHelpIsTheServersHelp() throws {
        let process = ChildProcess()
        process.executableURL = Self.products.appendingPathComponent("textmeasure")
        process.arguments = ["serve", "--help"]
        let output = Pipe()
        process.standardOutput = .pipe(output)
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text.contains("--max-items"))
        #expect(text.contains("POST /v1/measure"))
        // The item format in the overview has "spans" (styled text), wrapped at 80 columns.
        let overview = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(overview.contains(#""spans"?: [{"start": Int, "end": Int, "bold"?: Bool, "italic"?: Bool, "mono"?: Bool, "size"?: Number}]"#),
                "\(overview)")
    }

    /// `textmeasure help serve` (the hand-over command's own help, which cannot ask the server) names
    /// every option the server takes.
    @Test func helpServeListsEveryOptionOfTheServer() throws {
        let server = try ProcessRunner.run(Self.products.appendingPathComponent("textmeasure-serve"), ["--help"])
        let options = server.stdout.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^  (?:-[a-z], )?(--[a-z][a-z-]*)/).map { String($0.1) }
        }.filter { $0 != "--help" }
        #expect(options.count >= 20 && options.contains("--no-demo"), "\(options)")
        let help = try ProcessRunner.run(Self.products.appendingPathComponent("textmeasure"), ["help", "serve"])
        let named = Set(help.stdout.matches(of: /--[a-z][a-z-]*[a-z]/).map { String($0.0) })
        for option in options {
            #expect(named.contains(option), "`textmeasure help serve` leaves out \(option)")
        }
    }

    /// Out-of-range options are refused before the server starts, naming the option, the value and
    /// the range (`--cached-texts` of 2^29 or more trapped in the cache).
    @Test(arguments: [
        (["--port", "70000"], "--port 70000 is out of range: must be from 0 to 65535"),
        (["--max-items", "0"], "--max-items 0 is out of range: must be an integer of at least 1"),
        (["--max-body-bytes=-5"], "--max-body-bytes -5 is out of range: must be an integer of at least 1"),
        (["--max-text-bytes", "0"], "--max-text-bytes 0 is out of range"),
        (["--max-connections", "0"], "--max-connections 0 is out of range"),
        (["--cached-texts", "536870912"], "--cached-texts 536870912 is out of range: must be an integer from 1 to 268435456"),
        (["--cached-texts", "9223372036854775807"], "--cached-texts 9223372036854775807 is out of range"),
        (["--cached-texts", "0"], "--cached-texts 0 is out of range"),
    ])
    func optionsOutOfRangeAreRefused(_ arguments: [String], _ message: String) throws {
        let refused = try ProcessRunner.run(Self.products.appendingPathComponent("textmeasure-serve"), arguments)
        #expect(refused.status == 64, "\(refused.stderr)")   // ArgumentParser's usage error, not a trap
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains(message), "\(refused.stderr)")
    }

    /// The web demo at /demo/ and the bundled fonts at /fonts/ by default, with their caching headers;
    /// `--no-demo` serves neither; `--demo` naming a folder without a page is refused before listening.
    @Test func serveServesTheDemoAndTheFonts() async throws {
        let (process, port) = try await Self.startServe()
        defer { if process.isRunning { process.terminate() } }
        let page = try await HTTPTestClient.request(port: port, "GET", "/demo/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.body.contains("demo.js"))
        let font = try await HTTPTestClient.request(port: port, "HEAD", "/fonts/NotoSans-Regular.ttf")
        #expect(font.status == 200)
        #expect(font.headers["content-type"] == "font/ttf")
        #expect(font.headers["cache-control"] == "public, max-age=86400")
        let size = try FileManager.default.attributesOfItem(atPath: packageRoot() + "/Fonts/NotoSans-Regular.ttf")[.size] as? Int
        #expect(font.headers["content-length"] == size.map(String.init))
        // NanumGothic is served without the tables browsers reject: shorter than the file.
        let nanum = try await HTTPTestClient.request(port: port, "HEAD", "/fonts/NanumGothic.ttf")
        let nanumSize = try FileManager.default.attributesOfItem(atPath: packageRoot() + "/Fonts/NanumGothic.ttf")[.size] as? Int
        #expect(nanum.status == 200)
        #expect(Int(nanum.headers["content-length"] ?? "").map { $0 < (nanumSize ?? 0) } == true)
        for path in ["/fonts/README.md", "/demo/test_demo.py", "/demo/%2e%2e/Package.swift"] {
            #expect(try await HTTPTestClient.request(port: port, "GET", path).status == 404, "\(path)")
        }
        #expect(await Self.stop(process) == 0)

        let (bare, barePort) = try await Self.startServe(["--no-demo"])
        defer { if bare.isRunning { bare.terminate() } }
        #expect(try await HTTPTestClient.request(port: barePort, "GET", "/demo/").status == 404)
        #expect(try await HTTPTestClient.request(port: barePort, "GET", "/fonts/NotoSans-Regular.ttf").status == 404)
        #expect(await Self.stop(bare) == 0)

        let refused = try ProcessRunner.run(Self.products.appendingPathComponent("textmeasure"),
                                            ["serve", "--port", "0", "--demo", "/nonexistent/demo"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--demo /nonexistent/demo"))
    }
}
