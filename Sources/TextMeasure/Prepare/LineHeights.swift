/// How tall a prepared text's lines are: what its style's ``LineHeight`` comes to once the fonts of
/// its clusters are known.
enum LineHeights: Sendable {
    /// Every line is `height` pixels tall (``LineHeight/fixed(_:)`` and ``LineHeight/multiple(_:)``),
    /// its baseline `baseline` pixels below its top.
    case fixed(height: Double, baseline: Double)
    /// Each line is as tall as the fonts on it make it (``LineHeight/natural``).
    case natural(NaturalLineHeights)

    /// The height of a line that holds no text (an empty paragraph's), in pixels: the primary
    /// font's natural height, or the fixed one.
    var emptyLineHeight: Double {
        switch self {
        case .fixed(let height, _): height
        case .natural(let natural): Double(natural.empty.height) / Double(natural.unitsPerPixel)
        }
    }
}

/// Natural line heights: a line reaches as far above and below its baseline as the fonts of its
/// clusters do (``LineExtent``), as each engine counts them:
/// - ``LineBreaking/pango``: Pango's logical line extents (`pango_layout_line_get_extents`), the union
///   of the extents of the fonts drawing the line's clusters, hanging white space included, exact in
///   Pango units; a line of CJK alone is shorter than a line of the primary font. A line with no
///   cluster (an empty paragraph) takes the primary font's extent.
/// - The browser modes: Blink's line box with `line-height: normal`: the primary font's rounded extent
///   (the strut, on every line, empty or not) united with those of the fonts used on the line
///   (LayoutNG's "used fonts"), in LayoutUnits.
///
/// What a layout needs is kept as runs of bytes whose fonts reach the same extent (``ExtentRun``):
/// a line's extent is the union of ``floor`` and the runs its bytes overlap. When every line must be
/// equally tall (one extent for the whole text, or in a browser mode every font within the strut),
/// ``uniform`` says so and no run is kept: layout then adds nothing per line.
struct NaturalLineHeights: Sendable {
    /// Line units per pixel: 1,024 in ``LineBreaking/pango``, 64 (LayoutUnits) in the browser modes.
    let unitsPerPixel: Int
    /// What every line holds whatever its fonts: nothing in Pango (its line extents unite the runs'
    /// with the baseline itself), the strut in Blink.
    let floor: LineExtent
    /// The extent of a line with no cluster.
    let empty: LineExtent
    /// The extent of every line, when they are all equally tall; nil when ``runs`` must be read.
    let uniform: LineExtent?
    /// Runs of the text's bytes with the extent of their fonts (each already united with ``floor``),
    /// in byte order, adjacent runs differing; empty when ``uniform`` is set.
    let runs: [ExtentRun]

    /// Line units per pixel for `breaking`'s engine.
    static func unitsPerPixel(for breaking: LineBreaking) -> Int {
        breaking.isBrowser ? LayoutUnit.perPixel : 1024
    }

    /// The line heights of a text whose clusters' fonts reach `runs`' extents (each united with
    /// `floor`, adjacent runs differing) or, when `runs` is empty, `firstExtent` throughout (nil for a
    /// text with no cluster); with an empty paragraph or not.
    init(unitsPerPixel: Int, floor: LineExtent, empty: LineExtent, runs: [ExtentRun], firstExtent: LineExtent?,
         hasEmptyParagraph: Bool) {
        self.unitsPerPixel = unitsPerPixel
        self.floor = floor
        self.empty = empty
        // Every line is equally tall when every run reaches the same extent (a line holding several runs
        // then reaches it too) and no line is empty, or empty lines reach it as well.
        let first = runs.first?.extent ?? firstExtent ?? empty
        if runs.allSatisfy({ $0.extent == first }) && (!hasEmptyParagraph || first == empty) {
            uniform = first
            self.runs = []
        } else {
            uniform = nil
            // One extent over all the text, but empty lines differ: one run from the start holds it.
            self.runs = runs.isEmpty ? [ExtentRun(byteStart: 0, extent: first)] : runs
        }
    }
}
