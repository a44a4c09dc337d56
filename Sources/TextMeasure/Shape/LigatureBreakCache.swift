import TextMeasureSupport
import CHarfBuzzFreeType

/// What the two pieces of a ligature broken between its grapheme clusters measure on their own (see
/// `Preparer`'s `measureBreaksInsideShapedClusters`), remembered across texts: "fi" and "ffi" recur in
/// every English text, and shaping their pieces again each time would cost two HarfBuzz calls per
/// boundary.
///
/// A key is the text shaped (the ligature with the clusters around it, up to 32 bytes), where the
/// break falls in it, and what the shaping depends on besides: the font's identity (its face's id and
/// its scale, never its address, which a freed font's successor may reuse), the script, and, for the
/// joining scripts whose shaping reads the characters around the text, those characters.
///
/// Thread safety: any number of threads at once; entries are in 8 CLOCK tables with a lock each
/// (``LockedShards``).
final class LigatureBreakCache: Sendable {
    /// A broken ligature in its surroundings.
    struct Key: Hashable, Sendable {
        var font: HBFont.ID
        var script: UInt32
        /// In a joining script, the scalars before and after the text (0 at a paragraph's edge);
        /// otherwise `UInt32.max`, as the shaping reads nothing around it.
        var before: UInt32
        var after: UInt32
        /// Where the line breaks, in bytes from the text's start.
        var boundary: UInt8
        var text: ShapeCache.PieceBytes
    }

    /// The advance of the text before the break and of the text after it, each shaped on its own.
    struct Widths: Sendable {
        var head: Int
        var tail: Int
    }

    private let shards: LockedShards<ClockTable<Key, Widths>>
    private static let shardCount = 8   // a power of two

    /// A cache of at most `capacity` broken ligatures.
    init(capacity: Int = 4_096) {
        let perShard = max(1, capacity / Self.shardCount)
        shards = LockedShards(count: Self.shardCount) { _ in ClockTable(capacity: perShard) }
    }

    /// The key for breaking `text` (a window of a paragraph, at most 32 bytes) at `boundary`, shaped
    /// in `run` with `font`; nil when the window is too long to be a key.
    static func key(window: Range<Int>, boundary: Int, of bytes: UnsafeBufferPointer<UInt8>, run: Run,
                    font: HBFont.ID) -> Key? {
        guard let text = ShapeCache.PieceBytes(UnsafeBufferPointer(rebasing: bytes[window])) else { return nil }
        var before = UInt32.max, after = UInt32.max
        if ShapeCache.readsContext(run.script) {
            before = window.lowerBound > 0 ? scalar(endingAt: window.lowerBound, in: bytes) : 0
            after = window.upperBound < bytes.count ? UTF8Decoding.scalar(in: bytes, at: window.upperBound).value : 0
        }
        return Key(font: font, script: run.script.rawValue, before: before, after: after,
                   boundary: UInt8(clamping: boundary - window.lowerBound), text: text)
    }

    func widths(for key: Key) -> Widths? {
        let hash = key.hashValue
        return shards.withLock(Self.shard(hash)) { $0.value(for: key, hash: hash) }
    }

    func store(_ widths: Widths, for key: Key) {
        let hash = key.hashValue
        shards.withLock(Self.shard(hash)) { $0.set(widths, for: key, hash: hash) }
    }

    /// The shard for a hash: bits the tables' buckets (the low ones) do not use.
    private static func shard(_ hash: Int) -> Int {
        (hash >> 24) & (shardCount - 1)
    }

    /// The scalar that ends at `offset`.
    private static func scalar(endingAt offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var start = offset - 1
        while start > 0 && bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return UTF8Decoding.scalar(in: bytes, at: start).value
    }
}
