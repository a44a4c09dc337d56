/// Adds up a layout's line heights as its lines close, and gives each line its top, height and
/// baseline (see ``LineHeights``).
///
/// A text whose lines are all equally tall (a fixed or multiple line height, or natural heights that
/// ``LineHeights`` finds uniform) costs nothing per line: its height is its line count
/// times the one height. Otherwise each closing line's bytes are matched against the text's extent
/// runs with a cursor that only moves forward, as lines do: O(lines + runs) for a whole layout.
struct LineHeightCounter {
    /// The text's line heights (a plain value) and its extent runs, borrowed for the layout.
    private let heights: LineHeights
    private let runs: UnsafeBufferPointer<ExtentRun>
    /// The run the last line started in.
    private var runIndex = 0
    /// While counting line by line (``countsLines``): the lines' heights so far, and the tallest, in
    /// line units.
    private(set) var units = 0
    private(set) var tallest = 0

    /// A counter for `heights`, whose runs `runs` (empty unless ``LineHeights/Kind/perLine``) are
    /// borrowed for as long as the counter is used.
    @inline(__always)
    init(_ heights: LineHeights, runs: UnsafeBufferPointer<ExtentRun>) {
        self.heights = heights
        self.runs = runs
    }

    /// Whether each line's height must be found from its bytes (natural heights that differ).
    @inline(__always)
    var countsLines: Bool { heights.kind == .perLine }

    /// Counts the line of bytes `start..<end` (call only when ``countsLines``); returns its extent.
    ///
    /// - Complexity: O(*k*) in the runs the line overlaps, plus those the cursor passes.
    @inline(__always)
    mutating func add(lineFrom start: Int32, to end: Int32) -> LineExtent {
        let extent = self.extent(ofLineFrom: start, to: end)
        let height = extent.height
        units &+= height
        tallest = max(tallest, height)
        return extent
    }

    /// The extent of the line of bytes `start..<end`: the empty line's when it holds nothing, else the
    /// union of the floor and the runs it overlaps, in ``LineBreaking/pango`` each moved onto the
    /// baseline of the run the line starts in.
    private mutating func extent(ofLineFrom start: Int32, to end: Int32) -> LineExtent {
        guard !runs.isEmpty else { return heights.empty }
        while runIndex + 1 < runs.count && runs[runIndex + 1].byteStart <= start { runIndex += 1 }
        guard start < end else {
            // An empty line: its styled span's extent when it has a run of its own (see `ExtentRun`).
            let run = runs[runIndex]
            return run.isEmptyLine && run.byteStart == start ? run.extent : heights.empty
        }
        // Pango moves each run up by the line's first run's baseline (of the kind its script aligns
        // on) minus its own (see `Baselines`): the run's extent moves with it. Runs on one baseline (all
        // of them in the browser modes, whose runs' baselines are all 0) move by 0.
        let tag = runs[runIndex].baselineTag
        let baseline = Int(runs[runIndex].baselines[tag])
        var extent = heights.floor.union(runs[runIndex].extent)
        var next = runIndex + 1
        while next < runs.count && runs[next].byteStart < end {
            let run = runs[next]
            let shift = baseline - Int(run.baselines[tag])
            extent = extent.union(LineExtent(above: Int32(clamping: Int(run.extent.above) + shift),
                                             below: Int32(clamping: Int(run.extent.below) - shift)))
            next += 1
        }
        return extent
    }

    /// The `index`th line (0 for the first), just closed: its top, height and baseline in pixels.
    /// `extent` is what ``add(lineFrom:to:)`` returned for it, when ``countsLines``.
    func line(utf8Range: Range<Int>, width: Double, index: Int, extent: LineExtent) -> TextMeasurement.Line {
        guard heights.kind == .perLine else {
            let top = Double(index) * heights.evenHeight
            return TextMeasurement.Line(utf8Range: utf8Range, width: width, top: top, height: heights.evenHeight,
                                        baseline: top + heights.evenBaseline)
        }
        let pixelsPerUnit = heights.pixelsPerUnit
        let height = extent.height, top = units - height
        return TextMeasurement.Line(utf8Range: utf8Range, width: width, top: Double(top) * pixelsPerUnit,
                                    height: Double(height) * pixelsPerUnit,
                                    baseline: Double(top + Int(extent.above)) * pixelsPerUnit)
    }

    /// The height of `lineCount` lines in pixels, and the tallest one's (an empty line's when there
    /// is none): what the layout's measurement reports.
    @inline(__always)
    func totals(lineCount: Int) -> (height: Double, tallest: Double) {
        switch heights.kind {
        case .fixed:
            return (Double(lineCount) * heights.evenHeight, heights.evenHeight)
        case .uniform:
            return (Double(lineCount) * heights.evenHeight, lineCount > 0 ? heights.evenHeight : heights.emptyLineHeight)
        case .perLine:
            return (Double(units) * heights.pixelsPerUnit,
                    lineCount > 0 ? Double(tallest) * heights.pixelsPerUnit : heights.emptyLineHeight)
        }
    }
}
