import Dispatch
import Foundation
import Testing

/// `textmeasure serve` as a process: the main command hands over to `textmeasure-serve`, which
/// stops cleanly on SIGTERM.
@Suite("textmeasure serve process")
struct ServeProcessTests {
    /// The built executables sit beside the test bundle.
    static let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    @Test func serveRunsTheServerAndStopsOnSIGTERM() async throws {
        let process = Process()
        process.executableURL = Self.products.appendingPathComponent("textmeasure")
        process.arguments = ["serve", "--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // "textmeasure-serve: listening on http://127.0.0.1:PORT"
        let line = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var data = Data()
                while !data.contains(UInt8(ascii: "\n")) {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    data += chunk
                }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) },
                                "no port in \(line)")
        let reply = try await HTTPTestClient.request(port: port, "GET", "/healthz")
        #expect(reply.status == 200)
        kill(process.processIdentifier, SIGTERM)
        let status = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
        #expect(status == 0)
    }

    @Test func serveSaysHowToBuildAMissingServer() throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("serve-missing-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("textmeasure")
        try FileManager.default.copyItem(at: Self.products.appendingPathComponent("textmeasure"), to: copy)
        let process = Process()
        process.executableURL = copy
        process.arguments = ["serve"]
        let error = Pipe()
        process.standardError = error
        try process.run()
        let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(text.contains("swift build -c release --product textmeasure-serve"))
    }

    @Test func serveHelpIsTheServersHelp() throws {
        let process = Process()
        process.executableURL = Self.products.appendingPathComponent("textmeasure")
        process.arguments = ["serve", "--help"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text.contains("--max-items"))
        #expect(text.contains("POST /v1/measure"))
    }
}
