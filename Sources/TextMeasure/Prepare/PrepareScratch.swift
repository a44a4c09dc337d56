import CFreeType
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Working memory for one preparation at a time, kept so that preparing a text allocates only its
/// result: a HarfBuzz buffer, per-byte arrays, and the itemizer's and shape cache's lists.
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
/// checked at run time (`@exclusivity(unchecked)`: the checks cost 3.8 M instructions on 2,000 cold
/// texts, 1 %).
final class PrepareScratch: @unchecked Sendable {
    // @unchecked: used by one thread at a time, enforced by the thread-specific value and the pool.
    let buffer: OpaquePointer
    @exclusivity(unchecked) private(set) var capacity = 0
    /// Per byte of the paragraph: break flags (from ICU), HarfBuzz cluster advance, break adjustment,
    /// unsafe-to-concat mark and cluster start, plain glyph (see `Shaper.Output.plainGlyph`), and the
    /// grapheme cluster the byte belongs to.
    @exclusivity(unchecked) private(set) var flags = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var advance = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var breakAdjust = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var isUnsafe = UnsafeMutableBufferPointer<Bool>(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var isClusterStart = UnsafeMutableBufferPointer<Bool>(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var plainGlyph = UnsafeMutableBufferPointer<UInt32>(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var clusterAtByte = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    /// Per byte of a paragraph with right-to-left text, in ``LineBreaking/pango``: its bidirectional level.
    @exclusivity(unchecked) private(set) var levels = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    /// Per glyph of the last shaping: its nominal advance (see `Shaper.shape`); grown on demand.
    @exclusivity(unchecked) private var nominalAdvanceStorage = UnsafeMutableBufferPointer<hb_position_t>(start: nil, count: 0)
    /// The paragraph's grapheme clusters (see `Itemizer.clusters(of:flags:into:)`).
    @exclusivity(unchecked) var clusters = ScratchList<Itemizer.Cluster>()
    @exclusivity(unchecked) var runs: [Run] = []
    /// The shaped-piece cache's lists for one run (see `ShapeCache.shape`).
    @exclusivity(unchecked) var pieceBounds = ScratchList<Int>()
    @exclusivity(unchecked) var pieceKeys = ScratchList<ShapeCache.Key?>()
    @exclusivity(unchecked) var pieceShapes = ScratchList<ShapeCache.Shape?>()
    @exclusivity(unchecked) var shapedPieces = ScratchList<(ShapeCache.Key, ShapeCache.Shape)>()
    @exclusivity(unchecked) var piecesInSpans = ScratchList<Bool>()
    @exclusivity(unchecked) var spansFound: [(first: Int, end: Int, shape: SpanCache.Shape)] = []
    @exclusivity(unchecked) var spansShaped: [(SpanCache.Key, SpanCache.Start, SpanCache.Shape)] = []
    /// The prepared form's segments and clusters as a text's paragraphs are added (see `Preparer`):
    /// kept from one preparation to the next, so that they grow only when a text needs more.
    @exclusivity(unchecked) var segments: [Segment] = []
    @exclusivity(unchecked) var preparedClusters: [PreparedCluster] = []
    /// The runs of bytes whose fonts reach one line extent (see `NaturalLineHeights`), kept likewise.
    @exclusivity(unchecked) var extentRuns: [ExtentRun] = []
    /// The paragraph's HarfBuzz clusters spanning several grapheme clusters (ligatures), as byte ranges.
    @exclusivity(unchecked) var ligatures: [Range<Int>] = []
    /// Pieces of over-long grapheme clusters shaped during the current preparation.
    @exclusivity(unchecked) var cutPieces = CutPieceShapes()
    /// Shape plans by face and segment properties, looked up once per thread (see `shapePlan`).
    @exclusivity(unchecked) private var shapePlans: [PlanKey: ShapePlan] = [:]
    /// The plan `shapePlan` returned last: runs in a row mostly share font and script, and the
    /// comparison is cheaper than hashing the key.
    @exclusivity(unchecked) private var lastPlan: (key: PlanKey, plan: ShapePlan?) = (PlanKey(face: 0, script: 0, direction: 0, language: 0), nil)

    /// A HarfBuzz shape plan and the features it was made with, which executing it must pass again:
    /// the face's mark-only features switched off (see `MarkPositioningFeatures`).
    struct ShapePlan {
        let plan: OpaquePointer
        let features: [hb_feature_t]
    }

    private struct PlanKey: Hashable {
        var face: UInt
        var script: UInt32
        var direction: UInt32
        var language: UInt
    }

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

    private init() {
        buffer = hb_buffer_create()
    }

    deinit {
        hb_buffer_destroy(buffer)
        for entry in shapePlans.values { hb_shape_plan_destroy(entry.plan) }
        release()
        pieceBounds.deallocate()
        pieceKeys.deallocate()
        pieceShapes.deallocate()
        shapedPieces.deallocate()
        piecesInSpans.deallocate()
    }

    /// The shape plan for `font` and the buffer's segment properties (set before calling), as
    /// `hb_shape` would find it in the face's list of plans, made with the face's mark-only features
    /// switched off (see `MarkPositioningFeatures`). Keeping our own reference spares every shaping
    /// that search and two atomic reference-count updates on a plan all threads share.
    func shapePlan(font: OpaquePointer) -> ShapePlan {
        var properties = hb_segment_properties_t()
        hb_buffer_get_segment_properties(buffer, &properties)
        let face = hb_font_get_face(font)!
        let key = PlanKey(face: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(face))),
                          script: properties.script.rawValue, direction: properties.direction.rawValue,
                          language: UInt(bitPattern: Int(bitPattern: properties.language.map(UnsafeRawPointer.init))))
        if key == lastPlan.key, let plan = lastPlan.plan { return plan }
        if let plan = shapePlans[key] {
            lastPlan = (key, plan)
            return plan
        }
        var coordinateCount: UInt32 = 0
        let coordinates = hb_font_get_var_coords_normalized(font, &coordinateCount)
        let features = MarkPositioningFeatures.switchedOff(for: face, script: properties.script)
        let plan = ShapePlan(plan: features.withUnsafeBufferPointer {
            hb_shape_plan_create_cached2(face, &properties, $0.baseAddress, UInt32($0.count), coordinates,
                                         coordinateCount, nil)!
        }, features: features)
        shapePlans[key] = plan
        lastPlan = (key, plan)
        return plan
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
            hb_buffer_clear_contents(scratch.buffer)
            scratch.cutPieces.removeAll()
            // Keep the pool and each scratch bounded: a huge text does not pin its memory.
            if scratch.capacity > 1 << 20 { scratch.release() }
            if scratch.preparedClusters.capacity > 1 << 16 {
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

    /// Makes the per-byte arrays hold at least `count` entries.
    func reserve(bytes count: Int) {
        guard count > capacity else { return }
        release()
        capacity = max(count, 256)
        flags = .allocate(capacity: capacity)
        advance = .allocate(capacity: capacity)
        breakAdjust = .allocate(capacity: capacity)
        isUnsafe = .allocate(capacity: capacity)
        isClusterStart = .allocate(capacity: capacity)
        plainGlyph = .allocate(capacity: capacity)
        clusterAtByte = .allocate(capacity: capacity)
        levels = .allocate(capacity: capacity)
    }

    /// Room for at least `count` glyphs' nominal advances, valid until the next call.
    func nominalAdvances(count: Int) -> UnsafeMutablePointer<hb_position_t> {
        if count > nominalAdvanceStorage.count {
            if nominalAdvanceStorage.baseAddress != nil { nominalAdvanceStorage.deallocate() }
            nominalAdvanceStorage = .allocate(capacity: max(count, 256))
        }
        return nominalAdvanceStorage.baseAddress!
    }

    var shaperOutput: Shaper.Output {
        Shaper.Output(advance: advance, isClusterStart: isClusterStart, breakAdjust: breakAdjust, isUnsafe: isUnsafe,
                      plainGlyph: plainGlyph)
    }

    private func release() {
        if nominalAdvanceStorage.baseAddress != nil {
            nominalAdvanceStorage.deallocate()
            nominalAdvanceStorage = UnsafeMutableBufferPointer(start: nil, count: 0)
        }
        clusters.deallocate()
        guard capacity > 0 else { return }
        flags.deallocate()
        advance.deallocate()
        breakAdjust.deallocate()
        isUnsafe.deallocate()
        isClusterStart.deallocate()
        plainGlyph.deallocate()
        levels.deallocate()
        clusterAtByte.deallocate()
        capacity = 0
    }
}
