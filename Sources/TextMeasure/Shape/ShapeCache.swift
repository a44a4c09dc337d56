import TextMeasureSupport
import CHarfBuzzFreeType
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
/// What the piece table cannot hold goes to a ``SpanCache``: pieces HarfBuzz would not shape apart
/// (a word kerned across its soft hyphens, Thai and Arabic phrases, every syllable of a font with a
/// legacy `kern` table), cached from one safe join to the next, and pieces over 32 bytes or 16
/// clusters. A number or code that misses (printable ASCII with a digit) is put together from its
/// characters when each was stored with safe joins: they are stored one by one as well.
///
/// Sizes share plain pieces: a piece each of whose clusters is one glyph that no lookup positioned
/// (its advance the nominal one) is stored with its glyphs (see ``Shape/isPlain``), and a piece
/// missing at one size that is stored so at another is put together from this size's nominal
/// advances of those glyphs, without shaping (counted as ``Statistics/resized``). Exact: which lookups
/// apply depends on the glyphs alone, and at a scale of at least the face's units per em, the only
/// scale plain pieces are stored from, an adjustment of one font unit moves an advance, so none
/// escaped notice. Not for the joining scripts (their cursive attachment rounds anchors another way)
/// nor for pieces with a space HarfBuzz sizes from the scale (`hasScaledSpace`). Only once a second
/// size has been seen: with one, looking for the piece at other sizes costs a check per run.
///
/// Thread safety: any number of threads at once. The pieces are in 16 tables (CLOCK eviction, see
/// ``ClockTable``) with a lock each (``LockedShards``: no reference counting per look-up, no two
/// shards on one cache line), taken per piece looked up and per piece stored; they count their hits
/// and misses under those locks. A piece never stored is not looked up: filters of the keys stored
/// (``HashFilter``: atomic bits, no lock, refilled from the tables as they fill) answer for most
/// misses, and count them once per run.
/// (A private, lock-free first level per thread was tried: with the tables this cheap, it cost more in
/// copies than it saved in locks.)
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

        /// This key at another scale of its face (its hash without hashing the piece again).
        func at(scale: Int32) -> Key {
            var key = self
            key.font.scale = scale
            key.hash = Int(truncatingIfNeeded: hashAtAnyScale ^ Self.salt(scale))
            return key
        }

        /// `seed` is the cache's (see `ShapeCache.keySeed`).
        init(font: HBFont.ID, script: UInt32, rightToLeft: Bool, before: UInt32, after: UInt32, text: PieceBytes,
             seed: UInt64) {
            self.font = font
            self.script = script
            self.rightToLeft = rightToLeft
            self.before = before
            self.after = after
            self.text = text
            hash = Int(truncatingIfNeeded: hash(face: font.face, seed: seed) ^ Self.salt(font.scale))
        }

        /// The hash of this key with the scale left out: the same for every size of the piece. `hash` is
        /// it with a value per scale xored in, so that it takes no hashing of the piece again (a piece
        /// missing at its size is looked for at the others by this hash, see `ShapeCache.resized`).
        var hashAtAnyScale: UInt64 {
            UInt64(UInt(bitPattern: hash)) ^ Self.salt(font.scale)
        }

        /// What the scale adds to a key's hash: distinct scales give distinct values (an odd multiplier),
        /// and keys at one scale spread over the table as their hashes at any scale do.
        @inline(__always)
        private static func salt(_ scale: Int32) -> UInt64 {
            UInt64(UInt32(bitPattern: scale)) &* 0x9E37_79B9_7F4A_7C15
        }

        @inline(__always)
        private func hash(face: UInt32, seed: UInt64) -> UInt64 {
            // A multiply-fold hash (as in wyhash) with a per-process seed: a few nanoseconds where
            // `Hasher` (SipHash) took tens, for one key per piece of every text.
            var h = seed
            h = Self.mix(h, UInt64(face) << 32)
            h = Self.mix(h, UInt64(script) << 32 | UInt64(before))
            h = Self.mix(h, UInt64(after) << 32 | UInt64(text.count) << 1 | (rightToLeft ? 1 : 0))
            h = Self.mix(h, text.words.0)
            h = Self.mix(h, text.words.1)
            h = Self.mix(h, text.words.2)
            h = Self.mix(h, text.words.3)
            return h
        }

        @inline(__always)
        static func mix(_ h: UInt64, _ value: UInt64) -> UInt64 {
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
        /// The clusters' break adjustments, or their glyphs when the piece `isPlain` (read them
        /// through `breakAdjusts` and `glyphs`).
        var breakAdjustsOrGlyphs = SIMD16<Int32>()
        var count: UInt8 = 0
        /// Every cluster is one glyph that no lookup positioned: the break adjustments are all 0, and
        /// their room holds the glyphs, for other sizes (see ``ShapeCache``).
        var isPlain = false

        /// The clusters' break adjustments.
        var breakAdjusts: SIMD16<Int32> { isPlain ? SIMD16() : breakAdjustsOrGlyphs }
        /// The clusters' glyphs, if the piece `isPlain`.
        var glyphs: SIMD16<Int32>? { isPlain ? breakAdjustsOrGlyphs : nil }

        /// No piece (a stored piece has at least one cluster): what `ShapeCache.shape`'s list of pieces
        /// found holds for one not found. Not a list of `Shape?`: appending nil copied a whole optional,
        /// and reading whether an element was nil called out for it, per piece.
        static var missing: Shape { Shape() }
        var isMissing: Bool { count == 0 }
    }

    /// Counters since the measurer was created.
    struct Statistics: Hashable, Sendable {
        var hits = 0
        var misses = 0
        var runsShapedWhole = 0
        /// Stretches shaped again, wider, after an unsafe join, without shaping their run whole.
        var stretchesWidened = 0
        /// Spans found (see ``SpanCache``).
        var spanHits = 0
        /// Pieces not found at their size but put together from their glyphs stored at another (they
        /// count as misses as well).
        var resized = 0
    }

    /// The pieces, split by hash into shards with a lock each: with one lock, two cores preparing
    /// texts queued on it often enough that one slept in the kernel (a critical section that stores a
    /// piece may take a page fault).
    private let shards: LockedShards<ClockTable<Key, Shape>>
    private static let shardCount = 16   // a power of two
    /// Pieces too long to be cached (the shards count the others' hits and misses, under their locks).
    private let uncachable = Atomic<Int>(0)
    /// Which keys were stored in the piece table: a bit per key's hash (see ``HashFilter``), set by
    /// every store, so that a piece never stored, most of the misses on text that repeats little,
    /// costs a load instead of a lock and a probe. Keys stored and evicted keep their bit (until a
    /// refill, see `refillPieceFilters`), so the filter is sized for many times the table's capacity
    /// of distinct keys.
    private let storedPieces: HashFilter
    /// Misses that `storedPieces` answered, without the shard that counts the others.
    private let unprobedMisses = Atomic<Int>(0)
    private let runsShapedWhole = Atomic<Int>(0)
    /// The keys' hash seed, per cache (a `static let` cost a `swift_once` check per key).
    private let keySeed = UInt64.random(in: 0...UInt64.max)
    private let stretchesWidened = Atomic<Int>(0)
    private let resized = Atomic<Int>(0)
    /// The first scales of runs shaped through the cache (0: none yet), where a piece missing at its
    /// own is looked for.
    private let scales = InlineArray<4, Atomic<Int32>> { _ in Atomic(0) }
    /// Which pieces are stored plain at some size: a bit per piece (by `Key.hashAtAnyScale`; others
    /// share it), set when one is stored, so that a piece never stored plain is not looked for at
    /// every other size, two look-ups per new word.
    private let plainPieces: HashFilter
    /// What the piece table cannot hold (see ``SpanCache``).
    private let spans: SpanCache

    /// A cache of at most `capacity` pieces, and a thirty-second as many spans (they are fewer and
    /// larger: 1,562 for the default capacity held every span of the 6,000 cold benchmark texts).
    /// `filterWords` (a power of two, at least 2) sizes the filter of stored pieces, 128 KiB by
    /// default (2^20 bits); the filters of plain pieces and of spans' first pieces are half as large.
    init(capacity: Int, filterWords: Int = 16_384) {
        let perShard = max(1, (capacity + Self.shardCount - 1) / Self.shardCount)
        shards = LockedShards(count: Self.shardCount) { _ in ClockTable(capacity: perShard) }
        storedPieces = HashFilter(wordCount: filterWords)
        plainPieces = HashFilter(wordCount: filterWords / 2)
        spans = SpanCache(capacity: max(64, capacity / 32), filterWords: filterWords / 2)
    }

    /// Times the filters of stored pieces, of plain pieces and of spans' first pieces were refilled.
    var filterRefills: (storedPieces: Int, plainPieces: Int, spanStarts: Int) {
        (storedPieces.refills, plainPieces.refills, spans.filterRefills)
    }

    var statistics: Statistics {
        var statistics = Statistics(misses: uncachable.load(ordering: .relaxed)
                                        + unprobedMisses.load(ordering: .relaxed),
                                    runsShapedWhole: runsShapedWhole.load(ordering: .relaxed),
                                    stretchesWidened: stretchesWidened.load(ordering: .relaxed),
                                    spanHits: spans.hits, resized: resized.load(ordering: .relaxed))
        for shard in 0..<shards.count {
            shards.withLock(shard) { table in
                statistics.hits += table.hits
                statistics.misses += table.misses
            }
        }
        return statistics
    }

    /// The shard holding `key`: chosen by hash bits that neither the table's buckets (the low bits)
    /// nor its tags (the high 32) rely on.
    private func shard(_ key: Key) -> Int {
        (key.hash >> 24) & (Self.shardCount - 1)
    }

    /// The shape stored for `key`, if any, counted as a hit or a miss: a key the filter says was not
    /// stored (see `storedPieces`; rarely one stored while a refill ran) is not looked up, and its
    /// miss is added to `unprobed` (for `unprobedMisses`, once per run).
    @inline(__always)
    private func value(for key: Key, unprobed: inout Int) -> Shape? {
        guard storedPieces.mayContain(UInt64(UInt(bitPattern: key.hash))) else {
            unprobed += 1
            return nil
        }
        return shards.withLock(shard(key)) { $0.value(for: key, hash: key.hash) }
    }

    /// Stores `shape` for `key` in the piece table.
    @inline(__always)
    private func set(_ shape: Shape, for key: Key) {
        assert(!shape.isMissing, "a stored piece has a cluster")
        let refillDue = storedPieces.insert(UInt64(UInt(bitPattern: key.hash)))
        shards.withLock(shard(key)) { $0.set(shape, for: key, hash: key.hash) }
        if refillDue { refillPieceFilters() }
    }

    /// Clears the filters of stored and plain pieces and sets the bits of the pieces the table holds
    /// now, once one of them has half its clear bits set: in a long-running process (`serve`) new
    /// pieces keep setting bits, evicted ones keep theirs, and a filter with most bits set lets
    /// through the look-ups it is there to spare. Both are refilled in the one pass over the table.
    @inline(never)
    private func refillPieceFilters() {
        // The caller was told a refill is due, maybe just before another thread's refill ended.
        guard storedPieces.isRefillDue || plainPieces.isRefillDue else { return }
        let stored = storedPieces.beginRefill(), plain = plainPieces.beginRefill()
        guard stored || plain else { return }
        for index in 0..<shards.count {
            shards.withLock(index) { table in
                table.forEach { key, shape in
                    if stored { storedPieces.insert(UInt64(UInt(bitPattern: key.hash))) }
                    if plain && shape.isPlain { plainPieces.insert(key.hashAtAnyScale) }
                }
            }
        }
        if stored { storedPieces.endRefill() }
        if plain { plainPieces.endRefill() }
    }

    /// Shapes `run` (through the cache), writing each HarfBuzz cluster's advance, start mark and break
    /// adjustment at its byte offset in the paragraph. `font` is the `hb_font_t` of the font whose
    /// identity is `fontID` (the caller holds its ``HBFont``).
    func shape(_ run: Run, of bytes: UnsafeBufferPointer<UInt8>, flags: UnsafeBufferPointer<UInt8>,
               font: OpaquePointer, fontID: HBFont.ID, scratch: ShapeScratch, output: Shaper.Output) {
        // Piece boundaries: break opportunities at grapheme boundaries inside the run.
        var bounds = scratch.pieceBounds
        var keys = scratch.pieceKeys
        var cached = scratch.pieceShapes
        var shaped = scratch.shapedPieces
        var covered = scratch.piecesInSpans
        // Spans found and spans to store: arrays of references, kept in the scratch with their
        // capacity so that a run with spans allocates nothing for them. Swapped out and back, not
        // copied: no reference counting for the many runs that find and store no span.
        var found: [(first: Int, end: Int, shape: SpanCache.Shape)] = []
        var newSpans: [(SpanCache.Key, SpanCache.Start, SpanCache.Shape)] = []
        swap(&found, &scratch.spansFound)
        swap(&newSpans, &scratch.spansShaped)
        defer {
            // Hand the (emptied, maybe grown) lists back for the next run.
            bounds.removeAll()
            keys.removeAll()
            cached.removeAll()
            shaped.removeAll()
            covered.removeAll()
            scratch.pieceBounds = bounds
            scratch.pieceKeys = keys
            scratch.pieceShapes = cached
            scratch.shapedPieces = shaped
            scratch.piecesInSpans = covered
            if !found.isEmpty { found.removeAll(keepingCapacity: true) }
            if !newSpans.isEmpty { newSpans.removeAll(keepingCapacity: true) }
            swap(&found, &scratch.spansFound)
            swap(&newSpans, &scratch.spansShaped)
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
        // Whether plain pieces are looked up at other sizes, and stored from here for every size too
        // (see the type's comment).
        let resizes = !readsContext && hasSeenOtherScales(than: fontID.scale)
        let keepsGlyphs = resizes && fontID.scale >= Int32(clamping: hb_face_get_upem(hb_font_get_face(font)))

        let edges = Edges(run: run, bytes: bytes, readsContext: readsContext)
        for piece in 0..<pieceCount {
            let start = bounds[piece], end = bounds[piece + 1]
            guard let text = PieceBytes(UnsafeBufferPointer(rebasing: bytes[start..<end])) else {
                keys.append(nil)
                continue
            }
            keys.append(Key(font: fontID, script: run.script.rawValue, rightToLeft: rightToLeft,
                            before: edges.before(start), after: edges.after(end), text: text, seed: keySeed))
        }
        var uncachablePieces = 0, unprobed = 0
        for piece in 0..<pieceCount {
            covered.append(false)
            guard let key = keys[piece] else {
                uncachablePieces += 1
                cached.append(.missing)
                continue
            }
            cached.append(value(for: key, unprobed: &unprobed) ?? .missing)
        }
        // A piece not found at its size may be stored plain at another (see `resized`). One not found may be
        // in a stored span (see `SpanCache`), which starts with it or, as a widened stretch does, with
        // one or two pieces before it: the pieces a span covers are taken from it, not shaped, and not
        // from the piece table.
        var next = 0
        lookups: while next < pieceCount {
            guard cached[next].isMissing else {
                next += 1
                continue
            }
            if resizes, let key = keys[next], plainPieces.mayContain(key.hashAtAnyScale),
               let shape = resized(key, font: font) {
                cached[next] = shape
                next += 1
                continue
            }
            var first = next
            var span = self.span(startingAt: first, bounds: bounds, keys: keys, bytes: bytes, fontID: fontID,
                                 rightToLeft: rightToLeft, edges: edges)
            while span == nil && first > 0 && next - first < Self.maximumWidenings && !cached[first - 1].isMissing {
                first -= 1
                span = self.span(startingAt: first, bounds: bounds, keys: keys, bytes: bytes, fontID: fontID,
                                 rightToLeft: rightToLeft, edges: edges, covering: next)
            }
            guard let span else {
                // A number made of characters shaped before is put together from them.
                let range = bounds[next]..<bounds[next + 1]
                if Self.isNumeric(bytes[range]) {
                    cached[next] = assembled(range, of: bytes, fontID: fontID, rightToLeft: rightToLeft, edges: edges,
                                             unprobed: &unprobed) ?? .missing
                }
                next += 1
                continue lookups
            }
            for piece in span.first..<span.end {
                cached[piece] = .missing
                covered[piece] = true
            }
            found.append(span)
            next = span.end
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
                for next in piece..<min(piece + Self.maximumStretch, pieceCount)
                where cached[next].isMissing && !covered[next] {
                    if let key = keys[next] { cached[next] = value(for: key, unprobed: &unprobed) ?? .missing }
                }
            }
            guard cached[piece].isMissing && !covered[piece] else {
                piece += 1
                afterFullStretch = false
                continue
            }
            var first = piece, last = piece
            while last + 1 < pieceCount && cached[last + 1].isMissing && !covered[last + 1]
                    && last + 1 - piece < Self.maximumStretch { last += 1 }
            var widenings = 0
            var extendedEnd = 0
            while true {
                let start = bounds[first], end = bounds[last + 1]
                let extendedStart = start > run.start ? Self.start(ofScalarBefore: start, in: bytes) : start
                extendedEnd = end < run.end ? end + UTF8Decoding.scalar(in: bytes, at: end).length : end
                // The character this stretch extends into before it belongs to a piece no cached shape
                // rewrites at the end when an earlier stretch shaped that piece (right after a full or
                // widened stretch): keep what that stretch wrote there.
                let kept = first > 0 && cached[first - 1].isMissing && !covered[first - 1]
                    ? Self.save(extendedStart..<start, of: output) : nil
                Shaper.shape(Run(start: extendedStart, end: extendedEnd, font: run.font, script: run.script),
                             of: bytes, font: font, scratch: scratch, output: output)
                let startJoinUnsafe = extendedStart < start && (!output.isClusterStart[start] || output.isUnsafe[start])
                let endJoinUnsafe = extendedEnd > end && (!output.isClusterStart[end] || output.isUnsafe[end])
                if let kept { Self.restore(kept, at: extendedStart, to: output) }
                if !startJoinUnsafe && !endJoinUnsafe { break }
                // Widen over a cached piece before (one an earlier stretch shaped is not shaped again: a
                // join that fails there tends to fail again, and the run is shaped whole sooner) or any
                // piece after; the pieces taken in keep this shaping, not their cached one. A span is
                // not taken in (its pieces are exact only together): the run is shaped whole.
                guard widenings < Self.maximumWidenings, !startJoinUnsafe || !cached[first - 1].isMissing,
                      !endJoinUnsafe || !covered[last + 1] else {
                    shapedWhole = true
                    break stretches
                }
                widenings += 1
                if startJoinUnsafe {
                    first -= 1
                    cached[first] = .missing
                }
                if endJoinUnsafe {
                    last += 1
                    cached[last] = .missing
                }
            }
            if widenings > 0 { stretchesWidened.add(1, ordering: .relaxed) }
            collect(pieces: first..<(last + 1), bounds: bounds, keys: keys, shapedEnd: extendedEnd, bytes: bytes,
                    output: output, context: (fontID, rightToLeft, edges, keepsGlyphs), into: &shaped, spans: &newSpans)
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
            collect(pieces: 0..<pieceCount, bounds: bounds, keys: keys, shapedEnd: run.end, bytes: bytes,
                    output: output, context: (fontID, rightToLeft, edges, keepsGlyphs), into: &shaped, spans: &newSpans)
        } else {
            // Cached pieces last: the extended stretches wrote over their edge characters.
            for piece in 0..<pieceCount {
                guard !cached[piece].isMissing else { continue }
                Self.write(cached[piece], in: bounds[piece]..<bounds[piece + 1], to: output)
            }
            for span in found { Self.write(span.shape, in: bounds[span.first]..<bounds[span.end], to: output) }
        }
        store(shaped)
        for (key, start, shape) in newSpans { spans.store(shape, for: key, start: start) }
        if uncachablePieces > 0 { uncachable.add(uncachablePieces, ordering: .relaxed) }
        if unprobed > 0 { unprobedMisses.add(unprobed, ordering: .relaxed) }
        if shapedWhole { runsShapedWhole.add(1, ordering: .relaxed) }
    }

    /// Records `scale` among the first four scales seen; whether another one is among them.
    private func hasSeenOtherScales(than scale: Int32) -> Bool {
        // The common cases, one size all along or this one among the first two: two loads (the slots
        // fill in order, see `recordScale`).
        let first = scales[0].load(ordering: .relaxed)
        if first == scale { return scales[1].load(ordering: .relaxed) != 0 }
        if first != 0 && scales[1].load(ordering: .relaxed) == scale { return true }
        return recordScale(scale)
    }

    @inline(never)
    private func recordScale(_ scale: Int32) -> Bool {
        var others = false, recorded = false
        for slot in scales.indices {
            var seen = scales[slot].load(ordering: .relaxed)
            if seen == 0 && !recorded {
                seen = scales[slot].compareExchange(expected: 0, desired: scale, ordering: .relaxed).original
                if seen == 0 { seen = scale }
            }
            if seen == scale { recorded = true } else if seen != 0 { others = true }
        }
        return others
    }

    /// Stores the pieces `shape` collected.
    private func store(_ shaped: ScratchList<(Key, Shape)>) {
        for index in 0..<shaped.count {
            let (key, shape) = shaped[index]
            set(shape, for: key)
            if shape.isPlain && plainPieces.insert(key.hashAtAnyScale) { refillPieceFilters() }
        }
    }

    /// Collects, for storing, the stretches of `pieces` between joins HarfBuzz marked safe to
    /// concatenate in the shaping just done (which covered bytes up to `shapedEnd`; an edge at the end of
    /// a run has no flag to check): a single piece for the piece table when it fits there, anything
    /// else as a span.
    private func collect(pieces: Range<Int>, bounds: ScratchList<Int>, keys: ScratchList<Key?>, shapedEnd: Int,
                         bytes: UnsafeBufferPointer<UInt8>, output: Shaper.Output,
                         context: (font: HBFont.ID, rightToLeft: Bool, edges: Edges, keepsGlyphs: Bool),
                         into shaped: inout ScratchList<(Key, Shape)>,
                         spans newSpans: inout [(SpanCache.Key, SpanCache.Start, SpanCache.Shape)]) {
        func isSafe(_ offset: Int) -> Bool { output.isClusterStart[offset] && !output.isUnsafe[offset] }
        // At the run's edges no shaping reads across, but a joining script's reads its context, which
        // the key holds (see `Edges`): a flag there says nothing more.
        let edges = context.edges
        var first = pieces.lowerBound
        for piece in pieces {
            let end = bounds[piece + 1]
            let endIsSafe = end >= shapedEnd ? edges.keysContext(at: end) : isSafe(end)
            if Self.isNumeric(bytes[bounds[piece]..<end]) {
                // Its characters too, each with both edges safe (see `assembled`).
                let start = bounds[piece]
                for offset in start..<end {
                    let startIsSafe = offset == edges.run.start
                        ? output.isClusterStart[offset] && edges.keysContext(at: offset) : isSafe(offset)
                    guard startIsSafe, offset + 1 == end ? endIsSafe : isSafe(offset + 1),
                          let shape = Self.pieceShape(offset..<(offset + 1), of: bytes, output: output), shape.count == 1 else {
                        continue
                    }
                    shaped.append((character(at: offset, of: start..<end, bytes: bytes, font: context.font,
                                             rightToLeft: context.rightToLeft, edges: edges), shape))
                }
            }
            guard endIsSafe || piece + 1 == pieces.upperBound else { continue }
            defer { first = piece + 1 }
            let start = bounds[first]
            let startIsSafe = start == edges.run.start
                ? output.isClusterStart[start] && edges.keysContext(at: start) : isSafe(start)
            guard endIsSafe, startIsSafe else { continue }
            if first == piece, let key = keys[piece],
               let shape = Self.pieceShape(start..<end, of: bytes, output: output, keepingGlyphs: context.keepsGlyphs) {
                shaped.append((key, shape))
            } else if end - start <= SpanCache.maximumBytes {
                newSpans.append(span(bounds[first]..<end, firstPieceEnd: bounds[first + 1], firstPieceKey: keys[first],
                                     bytes: bytes,
                                     output: output, context: context))
            }
        }
    }

    /// Whether `piece` is a number or code: printable ASCII with a digit, 2 to 16 characters. Such a
    /// piece is stored character by character as well (see `collect`), and when it misses it is put
    /// together from its characters if all of them are stored (`assembled`): new numbers are everywhere
    /// (times, prices, counts, identifiers), made of a few characters.
    private static func isNumeric(_ piece: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard piece.count >= 2, piece.count <= Shape.capacity else { return false }
        var hasDigit = false
        for byte in piece {
            guard byte >= 0x20 && byte < 0x7F else { return false }
            if byte &- 0x30 < 10 { hasDigit = true }
        }
        return hasDigit
    }

    /// The piece-table key of the character at `offset` of the piece `piece`: as a piece of its own,
    /// with the piece's context at the piece's edges.
    private func character(at offset: Int, of piece: Range<Int>, bytes: UnsafeBufferPointer<UInt8>, font: HBFont.ID,
                           rightToLeft: Bool, edges: Edges) -> Key {
        Key(font: font, script: edges.run.script.rawValue, rightToLeft: rightToLeft,
            before: offset == piece.lowerBound ? edges.before(offset) : Key.inside,
            after: offset + 1 == piece.upperBound ? edges.after(offset + 1) : Key.inside,
            text: PieceBytes(UnsafeBufferPointer(rebasing: bytes[offset..<(offset + 1)]))!, seed: keySeed)
    }

    /// The numeric piece `range` put together from its characters' stored shapes, or nil if one is
    /// missing. Exact for the reason any two cached pieces are: each character was stored from a
    /// shaping where both its joins were safe to concatenate.
    private func assembled(_ range: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>, fontID: HBFont.ID,
                           rightToLeft: Bool, edges: Edges, unprobed: inout Int) -> Shape? {
        var shape = Shape()
        for offset in range {
            let key = character(at: offset, of: range, bytes: bytes, font: fontID, rightToLeft: rightToLeft,
                                edges: edges)
            guard let part = value(for: key, unprobed: &unprobed), part.count == 1 else {
                return nil
            }
            let index = Int(shape.count)
            shape.offsets[index] = UInt8(offset - range.lowerBound)
            shape.advances[index] = part.advances[0]
            shape.breakAdjustsOrGlyphs[index] = part.breakAdjusts[0]
            shape.count += 1
        }
        return shape
    }

    /// The shape of the piece `range` as the piece table holds it, or nil if it does not fit there;
    /// with its glyphs if `keepingGlyphs` and it is plain (see ``Shape/isPlain``: every cluster one
    /// plain glyph, see `Shaper.Output.plainGlyph`, and no space HarfBuzz sizes from the scale).
    private static func pieceShape(_ range: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>, output: Shaper.Output,
                                   keepingGlyphs: Bool = false) -> Shape? {
        var shape = Shape()
        var isPlain = keepingGlyphs
        // The glyphs, gathered in the same pass while every cluster so far is plain.
        var glyphs = SIMD16<Int32>()
        for offset in range where output.isClusterStart[offset] {
            let index = Int(shape.count)
            guard index < Shape.capacity, let breakAdjust = Int32(exactly: output.breakAdjust[offset]),
                  let advance = Int32(exactly: output.advance[offset]) else { return nil }
            shape.offsets[index] = UInt8(offset - range.lowerBound)
            shape.advances[index] = advance
            shape.breakAdjustsOrGlyphs[index] = breakAdjust
            if isPlain {
                let glyph = output.plainGlyph[offset]
                if glyph == Shaper.Output.notPlain { isPlain = false } else { glyphs[index] = Int32(bitPattern: glyph) }
            }
            shape.count += 1
        }
        if isPlain && !hasScaledSpace(bytes[range]) {
            // Plain clusters have no break adjustment (their advance is the nominal one): room for the glyphs.
            shape.breakAdjustsOrGlyphs = glyphs
            shape.isPlain = true
        }
        return shape
    }

    /// Whether `piece` holds a space that HarfBuzz, when the font has no glyph for it, draws with the
    /// space glyph at a fraction of the font's scale (U+2000–U+200A, U+202F, U+205F, U+3000): an
    /// advance that is not the glyph's nominal one at other sizes even when it equals it at one.
    private static func hasScaledSpace(_ piece: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var index = piece.startIndex
        while index + 2 < piece.endIndex {
            let lead = piece[index], second = piece[index + 1], third = piece[index + 2]
            if lead == 0xE2 && ((second == 0x80 && (third <= 0x8A || third == 0xAF)) || (second == 0x81 && third == 0x9F))
                || lead == 0xE3 && second == 0x80 && third == 0x80 {
                return true
            }
            index += 1
        }
        return false
    }

    /// The piece `key` (missing at its size) put together from its plain shape stored at another of
    /// the scales seen, with the nominal advances of `font` (the font of `key`), and stored at its
    /// size; nil if no other size holds it plain. Called only for a piece `plainPieces` may hold: most
    /// pieces that miss were never stored plain, and their check stays inline.
    @inline(never)
    private func resized(_ key: Key, font: OpaquePointer) -> Shape? {
        for slot in scales.indices {
            let scale = scales[slot].load(ordering: .relaxed)
            guard scale != 0 else { break }
            guard scale != key.font.scale else { continue }
            let other = key.at(scale: scale)
            guard storedPieces.mayContain(UInt64(UInt(bitPattern: other.hash))),
                  let plain = shards.withLock(shard(other), { $0.uncountedValue(for: other, hash: other.hash) }),
                  let glyphs = plain.glyphs else { continue }
            var shape = plain
            withUnsafeBytes(of: glyphs) { glyphs in
                withUnsafeMutableBytes(of: &shape.advances) { advances in
                    hb_font_get_glyph_h_advances(font, UInt32(plain.count),
                                                 glyphs.assumingMemoryBound(to: hb_codepoint_t.self).baseAddress,
                                                 UInt32(MemoryLayout<hb_codepoint_t>.stride),
                                                 advances.assumingMemoryBound(to: hb_position_t.self).baseAddress,
                                                 UInt32(MemoryLayout<hb_position_t>.stride))
                }
            }
            set(shape, for: key)
            resized.add(1, ordering: .relaxed)
            return shape
        }
        return nil
    }

    /// The span `range` (whose first piece ends at `firstPieceEnd`) as the shaping just done left it in
    /// `output`, with its key and its first piece's.
    private func span(_ range: Range<Int>, firstPieceEnd: Int, firstPieceKey: Key?, bytes: UnsafeBufferPointer<UInt8>,
                      output: Shaper.Output, context: (font: HBFont.ID, rightToLeft: Bool, edges: Edges, keepsGlyphs: Bool))
        -> (SpanCache.Key, SpanCache.Start, SpanCache.Shape) {
        var count = 0
        for offset in range where output.isClusterStart[offset] { count += 1 }
        // Never through `unsafeUninitializedCapacity` for none (a span starts with a cluster, but this is
        // not the place to rely on it): that writes the count into the empty-array storage every thread
        // shares.
        let clusters = count == 0 ? [] : [SpanCache.Cluster](unsafeUninitializedCapacity: count) { clusters, initialized in
            for offset in range where output.isClusterStart[offset] {
                clusters.initializeElement(at: initialized, to: SpanCache.Cluster(
                    advance: output.advance[offset], breakAdjust: output.breakAdjust[offset],
                    offset: UInt16(offset - range.lowerBound)))
                initialized += 1
            }
        }
        let script = context.edges.run.script.rawValue
        let before = context.edges.before(range.lowerBound)
        let key = SpanCache.key(font: context.font, script: script, rightToLeft: context.rightToLeft, before: before,
                                after: context.edges.after(range.upperBound),
                                bytes: UnsafeBufferPointer(rebasing: bytes[range]), seed: keySeed)
        let start = SpanCache.start(pieceKey: firstPieceKey, font: context.font, script: script,
                                    rightToLeft: context.rightToLeft, before: before,
                                    bytes: UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<firstPieceEnd]),
                                    seed: keySeed)
        let shape = SpanCache.Shape(bytes: Array(bytes[range]), clusters: clusters)
        return (key, start, shape)
    }

    /// A stored span that starts with piece `first` and covers piece `covering`, as the pieces it
    /// covers (`first..<end`), if any; the longest of those stored.
    @inline(__always)
    private func span(startingAt first: Int, bounds: ScratchList<Int>, keys: ScratchList<Key?>,
                      bytes: UnsafeBufferPointer<UInt8>, fontID: HBFont.ID, rightToLeft: Bool, edges: Edges,
                      covering: Int? = nil)
        -> (first: Int, end: Int, shape: SpanCache.Shape)? {
        let run = edges.run
        let start = bounds[first]
        let before = edges.before(start)
        let startKey = SpanCache.start(pieceKey: keys[first], font: fontID, script: run.script.rawValue,
                                       rightToLeft: rightToLeft, before: before,
                                       bytes: UnsafeBufferPointer(rebasing: bytes[start..<bounds[first + 1]]),
                                       seed: keySeed)
        guard let lengths = spans.spanLengths(startingWith: startKey) else { return nil }
        let mustCover = bounds[(covering ?? first) + 1]
        var best: (first: Int, end: Int, shape: SpanCache.Shape)?
        for index in 0..<SpanCache.Lengths.scalarCount {
            let end = start + Int(lengths[index])
            guard end > start else { break }
            guard end <= run.end, end >= mustCover, end > (best.map { bounds[$0.end] } ?? 0) else { continue }
            var last = first + 1
            while bounds[last] < end { last += 1 }
            guard bounds[last] == end else { continue }
            let spanBytes = UnsafeBufferPointer(rebasing: bytes[start..<end])
            let key = SpanCache.key(font: fontID, script: run.script.rawValue, rightToLeft: rightToLeft,
                                    before: before, after: edges.after(end), bytes: spanBytes, seed: keySeed)
            if let shape = spans.shape(for: key, bytes: spanBytes) { best = (first, last, shape) }
        }
        return best
    }

    /// A piece's or span's context fields in its key (see `Key.before`): `inside` its run, or at the
    /// run's edge `runEdge`, or for a joining script the scalar beyond the edge.
    ///
    /// That scalar decides how HarfBuzz joins across the edge unless it is transparent to joining (a
    /// mark or a format character: HarfBuzz then reads on to the next one); a piece or span with such a
    /// scalar beyond a run edge is not stored (`keysContext`).
    struct Edges {
        let run: Run
        let bytes: UnsafeBufferPointer<UInt8>
        let readsContext: Bool

        func before(_ start: Int) -> UInt32 {
            start > run.start ? Key.inside : !readsContext ? Key.runEdge
                : start > 0 ? ShapeCache.scalar(before: start, in: bytes) : 0
        }

        func after(_ end: Int) -> UInt32 {
            end < run.end ? Key.inside : !readsContext ? Key.runEdge
                : end < bytes.count ? UTF8Decoding.scalar(in: bytes, at: end).value : 0
        }

        /// Whether the key's context field at the run edge `offset` (its start or end) holds all that
        /// shaping reads beyond that edge.
        func keysContext(at offset: Int) -> Bool {
            guard readsContext else { return true }
            let scalar = offset == run.start ? before(offset) : after(offset)
            guard scalar != 0 else { return true }   // the paragraph's edge
            switch hb_unicode_general_category(hb_unicode_funcs_get_default(), scalar) {
            case HB_UNICODE_GENERAL_CATEGORY_NON_SPACING_MARK, HB_UNICODE_GENERAL_CATEGORY_ENCLOSING_MARK,
                 HB_UNICODE_GENERAL_CATEGORY_FORMAT:
                return false
            default:
                return true
            }
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

    private static func write(_ shape: SpanCache.Shape, in range: Range<Int>, to output: Shaper.Output) {
        for offset in range {
            output.advance[offset] = 0
            output.breakAdjust[offset] = 0
            output.isClusterStart[offset] = false
            output.isUnsafe[offset] = false
        }
        for cluster in shape.clusters {
            let offset = range.lowerBound + Int(cluster.offset)
            output.advance[offset] = cluster.advance
            output.breakAdjust[offset] = cluster.breakAdjust
            output.isClusterStart[offset] = true
        }
    }

    private static func write(_ shape: Shape, in range: Range<Int>, to output: Shaper.Output) {
        for offset in range {
            output.advance[offset] = 0
            output.breakAdjust[offset] = 0
            output.isClusterStart[offset] = false
            output.isUnsafe[offset] = false
        }
        let breakAdjusts = shape.breakAdjusts
        for index in 0..<Int(shape.count) {
            let offset = range.lowerBound + Int(shape.offsets[index])
            output.advance[offset] = Int(shape.advances[index])
            output.breakAdjust[offset] = breakAdjusts[index]
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
    static func scalar(before offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        UTF8Decoding.scalar(in: bytes, at: start(ofScalarBefore: offset, in: bytes)).value
    }
}
