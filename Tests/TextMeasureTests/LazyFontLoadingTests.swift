import CHarfBuzzFreeType
import Foundation
import Testing
@testable import TextMeasure

/// Faces are validated when their cascade is made and loaded when a text first needs them (see
/// `FontFace`): what each text loads, that errors still come at once, and that loading from many
/// threads at once gives what a cascade loaded beforehand gives.
@Suite("Lazy font loading")
struct LazyFontLoadingTests {
    /// The bundled cascade under paths of its own (symbolic links in a fresh folder), so that its faces
    /// are this test's alone: faces are shared per path across the process, and other tests load the
    /// bundled ones.
    static func freshBundledCascade() throws -> FontCascade {
        let folder = try Fixtures.freshFolder(named: "textmeasure-lazy")
        let files = try BundledFonts.files().map { file in
            let link = folder.appendingPathComponent((file.path as NSString).lastPathComponent).path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file.path)
            return FontFile(path: link)
        }
        return try FontCascade(files: files)
    }

    /// Indexes of the cascade's loaded faces.
    static func loaded(_ cascade: FontCascade) -> [Int] {
        cascade.fonts.indices.filter { cascade.fonts[$0].isLoaded }
    }

    /// Indexes of the faces some font of which is alive at a size (made to shape or for metrics).
    static func scaled(_ cascade: FontCascade) -> [Int] {
        cascade.fonts.indices.filter { cascade.fonts[$0].liveScaledFontCount > 0 }
    }

    static let style = TextStyle(size: 17)

    @Test func makingACascadeAndAMeasurerLoadsNoFace() throws {
        let cascade = try Self.freshBundledCascade()
        #expect(Self.loaded(cascade) == [])
        let measurer = TextMeasurer(cascade: cascade)
        #expect(Self.loaded(measurer.cascade) == [])
        #expect(Self.scaled(measurer.cascade) == [])
        // Reading the public properties loads nothing either.
        #expect(cascade.fonts.last?.isColor == true)
        #expect(cascade.primary.familyName == "Noto Sans")
        #expect(Self.loaded(cascade) == [])
    }

    @Test func aLatinTextLoadsOnlyThePrimaryFont() throws {
        let measurer = TextMeasurer(cascade: try Self.freshBundledCascade())
        let m = try measurer.measure("Hello, world — “quotes”, café, 1–2 ½", style: Self.style, width: 120)
        #expect(m == (try Fixtures.measurer.measure("Hello, world — “quotes”, café, 1–2 ½", style: Self.style, width: 120)))
        #expect(Self.loaded(measurer.cascade) == [0])
        #expect(Self.scaled(measurer.cascade) == [0])
    }

    @Test func aFallbackLoadsWhenItsScriptComesAndNoLaterFontDoes() throws {
        let measurer = TextMeasurer(cascade: try Self.freshBundledCascade())
        let names = BundledFonts.fileNames
        let cjk = names.firstIndex(of: "DroidSansFallbackFull.ttf")!
        let emoji = names.firstIndex(of: "NotoColorEmoji.ttf")!

        _ = try measurer.measure("Hello مرحبا", style: Self.style, width: 300)
        #expect(Self.loaded(measurer.cascade) == [0, 1])

        // An ideograph asks every font before the CJK fallback whether it covers it (which loads them),
        // but only the fallback is shaped with; the fonts after it stay unread.
        _ = try measurer.measure("你好", style: Self.style, width: 300)
        #expect(Self.loaded(measurer.cascade) == Array(0...cjk))
        #expect(Self.scaled(measurer.cascade) == [0, 1, cjk])

        // Emoji ask the color font first: the fonts between stay unread.
        _ = try measurer.measure("👋", style: Self.style, width: 300)
        #expect(Self.loaded(measurer.cascade) == Array(0...cjk) + [emoji])
        #expect(Self.scaled(measurer.cascade) == [0, 1, cjk, emoji])
    }

    /// The selector remembers the first font covering each character as it is asked; its answers equal
    /// a table built up front from every font's character map (what it did before fonts were lazy).
    @Test func characterByCharacterAnswersEqualTheCollectedCharacterMaps() throws {
        let cascade = try Self.freshBundledCascade()
        let limit = 0x20000
        var expected = [Int?](repeating: nil, count: limit)
        for (index, font) in cascade.fonts.enumerated().reversed() {
            let set = hb_set_create()
            defer { hb_set_destroy(set) }
            hb_face_collect_unicodes(font.face, set)
            var codepoint = hb_codepoint_t.max   // HB_SET_VALUE_INVALID: start before the first
            while hb_set_next(set, &codepoint) != 0 && codepoint < limit {
                expected[Int(codepoint)] = index
            }
        }
        let selector = FontSelector(cascade: cascade)
        var differences = 0
        for scalar in 0..<UInt32(limit) where selector.firstCovering(scalar) != expected[Int(scalar)] {
            differences += 1
        }
        #expect(differences == 0)
        // Asked again, from the remembered table.
        #expect((0..<UInt32(limit)).allSatisfy { selector.firstCovering($0) == expected[Int($0)] })
    }

    /// Eight tasks measure texts in several scripts at once through a measurer whose faces are all
    /// unloaded, so that they load the same faces and make the same sizes' fonts at the same moment.
    /// Every result equals that of a cascade loaded before measuring. Run under
    /// `swift test --sanitize=thread` to check for races.
    @Test func concurrentFirstUseMatchesACascadeLoadedBeforehand() async throws {
        let texts = ["我能吞下玻璃而不伤身体。私はガラスを食べられます。", "نص حكيم له سر قاطع وذو شأن عظيم",
                     "나는 유리를 먹을 수 있어요", "สวัสดีครับ ऋषियों को सताने 😀👍🏽 ∑∞ ⚐", "Hello, world"]
        let sizes: [Double] = [13, 17]

        let loadedBefore = TextMeasurer(cascade: try Self.freshBundledCascade())
        for face in loadedBefore.cascade.fonts { _ = face.covers(0x20) }
        for size in sizes {
            let fonts = loadedBefore.fonts(for: TextStyle(size: size))
            for index in fonts.indices { _ = fonts[index] }
        }
        #expect(Self.loaded(loadedBefore.cascade).count == BundledFonts.fileNames.count)
        let expected = try sizes.map { size in
            try texts.map { try loadedBefore.measure($0, style: TextStyle(size: size), width: 160) }
        }

        let measurer = TextMeasurer(cascade: try Self.freshBundledCascade())
        let results = try await withThrowingTaskGroup(of: [(Int, Int, TextMeasurement)].self) { group in
            for task in 0..<8 {
                group.addTask {
                    var results: [(Int, Int, TextMeasurement)] = []
                    for step in 0..<(sizes.count * texts.count) {
                        let item = (step + task) % (sizes.count * texts.count)
                        let (size, text) = (item / texts.count, item % texts.count)
                        results.append((size, text, try measurer.measure(texts[text], style: TextStyle(size: sizes[size]),
                                                                          width: 160)))
                    }
                    return results
                }
            }
            var all: [(Int, Int, TextMeasurement)] = []
            for try await batch in group { all += batch }
            return all
        }
        #expect(results.count == 8 * sizes.count * texts.count)
        for (size, text, result) in results { #expect(result == expected[size][text]) }
        // Racing threads each made a font; one was kept per face and size (the others are freed).
        for index in measurer.cascade.fonts.indices {
            #expect(measurer.cascade.fonts[index].liveScaledFontCount <= sizes.count)
        }
    }

    /// Errors still come when the cascade is made, naming the first bad file, however far down the
    /// cascade it is and although no text would ever load it.
    @Test func aBadFallbackIsRefusedAtOnce() throws {
        let primary = Fixtures.root + "/Fonts/NotoSans-Regular.ttf"
        #expect(throws: FontError.fileNotFound(path: "/no/such/fallback.ttf")) {
            try FontCascade(files: [FontFile(path: primary), FontFile(path: "/no/such/fallback.ttf"),
                                    FontFile(path: "/no/such/second.ttf")])
        }
        #expect(throws: FontError.faceIndexOutOfRange(path: primary, index: 1, faceCount: 1)) {
            try FontCascade(files: [FontFile(path: primary), FontFile(path: primary, faceIndex: 1)])
        }
    }

    /// A file cut short inside the tables FreeType reads to open a face (here, after its first tenth)
    /// opens in HarfBuzz, which finds its glyph count and reads whatever tables are whole, but FreeType
    /// refuses it: it is refused as corrupt when the cascade is made, not when a text first needs it.
    @Test func aTruncatedFallbackIsRefusedAtOnce() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Fixtures.root + "/Fonts/NotoSansHebrew-Regular.ttf"))
        let path = NSTemporaryDirectory() + "truncated-\(UUID()).ttf"
        try whole.prefix(whole.count / 10).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        do {
            _ = try FontCascade(files: [FontFile(path: Fixtures.root + "/Fonts/NotoSans-Regular.ttf"), FontFile(path: path)])
            Issue.record("a truncated font was accepted")
        } catch {
            guard case .corrupt(let named, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(named == path)
        }
    }
}
