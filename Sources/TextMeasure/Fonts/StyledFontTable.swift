/// Every face a measurer's styled texts are drawn with, in one table: the regular cascade's faces
/// first, at the indices plain text gives them (so shaped words are shared between plain and styled
/// text), then each other face's fonts not already in it. What a styled text's runs and extents name
/// their fonts by.
///
/// Built on a measurer's first styled text: a measurer used for plain text only never opens the bold,
/// italic or monospace files.
///
/// Thread safety: immutable and `Sendable`; its selectors and fonts are safe from any thread.
final class StyledFontTable: Sendable {
    /// The faces, the regular cascade's first.
    let faces: [FontFace]
    /// Per ``FaceKind`` (by raw value), the table index of each font of its cascade, primary first.
    let cascades: [[Int]]
    /// Per ``FaceKind``, the selector of its cascade as Pango chooses fonts and as Blink does (see
    /// ``FontSelector/decomposes``); faces with the same cascade share them.
    let selectors: [FontSelector]
    let browserSelectors: [FontSelector]
    /// The faces' HarfBuzz fonts at the sizes used most recently.
    let scaledFonts: ScaledFontCache

    /// The table of `cascades`, whose regular cascade's selectors are `regular` and `browserRegular`
    /// (the measurer's own, so that plain text's font answers are shared).
    init(_ cascades: FontCascades, regular: FontSelector, browserRegular: FontSelector, sizeCapacity: Int) {
        var faces = cascades.regular.fonts
        var lists: [[Int]] = []
        var selectors: [FontSelector] = [], browserSelectors: [FontSelector] = []
        for face in FaceKind.allCases {
            let cascade = cascades.cascade(for: face)
            let indices = cascade.fonts.map { font in
                if let index = faces.firstIndex(where: { $0 === font }) { return index }
                faces.append(font)
                return faces.count - 1
            }
            if let same = lists.firstIndex(of: indices) {
                selectors.append(selectors[same])
                browserSelectors.append(browserSelectors[same])
            } else if face == .regular {
                selectors.append(regular)
                browserSelectors.append(browserRegular)
            } else {
                selectors.append(FontSelector(cascade: cascade))
                browserSelectors.append(FontSelector(cascade: cascade, decomposes: true))
            }
            lists.append(indices)
        }
        self.faces = faces
        self.cascades = lists
        self.selectors = selectors
        self.browserSelectors = browserSelectors
        scaledFonts = ScaledFontCache(faces: faces, capacity: sizeCapacity)
    }
}
