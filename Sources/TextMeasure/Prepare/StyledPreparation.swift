/// What preparing a styled text needs beyond what plain text does: its style runs, and per style the
/// fonts, selectors and extents of its face at its size.
///
/// A styled text's advances are all in one unit: 1/65,536 px in the browser modes while every size
/// is at most `TextStyle.largestFineSize` (as for plain text), else 1/1,024 px.
struct StyledPreparation {
    /// One style's fonts: its face's cascade at its size.
    struct Style {
        /// The table's fonts at the style's size (each made when first used); hold them while their
        /// pointers are in use.
        let fonts: ScaledFonts
        /// The table index of each font of the face's cascade.
        let fontIndices: [Int]
        /// The selector of the face's cascade, Pango's or Blink's as the text's breaking says.
        let selector: FontSelector
        /// In the browser modes, the extent of the face's first font at the size: the strut of the
        /// inline box a styled stretch is in Blink (`.zero` in ``LineBreaking/pango``).
        let strut: LineExtent
        let size: Double
    }

    let runs: StyleRuns
    let table: StyledFontTable
    /// Layout units per pixel of every advance and width of the prepared text.
    let unitsPerPixel: Int
    /// Per style of `runs`, its fonts.
    let styles: [Style]

    /// The preparation of `runs` with the fonts of `table`, broken by `breaking`'s rules.
    init(runs: StyleRuns, table: StyledFontTable, breaking: LineBreaking) {
        self.runs = runs
        self.table = table
        let units = breaking.isBrowser && runs.largestSize <= TextStyle.largestFineSize ? 65536 : 1024
        unitsPerPixel = units
        let isBrowser = breaking.isBrowser
        styles = runs.styles.map { style in
            let indices = table.cascades[style.face.rawValue]
            return Style(fonts: table.scaledFonts.fonts(scale: Int32((style.size * Double(units)).rounded()),
                                                         strikeAdvances: isBrowser),
                         fontIndices: indices,
                         selector: (isBrowser ? table.browserSelectors : table.selectors)[style.face.rawValue],
                         strut: isBrowser ? .blink(table.faces[indices[0]], size: style.size) : .zero, size: style.size)
        }
    }

    /// The fonts of style 0 (the text style's size, regular).
    var plainFonts: ScaledFonts { styles[0].fonts }

    /// Writes each byte's style into `styles[0..<byteCount]`.
    func fillStyles(_ styles: UnsafeMutableBufferPointer<UInt16>, byteCount: Int) {
        let starts = runs.starts
        for (k, run) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1].byte : byteCount
            guard run.byte < end else { continue }
            UnsafeMutableBufferPointer(rebasing: styles[run.byte..<end]).update(repeating: UInt16(run.style))
        }
    }
}
