/// The face a styled character is drawn with: what its span attributes come to (see ``StyledText``).
/// Monospaced italic is upright monospace, as no monospaced italic face is bundled.
enum FaceKind: Int, CaseIterable, Sendable {
    case regular, bold, italic, boldItalic, monospace, monospaceBold

    /// The face for these attributes.
    init(bold: Bool, italic: Bool, monospace: Bool) {
        switch (bold, italic, monospace) {
        case (false, false, false): self = .regular
        case (true, false, false): self = .bold
        case (false, true, false): self = .italic
        case (true, true, false): self = .boldItalic
        case (false, _, true): self = .monospace
        case (true, _, true): self = .monospaceBold
        }
    }
}

/// One style a stretch of a styled text is drawn in: a face at a size.
struct RunStyle: Hashable, Sendable {
    var face: FaceKind
    var size: Double
}

/// A styled text's spans resolved into runs of bytes of one style each (the rules of ``StyledText``:
/// any span sets bold, italic and monospace; the last span with a size sets it), with the styles
/// they use. Style 0 is always the regular face at the text style's size: plain text.
struct StyleRuns: Sendable {
    /// The styles used; `styles[0]` is the regular face at the text style's size.
    let styles: [RunStyle]
    /// Where each run starts, in UTF-8 bytes of the text, and its style; the first starts at 0,
    /// adjacent runs differ.
    let starts: [(byte: Int, style: Int)]

    /// The largest size of any style (the text style's included).
    var largestSize: Double { styles.lazy.map(\.size).max() ?? 0 }

    /// The runs of `spans` over `utf8`, the UTF-8 bytes of a text of `scalarCount` scalars, in a style
    /// of size `size`; nil when no character is styled otherwise than plain (the text then measures
    /// as plain text, exactly).
    ///
    /// - Throws: ``TextMeasureError/tooManySpans(count:)``, or
    ///   ``TextMeasureError/invalidSpanRange(span:start:end:scalarCount:)`` or
    ///   ``TextMeasureError/invalidSpanSize(span:size:)`` for the first span that is out of range.
    /// - Complexity: O(*n* + *s* log *s*) in the text's bytes and the spans.
    static func resolve(_ spans: [TextSpan], utf8: UnsafeBufferPointer<UInt8>, size: Double) throws(TextMeasureError) -> StyleRuns? {
        guard !spans.isEmpty else { return nil }
        guard MeasurementLimits.spans.contains(spans.count) else { throw .tooManySpans(count: spans.count) }
        var scalarCount = 0
        for byte in utf8 where byte & 0xC0 != 0x80 { scalarCount += 1 }
        for (index, span) in spans.enumerated() {
            guard span.start >= 0, span.start <= span.end, span.end <= scalarCount else {
                throw .invalidSpanRange(span: index, start: span.start, end: span.end, scalarCount: scalarCount)
            }
            if let spanSize = span.size, !MeasurementLimits.size.contains(spanSize) {
                throw .invalidSpanSize(span: index, size: spanSize)
            }
        }
        let styling = spans.lazy.filter { $0.hasAttributes && $0.start < $0.end }
        let stylingCount = styling.count
        guard stylingCount > 0 else { return nil }
        // The working lists live in temporary memory (on the stack while small): a text with a few
        // spans allocates only its result, the styles and the runs.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * stylingCount + 2) { points in
            // Elementary intervals between every span edge: each lies inside or outside every span.
            var pointCount = 0
            func add(_ point: Int) { points[pointCount] = point; pointCount += 1 }
            add(0)
            add(scalarCount)
            for span in styling { add(span.start); add(span.end) }
            var sorted = UnsafeMutableBufferPointer(rebasing: points[0..<pointCount])
            sorted.sort()
            var unique = 0
            for point in sorted where unique == 0 || sorted[unique - 1] != point {
                sorted[unique] = point
                unique += 1
            }
            let edges = UnsafeBufferPointer(rebasing: sorted[0..<unique])
            return resolve(styling, edges: edges, scalarCount: scalarCount, utf8: utf8, size: size)
        }
    }

    /// ``resolve(_:utf8:size:)`` once the span edges are known: `edges` (sorted, distinct, from 0 to
    /// the scalar count) bound the elementary intervals.
    private static func resolve(_ styling: LazyFilterSequence<[TextSpan]>, edges: UnsafeBufferPointer<Int>, scalarCount: Int,
                                utf8: UnsafeBufferPointer<UInt8>, size: Double) -> StyleRuns? {
        let intervals = edges.count - 1
        func interval(at scalar: Int) -> Int {
            var low = 0, high = edges.count - 1
            while low < high {
                let middle = (low + high) / 2
                if edges[middle] < scalar { low = middle + 1 } else { high = middle }
            }
            return low
        }
        // Per interval: how many spans set bold, italic and monospace (counted by differences), the
        // size (NaN: none), and for the painting below the next interval not yet painted.
        return withUnsafeTemporaryAllocation(of: (bold: Int32, italic: Int32, monospace: Int32).self,
                                             capacity: intervals + 1) { counts in
            counts.initialize(repeating: (0, 0, 0))
            for span in styling {
                let first = interval(at: span.start), end = interval(at: span.end)
                if span.bold { counts[first].bold += 1; counts[end].bold -= 1 }
                if span.italic { counts[first].italic += 1; counts[end].italic -= 1 }
                if span.monospace { counts[first].monospace += 1; counts[end].monospace -= 1 }
            }
            return withUnsafeTemporaryAllocation(of: (size: Double, next: Int).self, capacity: intervals + 1) { sizes in
                for k in 0...intervals { sizes[k] = (.nan, k) }
                // Sizes: the last span wins, so spans paint from the last to the first, each only the
                // intervals no later span painted; `next` skips to the first unpainted interval from k.
                func unpainted(from k: Int) -> Int {
                    var root = k
                    while sizes[root].next != root { root = sizes[root].next }
                    var k = k
                    while sizes[k].next != root { (k, sizes[k].next) = (sizes[k].next, root) }
                    return root
                }
                for span in styling.reversed() {
                    guard let spanSize = span.size else { continue }
                    let end = interval(at: span.end)
                    var k = unpainted(from: interval(at: span.start))
                    while k < end {
                        sizes[k].size = spanSize
                        sizes[k].next = k + 1
                        k = unpainted(from: k + 1)
                    }
                }
                return runs(intervals: intervals, edges: edges, counts: counts, sizes: sizes, utf8: utf8, size: size)
            }
        }
    }

    /// The styles of the intervals, adjacent equal ones merged, at byte offsets.
    private static func runs(intervals: Int, edges: UnsafeBufferPointer<Int>,
                             counts: UnsafeMutableBufferPointer<(bold: Int32, italic: Int32, monospace: Int32)>,
                             sizes: UnsafeMutableBufferPointer<(size: Double, next: Int)>,
                             utf8: UnsafeBufferPointer<UInt8>, size: Double) -> StyleRuns? {
        var styles = [RunStyle(face: .regular, size: size)]
        var lookUp: [RunStyle: Int]?
        // The runs' starts in bytes, found walking the text once as the intervals go by.
        var starts: [(byte: Int, style: Int)] = []
        var byte = 0, scalar = 0
        var total = (bold: Int32(0), italic: Int32(0), monospace: Int32(0))
        for k in 0..<intervals {
            total.bold += counts[k].bold; total.italic += counts[k].italic; total.monospace += counts[k].monospace
            let style = RunStyle(face: FaceKind(bold: total.bold > 0, italic: total.italic > 0, monospace: total.monospace > 0),
                                 size: sizes[k].size.isNaN ? size : sizes[k].size)
            // Few styles per text: a look through them; a dictionary only for many (distinct sizes).
            let index: Int
            if let known = lookUp?[style] ?? (lookUp == nil ? styles.firstIndex(of: style) : nil) {
                index = known
            } else {
                index = styles.count
                styles.append(style)
                lookUp?[style] = index
                if lookUp == nil && styles.count > 16 {
                    lookUp = Dictionary(uniqueKeysWithValues: styles.enumerated().map { ($0.element, $0.offset) })
                }
            }
            guard starts.last?.style != index else { continue }
            while scalar < edges[k] {
                byte += 1
                while byte < utf8.count && utf8[byte] & 0xC0 == 0x80 { byte += 1 }
                scalar += 1
            }
            starts.append((byte, index))
        }
        guard styles.count > 1, starts.contains(where: { $0.style != 0 }) else { return nil }
        return StyleRuns(styles: styles, starts: starts)
    }
}
