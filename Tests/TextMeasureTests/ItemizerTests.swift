import CHarfBuzzFreeType
import CUnicodeBreak
import Testing
import TextMeasureSupport
@testable import TextMeasure

/// Neutral clusters (spaces, controls) take the font of the text around them and Common clusters the
/// script of the text around them, as `Itemizer.clusters(of:flags:into:)` appends them (see
/// `Itemizer.Followers`): at the start and end of a paragraph, next to emoji, and in stretches. A
/// cluster of several characters takes the first font that covers them all, or in `.pango`, where
/// its characters' first fonts differ, is appended in pieces, one per font.
@Suite("Itemizer")
struct ItemizerTests {
    static let selector = FontSelector(cascade: Fixtures.measurer.cascade)

    /// The paragraph's clusters: (first scalar, font, script, characters, neither emoji nor neutral,
    /// a piece joining the one before) each.
    static func clusters(_ text: String, browser: Bool = false)
        -> [(scalar: Unicode.Scalar, font: Int?, script: hb_script_t, scalars: [Unicode.Scalar], isOwnFont: Bool,
             joinsPrevious: Bool)] {
        var bytes = Array(text.utf8)
        var flags = [UInt8](repeating: 0, count: bytes.count + 1)
        let status = bytes.withUnsafeMutableBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { cub_analyze($0.baseAddress, Int32($0.count), &flags) }
        }
        #expect(status == 0)
        var list = ScratchList<Itemizer.Cluster>()
        defer { list.deallocate() }
        _ = bytes.withUnsafeBufferPointer { bytes in
            flags.withUnsafeBufferPointer { flags in
                Itemizer(selector: selector, choosesFontPerCharacter: browser).clusters(of: bytes, flags: flags, into: &list)
            }
        }
        return list.indices.map { index in
            let cluster = list[index]
            let end = index + 1 < list.count ? list[index + 1].start : bytes.count
            let scalars = Array(String(decoding: bytes[cluster.start..<end], as: UTF8.self).unicodeScalars)
            return (scalars[0], cluster.font, cluster.script, scalars, !cluster.isEmoji && !cluster.isNeutral,
                    cluster.joinsPrevious)
        }
    }

    static func font(_ scalar: Unicode.Scalar) -> Int { selector.firstCovering(scalar.value) ?? 0 }

    @Test func leadingAndTrailingNeutralsTakeTheTextsFontAndScript() {
        let arabic = Self.clusters("  مرحبا \t")
        #expect(arabic.allSatisfy { $0.font == Self.font("م") })
        #expect(arabic.allSatisfy { $0.script == HB_SCRIPT_ARABIC })
        let latin = Self.clusters("ab  ")
        #expect(latin.allSatisfy { $0.font == Self.font("a") && $0.script == HB_SCRIPT_LATIN })
    }

    @Test func aStretchBetweenTwoFontsTakesTheEarlierInTheCascade() {
        let clusters = Self.clusters("a \u{0009} 我")
        let latin = Self.font("a"), han = Self.font("我")
        #expect(latin != han)
        #expect(clusters.dropLast().allSatisfy { $0.font == latin })
        #expect(clusters.last?.font == han)
        // The Common spaces take the script before them; Han starts its own.
        #expect(clusters.dropLast().allSatisfy { $0.script == HB_SCRIPT_LATIN })
        #expect(clusters.last?.script == HB_SCRIPT_HAN)
    }

    /// Pango moves the spaces ending an item into the next only inside one script run: between two
    /// fonts of one script the stretch takes the earlier in the cascade, between two scripts it keeps
    /// the font before it, and after emoji, before another script, it is a run of its own.
    @Test func aStretchMovesToTheEarlierFontOnlyInsideAScript() {
        let latin = Self.font("a"), math = Self.font("∑"), han = Self.font("我"), thai = Self.font("ท")
        #expect(latin < math && latin < han && latin < thai)
        // "∑" is Common: it takes the script before it, so "∑  b" is one Latin run of two fonts.
        let sameScript = Self.clusters("a∑  b")
        #expect(sameScript[1].font == math)
        #expect(sameScript[2].font == latin && sameScript[3].font == latin)
        let reversed = Self.clusters("我  a")
        #expect(reversed[1].font == han && reversed[2].font == han)
        #expect(Self.clusters("ไทย abc")[3].font == thai)
        // After emoji, before Thai: the first font that has the space.
        #expect(Self.clusters("a 😀 ไทย")[3].font == Self.font(" "))
        // The browser modes choose a space's font by itself (the first that has it).
        #expect(Self.clusters("我  a", browser: true)[1].font == Self.font(" "))
    }

    @Test func emojiDoesNotLendItsFont() {
        let clusters = Self.clusters("a 😀 b")
        #expect(clusters[1].font == Self.font("a"))
        #expect(clusters[3].font == Self.font("b"))
        // Between two emoji, or alone: the first font that has the space.
        #expect(Self.clusters("😀 😀")[1].font == Self.font(" "))
        #expect(Self.clusters("   ").allSatisfy { $0.font == Self.font(" ") && $0.script == HB_SCRIPT_COMMON })
        #expect(Self.clusters("").isEmpty)
    }

    /// Every cluster of several characters in the corpora (neither emoji nor neutral) has the first font
    /// that covers all its characters but the neutral ones, else the first that covers its first.
    @Test func aClusterTakesTheFirstFontCoveringAllItsCharacters() {
        let fonts = Self.selector.fonts
        var checked = 0
        for text in Fixtures.corpus + Fixtures.corpus(named: "forced-breaks.txt") {
            for cluster in Self.clusters(text) where cluster.isOwnFont && cluster.scalars.count > 1 {
                let needed = cluster.scalars.filter { Int(cub_scalar_properties($0.value)) & CUB_FONT_NEUTRAL == 0 }
                let expected = fonts.firstIndex { font in needed.allSatisfy { font.covers($0.value) } }
                    ?? Self.font(cluster.scalar)
                #expect(cluster.font == expected, "\(cluster.scalars)")
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    /// `.pango`: where Pango's per-character fonts differ inside a grapheme cluster, the cluster is
    /// appended in pieces, each in its characters' first font, the later ones joining the first. In
    /// the browser modes (as in Blink) a cluster keeps one font.
    @Test func clustersArePiecesWherePangosFontsDiffer() {
        let math = Self.font("\u{20D7}"), symbols = Self.font("\u{20E3}")
        let arrow = Self.clusters("п\u{20D7} q")
        #expect(arrow.map(\.scalars.count) == [1, 1, 1, 1])
        #expect(arrow[0].font == Self.font("п") && arrow[1].font == math && arrow[1].script == arrow[0].script)
        #expect(arrow.map(\.joinsPrevious) == [false, true, false, false])
        #expect(arrow[3].font == Self.font("q"))
        #expect(Self.clusters("п\u{20D7} q", browser: true).map(\.scalars.count) == [2, 1, 1])
        // An emoji's keycap mark is text; a keycap sequence's is not.
        let keycap = Self.clusters("😀\u{20E3}")
        #expect(keycap.count == 2 && !keycap[0].isOwnFont && keycap[1].isOwnFont && keycap[1].font == symbols)
        #expect(Self.clusters("#\u{FE0F}\u{20E3}").count == 1)
        // Neither is any other character outside an emoji sequence (U+FF9E, a halfwidth sound mark).
        #expect(Self.clusters("😀\u{FF9E}").map(\.joinsPrevious) == [false, true])
        #expect(Self.clusters("👩🏽\u{200D}🚀").count == 1 && Self.clusters("🇫🇷").count == 1)
        #expect(Self.clusters("#\u{20E3}").map(\.font) == [Self.font("#"), symbols])
        #expect(Self.clusters("1\u{20E3}2").map(\.font) == [Self.font("1"), symbols, Self.font("2")])
        // One font for the whole cluster: one cluster.
        #expect(Self.clusters("e\u{0301}").count == 1)
        #expect(Self.clusters("👍🏽").count == 1)
    }
}
