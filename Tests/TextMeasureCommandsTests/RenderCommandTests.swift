import Foundation
import TestSupport
import Testing

/// End-to-end tests of `textmeasure render`, run as a separate process.
@Suite("textmeasure render")
struct RenderCommandTests {
    static let executable: URL = {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return products.appendingPathComponent("textmeasure")
    }()

    func run(_ arguments: [String]) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run(Self.executable, arguments, input: "")
    }

    /// Width and height from a PNG's IHDR chunk (bytes 16–23, big-endian), read without any PNG library.
    func pngSize(_ path: String) throws -> (width: Int, height: Int) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try #require(data.count > 24 && data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        try #require(data[12..<16] == Data("IHDR".utf8))
        func int(_ offset: Int) -> Int { data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (int(16), int(20))
    }

    @Test(arguments: [1.0, 2.0, 3.0])
    func writesAPictureOfTheDocumentedSize(scale: Double) throws {
        let text = "Hello, world — 你好，世界 — مرحبا بالعالم 👋"
        let path = NSTemporaryDirectory() + "render-cli-\(getpid())-\(scale).png"
        defer { unlink(path) }
        let result = try run(["render", "--width", "160", "--size", "16", "--scale", "\(scale)", "--output", path, text])
        #expect(result.status == 0, "\(result.stderr)")
        let measured = try run(["measure", "--width", "160", "--size", "16", "--json", text])
        let object = try #require(JSONSerialization.jsonObject(with: Data(measured.stdout.utf8)) as? [String: Any])
        let height = try #require(object["height"] as? Double)
        let lines = try #require(object["lineCount"] as? Int)
        let size = try pngSize(path)
        #expect(size.width == Int(((160 + 32) * scale).rounded(.up)))
        #expect(size.height == Int(((height + 56) * scale - 1e-9).rounded(.up)))
        #expect(result.stdout.contains("\(size.width) × \(size.height) px"))
        #expect(result.stdout.contains("\(lines) lines"))
    }

    @Test func maxLinesCutsThePicture() throws {
        let path = NSTemporaryDirectory() + "render-cli-max-\(getpid()).png"
        defer { unlink(path) }
        let result = try run(["render", "--width", "100", "--max-lines", "2", "--line-height", "20", "--output", path,
                              "one two three four five six seven eight nine ten"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try pngSize(path).height == 2 * 20 + 56)
        #expect(result.stdout.contains("2 lines × 20 px = 40 px (truncated by --max-lines)"))
    }

    /// `--breaking` reaches the picture: a final newline and U+2028 end lines for Pango, not for a
    /// browser, so the same text draws 3 lines or 1.
    @Test(arguments: [("pango", 3), ("browser", 1)])
    func breakingRulesReachThePicture(breaking: String, lines: Int) throws {
        let path = NSTemporaryDirectory() + "render-cli-breaking-\(getpid())-\(breaking).png"
        defer { unlink(path) }
        let result = try run(["render", "--width", "300", "--line-height", "20", "--breaking", breaking,
                              "--output", path, "one\u{2028}two\n"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try pngSize(path).height == lines * 20 + 56)
        #expect(result.stdout.contains("\(lines) line"))
    }

    @Test(arguments: ["0", "-1", "9", "nan"])
    func refusesABadScale(scale: String) throws {
        let result = try run(["render", "--width", "100", "--scale=\(scale)", "--output", "/tmp/never.png", "x"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--scale"))
    }

    @Test func namesAFileItCannotWrite() throws {
        let result = try run(["render", "--width", "100", "--output", "/no/such/folder/out.png", "x"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("/no/such/folder/out.png"))
    }

    @Test func refusesAPictureTooLarge() throws {
        let result = try run(["render", "--width", "20000", "--output", "/tmp/never.png", "x"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("at most 16384 a side"))
    }
}
