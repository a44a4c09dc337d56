import CFreeType
import CUnicodeBreak

/// Turns text into a ``PreparedText``: paragraphs → break analysis (ICU) → clusters and runs
/// (font cascade, scripts) → shaping (HarfBuzz) → segments.
struct Preparer {
    let cascade: FontCascade
    /// Shaped pieces reused across texts; nil shapes every run afresh.
    let shapeCache: ShapeCache?

    func prepare(_ text: String, style: TextStyle) throws(TextMeasureError) -> PreparedText {
        try style.validate()
        let scale = style.scale
        let fonts = cascade.fonts.map { $0.hbFont(scale: scale) }
        var text = text
        let outcome: Result<Storage, TextMeasureError> = text.withUTF8 { bytes in
            Shaper.withBuffer { buffer in
                var storage = Storage(byteCount: bytes.count)
                let itemizer = Itemizer(cascade: cascade)
                var failure: TextMeasureError?
                guard bytes.count > 0 else { return .success(storage) }   // empty text: no lines
                Paragraphs.forEach(in: bytes) { start, end in
                    guard failure == nil else { return }
                    do throws(TextMeasureError) {
                        try storage.add(paragraph: start..<end, of: bytes, itemizer: itemizer, fonts: fonts,
                                        shapeCache: shapeCache, buffer: buffer)
                    } catch {
                        failure = error
                    }
                }
                return failure.map { .failure($0) } ?? .success(storage)
            }
        }
        let storage = try outcome.get()
        return PreparedText(
            text: text, style: style, lineHeight: Self.lineHeight(style, primary: fonts[0]),
            segments: storage.segments, clusterAdvances: storage.clusterAdvances,
            clusterBreakAdjust: storage.clusterBreakAdjust, clusterFlags: storage.clusterFlags,
            clusterStarts: storage.clusterStarts, clusterEnds: storage.clusterEnds)
    }

    static func lineHeight(_ style: TextStyle, primary: HBFont) -> Double {
        switch style.lineHeight {
        case .natural: Double(primary.ascender - primary.descender + primary.lineGap) / 1024
        case .fixed(let height): height
        case .multiple(let factor): factor * style.size
        }
    }

    /// The growing prepared form plus scratch space reused across paragraphs.
    private struct Storage {
        var segments: [Segment] = []
        var clusterAdvances: [Int32] = []
        var clusterBreakAdjust: [Int32] = []
        var clusterFlags: [ClusterFlags] = []
        var clusterStarts: [Int32] = []
        var clusterEnds: [Int32] = []

        // Scratch, indexed by byte offset within the current paragraph.
        var flags: [UInt8]
        var byteAdvance: [Int32]
        var byteBreakAdjust: [Int32]
        var byteUnsafe: [Bool]
        var isClusterStart: [Bool]
        var clusterAtByte: [Int32]
        var clusters: [Itemizer.Cluster] = []
        var runs: [Run] = []

        init(byteCount: Int) {
            flags = [UInt8](repeating: 0, count: byteCount + 1)
            byteAdvance = [Int32](repeating: 0, count: byteCount + 1)
            byteBreakAdjust = [Int32](repeating: 0, count: byteCount + 1)
            byteUnsafe = [Bool](repeating: false, count: byteCount + 1)
            isClusterStart = [Bool](repeating: false, count: byteCount + 1)
            clusterAtByte = [Int32](repeating: 0, count: byteCount + 1)
            clusterAdvances.reserveCapacity(byteCount)
            clusterStarts.reserveCapacity(byteCount)
            clusterEnds.reserveCapacity(byteCount)
        }

        mutating func add(paragraph range: Range<Int>, of text: UnsafeBufferPointer<UInt8>, itemizer: Itemizer,
                          fonts: [HBFont], shapeCache: ShapeCache?, buffer: OpaquePointer) throws(TextMeasureError) {
            let base = Int32(range.lowerBound)
            let count = range.count
            if count == 0 {
                let first = Int32(clusterAdvances.count)
                segments.append(Segment(byteStart: base, byteEnd: base, firstCluster: first, contentEnd: first,
                                        clusterEnd: first, width: 0, hanging: 0, endAdjust: 0,
                                        isMandatoryBreak: true))
                return
            }
            let bytes = UnsafeBufferPointer(rebasing: text[range])

            // 1. Break analysis: grapheme boundaries and UAX #14 line-break opportunities.
            let status = flags.withUnsafeMutableBufferPointer { flags in
                bytes.withMemoryRebound(to: CChar.self) { cub_analyze($0.baseAddress, Int32(count), flags.baseAddress) }
            }
            guard status == 0 else { throw .unicodeAnalysisFailed(code: status) }

            // 2. Clusters with their font and script, then runs.
            flags.withUnsafeBufferPointer { itemizer.clusters(of: bytes, flags: $0, into: &clusters) }
            itemizer.runs(of: clusters, byteCount: count, into: &runs)
            let firstCluster = clusterAdvances.count
            for (i, cluster) in clusters.enumerated() {
                let end = i + 1 < clusters.count ? clusters[i + 1].start : count
                for byte in cluster.start..<end { clusterAtByte[byte] = Int32(i) }
                clusterStarts.append(base + Int32(cluster.start))
                clusterEnds.append(base + Int32(end))
                clusterAdvances.append(0)
                clusterBreakAdjust.append(0)
                var flags: ClusterFlags = cluster.isSpace ? .space : []
                if i == 0 || clusters[i - 1].font != cluster.font || clusters[i - 1].script != cluster.script {
                    flags.insert(.startsRun)
                }
                clusterFlags.append(flags)
            }

            // 3. Shaping (through the shaped-piece cache): glyph advances land on HarfBuzz clusters...
            byteAdvance.withUnsafeMutableBufferPointer { advance in
                isClusterStart.withUnsafeMutableBufferPointer { starts in
                    byteBreakAdjust.withUnsafeMutableBufferPointer { adjust in
                        byteUnsafe.withUnsafeMutableBufferPointer { unsafe in
                            flags.withUnsafeBufferPointer { flags in
                                let output = Shaper.Output(advance: advance, isClusterStart: starts,
                                                           breakAdjust: adjust, isUnsafe: unsafe)
                                for run in runs {
                                    if let shapeCache {
                                        shapeCache.shape(run, of: bytes, flags: flags, font: fonts[run.font],
                                                         buffer: buffer, output: output)
                                    } else {
                                        Shaper.shape(run, of: bytes, font: fonts[run.font], buffer: buffer, output: output)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            // ...and are spread over the grapheme clusters each covers (a ligature spanning several
            // clusters shares its advance evenly between them, as Pango does).
            var byte = 0
            while byte < count {
                var end = byte + 1
                while end < count && !isClusterStart[end] { end += 1 }
                let first = Int(clusterAtByte[byte]), last = Int(clusterAtByte[end - 1])
                let share = byteAdvance[byte] / Int32(last - first + 1)
                var remainder = byteAdvance[byte] - share * Int32(last - first + 1)
                for c in first...last {
                    clusterAdvances[firstCluster + c] += share + remainder
                    remainder = 0
                }
                clusterBreakAdjust[firstCluster + last] = byteBreakAdjust[byte]
                byte = end
            }

            // 4. Segments between break opportunities; trailing spaces hang.
            var segmentStart = 0
            for i in 1...clusters.count {
                let atEnd = i == clusters.count
                let breakFlags = atEnd ? UInt8(CUB_MANDATORY_BREAK) : flags[clusters[i].start]
                guard breakFlags & UInt8(CUB_LINE_BREAK | CUB_MANDATORY_BREAK) != 0 else { continue }
                var contentEnd = i
                while contentEnd > segmentStart && clusters[contentEnd - 1].isSpace { contentEnd -= 1 }
                var width = 0, hanging = 0
                for c in segmentStart..<contentEnd { width += Int(clusterAdvances[firstCluster + c]) }
                for c in contentEnd..<i { hanging += Int(clusterAdvances[firstCluster + c]) }
                segments.append(Segment(
                    byteStart: base + Int32(clusters[segmentStart].start),
                    byteEnd: base + Int32(atEnd ? count : clusters[i].start),
                    firstCluster: Int32(firstCluster + segmentStart), contentEnd: Int32(firstCluster + contentEnd),
                    clusterEnd: Int32(firstCluster + i), width: width, hanging: hanging,
                    endAdjust: contentEnd == i && contentEnd > segmentStart
                        ? Int(clusterBreakAdjust[firstCluster + contentEnd - 1]) : 0,
                    isMandatoryBreak: breakFlags & UInt8(CUB_MANDATORY_BREAK) != 0))
                segmentStart = i
            }
        }
    }
}
