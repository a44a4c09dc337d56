import Foundation
import Testing
import TestSupport
import TextMeasureHTTP

/// The static folders `textmeasure serve` answers for (the web demo, the bundled fonts): which paths map
/// to files, and the headers and conditional requests over real HTTP.
@Suite("static files")
struct StaticFilesTests {
    /// A folder with a page, a script, a sub-folder, a hidden file, a file of a type not served, and a
    /// symbolic link pointing out of it; beside it, a file the link names.
    static func site() throws -> (folder: String, outside: String) {
        let base = try TemporaryFolders.make(prefix: "static")
        let folder = base + "/site"
        try FileManager.default.createDirectory(atPath: folder + "/assets", withIntermediateDirectories: true)
        try "<!doctype html><p>hello</p>\n".write(toFile: folder + "/index.html", atomically: true, encoding: .utf8)
        try "export const x = 1;\n".write(toFile: folder + "/app.js", atomically: true, encoding: .utf8)
        try "body { margin: 0 }\n".write(toFile: folder + "/assets/style.css", atomically: true, encoding: .utf8)
        try "secret\n".write(toFile: folder + "/.env", atomically: true, encoding: .utf8)
        try "print(1)\n".write(toFile: folder + "/tool.py", atomically: true, encoding: .utf8)
        try "outside\n".write(toFile: base + "/outside.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/escape.txt", withDestinationPath: base + "/outside.txt")
        try FileManager.default.createSymbolicLink(atPath: folder + "/inside.js", withDestinationPath: folder + "/app.js")
        return (folder, base + "/outside.txt")
    }

    static func folder() throws -> StaticFolder {
        try StaticFolder(prefix: "demo", folder: site().folder, indexFile: "index.html")
    }

    /// The file name a resolution names, or what else it is.
    static func named(_ resolution: StaticFolder.Resolution) -> String {
        switch resolution {
        case .file(let path, _, _): return String(path.split(separator: "/").last ?? "")
        case .redirect(let location): return "redirect " + location
        case .notFound: return "not found"
        }
    }

    @Test func prefixIsNormalizedAndCoversItsPaths() throws {
        let folder = try Self.folder()
        #expect(folder.prefix == "/demo/")
        #expect(folder.covers("/demo/"))
        #expect(folder.covers("/demo/app.js"))
        #expect(folder.covers("/demo"))
        #expect(!folder.covers("/demonstration"))
        #expect(!folder.covers("/v1/measure"))
    }

    @Test func filesIndexAndRedirects() throws {
        let folder = try Self.folder()
        #expect(Self.named(folder.resolve("/demo/")) == "index.html")
        #expect(Self.named(folder.resolve("/demo/app.js")) == "app.js")
        #expect(Self.named(folder.resolve("/demo/assets/style.css")) == "style.css")
        #expect(Self.named(folder.resolve("/demo/%61pp.js")) == "app.js")
        // A link that stays inside the folder is served, as the file it names.
        #expect(Self.named(folder.resolve("/demo/inside.js")) == "app.js")
        #expect(folder.resolve("/demo") == .redirect("/demo/"))
        #expect(folder.resolve("/demo/assets") == .redirect("/demo/assets/"))
        #expect(Self.named(folder.resolve("/demo/assets/")) == "not found")   // no index.html there
    }

    @Test(arguments: [
        "/demo/../outside.txt", "/demo/%2e%2e/outside.txt", "/demo/%2E%2E/outside.txt", "/demo/assets/../../outside.txt",
        "/demo/..%2foutside.txt", "/demo/%2e%2e%2foutside.txt", "/demo/..%5coutside.txt", "/demo/app.js%00.html",
        "/demo//etc/passwd", "/demo/./app.js", "/demo/.env", "/demo/%2eenv", "/demo/escape.txt", "/demo/tool.py",
        "/demo/missing.js", "/demo/%zz", "/demo/%ff.js", "/demo/%", "/demo/app.js/", "/other/app.js",
    ])
    func pathsOutsideOrNotServedMapToNothing(path: String) throws {
        #expect(try Self.folder().resolve(path) == .notFound, "\(path)")
    }

    @Test func extensionsCanBeLimited() throws {
        let folder = try StaticFolder(prefix: "/fonts/", folder: Self.site().folder, fileExtensions: ["CSS"])
        #expect(Self.named(folder.resolve("/fonts/assets/style.css")) == "style.css")
        #expect(folder.resolve("/fonts/app.js") == .notFound)
        #expect(folder.resolve("/fonts/") == .notFound)   // no index file
    }

    @Test func aMissingFolderIsAnError() {
        #expect(throws: StaticFolder.Failure.self) {
            try StaticFolder(prefix: "/x/", folder: "/nonexistent/folder/for/the/test")
        }
    }

    @Test func contentTypes() {
        #expect(StaticFolder.contentType(ofFile: "index.html") == "text/html; charset=utf-8")
        #expect(StaticFolder.contentType(ofFile: "a/b/demo.JS") == "text/javascript; charset=utf-8")
        #expect(StaticFolder.contentType(ofFile: "NotoSans-Regular.ttf") == "font/ttf")
        #expect(StaticFolder.contentType(ofFile: "Makefile") == nil)
        #expect(StaticFolder.contentType(ofFile: "run.sh") == nil)
    }

    // MARK: Over HTTP

    @Test func getHeadAndConditionalRequests() async throws {
        let folder = try Self.folder()
        try await MeasureServerTests.withServer(staticFolders: [folder]) { port, _ in
            let page = try await HTTPTestClient.request(port: port, "GET", "/demo/")
            #expect(page.status == 200)
            #expect(page.body == "<!doctype html><p>hello</p>\n")
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.headers["content-length"] == "28")
            #expect(page.headers["cache-control"] == "no-cache")
            #expect(page.headers["x-content-type-options"] == "nosniff")
            let eTag = try #require(page.headers["etag"])
            let modified = try #require(page.headers["last-modified"])
            #expect(modified.hasSuffix(" GMT"))

            let head = try await HTTPTestClient.request(port: port, "HEAD", "/demo/")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            for name in ["content-type", "content-length", "etag", "last-modified", "cache-control"] {
                #expect(head.headers[name] == page.headers[name], "\(name)")
            }

            let script = try await HTTPTestClient.request(port: port, "GET", "/demo/app.js")
            #expect(script.headers["content-type"] == "text/javascript; charset=utf-8")
            #expect(script.body == "export const x = 1;\n")

            let same = try await HTTPTestClient.request(port: port, "GET", "/demo/", headers: ["If-None-Match: \(eTag)"])
            #expect(same.status == 304)
            #expect(same.body.isEmpty)
            #expect(same.headers["etag"] == eTag)
            let listed = try await HTTPTestClient.request(port: port, "GET", "/demo/", headers: ["If-None-Match: \"x\", W/\(eTag)"])
            #expect(listed.status == 304)
            let other = try await HTTPTestClient.request(port: port, "GET", "/demo/", headers: ["If-None-Match: \"other\""])
            #expect(other.status == 200)
            let since = try await HTTPTestClient.request(port: port, "GET", "/demo/", headers: ["If-Modified-Since: \(modified)"])
            #expect(since.status == 304)
            let before = try await HTTPTestClient.request(port: port, "GET", "/demo/", headers: ["If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT"])
            #expect(before.status == 200)
            // If-None-Match decides when both are sent.
            let both = try await HTTPTestClient.request(port: port, "GET", "/demo/",
                                                        headers: ["If-None-Match: \"other\"", "If-Modified-Since: \(modified)"])
            #expect(both.status == 200)
        }
    }

    @Test func errorsAndRedirects() async throws {
        let folder = try Self.folder()
        try await MeasureServerTests.withServer(staticFolders: [folder]) { port, _ in
            let moved = try await HTTPTestClient.request(port: port, "GET", "/demo")
            #expect(moved.status == 301)
            #expect(moved.headers["location"] == "/demo/")
            for path in ["/demo/%2e%2e/outside.txt", "/demo/.env", "/demo/tool.py", "/demo/escape.txt", "/demo/nothing.js"] {
                let reply = try await HTTPTestClient.request(port: port, "GET", path)
                #expect(reply.status == 404, "\(path)")
                let object = try MeasureServerTests.json(reply.body) as? [String: Any]
                #expect(object?["error"] is String, "\(path): \(reply.body)")
            }
            let post = try await HTTPTestClient.request(port: port, "POST", "/demo/app.js", body: "{}")
            #expect(post.status == 405)
            #expect(post.headers["allow"] == "GET, HEAD")
            // The routes are untouched.
            let health = try await HTTPTestClient.request(port: port, "GET", "/healthz")
            #expect(health.status == 200)
            let measured = try await HTTPTestClient.request(port: port, "POST", "/v1/measure", body: #"{"text":"hi","width":100}"#)
            #expect(measured.status == 200)
            // Static files share one metrics label: a scanner cannot grow the metrics.
            let metrics = try await HTTPTestClient.request(port: port, "GET", "/metrics")
            #expect(metrics.body.contains("path=\"/demo/\""))
            #expect(!metrics.body.contains("nothing.js"))
        }
    }

    // MARK: Web fonts

    static func tables(_ font: [UInt8]) -> [String: (offset: Int, length: Int)] {
        func read32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(font[at + $1]) } }
        let count = Int(font[4]) << 8 | Int(font[5])
        var tables: [String: (offset: Int, length: Int)] = [:]
        for index in 0..<count {
            let record = 12 + 16 * index
            let tag = String(decoding: font[record..<record + 4], as: UTF8.self)
            tables[tag] = (read32(record + 8), read32(record + 12))
        }
        return tables
    }

    @Test func nanumGothicIsServedWithoutItsHintingSources() throws {
        let path = packageRoot() + "/Fonts/NanumGothic.ttf"
        let font = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(WebFont.needsCleaning(header: font))
        let served = WebFont.servable(font)
        let before = Self.tables(font), after = Self.tables(served)
        #expect(Set(before.keys).subtracting(after.keys) == ["TSI0", "TSI1", "TSI2", "TSI3", "TSI5"])
        // Every kept table keeps its bytes.
        for (tag, table) in after {
            let original = try #require(before[tag])
            #expect(table.length == original.length, "\(tag)")
            if tag != "head" {
                #expect(served[table.offset..<table.offset + table.length] == font[original.offset..<original.offset + original.length], "\(tag)")
            }
        }
        // The whole file sums to the OpenType magic number once head.checkSumAdjustment is set.
        var sum: UInt32 = 0
        for word in stride(from: 0, to: served.count, by: 4) {
            sum &+= (0..<4).reduce(0) { $0 << 8 | UInt32(word + $1 < served.count ? served[word + $1] : 0) }
        }
        #expect(sum == 0xB1B0_AFBA)
        #expect(!WebFont.needsCleaning(header: served))
    }

    @Test func otherFilesAreServedAsTheyAre() throws {
        let path = packageRoot() + "/Fonts/NotoSans-Regular.ttf"
        let font = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(!WebFont.needsCleaning(header: font))
        #expect(WebFont.servable(font) == font)
        let notAFont = Array("not a font at all, just text".utf8)
        #expect(WebFont.servable(notAFont) == notAFont)
        #expect(WebFont.tableDirectoryLength(header: notAFont) == nil)
        #expect(WebFont.servable([]) == [])
    }
}
