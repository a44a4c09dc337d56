import ArgumentParser
import TextMeasure
import TextMeasureHTTP

#if canImport(Glibc)
import Glibc
#endif

/// The folders `textmeasure serve` serves besides its routes: the web demo (`Examples/web`) at
/// `/demo/` and the bundled fonts at `/fonts/`, found the way the bundled fonts are found.
enum DemoFolders {
    /// The demo's URL prefix.
    static let demoPrefix = "/demo/"
    /// The fonts' URL prefix (the demo's `@font-face` rules load `/fonts/NAME.ttf`).
    static let fontsPrefix = "/fonts/"

    /// The demo's folder and the bundled fonts' folder, each served when found.
    ///
    /// - Parameter demo: `--demo`: the demo's folder, which must then hold `index.html`; nil to search
    ///   (``demoSearchPath()``).
    /// - Returns: The folders to serve: the demo's when one is found (a missing demo is no error when
    ///   none was named), and the bundled fonts' when they are found.
    /// - Throws: `ValidationError` when `demo` names a folder without `index.html`.
    static func folders(demo: String?) throws -> [StaticFolder] {
        var folders: [StaticFolder] = []
        if let demo {
            guard access(demo + "/index.html", R_OK) == 0 else {
                throw ValidationError("--demo \(demo): no readable index.html in that folder")
            }
            folders.append(try demoFolder(demo))
        } else if let found = demoSearchPath().first(where: { access($0 + "/index.html", R_OK) == 0 }) {
            folders.append(try demoFolder(found))
        }
        if let fonts = fontsFolder() {
            // Every font file of the folder (the regular cascade, the bold, italic and mono faces). They
            // change only with the package: clients may keep them a day, then ask again (304 if unchanged).
            folders.append(try served { () throws(StaticFolder.Failure) in
                try StaticFolder(prefix: fontsPrefix, folder: fonts, fileExtensions: ["ttf", "otf"],
                                 cacheControl: "public, max-age=86400", servesWebFonts: true)
            })
        }
        return folders
    }

    /// The demo's files change while one works on them: clients ask again each time (304 if unchanged).
    private static func demoFolder(_ folder: String) throws -> StaticFolder {
        try served { () throws(StaticFolder.Failure) in
            try StaticFolder(prefix: demoPrefix, folder: folder, indexFile: "index.html", cacheControl: "no-cache")
        }
    }

    private static func served(_ make: () throws(StaticFolder.Failure) -> StaticFolder) throws -> StaticFolder {
        do {
            return try make()
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Folders searched for the demo, in order (as ``BundledFonts/searchPath()`` searches for `Fonts/`):
    /// 1. `Examples/web` beside the running executable and in each folder above it (covers
    ///    `.build/release/textmeasure-serve` inside a checkout);
    /// 2. the package's own `Examples/web`, located from this source file at build time.
    static func demoSearchPath() -> [String] {
        var folders: [String] = []
        if let executable = executableFolder() {
            var folder = Substring(executable)
            while !folder.isEmpty {
                folders.append(String(folder) + "/Examples/web")
                guard let slash = folder.lastIndex(of: "/") else { break }
                folder = folder[..<slash]
            }
        }
        // #filePath is Sources/TextMeasureServeCLI/DemoFolders.swift; the package root is 3 levels up.
        var root = "\(#filePath)"
        for _ in 0..<3 {
            if let slash = root.lastIndex(of: "/") { root = String(root[..<slash]) }
        }
        folders.append(root + "/Examples/web")
        return folders
    }

    /// The bundled fonts' folder: the first of ``BundledFonts/searchPath()`` that holds every file of the
    /// default cascade (the folder the measurer's bundled fonts come from), or nil.
    static func fontsFolder() -> String? {
        BundledFonts.searchPath().first { folder in
            BundledFonts.fileNames.allSatisfy { access(folder + "/" + $0, R_OK) == 0 }
        }
    }

    private static func executableFolder() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }
}
