import CFreeType
import CUnicodeBreak

/// Shaped pieces of text (a word with its trailing space, one ideograph: the text between two break
/// opportunities inside a run), reused across texts so that a word is shaped once per font and size.
///
/// Exact by construction, using HarfBuzz's `UNSAFE_TO_CONCAT` glyph flags: a piece is stored only if,
/// in the shaping it came from, no lookup looked across either of its edges (the flag is clear at both);
/// such a piece shapes the same on its own. When a run mixes cached and new pieces, only the new
/// stretches are shaped, and if HarfBuzz reports that a stretch interacts with its cached neighbours,
/// the whole run is shaped instead. Keys include the font and size, script, direction, the piece's
/// bytes and the character before it. The differential test against Pango and a test comparing
/// cached with uncached preparation over the corpus keep this honest.
///
/// Thread safety: 16 shards, each an LRU behind its own lock; any number of threads at once.
final class ShapeCache: Sendable {
    struct Key: Hashable, Sendable {
        var font: ObjectIdentifier
        var script: UInt32
        var rightToLeft: Bool
        var before: UInt32
        var text: TextKey
    }

    /// Per HarfBuzz cluster of the piece: its byte offset in the piece, advance and break adjustment.
    struct Cluster: Sendable {
        var offset: UInt16
        var advance: Int32
        var breakAdjust: Int32
    }

    /// Counters since the measurer was created.
    struct Statistics: Hashable, Sendable {
        var hits = 0
        var misses = 0
        var runsShapedWhole = 0
    }

    /// Pieces longer than this (in UTF-8 bytes) are not cached.
    static let maximumPieceLength = 64
    private static let shardCount = 16
    private let shards: [Locked<LRUDictionary<Key, [Cluster]>>]
    private let counters = Locked(Statistics())

    init(capacity: Int) {
        let perShard = max(1, capacity / Self.shardCount)
        shards = (0..<Self.shardCount).map { _ in Locked(LRUDictionary(capacity: perShard)) }
    }

    var statistics: Statistics { counters.withLock { $0 } }

    private func shard(for key: Key) -> Locked<LRUDictionary<Key, [Cluster]>> {
        shards[Int(UInt(bitPattern: key.hashValue) % UInt(Self.shardCount))]
    }

    /// Shapes `run` (through the cache), writing each HarfBuzz cluster's advance, start mark and break
    /// adjustment at its byte offset in the paragraph.
    func shape(_ run: Run, of bytes: UnsafeBufferPointer<UInt8>, flags: UnsafeBufferPointer<UInt8>,
               font: HBFont, buffer: OpaquePointer, output: Shaper.Output) {
        // Piece boundaries: break opportunities at grapheme boundaries inside the run.
        var bounds = [run.start]
        for offset in (run.start + 1)..<max(run.start + 1, run.end)
        where flags[offset] & UInt8(CUB_LINE_BREAK) != 0 && flags[offset] & UInt8(CUB_GRAPHEME_BOUNDARY) != 0 {
            bounds.append(offset)
        }
        bounds.append(run.end)
        let pieceCount = bounds.count - 1
        let rightToLeft = hb_script_get_horizontal_direction(run.script) == HB_DIRECTION_RTL
        let fontID = ObjectIdentifier(font)

        var keys: [Key?] = []
        var cached: [[Cluster]?] = []
        keys.reserveCapacity(pieceCount)
        cached.reserveCapacity(pieceCount)
        var hits = 0
        for piece in 0..<pieceCount {
            let start = bounds[piece], end = bounds[piece + 1]
            guard end - start <= Self.maximumPieceLength else {
                keys.append(nil)
                cached.append(nil)
                continue
            }
            let before = start > 0 ? Self.scalar(before: start, in: bytes) : 0
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            let key = Key(font: fontID, script: run.script.rawValue, rightToLeft: rightToLeft, before: before,
                          text: TextKey(text))
            let value = shard(for: key).withLock { $0.value(for: key) }
            if value != nil { hits += 1 }
            keys.append(key)
            cached.append(value)
        }

        // Shape each stretch of uncached pieces, extended by one character into its neighbours so that
        // HarfBuzz's flags at the two joins say whether the stretch interacts with them.
        var shapedWhole = false
        var piece = 0
        while piece < pieceCount {
            guard cached[piece] == nil else { piece += 1; continue }
            var last = piece
            while last + 1 < pieceCount && cached[last + 1] == nil { last += 1 }
            let start = bounds[piece], end = bounds[last + 1]
            let extendedStart = start > run.start ? Self.start(ofScalarBefore: start, in: bytes) : start
            let extendedEnd = end < run.end ? end + UTF8Decoding.scalar(in: bytes, at: end).length : end
            Shaper.shape(Run(start: extendedStart, end: extendedEnd, font: run.font, script: run.script),
                         of: bytes, font: font, buffer: buffer, output: output)
            let startJoinUnsafe = extendedStart < start && (!output.isClusterStart[start] || output.isUnsafe[start])
            let endJoinUnsafe = extendedEnd > end && (!output.isClusterStart[end] || output.isUnsafe[end])
            if startJoinUnsafe || endJoinUnsafe {
                shapedWhole = true
                break
            }
            store(pieces: piece..<(last + 1), bounds: bounds, keys: keys, shapedEnd: extendedEnd, output: output)
            piece = last + 1
        }
        if shapedWhole {
            Shaper.shape(run, of: bytes, font: font, buffer: buffer, output: output)
            store(pieces: 0..<pieceCount, bounds: bounds, keys: keys, shapedEnd: run.end, output: output)
        } else {
            // Cached pieces last: the extended stretches wrote over their edge characters.
            for piece in 0..<pieceCount {
                if let clusters = cached[piece] { Self.write(clusters, in: bounds[piece]..<bounds[piece + 1], to: output) }
            }
        }
        counters.withLock { counters in
            counters.hits += hits
            counters.misses += pieceCount - hits
            if shapedWhole { counters.runsShapedWhole += 1 }
        }
    }

    /// Stores the pieces whose edges HarfBuzz marked safe to concatenate in the shaping just done
    /// (which covered bytes up to `shapedEnd`; an edge at the end of a run has no flag to check).
    private func store(pieces: Range<Int>, bounds: [Int], keys: [Key?], shapedEnd: Int, output: Shaper.Output) {
        for piece in pieces {
            guard let key = keys[piece] else { continue }
            let start = bounds[piece], end = bounds[piece + 1]
            guard output.isClusterStart[start], !output.isUnsafe[start] else { continue }
            if end < shapedEnd && (!output.isClusterStart[end] || output.isUnsafe[end]) { continue }
            var clusters: [Cluster] = []
            for offset in start..<end where output.isClusterStart[offset] {
                clusters.append(Cluster(offset: UInt16(offset - start), advance: output.advance[offset],
                                        breakAdjust: output.breakAdjust[offset]))
            }
            shard(for: key).withLock { _ = $0.set(clusters, for: key) }
        }
    }

    private static func write(_ clusters: [Cluster], in range: Range<Int>, to output: Shaper.Output) {
        for offset in range {
            output.advance[offset] = 0
            output.breakAdjust[offset] = 0
            output.isClusterStart[offset] = false
            output.isUnsafe[offset] = false
        }
        for cluster in clusters {
            let offset = range.lowerBound + Int(cluster.offset)
            output.advance[offset] = cluster.advance
            output.breakAdjust[offset] = cluster.breakAdjust
            output.isClusterStart[offset] = true
            output.isUnsafe[offset] = false
        }
    }

    /// Where the scalar that ends just before `offset` starts.
    private static func start(ofScalarBefore offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var start = offset - 1
        while start > 0 && bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return start
    }

    /// The scalar that ends just before `offset`.
    private static func scalar(before offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        UTF8Decoding.scalar(in: bytes, at: start(ofScalarBefore: offset, in: bytes)).value
    }
}
