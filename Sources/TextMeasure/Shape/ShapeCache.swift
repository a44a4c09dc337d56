import CFreeType
import CUnicodeBreak
import Synchronization

/// Shaped pieces of text (a word with its trailing space, one ideograph: the text between two break
/// opportunities inside a run), reused across texts so that a word is shaped once per font and size.
///
/// Exact by construction, using HarfBuzz's `UNSAFE_TO_CONCAT` glyph flags: a piece is stored only if,
/// in the shaping it came from, no lookup looked across either of its edges (the flag is clear at both);
/// such a piece shapes the same on its own. When a run mixes cached and new pieces, only the new
/// stretches are shaped, and if HarfBuzz reports that a stretch interacts with its cached neighbours,
/// it is shaped again with them (see `maximumWidenings`), and if that fails too, the whole run is
/// shaped instead. Keys include the font and size (as ``HBFont/ID``, the face's
/// process-unique id and the scale: never the `hb_font_t`'s address, which a font made after another
/// was freed may reuse at another size), script, direction and the piece's
/// bytes (pieces over 32 bytes are not cached). Inside a run that is all: HarfBuzz promises that two
/// pieces both clear of the flag at their join concatenate safely, whatever text each was shaped next
/// to, so a word is shared by every text it occurs in. At a run's edge the flag says nothing, so an
/// edge piece is reused only at a run's edge; and for the joining scripts, whose shaping reads the
/// context beyond the run (Arabic letters take their joined forms from it), its key also holds the
/// character beyond that edge. The differential test against Pango and a test comparing cached with
/// uncached preparation over the corpus keep this honest.
///
/// Thread safety: any number of threads at once. The pieces are in 16 tables (CLOCK eviction, see
/// ``ClockTable``) with a lock each, taken per piece looked up and per piece stored; they count their
/// hits and misses under those locks. (A private, lock-free first level per thread was tried: with
/// the tables this cheap, it cost more in copies than it saved in locks.)
final class ShapeCache: Sendable {
    /// Up to 32 bytes of text stored inline: no allocation per look-up.
    struct PieceBytes: Hashable, Sendable {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var count: UInt8 = 0

        static let capacity = 32

        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard bytes.count <= Self.capacity else { return nil }
            count = UInt8(bytes.count)
            withUnsafeMutableBytes(of: &words) { raw in
                raw.copyMemory(from: UnsafeRawBufferPointer(bytes))
            }
        }

        static func == (lhs: PieceBytes, rhs: PieceBytes) -> Bool {
            lhs.count == rhs.count && lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1
                && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(count)
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    /// Fields ordered so that the key packs into 64 bytes.
    struct Key: Hashable, Sendable {
        /// The face and size (an identity: fonts are freed and made again as sizes come and go).
        var font: HBFont.ID
        /// Computed once: the table hash.
        var hash = 0
        var text: PieceBytes
        var rightToLeft: Bool
        var script: UInt32
        /// For a piece inside its run, `Key.inside`; for one that starts its run, `Key.runEdge`, or in a
        /// joining script the scalar before it (0 at the paragraph's start). `after` likewise for the
        /// piece's end.
        var before: UInt32
        var after: UInt32

        /// Not a scalar: the edge is inside the run, where HarfBuzz's flags vouch for it.
        static let inside = UInt32.max
        /// Not a scalar: the edge is the run's, and the script's shaping reads no context.
        static let runEdge = UInt32.max - 1

        /// `seed` is the cache's (see `ShapeCache.keySeed`).
        init(font: HBFont.ID, script: UInt32, rightToLeft: Bool, before: UInt32, after: UInt32, text: PieceBytes,
             seed: UInt64) {
            self.font = font
            self.script = script
            self.rightToLeft = rightToLeft
            self.before = before
            self.after = after
            self.text = text
            // A multiply-fold hash (as in wyhash) with a per-process seed: a few nanoseconds where
            // `Hasher` (SipHash) took tens, for one key per piece of every text.
            var h = seed
            h = Self.mix(h, font.packed)
            h = Self.mix(h, UInt64(script) << 32 | UInt64(before))
            h = Self.mix(h, UInt64(after) << 32 | UInt64(text.count) << 1 | (rightToLeft ? 1 : 0))
            h = Self.mix(h, text.words.0)
            h = Self.mix(h, text.words.1)
            h = Self.mix(h, text.words.2)
            h = Self.mix(h, text.words.3)
            hash = Int(truncatingIfNeeded: h)
        }

        @inline(__always)
        private static func mix(_ h: UInt64, _ value: UInt64) -> UInt64 {
            let product = (h ^ value).multipliedFullWidth(by: 0x9E37_79B9_7F4A_7C15)
            return product.high ^ product.low
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.hash == rhs.hash && lhs.font == rhs.font && lhs.script == rhs.script && lhs.before == rhs.before
                && lhs.after == rhs.after && lhs.rightToLeft == rhs.rightToLeft && lhs.text == rhs.text
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(hash)
        }
    }

    /// A shaped piece: per HarfBuzz cluster, its byte offset in the piece, advance and break
    /// adjustment. Up to 16 clusters, stored inline (SIMD vectors): reading or copying a cached piece
    /// touches no reference count. Longer pieces, and pieces with an advance or a break adjustment (a
    /// kerning value) beyond 32 bits, are not cached: 160 bytes a piece (the browser modes' 1/65536 px
    /// units need 32-bit adjustments).
    struct Shape: Sendable {
        static let capacity = 16
        var offsets = SIMD16<UInt8>()
        var advances = SIMD16<Int32>()
        var breakAdjusts = SIMD16<Int32>()
        var count: UInt8 = 0
    }

    /// Counters since the measurer was created.
    struct Statistics: Hashable, Sendable {
        var hits = 0
        var misses = 0
        var runsShapedWhole = 0
        /// Stretches shaped again, wider, after an unsafe join, without shaping their run whole.
        var stretchesWidened = 0
    }

    /// The pieces, split by hash into shards with a lock each: with one lock, two cores preparing
    /// texts queued on it often enough that one slept in the kernel (a critical section that stores a
    /// piece may take a page fault).
    private let shards: [Locked<ClockTable<Key, Shape>>]
    private static let shardCount = 16   // a power of two
    /// Pieces too long to be cached (the shards count the others' hits and misses, under their locks).
    private let uncachable = Atomic<Int>(0)
    private let runsShapedWhole = Atomic<Int>(0)
    /// The keys' hash seed, per cache (a `static let` cost a `swift_once` check per key).
    private let keySeed = UInt64.random(in: 0...UInt64.max)
    private let stretchesWidened = Atomic<Int>(0)

    init(capacity: Int) {
        let perShard = max(1, (capacity + Self.shardCount - 1) / Self.shardCount)
        shards = (0..<Self.shardCount).map { _ in Locked(ClockTable(capacity: perShard)) }
    }

    var statistics: Statistics {
        var statistics = Statistics(misses: uncachable.load(ordering: .relaxed),
                                    runsShapedWhole: runsShapedWhole.load(ordering: .relaxed),
                                    stretchesWidened: stretchesWidened.load(ordering: .relaxed))
        for shard in shards {
            shard.withLock { table in
                statistics.hits += table.hits
                statistics.misses += table.misses
            }
        }
        return statistics
    }

    /// The shard holding `key`: chosen by hash bits that neither the table's buckets (the low bits)
    /// nor its tags (the high 32) rely on.
    private func shard(_ key: Key) -> Locked<ClockTable<Key, Shape>> {
        shards[(key.hash >> 24) & (Self.shardCount - 1)]
    }

    /// Shapes `run` (through the cache), writing each HarfBuzz cluster's advance, start mark and break
    /// adjustment at its byte offset in the paragraph. `font` is the `hb_font_t` of the font whose
    /// identity is `fontID` (the caller holds its ``HBFont``).
    func shape(_ run: Run, of bytes: UnsafeBufferPointer<UInt8>, flags: UnsafeBufferPointer<UInt8>,
               font: OpaquePointer, fontID: HBFont.ID, scratch: PrepareScratch, output: Shaper.Output) {
        // Piece boundaries: break opportunities at grapheme boundaries inside the run.
        var bounds = scratch.pieceBounds
        var keys = scratch.pieceKeys
        var cached = scratch.pieceShapes
        var shaped = scratch.shapedPieces
        defer {
            // Hand the (emptied, maybe grown) lists back for the next run.
            bounds.removeAll()
            keys.removeAll()
            cached.removeAll()
            shaped.removeAll()
            scratch.pieceBounds = bounds
            scratch.pieceKeys = keys
            scratch.pieceShapes = cached
            scratch.shapedPieces = shaped
        }
        bounds.append(run.start)
        for offset in (run.start + 1)..<max(run.start + 1, run.end)
        where flags[offset] & UInt8(CUB_LINE_BREAK) != 0 && flags[offset] & UInt8(CUB_GRAPHEME_BOUNDARY) != 0 {
            bounds.append(offset)
        }
        bounds.append(run.end)
        let pieceCount = bounds.count - 1
        let rightToLeft = hb_script_get_horizontal_direction(run.script) == HB_DIRECTION_RTL
        let readsContext = Self.readsContext(run.script)

        for piece in 0..<pieceCount {
            let start = bounds[piece], end = bounds[piece + 1]
            guard let text = PieceBytes(UnsafeBufferPointer(rebasing: bytes[start..<end])) else {
                keys.append(nil)
                continue
            }
            let before = start > run.start ? Key.inside : !readsContext ? Key.runEdge
                : start > 0 ? Self.scalar(before: start, in: bytes) : 0
            let after = end < run.end ? Key.inside : !readsContext ? Key.runEdge
                : end < bytes.count ? UTF8Decoding.scalar(in: bytes, at: end).value : 0
            keys.append(Key(font: fontID, script: run.script.rawValue, rightToLeft: rightToLeft, before: before,
                            after: after, text: text, seed: keySeed))
        }
        var uncachablePieces = 0
        for piece in 0..<pieceCount {
            guard let key = keys[piece] else {
                uncachablePieces += 1
                cached.append(nil)
                continue
            }
            cached.append(shard(key).withLock { $0.value(for: key, hash: key.hash) })
        }

        // Shape each stretch of uncached pieces, extended by one character into its neighbours so that
        // HarfBuzz's flags at the two joins say whether the stretch interacts with them. A stretch holds
        // at most `maximumStretch` pieces; the pieces after a full one are looked up again (the stretch
        // just stored them), so that a long run repeating a few words shapes each of them once. A
        // stretch whose join is unsafe takes in the neighbouring piece on that side and is shaped
        // again (see `maximumWidenings`); only when that fails too is the whole run shaped.
        var shapedWhole = false
        var piece = 0
        var afterFullStretch = false
        stretches: while piece < pieceCount {
            if afterFullStretch {
                for next in piece..<min(piece + Self.maximumStretch, pieceCount) where cached[next] == nil {
                    if let key = keys[next] { cached[next] = shard(key).withLock { $0.value(for: key, hash: key.hash) } }
                }
            }
            guard cached[piece] == nil else {
                piece += 1
                afterFullStretch = false
                continue
            }
            var first = piece, last = piece
            while last + 1 < pieceCount && cached[last + 1] == nil && last + 1 - piece < Self.maximumStretch { last += 1 }
            var widenings = 0
            var extendedEnd = 0
            while true {
                let start = bounds[first], end = bounds[last + 1]
                let extendedStart = start > run.start ? Self.start(ofScalarBefore: start, in: bytes) : start
                extendedEnd = end < run.end ? end + UTF8Decoding.scalar(in: bytes, at: end).length : end
                // The character this stretch extends into before it belongs to a piece no cached shape
                // rewrites at the end when an earlier stretch shaped that piece (right after a full or
                // widened stretch): keep what that stretch wrote there.
                let kept = first > 0 && cached[first - 1] == nil ? Self.save(extendedStart..<start, of: output) : nil
                Shaper.shape(Run(start: extendedStart, end: extendedEnd, font: run.font, script: run.script),
                             of: bytes, font: font, scratch: scratch, output: output)
                let startJoinUnsafe = extendedStart < start && (!output.isClusterStart[start] || output.isUnsafe[start])
                let endJoinUnsafe = extendedEnd > end && (!output.isClusterStart[end] || output.isUnsafe[end])
                if let kept { Self.restore(kept, at: extendedStart, to: output) }
                if !startJoinUnsafe && !endJoinUnsafe { break }
                // Widen over a cached piece before (one an earlier stretch shaped is not shaped again: a
                // join that fails there tends to fail again, and the run is shaped whole sooner) or any
                // piece after; the pieces taken in keep this shaping, not their cached one.
                guard widenings < Self.maximumWidenings, !startJoinUnsafe || cached[first - 1] != nil else {
                    shapedWhole = true
                    break stretches
                }
                widenings += 1
                if startJoinUnsafe {
                    first -= 1
                    cached[first] = nil
                }
                if endJoinUnsafe {
                    last += 1
                    cached[last] = nil
                }
            }
            if widenings > 0 { stretchesWidened.add(1, ordering: .relaxed) }
            collect(pieces: first..<(last + 1), bounds: bounds, keys: keys, shapedEnd: extendedEnd, output: output,
                    into: &shaped)
            afterFullStretch = last + 1 - first >= Self.maximumStretch && last + 1 < pieceCount
            if afterFullStretch {
                store(shaped)
                shaped.removeAll()
            }
            piece = last + 1
        }
        if shapedWhole {
            Shaper.shape(run, of: bytes, font: font, scratch: scratch, output: output)
            shaped.removeAll()
            collect(pieces: 0..<pieceCount, bounds: bounds, keys: keys, shapedEnd: run.end, output: output, into: &shaped)
        } else {
            // Cached pieces last: the extended stretches wrote over their edge characters.
            for piece in 0..<pieceCount {
                if let shape = cached[piece] { Self.write(shape, in: bounds[piece]..<bounds[piece + 1], to: output) }
            }
        }
        store(shaped)
        if uncachablePieces > 0 { uncachable.add(uncachablePieces, ordering: .relaxed) }
        if shapedWhole { runsShapedWhole.add(1, ordering: .relaxed) }
    }

    /// Stores the pieces `shape` collected.
    private func store(_ shaped: ScratchList<(Key, Shape)>) {
        for index in 0..<shaped.count {
            let (key, shape) = shaped[index]
            shard(key).withLock { $0.set(shape, for: key, hash: key.hash) }
        }
    }

    /// Collects, for storing, the pieces whose edges HarfBuzz marked safe to concatenate in the shaping
    /// just done (which covered bytes up to `shapedEnd`; an edge at the end of a run has no flag to check).
    private func collect(pieces: Range<Int>, bounds: ScratchList<Int>, keys: ScratchList<Key?>, shapedEnd: Int,
                         output: Shaper.Output, into shaped: inout ScratchList<(Key, Shape)>) {
        for piece in pieces {
            guard let key = keys[piece] else { continue }
            let start = bounds[piece], end = bounds[piece + 1]
            guard output.isClusterStart[start], !output.isUnsafe[start] else { continue }
            if end < shapedEnd && (!output.isClusterStart[end] || output.isUnsafe[end]) { continue }
            var shape = Shape()
            var fits = true
            for offset in start..<end where output.isClusterStart[offset] {
                let index = Int(shape.count)
                guard index < Shape.capacity, let breakAdjust = Int32(exactly: output.breakAdjust[offset]),
                      let advance = Int32(exactly: output.advance[offset]) else {
                    fits = false
                    break
                }
                shape.offsets[index] = UInt8(offset - start)
                shape.advances[index] = advance
                shape.breakAdjusts[index] = breakAdjust
                shape.count += 1
            }
            if fits { shaped.append((key, shape)) }
        }
    }

    /// The most pieces shaped in one stretch (see `shape`).
    static let maximumStretch = 64
    /// How many times a stretch with an unsafe join is widened by a piece on that side and shaped
    /// again before its run is shaped whole. A stretch whose joins are both safe after widening is
    /// exact for the same reason any stretch is (HarfBuzz's `UNSAFE_TO_CONCAT` promise at its two
    /// joins); the cached pieces it took in are written from its shaping, not from the cache (their
    /// shape next to it may differ from the cached one: that join was unsafe).
    static let maximumWidenings = 2

    /// What one shaping wrote for the (at most four) bytes of one character.
    private typealias SavedBytes = [(advance: Int, breakAdjust: Int32, isClusterStart: Bool, isUnsafe: Bool)]

    private static func save(_ range: Range<Int>, of output: Shaper.Output) -> SavedBytes {
        range.map { (output.advance[$0], output.breakAdjust[$0], output.isClusterStart[$0], output.isUnsafe[$0]) }
    }

    private static func restore(_ saved: SavedBytes, at start: Int, to output: Shaper.Output) {
        for (i, value) in saved.enumerated() {
            output.advance[start + i] = value.advance
            output.breakAdjust[start + i] = value.breakAdjust
            output.isClusterStart[start + i] = value.isClusterStart
            output.isUnsafe[start + i] = value.isUnsafe
        }
    }

    private static func write(_ shape: Shape, in range: Range<Int>, to output: Shaper.Output) {
        for offset in range {
            output.advance[offset] = 0
            output.breakAdjust[offset] = 0
            output.isClusterStart[offset] = false
            output.isUnsafe[offset] = false
        }
        for index in 0..<Int(shape.count) {
            let offset = range.lowerBound + Int(shape.offsets[index])
            output.advance[offset] = Int(shape.advances[index])
            output.breakAdjust[offset] = Int32(shape.breakAdjusts[index])
            output.isClusterStart[offset] = true
        }
    }

    /// Whether HarfBuzz shapes the script with Arabic-style joining, which reads the characters around
    /// the shaped text (the scripts of Unicode's ArabicShaping.txt). Other scripts' shaping sees only
    /// the text shaped.
    static func readsContext(_ script: hb_script_t) -> Bool {
        switch script {
        case HB_SCRIPT_ARABIC, HB_SCRIPT_SYRIAC, HB_SCRIPT_NKO, HB_SCRIPT_MANDAIC, HB_SCRIPT_MANICHAEAN,
             HB_SCRIPT_MONGOLIAN, HB_SCRIPT_PHAGS_PA, HB_SCRIPT_PSALTER_PAHLAVI, HB_SCRIPT_ADLAM,
             HB_SCRIPT_HANIFI_ROHINGYA, HB_SCRIPT_SOGDIAN, HB_SCRIPT_CHORASMIAN, HB_SCRIPT_OLD_UYGHUR:
            true
        default:
            false
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
