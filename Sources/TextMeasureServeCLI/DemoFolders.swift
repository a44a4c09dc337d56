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

    /// Folders searched for the demo, in order: `Examples/web` beside each `Fonts` folder that
    /// ``BundledFonts/searchPath()`` searches for the bundled fonts (beside the running executable and
    /// in each folder above it, which covers `.build/release/textmeasure-serve` inside a checkout; then
    /// the package's own), so that the demo is found wherever the fonts it draws with are.
    static func demoSearchPath() -> [String] {
        BundledFonts.searchPath().compactMap { folder in
            folder.hasSuffix("/Fonts") ? String(folder.dropLast("/Fonts".count)) + "/Examples/web" : nil
        }
    }

    /// The bundled fonts' folder: the first of ``BundledFonts/searchPath()`` that holds every file of the
    /// default cascade (the folder the measurer's bundled fonts come from), or nil.
    static func fontsFolder() -> String? {
        BundledFonts.searchPath().first { folder in
            BundledFonts.fileNames.allSatisfy { access(folder + "/" + $0, R_OK) == 0 }
        }
    }
}
