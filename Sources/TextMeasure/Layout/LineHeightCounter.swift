/// Adds up a layout's line heights as its lines close, and gives each line its top, height and
/// baseline (see ``LineHeights``).
///
/// A text whose lines are all equally tall (a fixed or multiple line height, or natural heights that
/// ``NaturalLineHeights/uniform`` says are) costs nothing per line: its height is its line count
/// times the one height. Otherwise each closing line's bytes are matched against the text's extent
/// runs with a cursor that only moves forward, as lines do: O(lines + runs) for a whole layout.
struct LineHeightCounter {
    /// The text's extent runs (see ``NaturalLineHeights/runs``), borrowed for the layout.
    private let runs: UnsafeBufferPointer<ExtentRun>
    /// Natural line heights' floor and empty-line extent, and their units per pixel.
    private let floor: LineExtent
    private let empty: LineExtent
    private let unitsPerPixel: Double
    /// Every line's extent, when natural heights are uniform.
    private let uniform: LineExtent?
    /// Every line's height and baseline in pixels, for a fixed or multiple line height.
    private let fixed: (height: Double, baseline: Double)?
    /// The run the last line started in.
    private var runIndex = 0
    /// While counting line by line (``countsLines``): the lines' heights so far, and the tallest, in
    /// line units.
    private(set) var units = 0
    private(set) var tallest = 0

    /// A counter for `heights`, whose runs `runs` are borrowed for as long as the counter is used.
    init(_ heights: LineHeights, runs: UnsafeBufferPointer<ExtentRun>) {
        self.runs = runs
        switch heights {
        case .fixed(let height, let baseline):
            fixed = (height, baseline)
            floor = .zero
            empty = .zero
            unitsPerPixel = 1
            uniform = nil
        case .natural(let natural):
            fixed = nil
            floor = natural.floor
            empty = natural.empty
            unitsPerPixel = Double(natural.unitsPerPixel)
            uniform = natural.uniform
        }
    }

    /// Whether each line's height must be found from its bytes (natural heights that differ).
    var countsLines: Bool { fixed == nil && uniform == nil }

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
    /// union of the floor and the runs it overlaps.
    private mutating func extent(ofLineFrom start: Int32, to end: Int32) -> LineExtent {
        guard start < end, !runs.isEmpty else { return empty }
        while runIndex + 1 < runs.count && runs[runIndex + 1].byteStart <= start { runIndex += 1 }
        var extent = floor.union(runs[runIndex].extent)
        var next = runIndex + 1
        while next < runs.count && runs[next].byteStart < end {
            extent = extent.union(runs[next].extent)
            next += 1
        }
        return extent
    }

    /// The `index`th line (0 for the first), just closed: its top, height and baseline in pixels.
    /// `extent` is what ``add(lineFrom:to:)`` returned for it, when ``countsLines``.
    func line(utf8Range: Range<Int>, width: Double, index: Int, extent: LineExtent) -> TextMeasurement.Line {
        if let fixed {
            let top = Double(index) * fixed.height
            return TextMeasurement.Line(utf8Range: utf8Range, width: width, top: top, height: fixed.height,
                                        baseline: top + fixed.baseline)
        }
        let line = uniform ?? extent
        let height = line.height
        let top = uniform == nil ? units - height : index * height
        return TextMeasurement.Line(utf8Range: utf8Range, width: width, top: Double(top) / unitsPerPixel,
                                    height: Double(height) / unitsPerPixel,
                                    baseline: Double(top + Int(line.above)) / unitsPerPixel)
    }

    /// The height of `lineCount` lines in pixels, and the tallest one's (an empty line's when there
    /// is none): what the layout's measurement reports.
    func totals(lineCount: Int) -> (height: Double, tallest: Double) {
        if let fixed { return (Double(lineCount) * fixed.height, fixed.height) }
        if let uniform {
            let each = lineCount > 0 ? uniform.height : empty.height
            return (Double(lineCount * uniform.height) / unitsPerPixel, Double(each) / unitsPerPixel)
        }
        return (Double(units) / unitsPerPixel, Double(lineCount > 0 ? tallest : empty.height) / unitsPerPixel)
    }
}
