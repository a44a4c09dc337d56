import TextMeasureSupport
import CHarfBuzzFreeType

/// The shaping stage's working memory for one preparation at a time (part of a ``PrepareScratch``):
/// a HarfBuzz buffer, what shaping leaves per byte of the paragraph, the shaped-piece cache's lists,
/// pieces of cut grapheme clusters, and the shape plans made so far.
///
/// Thread safety: belongs to the ``PrepareScratch`` that holds it, used by one thread at a time (an
/// `hb_buffer_t` must not be shared); its properties are not checked for exclusive access at run time
/// (`@exclusivity(unchecked)`, for the reason ``PrepareScratch`` gives).
final class ShapeScratch: @unchecked Sendable {
    // @unchecked: used by one thread at a time, as its PrepareScratch is.
    @exclusivity(unchecked) private(set) var buffer: OpaquePointer
    @exclusivity(unchecked) private(set) var capacity = 0
    /// Per byte of the paragraph: HarfBuzz cluster advance, break adjustment, unsafe-to-concat mark and
    /// cluster start, plain glyph (see `Shaper.Output.plainGlyph`).
    @exclusivity(unchecked) private(set) var advance = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var breakAdjust = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var isUnsafe = UnsafeMutableBufferPointer<Bool>(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var isClusterStart = UnsafeMutableBufferPointer<Bool>(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var plainGlyph = UnsafeMutableBufferPointer<UInt32>(start: nil, count: 0)
    /// Per glyph of the last shaping: its nominal advance (see `Shaper.shape`); grown on demand.
    @exclusivity(unchecked) private var nominalAdvanceStorage = UnsafeMutableBufferPointer<hb_position_t>(start: nil, count: 0)
    /// The shaped-piece cache's lists for one run (see `ShapeCache.shape`).
    @exclusivity(unchecked) var pieceBounds = ScratchList<Int>()
    @exclusivity(unchecked) var pieceKeys = ScratchList<ShapeCache.Key?>()
    @exclusivity(unchecked) var pieceShapes = ScratchList<ShapeCache.Shape>()
    @exclusivity(unchecked) var shapedPieces = ScratchList<(ShapeCache.Key, ShapeCache.Shape)>()
    @exclusivity(unchecked) var piecesInSpans = ScratchList<Bool>()
    @exclusivity(unchecked) var spansFound: [(first: Int, end: Int, shape: SpanCache.Shape)] = []
    @exclusivity(unchecked) var spansShaped: [(SpanCache.Key, SpanCache.Start, SpanCache.Shape)] = []
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

    init() {
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

    /// Makes the per-byte arrays hold at least `count` entries.
    func reserve(bytes count: Int) {
        guard count > capacity else { return }
        release()
        capacity = max(count, 256)
        advance = .allocate(capacity: capacity)
        breakAdjust = .allocate(capacity: capacity)
        isUnsafe = .allocate(capacity: capacity)
        isClusterStart = .allocate(capacity: capacity)
        plainGlyph = .allocate(capacity: capacity)
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

    /// Forgets the last preparation: the buffer's contents and the cut pieces.
    func clear() {
        hb_buffer_clear_contents(buffer)
        cutPieces.removeAll()
    }

    /// Frees the shaped-piece cache's lists and the HarfBuzz buffer (its glyph arrays as long as the
    /// longest run shaped) when they hold more than `pieces` pieces: a huge paragraph does not pin
    /// them. Between preparations only: the buffer is replaced by a new one.
    func trim(above pieces: Int) {
        guard pieceShapes.capacity > pieces || pieceBounds.capacity > pieces else { return }
        pieceBounds.deallocate()
        pieceKeys.deallocate()
        pieceShapes.deallocate()
        shapedPieces.deallocate()
        piecesInSpans.deallocate()
        spansFound = []
        spansShaped = []
        hb_buffer_destroy(buffer)
        buffer = hb_buffer_create()
    }

    /// Frees the per-byte arrays (a huge text does not pin its memory).
    func release() {
        if nominalAdvanceStorage.baseAddress != nil {
            nominalAdvanceStorage.deallocate()
            nominalAdvanceStorage = UnsafeMutableBufferPointer(start: nil, count: 0)
        }
        guard capacity > 0 else { return }
        advance.deallocate()
        breakAdjust.deallocate()
        isUnsafe.deallocate()
        isClusterStart.deallocate()
        plainGlyph.deallocate()
        capacity = 0
    }
}
