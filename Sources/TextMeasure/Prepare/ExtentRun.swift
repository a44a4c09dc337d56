/// From ``byteStart`` to the next run's start, the fonts of the text's clusters reach this
/// ``extent``: the prepared text's record of which fonts each line will hold.
///
/// A styled text's empty paragraph inside a span has a run of its own (``isEmptyLine``) at its byte,
/// the hard break that ends it, where no cluster starts: an empty line there is as tall as the span's
/// font makes it; elsewhere as the text style's primary font (`LineHeights.empty`).
///
/// In ``LineBreaking/pango`` a run also knows its font's ``Baselines`` and the baseline its script
/// aligns on: Pango moves the runs of a line onto the baseline of the line's first run's script, so a
/// line's extent depends on which run it starts in (see `LineHeightCounter`).
struct ExtentRun: Hashable, Sendable {
    /// Where the run starts, in the text's UTF-8 bytes.
    var byteStart: Int32
    var extent: LineExtent
    /// The run is an empty paragraph's.
    var isEmptyLine = false
    /// The baseline a line starting in this run aligns its runs on (``LineBreaking/pango``).
    var baselineTag = Baselines.Tag.roman
    /// The run's font's baselines: ``Baselines/zero`` in the browser modes, which align every run on
    /// the alphabetic baseline.
    var baselines = Baselines.zero

    /// Whether a line reaches as far in `other` as in this run wherever it starts (all but the start
    /// are equal): adjacent runs that do are one.
    func reachesAsFar(as other: ExtentRun) -> Bool {
        extent == other.extent && baselines == other.baselines && baselineTag == other.baselineTag
            && isEmptyLine == other.isEmptyLine
    }
}
