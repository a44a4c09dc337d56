import TextMeasureSupport
import CHarfBuzzFreeType
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Working memory for one preparation at a time, kept so that preparing a text allocates only its
/// result: per-byte arrays, the itemizer's lists, the prepared form's lists as they grow, and the
/// shaping stage's own (``ShapeScratch``).
///
/// Each thread keeps the scratch it last used (a thread-specific value): taking it back needs no
/// lock. A pool behind a lock holds the others: a nested preparation's, and those of threads that
/// have ended (a batch starts new threads for each chunk of its input, and a scratch carries the
/// shape plans it has made). With only the pool, every text took its lock twice, and on two cores
/// that lock's line moved between the cores nearly every time.
///
/// Thread safety: a scratch belongs to one thread between ``withScratch(_:)``'s check-out and return
/// (an `hb_buffer_t` must not be shared); a thread's kept scratch is reached only by that thread, and
/// the pool is behind a lock. So no two accesses to its properties can overlap, and they are not
/// checked at run time (`@exclusivity(unchecked)`: the checks were a measurable share of a cold
/// text's instructions, for nothing).
final class PrepareScratch: @unchecked Sendable {
    // @unchecked: used by one thread at a time, enforced by the thread-specific value and the pool.
    /// The shaping stage's working memory.
    let shape = ShapeScratch()
    @exclusivity(unchecked) private(set) var capacity = 0
    /// Per byte of the paragraph: break flags (from ICU) and the grapheme cluster the byte belongs to.
    @exclusivity(unchecked) private(set) var flags = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var clusterAtByte = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    /// Per byte of a paragraph with right-to-left text, in ``LineBreaking/pango``: its bidirectional level.
    @exclusivity(unchecked) private(set) var levels = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    /// Per byte of a styled text (the whole text, not a paragraph): its style (see `StyleRuns`).
    @exclusivity(unchecked) private(set) var styles = UnsafeMutableBufferPointer<UInt16>(start: nil, count: 0)
    /// The paragraph's grapheme clusters (see `Itemizer.clusters(of:flags:levels:into:)`), with the
    /// pieces of any drawn in several fonts until `Preparer` joins them.
    @exclusivity(unchecked) var clusters = ScratchList<Itemizer.Cluster>()
    @exclusivity(unchecked) var runs: [Run] = []
    /// The prepared form's segments and clusters as a text's paragraphs are added (see `Preparer`):
    /// kept from one preparation to the next, so that they grow only when a text needs more.
    @exclusivity(unchecked) var segments: [Segment] = []
    @exclusivity(unchecked) var preparedClusters: [PreparedCluster] = []
    /// The runs of bytes whose fonts reach one line extent (see `LineHeights`), kept likewise.
    @exclusivity(unchecked) var extentRuns: [ExtentRun] = []
    /// The paragraph's HarfBuzz clusters spanning several grapheme clusters (ligatures), as byte ranges.
    @exclusivity(unchecked) var ligatures: [Range<Int>] = []

    private static let pool = Locked<[PrepareScratch]>([])
    /// The most scratches the pool keeps.
    private static let poolCapacity = 64
    /// Each thread's kept scratch (retained), or nil while it is in use or before the first; when the
    /// thread ends, its scratch goes to the pool.
    private static let kept: pthread_key_t = {
        var key = pthread_key_t()
        #if canImport(Glibc)
        let status = pthread_key_create(&key) { kept in
            if let kept { PrepareScratch.handOn(kept) }
        }
        #else
        let status = pthread_key_create(&key) { kept in PrepareScratch.handOn(kept) }
        #endif
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    /// What an ended thread's kept scratch (a retained reference) becomes: the pool's, if it has room.
    private static func handOn(_ kept: UnsafeMutableRawPointer) {
        giveBack(Unmanaged<PrepareScratch>.fromOpaque(kept).takeRetainedValue())
    }

    /// The most a scratch keeps after a preparation, of each kind (see ``withScratch(_:)``): bytes of
    /// its per-byte arrays and the shaping stage's, pieces of the shaped-word cache's lists, the
    /// itemizer's and the prepared text's clusters, runs and ligatures.
    enum Kept {
        static let bytes = 1 << 16
        static let pieces = 1 << 14
        static let clusters = 1 << 16
        static let runs = 1 << 12
    }

    private init() {}

    deinit {
        release()
    }

    /// Runs `body` with a scratch no other thread is using: the one this thread kept, else one from
    /// the pool, else a new one. Afterwards this thread keeps it, or, if it already keeps another (a
    /// nested call), the pool does.
    static func withScratch<R>(_ body: (PrepareScratch) throws -> R) rethrows -> R {
        let key = kept
        let scratch: PrepareScratch
        if let own = pthread_getspecific(key) {
            pthread_setspecific(key, nil)
            scratch = Unmanaged<PrepareScratch>.fromOpaque(own).takeRetainedValue()
        } else {
            scratch = pool.withLock { $0.popLast() } ?? PrepareScratch()
        }
        defer {
            scratch.shape.clear()
            // Keep the pool and each scratch bounded: a huge text does not pin its memory (a
            // paragraph of a megabyte takes over a hundred while it is prepared).
            if scratch.capacity > Kept.bytes {
                scratch.release()
                scratch.shape.release()
            }
            scratch.shape.trim(above: Kept.pieces)
            if scratch.clusters.capacity > Kept.clusters { scratch.clusters.deallocate() }
            if scratch.runs.capacity > Kept.runs { scratch.runs = [] }
            if scratch.ligatures.capacity > Kept.runs { scratch.ligatures = [] }
            if scratch.preparedClusters.capacity > Kept.clusters {
                scratch.segments = []
                scratch.preparedClusters = []
                scratch.extentRuns = []
            }
            if !keep(scratch, as: key) { giveBack(scratch) }
        }
        return try body(scratch)
    }

    /// Makes `scratch` this thread's kept scratch, unless it keeps another; whether it did.
    private static func keep(_ scratch: PrepareScratch, as key: pthread_key_t) -> Bool {
        guard pthread_getspecific(key) == nil else { return false }
        let retained = Unmanaged.passRetained(scratch)
        guard pthread_setspecific(key, retained.toOpaque()) == 0 else {
            retained.release()
            return false
        }
        return true
    }

    /// Puts `scratch` in the pool, if it has room.
    private static func giveBack(_ scratch: PrepareScratch) {
        pool.withLock { pool in
            if pool.count < poolCapacity { pool.append(scratch) }
        }
    }

    /// Makes the per-byte arrays, and the shaping stage's, hold at least `count` entries.
    func reserve(bytes count: Int) {
        shape.reserve(bytes: count)
        guard count > capacity else { return }
        release()
        capacity = max(count, 256)
        flags = .allocate(capacity: capacity)
        clusterAtByte = .allocate(capacity: capacity)
        levels = .allocate(capacity: capacity)
        styles = .allocate(capacity: capacity)
    }

    private func release() {
        clusters.deallocate()
        guard capacity > 0 else { return }
        flags.deallocate()
        levels.deallocate()
        styles.deallocate()
        clusterAtByte.deallocate()
        capacity = 0
    }
}
