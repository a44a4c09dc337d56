#if canImport(Glibc)
import TextMeasureSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Shaped spans: the text that ``ShapeCache``'s piece table cannot hold, shaped once per font and size
/// and reused across texts.
///
/// A span is one or more consecutive pieces of a run (the text between two break opportunities) whose
/// two outer joins HarfBuzz marked safe to concatenate (`UNSAFE_TO_CONCAT` clear) in the shaping it
/// came from, stored when the piece table cannot take it:
/// - pieces whose joins with each other are unsafe: a word with soft hyphens, kerned across them; Thai
///   and Devanagari words that contextual lookups read across; every syllable of a font with a legacy
///   `kern` table (HarfBuzz marks all of its joins unsafe) and every word of an Arabic sentence (a
///   letter after a space is marked, whatever the letter before the space); such a span is the stretch
///   from one safe join to the next, often a phrase or a whole run;
/// - a single piece over 32 bytes or 16 clusters (a long word, a URL).
///
/// Exact for the reason pieces are: HarfBuzz promises that text shaped with the flag clear at a join
/// concatenates safely there with any text also clear at that join, so spans and pieces clear at their
/// edges tile a run exactly as shaping it whole would. Keys are the piece table's (font and size,
/// script, direction, the context beyond a run edge for joining scripts) over the span's bytes, which
/// are stored and compared in full; the 64-bit hash only finds the candidate.
///
/// A span is found from its first piece: when a piece misses in the piece table, the byte lengths of
/// the spans last stored that start with that piece (``spanLengths(startingWith:)``, up to four) say
/// which bytes to look up. Most pieces that miss start no span: a filter of the first pieces stored
/// (``HashFilter``, refilled from the table as it fills) answers for those without a lock or a probe.
///
/// Thread safety: any number of threads at once. Spans and first pieces are in 8 tables each (CLOCK
/// eviction, see ``ClockTable``), with a lock per table (``LockedShards``).
final class SpanCache: Sendable {
    /// A span's identity but for its bytes, which ``Shape`` holds: the hash finds candidates, the bytes
    /// decide. Also a span's first piece's (a ``Start``), by hash alone: a collision there only
    /// proposes a length that the span look-up then rejects.
    struct Key: Equatable, Sendable {
        var font: HBFont.ID
        var hash: Int
        var script: UInt32
        var rightToLeft: Bool
        /// As in ``ShapeCache/Key``: `inside` a run, `runEdge`, or the scalar beyond a joining script's
        /// run edge.
        var before: UInt32
        /// As `before`, at the span's end; `firstPiece` in a ``Start``.
        var after: UInt32
        var byteCount: Int

        /// Not a scalar: the key is a span's first piece's.
        static let firstPiece = UInt32.max - 2
    }

    /// The key of a span's first piece, under which the lengths of the spans starting with it are kept.
    typealias Start = Key

    /// A HarfBuzz cluster of a span: its byte offset in the span, advance and break adjustment.
    struct Cluster: Sendable {
        var advance: Int
        var breakAdjust: Int32
        var offset: UInt16
    }

    /// A shaped span: its bytes and clusters. Immutable, so shared between threads as it is.
    final class Shape: Sendable {
        let bytes: [UInt8]
        let clusters: [Cluster]

        init(bytes: [UInt8], clusters: [Cluster]) {
            self.bytes = bytes
            self.clusters = clusters
        }
    }

    /// The longest span stored, in bytes (offsets in a span fit 16 bits).
    static let maximumBytes = 512

    private static let shardCount = 8   // a power of two
    private let spans: LockedShards<ClockTable<Key, Shape>>
    private let starts: LockedShards<ClockTable<Start, Lengths>>
    private let hitCount = Atomic<Int>(0)
    /// The hashes of the first pieces spans were stored for (see ``HashFilter``): 2^19 bits, 64 KiB
    /// by default, touched as bits are set; refilled from `starts` when half its clear bits are set.
    private let startFilter: HashFilter

    /// A cache of at most `capacity` spans, with a filter of `filterWords` (a power of two) words.
    init(capacity: Int, filterWords: Int = 8_192) {
        let perShard = max(1, (capacity + Self.shardCount - 1) / Self.shardCount)
        spans = LockedShards(count: Self.shardCount) { _ in ClockTable(capacity: perShard) }
        starts = LockedShards(count: Self.shardCount) { _ in ClockTable(capacity: perShard) }
        startFilter = HashFilter(wordCount: filterWords)
    }

    /// Spans found.
    var hits: Int { hitCount.load(ordering: .relaxed) }

    /// Times the filter of spans' first pieces was refilled.
    var filterRefills: Int { startFilter.refills }

    /// The key of `bytes` (a span) with the piece table's other key fields; `seed` is the hash seed.
    static func key(font: HBFont.ID, script: UInt32, rightToLeft: Bool, before: UInt32, after: UInt32,
                    bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> Key {
        var h = hash(bytes, seed: seed)
        h = ShapeCache.Key.mix(h, font.packed)
        h = ShapeCache.Key.mix(h, UInt64(script) << 32 | UInt64(before))
        h = ShapeCache.Key.mix(h, UInt64(after) << 1 | (rightToLeft ? 1 : 0))
        return Key(font: font, hash: Int(truncatingIfNeeded: h), script: script, rightToLeft: rightToLeft,
                   before: before, after: after, byteCount: bytes.count)
    }

    /// The key of a span's first piece `bytes`, whose piece-table key is `pieceKey` if it has one (its
    /// hash is reused).
    static func start(pieceKey: ShapeCache.Key?, font: HBFont.ID, script: UInt32, rightToLeft: Bool,
                      before: UInt32, bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> Start {
        var h: UInt64
        if let pieceKey {
            h = ShapeCache.Key.mix(UInt64(UInt(bitPattern: pieceKey.hash)), 0x5354_4152_5453)
        } else {
            h = hash(bytes, seed: seed ^ 0x5354_4152_5453)
            h = ShapeCache.Key.mix(h, font.packed)
            h = ShapeCache.Key.mix(h, UInt64(script) << 32 | UInt64(before))
            h = ShapeCache.Key.mix(h, rightToLeft ? 1 : 0)
        }
        return Start(font: font, hash: Int(truncatingIfNeeded: h), script: script, rightToLeft: rightToLeft,
                     before: before, after: Key.firstPiece, byteCount: bytes.count)
    }

    /// The byte lengths of the spans stored last that start with one piece, the latest first; 0 ends
    /// the list.
    typealias Lengths = SIMD4<UInt16>

    /// The byte lengths of the spans stored last that start with the piece `start`, if any. Inlined
    /// up to the filter, which answers for most pieces.
    @inline(__always)
    func spanLengths(startingWith start: Start) -> Lengths? {
        guard startFilter.mayContain(UInt64(UInt(bitPattern: start.hash))) else { return nil }
        return storedLengths(startingWith: start)
    }

    @inline(never)
    private func storedLengths(startingWith start: Start) -> Lengths? {
        starts.withLock(Self.shard(start.hash)) { $0.value(for: start, hash: start.hash) }
    }

    /// The span stored for `key` whose bytes are `bytes`, if any.
    func shape(for key: Key, bytes: UnsafeBufferPointer<UInt8>) -> Shape? {
        guard let shape = spans.withLock(Self.shard(key.hash), { $0.value(for: key, hash: key.hash) }),
              shape.bytes.count == bytes.count,
              shape.bytes.withUnsafeBufferPointer({ stored in
                  bytes.isEmpty || memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0 })
        else { return nil }
        hitCount.add(1, ordering: .relaxed)
        return shape
    }

    /// Stores `shape` for `key`, and its length for its first piece `start`.
    func store(_ shape: Shape, for key: Key, start: Start) {
        spans.withLock(Self.shard(key.hash)) { $0.set(shape, for: key, hash: key.hash) }
        let length = UInt16(key.byteCount)
        let refillDue = startFilter.insert(UInt64(UInt(bitPattern: start.hash)))
        starts.withLock(Self.shard(start.hash)) { table in
            var lengths = table.value(for: start, hash: start.hash) ?? Lengths()
            guard !any(lengths .== length) else { return }
            lengths = Lengths(length, lengths[0], lengths[1], lengths[2])
            table.set(lengths, for: start, hash: start.hash)
        }
        if refillDue { refillStartFilter() }
    }

    /// Clears the filter and sets the bits of the first pieces `starts` holds now (see ``HashFilter``).
    @inline(never)
    private func refillStartFilter() {
        // The caller was told a refill is due, maybe just before another thread's refill ended.
        guard startFilter.isRefillDue, startFilter.beginRefill() else { return }
        for index in 0..<starts.count {
            starts.withLock(index) { table in
                table.forEach { start, _ in startFilter.insert(UInt64(UInt(bitPattern: start.hash))) }
            }
        }
        startFilter.endRefill()
    }

    /// Bits of the hash that neither a table's buckets (the low bits) nor its tags (the high 32) use.
    private static func shard(_ hash: Int) -> Int { (hash >> 24) & (shardCount - 1) }

    /// A multiply-fold hash of `bytes`, eight at a time.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
        let raw = UnsafeRawBufferPointer(bytes)
        var h = ShapeCache.Key.mix(seed, UInt64(raw.count))
        var offset = 0
        while offset + 8 <= raw.count {
            h = ShapeCache.Key.mix(h, raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < raw.count {
            var tail: UInt64 = 0
            for index in offset..<raw.count { tail |= UInt64(raw[index]) << (8 * UInt64(index - offset)) }
            h = ShapeCache.Key.mix(h, tail)
        }
        return h
    }
}
