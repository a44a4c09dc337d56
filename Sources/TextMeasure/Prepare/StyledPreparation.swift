/// What preparing a styled text needs beyond what plain text does: its style runs, and per style the
/// fonts, selectors and extents of its face at its size.
///
/// A styled text's advances are all in one unit: 1/65,536 px in the browser modes while every size
/// is at most `TextStyle.largestFineSize` (as for plain text), else 1/1,024 px.
struct StyledPreparation {
    let runs: StyleRuns
    let table: StyledFontTable
    /// Layout units per pixel of every advance and width of the prepared text.
    let unitsPerPixel: Int
    /// Per style, the table's fonts at its size (each made when first used); hold this value while
    /// their pointers are in use.
    let fonts: [ScaledFonts]
    /// Per style, the table index of each font of its face's cascade.
    let fontIndices: [[Int]]
    /// Per style, in the browser modes, the extent of its face's first font at its size: the strut of
    /// the inline box a styled stretch is in Blink (unused in ``LineBreaking/pango``).
    let struts: [LineExtent]

    /// The preparation of `runs` with the fonts of `table`, broken by `breaking`'s rules.
    init(runs: StyleRuns, table: StyledFontTable, breaking: LineBreaking) {
        self.runs = runs
        self.table = table
        let units = breaking.isBrowser && runs.largestSize <= TextStyle.largestFineSize ? 65536 : 1024
        unitsPerPixel = units
        fonts = runs.styles.map { table.scaledFonts.fonts(scale: Int32(($0.size * Double(units)).rounded())) }
        fontIndices = runs.styles.map { table.cascades[$0.face.rawValue] }
        struts = runs.styles.map { style in
            breaking.isBrowser ? .blink(table.faces[table.cascades[style.face.rawValue][0]], size: style.size) : .zero
        }
    }

    /// Per style, the selector of its face's cascade, Blink's (`browser`) or Pango's.
    func selectors(browser: Bool) -> [FontSelector] {
        runs.styles.map { (browser ? table.browserSelectors : table.selectors)[$0.face.rawValue] }
    }

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
