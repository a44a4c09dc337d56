import Foundation
import Testing
@testable import TextMeasure

@Suite("Fonts")
struct FontTests {
    @Test func bundledCascadeLoadsInOrder() throws {
        let cascade = try FontCascade.bundled()
        #expect(cascade.fonts.count == BundledFonts.fileNames.count)
        #expect(cascade.primary.familyName == "Noto Sans")
        #expect(cascade.fonts.last?.isColor == true)
        #expect(cascade.fonts.dropLast().allSatisfy { !$0.isColor })
    }

    @Test func fontsAreLoadedOnceAndShared() throws {
        let a = try TextMeasurer()
        let b = try TextMeasurer()
        #expect(a.cascade.primary === b.cascade.primary)
    }

    @Test func bundledFontsAreFoundFromTheEnvironmentOverride() throws {
        // The search path starts with $TEXTMEASURE_FONTS, then the executable's folders, then the
        // package's own Fonts/ located at build time.
        let path = BundledFonts.searchPath()
        #expect(path.contains(Fixtures.root + "/Fonts"))
        #expect(try BundledFonts.files().first?.path.hasSuffix("/NotoSans-Regular.ttf") == true)
    }

    @Test func missingFileIsNamed() {
        #expect(throws: FontError.fileNotFound(path: "/no/such/font.ttf")) {
            try TextMeasurer(fontFiles: ["/no/such/font.ttf"])
        }
    }

    @Test func corruptFileIsNamed() throws {
        let path = NSTemporaryDirectory() + "corrupt-\(getpid()).ttf"
        try Data("this is not a font".utf8).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        do {
            _ = try TextMeasurer(fontFiles: [path])
            Issue.record("a corrupt font was accepted")
        } catch {
            guard case .corrupt(let named, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(named == path)
            #expect(error.description.contains(path))
        }
    }

    @Test func directoryIsUnreadable() {
        #expect {
            try TextMeasurer(fontFiles: [NSTemporaryDirectory()])
        } throws: { error in
            guard case FontError.unreadable(let path, _) = error else { return false }
            return path == NSTemporaryDirectory()
        }
    }

    @Test func faceIndexOutOfRange() {
        let path = Fixtures.root + "/Fonts/NotoSans-Regular.ttf"
        #expect(throws: FontError.faceIndexOutOfRange(path: path, index: 3, faceCount: 1)) {
            try TextMeasurer(fonts: [FontFile(path: path, faceIndex: 3)])
        }
    }

    /// A negative index is refused with the file's count of faces, and the message names the index
    /// and the indexes there are (it said "has 0 face(s)" of a single-face file).
    @Test func negativeFaceIndexNamesTheFacesThereAre() {
        let path = Fixtures.root + "/Fonts/NotoSans-Regular.ttf"
        #expect(throws: FontError.faceIndexOutOfRange(path: path, index: -1, faceCount: 1)) {
            try TextMeasurer(fonts: [FontFile(path: path, faceIndex: -1)])
        }
        #expect(FontError.faceIndexOutOfRange(path: path, index: -1, faceCount: 1).description
                == "font file \(path): face index -1 is out of range: must be 0 (the file has 1 face)")
        let collection = Fixtures.root + "/Tests/Fixtures/HebrewThai.ttc"
        #expect(throws: FontError.faceIndexOutOfRange(path: collection, index: -2, faceCount: 2)) {
            try TextMeasurer(fonts: [FontFile(path: collection, faceIndex: -2)])
        }
        #expect(FontError.faceIndexOutOfRange(path: collection, index: 5, faceCount: 2).description
                == "font file \(collection): face index 5 is out of range: must be from 0 to 1 (the file has 2 faces)")
    }

    @Test func collectionFacesAreChosenByIndex() throws {
        let collection = Fixtures.root + "/Tests/Fixtures/HebrewThai.ttc"
        let hebrew = try TextMeasurer(fonts: [FontFile(path: collection, faceIndex: 0)])
        let thai = try TextMeasurer(fonts: [FontFile(path: collection, faceIndex: 1)])
        #expect(hebrew.cascade.primary.familyName == "Noto Sans Hebrew")
        #expect(thai.cascade.primary.familyName == "Noto Sans Thai")
        // Each face measures its own script as the same face loaded from its own file does.
        let style = TextStyle(size: 16)
        let fromFile = try TextMeasurer(fontFiles: [Fixtures.root + "/Fonts/NotoSansThai-Regular.ttf"])
        #expect(try thai.measure("สวัสดีครับ", style: style, width: 1000).widestLineWidth
                == fromFile.measure("สวัสดีครับ", style: style, width: 1000).widestLineWidth)
        #expect(throws: FontError.faceIndexOutOfRange(path: collection, index: 2, faceCount: 2)) {
            try TextMeasurer(fonts: [FontFile(path: collection, faceIndex: 2)])
        }
    }

    @Test func emptyCascadeIsRefused() {
        #expect(throws: FontError.emptyCascade) { try TextMeasurer(fontFiles: []) }
    }

    @Test func customCascadeIsUsed() throws {
        let latinOnly = try TextMeasurer(fontFiles: [Fixtures.root + "/Fonts/NotoSans-Regular.ttf"])
        let style = TextStyle(size: 16)
        let latin = try latinOnly.measure("Hello", style: style, width: 1000)
        let bundled = try Fixtures.measurer.measure("Hello", style: style, width: 1000)
        #expect(latin.widestLineWidth == bundled.widestLineWidth)
        // Without a CJK font, ideographs fall to .notdef, which has another width.
        let han = try latinOnly.measure("中文", style: style, width: 1000)
        let hanBundled = try Fixtures.measurer.measure("中文", style: style, width: 1000)
        #expect(han.widestLineWidth != hanBundled.widestLineWidth)
        #expect(hanBundled.widestLineWidth == 32)   // Droid Sans Fallback ideographs are 1 em wide
    }
}
