/// Greedy line filling over a ``PreparedText``'s segments: numbers only, no shaping.
///
/// Rules (those of Pango's `PANGO_WRAP_WORD_CHAR`, UIKit's word wrapping and browsers' `overflow-wrap:
/// anywhere`):
/// - a segment goes on the current line if the line's width so far (hanging space included) plus the
///   segment's content width fits; trailing white space never pushes a line over the width;
/// - a segment that does not fit starts a new line; if it does not fit on a line of its own either, it
///   is broken between grapheme clusters, each line taking as many clusters as fit and at least one;
/// - a mandatory break ends the line.
///
/// Along the way it records the range of widths over which these exact lines stay the same: below the
/// widest line (of more than one cluster) a line would lose its last piece; at the smallest width that
/// lets some line take in the piece that went to the next line, that line would change.
struct LineBreaker {
    /// What a layout found. Widths are in 1/1024 px.
    struct Outcome {
        var lineCount = 0
        var isTruncated = false
        /// The widest line's content width.
        var widestLine = 0
        /// Smallest width at which the lines stay the same (0 when every line is a single cluster).
        var minimumWidth = 0
        /// Smallest width at which some line would change; `Int.max` when none would.
        var changeWidth = Int.max
    }

    /// A line found by the layout: byte range in the text (hanging space included) and content width.
    struct LineRecord {
        var byteStart: Int32
        var byteEnd: Int32
        var width: Int
    }

    /// Lays out `prepared` at `width` (1/1024 px) with at most `maxLines` lines (0 = unlimited), calling
    /// `record` for every line kept when `record` is given.
    static func layout(_ prepared: PreparedText, width: Int, maxLines: Int,
                       record: ((LineRecord) -> Void)? = nil) -> Outcome {
        var outcome = Outcome()
        let segments = prepared.segments
        let advances = prepared.clusterAdvances
        guard !segments.isEmpty else { return outcome }

        // The open line.
        var isOpen = false
        var lineStart: Int32 = 0
        var lineEnd: Int32 = 0
        var lineContent = 0          // visible width
        var lineAdvance = 0          // visible width + hanging space after it
        var lineClusters = 0         // visible clusters

        // Ends the open line; returns false when the line limit stops the layout.
        // `change` is the width at which this line would have taken in what follows it.
        func close(change: Int?, moreFollows: Bool) -> Bool {
            outcome.lineCount += 1
            outcome.widestLine = max(outcome.widestLine, lineContent)
            if lineClusters > 1 { outcome.minimumWidth = max(outcome.minimumWidth, lineContent) }
            if let change { outcome.changeWidth = min(outcome.changeWidth, change) }
            record?(LineRecord(byteStart: lineStart, byteEnd: lineEnd, width: lineContent))
            isOpen = false
            if maxLines > 0 && outcome.lineCount == maxLines && moreFollows {
                outcome.isTruncated = true
                return false
            }
            return true
        }

        for (index, segment) in segments.enumerated() {
            if isOpen && lineAdvance + segment.width > width {
                guard close(change: lineAdvance + segment.width, moreFollows: true) else { return outcome }
            }
            if !isOpen {
                if segment.width > width && segment.contentClusterCount > 1 {
                    // Too wide for any line: break between clusters.
                    var cluster = Int(segment.firstCluster)
                    let contentEnd = Int(segment.contentEnd)
                    while true {
                        lineStart = prepared.clusterStarts[cluster]
                        lineContent = Int(advances[cluster])
                        lineClusters = 1
                        cluster += 1
                        while cluster < contentEnd && lineContent + Int(advances[cluster]) <= width {
                            lineContent += Int(advances[cluster])
                            lineClusters += 1
                            cluster += 1
                        }
                        if cluster == contentEnd { break }
                        lineEnd = prepared.clusterEnds[cluster - 1]
                        guard close(change: lineContent + Int(advances[cluster]), moreFollows: true) else {
                            return outcome
                        }
                    }
                    lineAdvance = lineContent + segment.hanging
                } else {
                    lineStart = segment.byteStart
                    lineContent = segment.width
                    lineAdvance = segment.width + segment.hanging
                    lineClusters = segment.contentClusterCount
                }
                isOpen = true
            } else if segment.contentClusterCount > 0 {
                lineContent = lineAdvance + segment.width
                lineAdvance = lineContent + segment.hanging
                lineClusters += segment.contentClusterCount
            } else {
                lineAdvance += segment.hanging
            }
            lineEnd = segment.byteEnd
            if segment.isMandatoryBreak {
                guard close(change: nil, moreFollows: index + 1 < segments.count) else { return outcome }
            }
        }
        if isOpen { _ = close(change: nil, moreFollows: false) }
        return outcome
    }
}
