/// How tall a prepared text's lines are: what its style's ``LineHeight`` comes to once the fonts of
/// its clusters are known. A plain value (no reference inside), copied by every layout at no cost;
/// a text whose lines differ keeps its extent runs beside it (`PreparedText.extentRuns`).
///
/// Natural line heights: a line reaches as far above and below its baseline as the fonts of its
/// clusters do (``LineExtent``), as each engine counts them:
/// - ``LineBreaking/pango``: Pango's logical line extents (`pango_layout_line_get_extents`), the union
///   of the extents of the fonts drawing the line's clusters (of a cluster drawn as hex boxes alone,
///   the box's: see ``HexBoxFont``), hanging white space included, exact in Pango units; a line of CJK alone is shorter than a line of the primary font. A line with no
///   cluster (an empty paragraph) takes the primary font's extent.
/// - The browser modes: Blink's line box with `line-height: normal`: the primary font's rounded extent
///   (the strut, on every line, empty or not) united with those of the fonts used on the line
///   (LayoutNG's "used fonts"), in LayoutUnits.
///
/// What a layout needs to tell lines apart is kept as runs of bytes whose fonts reach the same extent
/// (``ExtentRun``): a line's extent is the union of ``floor`` and the runs its bytes overlap. When every
/// line must be equally tall (one extent for the whole text, or in a browser mode every font within
/// the strut), ``kind`` is ``Kind/uniform`` and no run is kept: layout then adds nothing per line.
struct LineHeights: Sendable {
    enum Kind: UInt8, Sendable {
        /// Every line is ``evenHeight`` pixels tall (``LineHeight/fixed(_:)``, ``LineHeight/multiple(_:)``).
        case fixed
        /// Natural heights, every line reaching ``uniform``.
        case uniform
        /// Natural heights that differ from line to line: the text's extent runs say.
        case perLine
    }

    let kind: Kind
    /// Natural heights: pixels per line unit, 1/1,024 in ``LineBreaking/pango``, 1/64 (LayoutUnits) in
    /// the browser modes. Powers of two, so multiplying by it is exactly dividing by the units per
    /// pixel, and layout multiplies (a division costs a line's worth of additions).
    let pixelsPerUnit: Double
    /// What every line holds whatever its fonts: nothing in Pango (its line extents unite the runs'
    /// with the baseline itself), the strut in Blink.
    let floor: LineExtent
    /// The extent of a line with no cluster.
    let empty: LineExtent
    /// The extent of every line when ``kind`` is ``Kind/uniform``.
    let uniform: LineExtent
    /// Unless ``kind`` is ``Kind/perLine``: every line's height, and its baseline below its top, in
    /// pixels (the fixed ones, or the uniform extent's converted once here rather than on every line of
    /// every layout).
    let evenHeight: Double
    let evenBaseline: Double
    /// The height of a line that holds no text (an empty paragraph's), in pixels: the primary
    /// font's natural height, or the fixed one.
    let emptyLineHeight: Double

    private init(kind: Kind, fixedHeight: Double = 0, fixedBaseline: Double = 0, pixelsPerUnit: Double,
                 floor: LineExtent, empty: LineExtent, uniform: LineExtent) {
        self.kind = kind
        self.pixelsPerUnit = pixelsPerUnit
        self.floor = floor
        self.empty = empty
        self.uniform = uniform
        // Exact: the extents are integers and `pixelsPerUnit` a power of two, so a line's top
        // (`index × evenHeight`) is the same Double as its units converted.
        switch kind {
        case .fixed:
            (evenHeight, evenBaseline, emptyLineHeight) = (fixedHeight, fixedBaseline, fixedHeight)
        case .uniform, .perLine:
            evenHeight = Double(uniform.height) * pixelsPerUnit
            evenBaseline = Double(uniform.above) * pixelsPerUnit
            emptyLineHeight = Double(empty.height) * pixelsPerUnit
        }
    }

    /// Every line `height` pixels tall, its baseline `baseline` pixels below its top.
    static func fixed(height: Double, baseline: Double) -> LineHeights {
        LineHeights(kind: .fixed, fixedHeight: height, fixedBaseline: baseline, pixelsPerUnit: 1, floor: .zero,
                    empty: .zero, uniform: .zero)
    }

    /// Natural heights for a text whose clusters' fonts reach `runs`' extents (each united with
    /// `floor`, adjacent runs differing) or, when `runs` is empty, `firstExtent` throughout (nil for a
    /// text with no cluster); with an empty paragraph or not. Also returns the runs to keep: none when
    /// every line is equally tall.
    /// `unitsPerPixel` is a power of two (see ``unitsPerPixel(for:)``).
    static func natural(unitsPerPixel: Int, floor: LineExtent, empty: LineExtent, runs: [ExtentRun],
                        firstExtent: LineExtent?, hasEmptyParagraph: Bool) -> (LineHeights, runs: [ExtentRun]) {
        // Every line is equally tall when every run reaches the same extent on the same baselines (a
        // line holding several runs then reaches it too, none moving) and no line is empty, or empty
        // lines reach it as well. An empty line's run is never on a line with another.
        let first = runs.first?.extent ?? firstExtent ?? empty
        let baselines = runs.first { !$0.isEmptyLine }?.baselines ?? .zero
        let isUniform = runs.allSatisfy { $0.extent == first && ($0.isEmptyLine || $0.baselines == baselines) }
            && (!hasEmptyParagraph || first == empty)
        let heights = LineHeights(kind: isUniform ? .uniform : .perLine, pixelsPerUnit: 1 / Double(unitsPerPixel),
                                  floor: floor, empty: empty, uniform: first)
        guard !isUniform else { return (heights, []) }
        // One extent over all the text, but empty lines differ: one run from the start holds it.
        return (heights, runs.isEmpty ? [ExtentRun(byteStart: 0, extent: first)] : runs)
    }

    /// Line units per pixel for `breaking`'s engine.
    static func unitsPerPixel(for breaking: LineBreaking) -> Int {
        breaking.isBrowser ? LayoutUnit.perPixel : 1024
    }
}
