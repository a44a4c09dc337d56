import Dispatch
import Foundation
import Hummingbird
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Answers `GET` and `HEAD` for the files of ``StaticFolder``s (the web demo, the bundled fonts), with
/// caching headers and conditional requests:
///
/// - `Content-Type` by extension (``StaticFolder/contentType(ofFile:)``), `Content-Length`,
///   `X-Content-Type-Options: nosniff`;
/// - `ETag` (the file's size and modification time, in nanoseconds) and `Last-Modified`; a request
///   whose `If-None-Match` holds the ETag (or `*`), or, without `If-None-Match`, whose
///   `If-Modified-Since` is not before the file's modification time, gets `304 Not Modified` with no
///   body;
/// - `Cache-Control` as the folder says;
/// - `HEAD`: the headers `GET` would send, no body.
///
/// A path the folder does not serve (missing, outside it, hidden, of a type not served) is a 404 in
/// the server's JSON shape (thrown, for ``JSONErrorMiddleware``); another method on a folder's path is a
/// 405 with `Allow: GET, HEAD`. Paths of no folder go on to the routes.
///
/// Files are streamed from disk in chunks (Hummingbird's `FileIO`); a font that must be cleaned for
/// browsers (``WebFont``) is cleaned once and kept in memory while its file is unchanged. Path
/// resolution and reading run off the event loops.
///
/// Thread safety: `Sendable`; the cache of cleaned fonts is locked.
struct StaticFilesMiddleware<Context: RequestContext>: RouterMiddleware {
    let folders: [StaticFolder]
    let fileIO = FileIO()
    let cleanedFonts: CleanedFontCache

    init(folders: [StaticFolder], cleanedFonts: CleanedFontCache = CleanedFontCache()) {
        self.folders = folders
        self.cleanedFonts = cleanedFonts
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard let folder = folders.first(where: { $0.covers(path) }) else { return try await next(request, context) }
        guard request.method == .get || request.method == .head else {
            var response = MeasureServer.json(405, MeasureEndpoint.error(
                405, "\(path) takes GET or HEAD, not \(request.method.rawValue)").body)
            response.headers[.allow] = "GET, HEAD"
            return response
        }
        let resolution = await Self.offLoop { folder.resolve(path) }
        switch resolution {
        case .notFound:
            throw HTTPError(.notFound)
        case .redirect(let location):
            var headers = HTTPFields()
            headers[.location] = location
            headers[.contentLength] = "0"
            return Response(status: .movedPermanently, headers: headers)
        case .file(let file, let size, let modified):
            return try await respond(request, context: context, folder: folder, file: file, size: size, modified: modified)
        }
    }

    private func respond(_ request: Request, context: Context, folder: StaticFolder, file: String, size: Int,
                         modified: timespec) async throws -> Response {
        // A font cleaned for browsers has its own length; its ETag says so too.
        var cleaned: ByteBuffer?
        if folder.servesWebFonts, ["ttf", "otf"].contains(StaticFolder.fileExtension(of: file)) {
            cleaned = await Self.offLoop { [cleanedFonts] in cleanedFonts.cleaned(path: file, size: size, modified: modified) }
        }
        let eTag = "\"\(String(size, radix: 16))-\(String(modified.tv_sec, radix: 16)).\(String(modified.tv_nsec, radix: 16))"
            + (cleaned == nil ? "\"" : "-web\"")
        var headers = HTTPFields()
        headers[.eTag] = eTag
        headers[.lastModified] = HTTPDate.format(seconds: modified.tv_sec)
        headers[.cacheControl] = folder.cacheControl
        if Self.isNotModified(request, eTag: eTag, modifiedSeconds: modified.tv_sec) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = StaticFolder.contentType(ofFile: file)
        headers[.xContentTypeOptions] = "nosniff"
        headers[.contentLength] = String(cleaned?.readableBytes ?? size)
        if request.method == .head {
            return Response(status: .ok, headers: headers)
        }
        let body: ResponseBody
        if let cleaned {
            body = ResponseBody(byteBuffer: cleaned)
        } else {
            body = try await fileIO.loadFile(path: file, context: context)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Whether the request's validators say the client's copy is current (RFC 9110 §13.1.2, §13.1.3):
    /// `If-None-Match` (weak comparison) decides when present, else `If-Modified-Since`.
    static func isNotModified(_ request: Request, eTag: String, modifiedSeconds: Int) -> Bool {
        let matches = request.headers[values: .ifNoneMatch]
        if !matches.isEmpty {
            let ours = eTag.hasPrefix("W/") ? String(eTag.dropFirst(2)) : eTag
            return matches.flatMap { $0.split(separator: ",") }.contains { candidate in
                let tag = candidate.trimmingCharacters(in: .whitespaces)
                return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == ours
            }
        }
        if let since = request.headers[.ifModifiedSince], let date = HTTPDate.parse(since) {
            return modifiedSeconds <= date
        }
        return false
    }

    /// Runs blocking file-system work on a Dispatch thread: never on an event loop or the cooperative pool.
    static func offLoop<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: work()) }
        }
    }
}

/// Fonts cleaned for browsers (``WebFont/servable(_:)``), by path, each kept while its file keeps its
/// size and modification time. Only files that needed cleaning are kept (NanumGothic.ttf among the
/// bundled fonts), so it holds at most one copy of each such file of the served folders.
///
/// Thread safety: `Sendable`; the table is read and written under `lock`.
final class CleanedFontCache: @unchecked Sendable {   // `entries` is only touched under `lock`
    private let lock = NSLock()
    private var entries: [String: (size: Int, seconds: Int, nanoseconds: Int, bytes: ByteBuffer?)] = [:]

    init() {}

    /// The cleaned bytes of the font at `path`, or nil when the file needs no cleaning (or cannot be
    /// read: it is then streamed as it is, or not found).
    ///
    /// - Complexity: Reads the file's table directory; reads and cleans the whole file the first time
    ///   one that needs cleaning is asked for, or after it changed.
    func cleaned(path: String, size: Int, modified: timespec) -> ByteBuffer? {
        lock.lock()
        if let entry = entries[path], entry.size == size, entry.seconds == modified.tv_sec,
           entry.nanoseconds == modified.tv_nsec {
            lock.unlock()
            return entry.bytes
        }
        lock.unlock()
        var bytes: ByteBuffer?
        if let header = Self.read(path, count: 12), let length = WebFont.tableDirectoryLength(header: header),
           let directory = Self.read(path, count: length), WebFont.needsCleaning(header: directory),
           let font = Self.read(path, count: size) {
            bytes = ByteBuffer(bytes: WebFont.servable(font))
        }
        lock.lock()
        entries[path] = (size, modified.tv_sec, modified.tv_nsec, bytes)
        lock.unlock()
        return bytes
    }

    /// The first `count` bytes of a file (fewer if it is shorter), or nil when it cannot be read.
    static func read(_ path: String, count: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, count - filled) }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { return nil }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes[..<filled])
    }
}

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, the form servers send (`Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` since the epoch as an IMF-fixdate.
    static func format(seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// The seconds since the epoch of an IMF-fixdate, or nil for anything else (the obsolete forms a
    /// recipient may ignore included).
    static func parse(_ text: String) -> Int? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[0].count == 4, fields[0].hasSuffix(","), days.contains(String(fields[0].dropLast())),
              fields[1].count == 2, let day = Int32(fields[1]), let month = months.firstIndex(of: String(fields[2])),
              fields[3].count == 4, let year = Int32(fields[3]), fields[5] == "GMT" else { return nil }
        let clock = fields[4].split(separator: ":")
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }), let hour = Int32(clock[0]), let minute = Int32(clock[1]),
              let second = Int32(clock[2]), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Int(timegm(&parts))
    }
}
