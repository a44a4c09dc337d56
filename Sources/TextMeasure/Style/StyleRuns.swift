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
        let styling = spans.filter { $0.hasAttributes && $0.start < $0.end }
        guard !styling.isEmpty else { return nil }

        // Elementary intervals between every span edge: each lies inside or outside every span.
        var points = [0, scalarCount]
        points.reserveCapacity(2 * styling.count + 2)
        for span in styling { points.append(span.start); points.append(span.end) }
        points.sort()
        points = points.enumerated().compactMap { $0.offset > 0 && points[$0.offset - 1] == $0.element ? nil : $0.element }
        let intervals = points.count - 1
        func interval(at scalar: Int) -> Int {
            var low = 0, high = points.count - 1
            while low < high {
                let middle = (low + high) / 2
                if points[middle] < scalar { low = middle + 1 } else { high = middle }
            }
            return low
        }

        // Bold, italic and monospace: how many spans set each, counted by differences.
        var bold = [Int](repeating: 0, count: intervals + 1)
        var italic = bold, monospace = bold
        var sizes = [Double?](repeating: nil, count: intervals)
        for span in styling {
            let first = interval(at: span.start), end = interval(at: span.end)
            if span.bold { bold[first] += 1; bold[end] -= 1 }
            if span.italic { italic[first] += 1; italic[end] -= 1 }
            if span.monospace { monospace[first] += 1; monospace[end] -= 1 }
        }
        // Sizes: the last span wins, so spans paint from the last to the first, each only the
        // intervals no later span painted; `next[k]` skips to the first unpainted interval from k.
        var next = Array(0...intervals)
        func unpainted(from k: Int) -> Int {
            var root = k
            while next[root] != root { root = next[root] }
            var k = k
            while next[k] != root { (k, next[k]) = (next[k], root) }
            return root
        }
        for span in styling.reversed() {
            guard let spanSize = span.size else { continue }
            let end = interval(at: span.end)
            var k = unpainted(from: interval(at: span.start))
            while k < end {
                sizes[k] = spanSize
                next[k] = k + 1
                k = unpainted(from: k + 1)
            }
        }

        // Styles per interval, adjacent equal ones merged; then scalar offsets become byte offsets.
        var styles = [RunStyle(face: .regular, size: size)]
        var styleIndex = [styles[0]: 0]
        var scalarStarts: [(scalar: Int, style: Int)] = []
        var counts = (bold: 0, italic: 0, monospace: 0)
        for k in 0..<intervals {
            counts.bold += bold[k]; counts.italic += italic[k]; counts.monospace += monospace[k]
            let style = RunStyle(face: FaceKind(bold: counts.bold > 0, italic: counts.italic > 0,
                                                monospace: counts.monospace > 0),
                                 size: sizes[k] ?? size)
            let index: Int
            if let known = styleIndex[style] {
                index = known
            } else {
                index = styles.count
                styles.append(style)
                styleIndex[style] = index
            }
            if scalarStarts.last?.style != index { scalarStarts.append((points[k], index)) }
        }
        guard styles.count > 1, scalarStarts.contains(where: { $0.style != 0 }) else { return nil }
        var starts: [(byte: Int, style: Int)] = []
        starts.reserveCapacity(scalarStarts.count)
        var scalar = 0, run = 0
        for (byte, value) in utf8.enumerated() where value & 0xC0 != 0x80 {
            while run < scalarStarts.count && scalarStarts[run].scalar == scalar {
                starts.append((byte, scalarStarts[run].style))
                run += 1
            }
            scalar += 1
        }
        return StyleRuns(styles: styles, starts: starts)
    }
}
