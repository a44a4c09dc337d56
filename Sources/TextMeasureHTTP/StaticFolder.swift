#if canImport(Glibc)
import Glibc
#endif

/// A folder whose files the server answers `GET` and `HEAD` for under a URL prefix: `/demo/` for the web
/// demo (`Examples/web`), `/fonts/` for the bundled fonts.
///
/// A request path maps to a file only when it stays inside the folder, as written and as resolved:
/// - the path after the prefix is split at `/`, then each segment is percent-decoded on its own; a
///   segment that is empty (`//`, an absolute path after the prefix), `.` or `..` (also written
///   `%2e%2e`), that starts with `.` (hidden files), holds `/`, `\` or NUL once decoded (`%2f`,
///   `%5c`, `%00`), or is not UTF-8 maps to nothing;
/// - the file's canonical path (`realpath`: every symbolic link followed) must lie inside the folder's
///   canonical path, so that a link pointing out of the folder maps to nothing;
/// - it must be a regular file whose extension has a content type here (``contentType(ofFile:)``), so
///   that scripts, databases and notes beside the web files are not served; and when ``fileExtensions``
///   is set, one of those.
///
/// A path ending in `/` names the folder's ``indexFile`` (none: nothing); the prefix without its
/// final `/` (`/demo`) and a sub-folder named without one redirect to the path with it.
///
/// Thread safety: a value type; `Sendable`. ``resolve(_:)`` reads the file system and may run on any
/// thread.
package struct StaticFolder: Sendable, Equatable {
    /// The URL prefix, starting and ending with `/` (`/demo/`).
    package let prefix: String
    /// The folder's canonical path (no symbolic link in it, no final `/`).
    package let root: String
    /// The file a path ending in `/` names (`index.html`), or nil for none.
    package let indexFile: String?
    /// The extensions served (lowercased, without the dot), or nil for every extension that has a
    /// content type.
    package let fileExtensions: Set<String>?
    /// The `Cache-Control` of every file served from the folder.
    package let cacheControl: String
    /// Whether TrueType and OpenType files are served as web fonts: without the tables browsers'
    /// font sanitizers reject (see ``WebFont``).
    package let servesWebFonts: Bool

    /// Why a folder cannot be served.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        /// What went wrong, naming the folder.
        package var description: String
    }

    /// A folder served under `prefix`.
    ///
    /// - Parameters:
    ///   - prefix: The URL prefix (`/demo/`); a missing leading or trailing `/` is added.
    ///   - folder: The folder, relative to the working directory or absolute; symbolic links in it are
    ///     resolved once, here.
    ///   - indexFile: The file a path ending in `/` names, or nil.
    ///   - fileExtensions: The extensions served (case does not matter), or nil for all that have a
    ///     content type.
    ///   - cacheControl: The `Cache-Control` of its files (`no-cache`: the client asks again each time,
    ///     and a conditional request answers 304 while the file is unchanged).
    ///   - servesWebFonts: Whether font files are served as web fonts (``WebFont/servable(_:)``).
    /// - Throws: ``Failure`` when `folder` is not a readable folder.
    package init(prefix: String, folder: String, indexFile: String? = nil, fileExtensions: Set<String>? = nil,
                 cacheControl: String = "no-cache", servesWebFonts: Bool = false) throws(Failure) {
        var prefix = prefix
        if !prefix.hasPrefix("/") { prefix = "/" + prefix }
        if !prefix.hasSuffix("/") { prefix += "/" }
        self.prefix = prefix
        guard let resolved = Self.canonicalPath(folder), Self.fileType(resolved) == S_IFDIR,
              access(resolved, R_OK | X_OK) == 0 else {
            throw Failure(description: "\(folder) is not a readable folder")
        }
        root = resolved
        self.indexFile = indexFile
        self.fileExtensions = fileExtensions.map { Set($0.map { $0.lowercased() }) }
        self.cacheControl = cacheControl
        self.servesWebFonts = servesWebFonts
    }

    /// What a request path names in the folder.
    package enum Resolution: Sendable, Equatable {
        /// A regular file inside the folder: its canonical path and what `stat` says of it.
        case file(path: String, size: Int, modified: timespec)
        /// Answer with a redirect to this path (a folder named without its final `/`).
        case redirect(String)
        /// Nothing that may be served.
        case notFound

        package static func == (a: Resolution, b: Resolution) -> Bool {
            switch (a, b) {
            case let (.file(p1, s1, m1), .file(p2, s2, m2)):
                return p1 == p2 && s1 == s2 && m1.tv_sec == m2.tv_sec && m1.tv_nsec == m2.tv_nsec
            case let (.redirect(l1), .redirect(l2)): return l1 == l2
            case (.notFound, .notFound): return true
            default: return false
            }
        }
    }

    /// Whether a request for `path` is this folder's to answer: the path starts with ``prefix``, or is
    /// the prefix without its final `/`.
    ///
    /// - Parameter path: The request's path as sent (percent-encoded, no query).
    package func covers(_ path: String) -> Bool {
        path.hasPrefix(prefix) || path == prefix.dropLast()
    }

    /// What `path` names (see the type's rules).
    ///
    /// - Parameter path: The request's path as sent (percent-encoded, no query), one that ``covers(_:)``.
    /// - Returns: The file, a redirect, or ``Resolution/notFound``.
    /// - Complexity: O(*n*) in the path's length, plus a `realpath` and a `stat`.
    package func resolve(_ path: String) -> Resolution {
        if path == prefix.dropLast() { return .redirect(prefix) }
        guard path.hasPrefix(prefix) else { return .notFound }
        var segments: [String] = []
        let rest = path.utf8.dropFirst(prefix.utf8.count)
        let raw = rest.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (index, encoded) in raw.enumerated() {
            if encoded.isEmpty && index == raw.count - 1 {
                guard let indexFile else { return .notFound }
                segments.append(indexFile)
                break
            }
            guard let segment = Self.decodedSegment(encoded) else { return .notFound }
            segments.append(segment)
        }
        guard let name = segments.last else { return .notFound }
        let candidate = root + "/" + segments.joined(separator: "/")
        guard let resolved = Self.canonicalPath(candidate), resolved.hasPrefix(root + "/") else { return .notFound }
        var info = stat()
        guard stat(resolved, &info) == 0 else { return .notFound }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFDIR where indexFile != nil:
            return .redirect(path + "/")
        default:
            return .notFound
        }
        let fileExtension = Self.fileExtension(of: name)
        guard Self.contentTypes[fileExtension] != nil, fileExtensions?.contains(fileExtension) ?? true,
              access(resolved, R_OK) == 0 else { return .notFound }
        return .file(path: resolved, size: Int(info.st_size), modified: info.st_mtim)
    }

    /// A path segment percent-decoded, or nil when it may not name a file here.
    static func decodedSegment(_ encoded: Substring.UTF8View.SubSequence) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var index = encoded.startIndex
        while index != encoded.endIndex {
            let byte = encoded[index]
            encoded.formIndex(after: &index)
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard index != encoded.endIndex, let high = hexValue(encoded[index]) else { return nil }
            encoded.formIndex(after: &index)
            guard index != encoded.endIndex, let low = hexValue(encoded[index]) else { return nil }
            encoded.formIndex(after: &index)
            bytes.append(high << 4 | low)
        }
        guard let first = bytes.first, first != UInt8(ascii: "."),
              !bytes.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") || $0 == 0 }),
              let segment = String(validating: bytes, as: UTF8.self) else { return nil }
        return segment
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The canonical form of `path` (every symbolic link, `.` and `..` resolved), or nil when it does
    /// not exist.
    static func canonicalPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func fileType(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    /// The lowercased extension of a file name (after its last `.`), or "" for none.
    static func fileExtension(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// Content types by lowercased extension: the files a web page is made of. Text types say
    /// `charset=utf-8`.
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "json": "application/json", "map": "application/json",
        "txt": "text/plain; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
        "gif": "image/gif", "webp": "image/webp", "avif": "image/avif", "ico": "image/x-icon",
        "ttf": "font/ttf", "otf": "font/otf", "woff": "font/woff", "woff2": "font/woff2",
        "wasm": "application/wasm",
    ]

    /// The `Content-Type` of a file served here, by its extension; nil for a file not served.
    ///
    /// - Parameter name: The file's name or path.
    package static func contentType(ofFile name: String) -> String? {
        contentTypes[fileExtension(of: String(name.split(separator: "/").last ?? ""))]
    }
}
