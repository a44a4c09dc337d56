import TextMeasureSupport
import Dispatch

/// Row heights for a virtualized list, keyed by width and then by model: exact heights measured once,
/// honest estimates for rows not yet measured.
///
/// ```swift
/// let cache = try HeightCache(layout: messageRow, measurer: TextMeasurer())
/// cache.height(for: message, width: 390)            // measures on a miss, then cached
/// cache.estimatedHeight(for: message, width: 390)   // never measures
/// ```
///
/// **Widths.** A height measured at one width is reused at another only where its measurement says it
/// holds (``RowMeasurement/validWidths``); otherwise the row is measured again. Widths are compared in
/// 1/1024 px. The cache keeps the entries of the last ``retainedWidths`` widths used and drops the rest
/// together, so portrait → landscape → portrait finds portrait's heights still there.
///
/// **Keys.** Models are compared with `==`: two models with equal hash values but different contents
/// never share a height.
///
/// **Memory.** At most ``capacity`` entries, least recently used evicted first. An entry costs about
/// 226 bytes with an `Int` model, plus whatever the model itself holds on the heap (measured with the
/// `Benchmarks/` package at 210 bytes, 100,000 entries in about 20 MB, before entries were filed by
/// width, which added 16 bytes to each); storage for the whole capacity (up to 100,000 entries) is
/// reserved when the cache is made, so growth never holds two copies.
///
/// **Thread safety.** Any number of threads or tasks may call any method at once. State is guarded by
/// one mutex that is never held while measuring; two callers missing the same key at once share one
/// measurement (the second waits for the first).
public final class HeightCache<Model: Hashable & Sendable>: Sendable {
    /// Counters since the cache was created.
    public struct Statistics: Hashable, Sendable {
        /// Answers from an entry at the same width.
        public var hits = 0
        /// Answers from an entry measured at another width that holds at this one.
        public var rangeHits = 0
        /// Measurements made.
        public var misses = 0
        /// Callers that waited for another caller's measurement of the same key instead of measuring.
        public var coalesced = 0
        /// Entries dropped for capacity or because their width was no longer retained.
        public var evictions = 0
        /// Entries held now.
        public var entries = 0
        /// Widths held now.
        public var widths = 0
        /// Estimates answered by an estimate (no exact height was known).
        public var estimates = 0
    }

    /// A width and a model, with the model's hash computed once per call rather than once per
    /// dictionary probe (checking the retained widths probes several keys for one model).
    @usableFromInline
    struct Key: Hashable, Sendable {
        @usableFromInline var width: Int
        @usableFromInline var model: Model
        @usableFromInline var modelHash: Int

        @inlinable
        init(width: Int, model: Model) {
            self.init(width: width, model: model, modelHash: model.hashValue)
        }

        @inlinable
        init(width: Int, model: Model, modelHash: Int) {
            self.width = width
            self.model = model
            self.modelHash = modelHash
        }

        /// The hash the entries and the measurements under way are filed under: the model's hash
        /// (already SipHash, seeded per process) mixed with the width by one multiplication, instead
        /// of a second SipHash over both (`hash(into:)`, which nothing in the cache calls now): half
        /// a hit's instructions.
        @inlinable
        var entryHash: Int { modelHash ^ (width &* -7_046_029_254_386_353_131) }

        @inlinable
        func at(width other: Int) -> Key {
            Key(width: other, model: model, modelHash: modelHash)
        }

        @inlinable
        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.width == rhs.width && lhs.modelHash == rhs.modelHash && lhs.model == rhs.model
        }

        @inlinable
        func hash(into hasher: inout Hasher) {
            hasher.combine(width)
            hasher.combine(modelHash)
        }
    }

    /// What the measuring and estimating closures return: a measurement or an estimate and, for row
    /// layouts, the part of it that is text (measured, or the unscaled estimate), which the estimate
    /// learns its correction from.
    @usableFromInline
    package struct WithTextHeight<Value: Sendable>: Sendable {
        @usableFromInline package var value: Value
        @usableFromInline package var textHeight: Double?

        @usableFromInline
        package init(_ value: Value, textHeight: Double? = nil) {
            self.value = value
            self.textHeight = textHeight
        }
    }

    @usableFromInline package typealias Measured = WithTextHeight<RowMeasurement>
    @usableFromInline package typealias Estimated = WithTextHeight<HeightEstimate>

    @usableFromInline
    enum Lookup {
        case found(RowMeasurement)
        case wait(Pending)
        /// Claimed: the caller measures, also asking the estimate when `learns` (see `learns(in:)`).
        case measure(learns: Bool)
    }

    /// A measurement under way (in `State.pending`, filed under its key).
    @usableFromInline
    struct Claim: Sendable {
        /// What callers wanting the same key wait on, made by the first of them: a claim nobody else
        /// wants (every row of a drag step) allocates nothing.
        @usableFromInline var waiting: Pending?
        /// Set by ``invalidate(_:)`` and ``removeAll()``: the measurement is returned, not stored.
        @usableFromInline var isStale = false

        @inlinable
        init() {}
    }

    /// Callers waiting for another caller's measurement of the same key.
    @usableFromInline
    final class Pending: @unchecked Sendable {
        // `waiters` is read and written under the cache's lock; `result` is written under it before
        // `done` is signalled and read by waiters only after waiting on it.
        @usableFromInline let done = DispatchSemaphore(value: 0)
        @usableFromInline var waiters = 0
        @usableFromInline var result: RowMeasurement?

        @usableFromInline
        init() {}
    }

    @usableFromInline
    struct State: Sendable {
        @usableFromInline var entries: LRUDictionary<Key, RowMeasurement>
        /// Entries per model hash: a model with none skips probing the retained widths. Filed under
        /// the model hash itself (already SipHash), not hashed again.
        @usableFromInline var entriesByModelHash = HashTable<Int, Int>()
        @usableFromInline var widths: LRUDictionary<Int, Void>
        /// The measurements under way, filed under `Key.entryHash`.
        @usableFromInline var pending = HashTable<Key, Claim>()
        @usableFromInline var statistics = Statistics()
        /// The heights measured per width, for the default estimate.
        @usableFromInline var measuredByWidth: [Int: MeasuredHeights] = [:]
        /// Measured text height over estimated text height, summed over measured rows.
        @usableFromInline var measuredText = 0.0
        @usableFromInline var estimatedText = 0.0
        /// Measurements learned from so far.
        @usableFromInline var learned = 0
        /// Bumped by ``invalidate(_:)`` and ``removeAll()``: heights read before may be stale.
        @usableFromInline var generation = 0
    }

    /// Heights measured at one width: their sum, count and the tallest.
    @usableFromInline
    struct MeasuredHeights: Sendable {
        @usableFromInline var sum = 0.0
        @usableFromInline var count = 0
        @usableFromInline var tallest = 0.0

        @inlinable
        init() {}

        @inlinable
        mutating func add(_ height: Double) {
            sum += height
            count += 1
            tallest = max(tallest, height)
        }

        @inlinable
        mutating func add(_ other: MeasuredHeights) {
            sum += other.sum
            count += other.count
            tallest = max(tallest, other.tallest)
        }
    }

    /// Most entries kept: 1 to ``maximumCapacity``.
    public let capacity: Int
    /// How many recent widths keep their entries: 1 to ``maximumCapacity``.
    public let retainedWidths: Int

    /// The largest ``capacity`` and ``retainedWidths``: 268,435,456 (2^28). A larger value given to an
    /// initializer is taken as this one (at about 226 bytes an entry, that many would take 60 GB).
    public static var maximumCapacity: Int { 1 << 28 }

    /// Used when nothing better is known (UIKit's default row height).
    public let fallbackEstimate: Double

    @usableFromInline let measure: @Sendable (Model, Double) -> Measured
    /// Arguments: model, width, the learned scale for the expected text height.
    @usableFromInline let estimator: (@Sendable (Model, Double, Double) -> Estimated)?
    @usableFromInline let state: Locked<State>
    /// The batch look-up compiled for the model type the cache was made with (see ``Specialized``).
    @usableFromInline let specialized: Specialized

    @usableFromInline
    package init(
        capacity: Int, retainedWidths: Int, fallbackEstimate: Double,
        measuring: @escaping @Sendable (Model, Double) -> Measured,
        estimating: (@Sendable (Model, Double, Double) -> Estimated)?,
        specialized: Specialized
    ) {
        precondition(capacity > 0, "HeightCache capacity must be at least 1")
        precondition(retainedWidths > 0, "HeightCache must retain at least one width")
        // Beyond the maximum: the maximum (more could never be held), not a trap.
        let capacity = min(capacity, Self.maximumCapacity)
        let retainedWidths = min(retainedWidths, Self.maximumCapacity)
        self.capacity = capacity
        self.retainedWidths = retainedWidths
        self.fallbackEstimate = fallbackEstimate
        self.measure = measuring
        self.estimator = estimating
        self.specialized = specialized
        state = Locked(State(entries: LRUDictionary(capacity: capacity, reserving: min(capacity, 100_000)),
                             widths: LRUDictionary(capacity: retainedWidths)))
    }

    /// A cache around a closure that measures a model at a width. Its heights hold only at the width
    /// measured. Estimates average the heights measured so far at that width (``fallbackEstimate``
    /// before any), unless `estimate` is given.
    ///
    /// - Parameters:
    ///   - capacity: The most heights kept: at least 1 (a precondition); more than
    ///     ``maximumCapacity`` counts as ``maximumCapacity``.
    ///   - retainedWidths: How many recent widths keep their heights: at least 1 (a precondition);
    ///     more than ``maximumCapacity`` counts as ``maximumCapacity``.
    ///   - fallbackEstimate: The estimate, in pixels, when nothing better is known.
    ///   - measure: Returns the height in pixels of a model's row at a width. Called outside the
    ///     cache's lock, from any thread; callers asking for the same model and width at once share
    ///     one call.
    ///   - estimate: Returns a cheap estimate of a model's row at a width, or `nil` to estimate from
    ///     the heights measured.
    /// - Complexity: O(1); storage for `min(capacity, 100_000)` entries is reserved (address space,
    ///   mapped as entries fill it).
    @inlinable
    public convenience init(
        capacity: Int = 10_000, retainedWidths: Int = 4, fallbackEstimate: Double = 44,
        measure: @escaping @Sendable (Model, Double) -> Double,
        estimate: (@Sendable (Model, Double) -> HeightEstimate)? = nil
    ) {
        self.init(capacity: capacity, retainedWidths: retainedWidths, fallbackEstimate: fallbackEstimate,
                  measurement: { model, width in RowMeasurement(height: measure(model, width), width: width) },
                  estimate: estimate, specialized: Specialized())
    }

    /// A cache around a closure that returns a measurement with the widths over which it holds, so a
    /// width change inside that range costs nothing.
    ///
    /// - Parameters:
    ///   - capacity: The most heights kept: at least 1 (a precondition); more than
    ///     ``maximumCapacity`` counts as ``maximumCapacity``.
    ///   - retainedWidths: How many recent widths keep their heights: at least 1 (a precondition);
    ///     more than ``maximumCapacity`` counts as ``maximumCapacity``.
    ///   - fallbackEstimate: The estimate, in pixels, when nothing better is known.
    ///   - measurement: Returns a model's row measurement at a width, with the widths over which it
    ///     holds. Called outside the cache's lock, from any thread; callers asking for the same model
    ///     and width at once share one call.
    ///   - estimate: Returns a cheap estimate of a model's row at a width, or `nil` to estimate from
    ///     the heights measured.
    /// - Complexity: O(1); storage for `min(capacity, 100_000)` entries is reserved (address space,
    ///   mapped as entries fill it).
    @inlinable
    public convenience init(
        capacity: Int = 10_000, retainedWidths: Int = 4, fallbackEstimate: Double = 44,
        measurement: @escaping @Sendable (Model, Double) -> RowMeasurement,
        estimate: (@Sendable (Model, Double) -> HeightEstimate)? = nil
    ) {
        self.init(capacity: capacity, retainedWidths: retainedWidths, fallbackEstimate: fallbackEstimate,
                  measurement: measurement, estimate: estimate, specialized: Specialized())
    }

    @usableFromInline
    convenience init(
        capacity: Int, retainedWidths: Int, fallbackEstimate: Double,
        measurement: @escaping @Sendable (Model, Double) -> RowMeasurement,
        estimate: (@Sendable (Model, Double) -> HeightEstimate)?, specialized: Specialized
    ) {
        self.init(capacity: capacity, retainedWidths: retainedWidths, fallbackEstimate: fallbackEstimate,
                  measuring: { model, width in Measured(measurement(model, width)) },
                  estimating: Self.estimating(estimate), specialized: specialized)
    }

    private static func estimating(_ estimate: (@Sendable (Model, Double) -> HeightEstimate)?)
        -> (@Sendable (Model, Double, Double) -> Estimated)? {
        guard let estimate else { return nil }
        return { model, width, _ in Estimated(estimate(model, width)) }
    }

    // MARK: Heights

    /// The exact height of `model`'s row at `width`: from the cache, or measured now and cached.
    ///
    /// - Parameters:
    ///   - model: The row's model.
    ///   - width: The row's width in pixels. It must lie in `MeasurementLimits.width` (a precondition,
    ///     like an array index: check widths that come from outside with
    ///     `MeasurementLimits.isValid(width:)` or use ``cachedHeight(for:width:)``, which never traps).
    /// - Returns: The height in pixels.
    /// - Complexity: A hit is one hash look-up under the lock; a miss measures the row once, however
    ///   many threads ask for it at the same time.
    @inlinable
    public func height(for model: Model, width: Double) -> Double {
        measurement(for: model, width: width).height
    }

    /// The full measurement of `model`'s row at `width`, cached like ``height(for:width:)``.
    ///
    /// - Parameters:
    ///   - model: The row's model.
    ///   - width: The row's width in pixels, in `MeasurementLimits.width` (a precondition).
    /// - Returns: The row's height, line count, truncation and the widths over which it holds.
    @inlinable
    public func measurement(for model: Model, width: Double) -> RowMeasurement {
        let key = Key(width: Self.checkedUnits(width: width), model: model)
        // The common case, inlined into the caller so that it is specialized for `Model`: a hit at
        // the width used last. Everything else (other widths, range reuse, misses) goes the long way.
        let hit = state.withLock { state -> RowMeasurement? in
            guard state.widths.newestKey == key.width,
                  let found = state.entries.value(for: key, hash: key.entryHash) else { return nil }
            state.statistics.hits += 1
            return found
        }
        return hit ?? measurement(for: key, width: width)
    }

    @inlinable
    func measurement(for key: Key, width: Double) -> RowMeasurement {
        switch state.withLock({ Self.lookUp(key, width: width, in: &$0) }) {
        case .found(let measurement):
            return measurement
        case .wait(let pending):
            return Self.wait(for: pending)
        case .measure(let learns):
            let measured = measureForCache(key.model, width: width, learning: learns)
            let signals = state.withLock { state in
                var heights = MeasuredHeights()
                heights.add(measured.value.height)
                Self.record(heights, width: key.width, in: &state)
                return finish(key, with: measured, in: &state)
            }
            signals.send()
            return measured.value
        }
    }

    /// Measures, on all cores, the rows among `models` that have no height at `width` yet (the rows
    /// just below the visible ones, say), and returns every height in order.
    ///
    /// The cache's lock is taken twice for the whole batch, not twice per row: once to answer what is
    /// cached and claim what is not, once to store what was measured. Rows another caller is measuring
    /// at the same time are waited for, not measured again.
    ///
    /// - Parameters:
    ///   - models: The rows' models; duplicates are measured once.
    ///   - width: The rows' width in pixels, in `MeasurementLimits.width` (a precondition).
    /// - Returns: The heights of `models`, in order.
    /// - Complexity: O(*n*) look-ups under one lock, plus the measurements of the misses spread over
    ///   every core.
    @discardableResult
    @inlinable
    public func prefetch(_ models: [Model], width: Double) -> [Double] {
        measurements(for: models, width: width).map(\.height)
    }

    /// The measurements of `models`' rows at `width`, from the cache or measured now on all cores (see
    /// ``prefetch(_:width:)``).
    ///
    /// - Parameters:
    ///   - models: The rows' models; duplicates are measured once.
    ///   - width: The rows' width in pixels, in `MeasurementLimits.width` (a precondition).
    /// - Returns: The measurements of `models`, in order.
    @inlinable
    public func measurements(for models: [Model], width: Double) -> [RowMeasurement] {
        specialized.measurements(self, models, nil, width)
    }

    /// ``measurements(for:width:)`` for models whose hash values the caller already has
    /// (``ListHeights`` keeps its rows' across a width drag, so that a drag step hashes no model).
    ///
    /// - Parameters:
    ///   - models: The rows' models.
    ///   - modelHashes: `models[i].hashValue` for every `i`.
    ///   - width: The rows' width in pixels, in `MeasurementLimits.width` (a precondition).
    /// - Returns: The measurements of `models`, in order.
    func measurements(for models: [Model], modelHashes: [Int], width: Double) -> [RowMeasurement] {
        precondition(modelHashes.count == models.count, "HeightCache: one hash per model")
        return specialized.measurements(self, models, modelHashes, width)
    }

    /// The body of ``measurements(for:width:)``, called through ``specialized`` so that a caller whose
    /// model type is not known where it is compiled (``ListHeights``) still runs it specialized.
    @inlinable
    func measurementsBody(for models: [Model], modelHashes: [Int]?, width: Double) -> [RowMeasurement] {
        let units = Self.checkedUnits(width: width)
        // 1. One pass under the lock: answers, claims and waits.
        var results = [RowMeasurement?](repeating: nil, count: models.count)
        var claimed: [(index: Int, key: Key, learns: Bool)] = []
        var waiting: [(index: Int, pending: Pending)] = []
        state.withLock { state in
            for (index, model) in models.enumerated() {
                let key = modelHashes.map { Key(width: units, model: model, modelHash: $0[index]) }
                    ?? Key(width: units, model: model)
                switch Self.lookUp(key, width: width, in: &state) {
                case .found(let measurement): results[index] = measurement
                case .measure(let learns): claimed.append((index, key, learns))
                case .wait(let pending): waiting.append((index, pending))
                }
            }
        }
        // 2. The claimed rows measured on all cores, outside the lock.
        // Mapped by position: `concurrentMap` is not specialized, and copying and destroying a tuple
        // holding a model there went through the runtime's generic tuple witnesses, row by row.
        let claims = claimed
        let measured = ConcurrentMap.map(Array(claims.indices)) { position in
            self.measureForCache(claims[position].key.model, width: width, learning: claims[position].learns)
        }
        // 3. One pass under the lock to store them; then waiters are woken, this batch's own included.
        let signals = state.withLock { state in
            // One width for the whole batch: its heights are added to the estimate's figures at once.
            var heights = MeasuredHeights()
            for measured in measured { heights.add(measured.value.height) }
            Self.record(heights, width: units, in: &state)
            return zip(claimed, measured).map { claim, measured in
                finish(claim.key, with: measured, in: &state)
            }
        }
        for signal in signals { signal.send() }
        for (claim, measured) in zip(claimed, measured) { results[claim.index] = measured.value }
        for (index, pending) in waiting { results[index] = Self.wait(for: pending) }
        return results.map { $0! }   // every index was found, measured or waited for above
    }

    /// A width's cache key, or a precondition failure naming the range.
    @inlinable
    static func checkedUnits(width: Double) -> Int {
        guard let units = WidthLimits.units(ifValid: width) else {
            preconditionFailure("HeightCache: \(WidthLimits.outOfRange(width))")
        }
        return units
    }

    /// Under the lock: the cached measurement, or a measurement under way to wait for, or a claim on
    /// measuring it.
    @inlinable
    static func lookUp(_ key: Key, width: Double, in state: inout State) -> Lookup {
        if let found = cached(key, width: width, in: &state) { return .found(found) }
        let hash = key.entryHash
        let claim = state.pending.find(key, hash: hash)
        if let slot = claim.entry {
            let pending = state.pending.entries[slot].value.waiting ?? Pending()
            state.pending.entries[slot].value.waiting = pending
            pending.waiters += 1
            state.statistics.coalesced += 1
            return .wait(pending)
        }
        let learns = Self.learns(in: state)
        state.pending.insert(Claim(), for: key, hash: hash, at: claim.bucket)
        state.statistics.misses += 1
        return .measure(learns: learns)
    }

    /// Waits for another caller's measurement.
    @inlinable
    static func wait(for pending: Pending) -> RowMeasurement {
        pending.done.wait()
        return pending.result!   // written before `done` is signalled
    }

    /// Whether the next measurement also asks the estimate what it would have said, to learn its
    /// correction: every one of the first 1,024, then one in 16. Asking costs about as much as the
    /// measurement of a relayout (a drag step measures only relayouts), and a ratio of sums over
    /// a thousand rows moves little with more.
    @inlinable
    static func learns(in state: State) -> Bool {
        state.learned < 1_024 || state.statistics.misses % 16 == 0
    }

    /// Measures a row, with what the estimate would have said for its text when `learning`.
    @inlinable
    func measureForCache(_ model: Model, width: Double, learning: Bool)
        -> (value: RowMeasurement, textHeight: Double?, raw: Double?) {
        let measured = measure(model, width)
        let raw = measured.textHeight == nil || !learning ? nil : estimator?(model, width, 1).textHeight
        return (measured.value, measured.textHeight, raw)
    }

    /// Under the lock: adds heights measured at `width` (in units) to the default estimate's figures.
    @inlinable
    static func record(_ heights: MeasuredHeights, width: Int, in state: inout State) {
        guard heights.count > 0 else { return }
        state.measuredByWidth[width, default: MeasuredHeights()].add(heights)
    }

    /// Under the lock: stores a claimed measurement (unless invalidated meanwhile), learns from it, and
    /// returns the waiters to wake once the lock is released. The caller records its height for the
    /// estimate (``record(_:width:in:)``).
    @inlinable
    func finish(_ key: Key, with measured: (value: RowMeasurement, textHeight: Double?, raw: Double?),
                in state: inout State) -> Signals {
        let result = measured.value
        let claim = state.pending.removeValue(for: key, hash: key.entryHash)
        claim?.waiting?.result = result
        if claim?.isStale != true { store(result, for: key, in: &state) }
        if let textHeight = measured.textHeight, let raw = measured.raw, raw > 0 {
            state.measuredText += textHeight
            state.estimatedText += raw
            state.learned += 1
        }
        return Signals(semaphore: claim?.waiting?.done, count: claim?.waiting?.waiters ?? 0)
    }

    /// Waiters to wake after the lock is released.
    @usableFromInline
    struct Signals {
        @usableFromInline let semaphore: DispatchSemaphore?
        @usableFromInline let count: Int

        @usableFromInline
        init(semaphore: DispatchSemaphore?, count: Int) {
            self.semaphore = semaphore
            self.count = count
        }

        @inlinable
        func send() {
            for _ in 0..<count { semaphore?.signal() }
        }
    }

    /// The cached height at `width` (or one valid there), without measuring or estimating.
    ///
    /// Like every look-up, it marks `width` as recently used (see ``retainedWidths``).
    ///
    /// - Parameters:
    ///   - model: The row's model.
    ///   - width: The row's width in pixels; any number (outside `MeasurementLimits.width` the answer
    ///     is `nil`).
    /// - Returns: The height in pixels, or `nil` when no cached height holds at `width`.
    /// - Complexity: One look-up under the lock; when the model has no height at `width` but has some
    ///   at other widths, one more per retained width.
    public func cachedHeight(for model: Model, width: Double) -> Double? {
        guard let units = WidthLimits.units(ifValid: width) else { return nil }
        let key = Key(width: units, model: model)
        return state.withLock { Self.cached(key, width: width, in: &$0)?.height }
    }

    /// A height for `model` at `width` that never measures: the exact height if one is cached (or holds
    /// at this width), else an estimate.
    ///
    /// With a row layout the estimate comes from the texts' lengths and their scripts' typical
    /// advances, corrected by how measured rows compared with their estimates. `conservative: true`
    /// returns a height the row never exceeds (an upper bound from greedy line filling; see
    /// `TextMeasurer.estimate(_:style:width:)`), for callers that must not clip. Without a layout or
    /// an estimate closure, the estimate is the mean (conservative: the tallest) height measured at
    /// this width, or ``fallbackEstimate``.
    ///
    /// - Parameters:
    ///   - model: The row's model.
    ///   - width: The row's width in pixels; any number (outside `MeasurementLimits.width` the answer is
    ///     ``fallbackEstimate``, or infinity when conservative).
    ///   - conservative: Whether to return a height the row never exceeds instead of the expected one.
    /// - Returns: The height in pixels.
    /// - Complexity: One look-up under the lock and, when nothing is cached, one estimate (a pass over
    ///   the row's texts, no shaping).
    public func estimatedHeight(for model: Model, width: Double, conservative: Bool = false) -> Double {
        guard let units = WidthLimits.units(ifValid: width) else {
            return conservative ? .infinity : fallbackEstimate
        }
        let key = Key(width: units, model: model)
        let (cached, known) = state.withLock { state in
            let cached = Self.cached(key, width: width, in: &state)?.height
            return (cached, Self.knownForEstimates(width: units, in: &state, count: cached == nil ? 1 : 0))
        }
        return cached ?? estimate(model, width: width, known: known, conservative: conservative)
    }

    /// ``estimatedHeight(for:width:conservative:)`` for many rows, taking the cache's lock once for all
    /// of them (a list of a million rows estimated at once, say).
    ///
    /// A cache that holds no height yet (a list's first apply) skips the look-ups, so no model is
    /// hashed; the estimates themselves are made on all cores when there are many.
    ///
    /// - Parameters:
    ///   - models: The rows' models.
    ///   - width: The rows' width in pixels; any number, as for one row.
    ///   - conservative: Whether to return heights the rows never exceed.
    /// - Returns: The heights of `models`, in order.
    /// - Complexity: O(*n*) look-ups under one lock (none when the cache is empty), then the estimates
    ///   of the rows not cached, outside it.
    @inlinable
    public func estimatedHeights(for models: [Model], width: Double, conservative: Bool = false) -> [Double] {
        specialized.estimatedHeights(self, models, width, conservative)
    }

    /// The body of ``estimatedHeights(for:width:conservative:)``, called through ``specialized`` so that
    /// a caller compiled without knowing the model type (``ListHeights``) still runs it specialized.
    @inlinable
    func estimatedHeightsBody(for models: [Model], width: Double, conservative: Bool) -> [Double] {
        guard let units = WidthLimits.units(ifValid: width) else {
            return Array(repeating: conservative ? .infinity : fallbackEstimate, count: models.count)
        }
        // NaN marks a row with no cached height (a height is finite).
        var heights = [Double](repeating: .nan, count: models.count)
        let known = state.withLock { state in
            var missing = models.count
            if state.entries.count == 0 {
                // Nothing to find: mark the width used, as a look-up would, and hash no model.
                Self.touch(width: units, in: &state)
            } else {
                missing = 0
                for index in models.indices {
                    if let found = Self.cached(Key(width: units, model: models[index]), width: width, in: &state) {
                        heights[index] = found.height
                    } else {
                        missing += 1
                    }
                }
            }
            return Self.knownForEstimates(width: units, in: &state, count: missing)
        }
        guard let estimator else {
            let constant = (conservative ? known.tallest : known.mean) ?? fallbackEstimate
            for index in heights.indices where heights[index].isNaN { heights[index] = constant }
            return heights
        }
        // Estimates are independent and cost about a microsecond each: spread over the cores in
        // blocks large enough that handing a block out costs nothing beside it.
        let blockSize = 4_096
        let blocks = (models.count + blockSize - 1) / blockSize
        heights.withUnsafeMutableBufferPointer { buffer in
            let slots = SendableBuffer(buffer.baseAddress!)
            let scale = known.scale
            let estimateBlock = { @Sendable (block: Int) in
                for index in block * blockSize..<min(models.count, (block + 1) * blockSize)
                    where slots.base[index].isNaN {
                    let estimate = estimator(models[index], width, scale).value
                    slots.base[index] = conservative ? estimate.maximum : estimate.expected
                }
            }
            if blocks > 1 {
                DispatchQueue.concurrentPerform(iterations: blocks, execute: estimateBlock)
            } else if blocks == 1 {
                estimateBlock(0)
            }
        }
        return heights
    }

    /// What estimates at one width start from, read under the lock: the learned scale of text
    /// heights, and the mean and tallest heights measured at this width.
    @usableFromInline
    struct KnownForEstimates {
        @usableFromInline var scale: Double
        @usableFromInline var mean: Double?
        @usableFromInline var tallest: Double?

        @usableFromInline
        init(scale: Double, mean: Double?, tallest: Double?) {
            self.scale = scale
            self.mean = mean
            self.tallest = tallest
        }
    }

    /// Under the lock: the figures estimates at `width` (in units) start from, counting `count`
    /// estimates (the rows not cached).
    @usableFromInline
    static func knownForEstimates(width: Int, in state: inout State, count: Int) -> KnownForEstimates {
        state.statistics.estimates += count
        let measured = state.measuredByWidth[width]
        return KnownForEstimates(scale: state.estimatedText > 0 ? state.measuredText / state.estimatedText : 1,
                                 mean: measured.map { $0.sum / Double($0.count) }, tallest: measured?.tallest)
    }

    /// An estimate of a row nothing is cached for: the estimator's, or the mean (the tallest, when
    /// conservative) measured at this width, or ``fallbackEstimate``.
    func estimate(_ model: Model, width: Double, known: KnownForEstimates, conservative: Bool) -> Double {
        guard let estimator else { return (conservative ? known.tallest : known.mean) ?? fallbackEstimate }
        let estimate = estimator(model, width, known.scale).value
        return conservative ? estimate.maximum : estimate.expected
    }

    // MARK: Invalidation

    /// Forgets every height of `model` (its content changed); a measurement under way is not stored.
    ///
    /// - Parameter model: The model whose heights to forget, compared with `==`.
    /// - Complexity: One removal per retained width, plus a pass over the measurements under way,
    ///   under the lock.
    public func invalidate(_ model: Model) {
        state.withLock { state in
            let any = Key(width: 0, model: model)
            for width in state.widths.keysByRecency { Self.removeEntry(any.at(width: width), in: &state) }
            state.pending.updateEach { key, claim in if key.model == model { claim.isStale = true } }
            state.generation += 1
        }
    }

    /// Forgets every height (the fonts or the layout changed). Learned estimate corrections are kept.
    public func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.entriesByModelHash.removeAll()
            state.widths.removeAll()
            state.pending.updateEach { _, claim in claim.isStale = true }
            state.generation += 1
        }
    }

    /// Whether rows are estimated by a closure of their own (a row layout's, or one given), rather than
    /// from the heights measured: such estimates read each row.
    var hasEstimator: Bool { estimator != nil }

    /// Changes whenever cached heights may have gone stale (``invalidate(_:)``, ``removeAll()``): a
    /// caller holding heights it read earlier (``ListHeights`` across a width drag) reads them again.
    var generation: Int { state.withLock { $0.generation } }

    /// The counters so far, with the entries and widths held now.
    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.entries = state.entries.count
            statistics.widths = state.widths.count
            return statistics
        }
    }

    // MARK: Internals

    /// An entry at this width, or at a retained width whose measurement holds here (copied to this
    /// width). Marks the width as in use.
    @inlinable
    static func cached(_ key: Key, width: Double, in state: inout State) -> RowMeasurement? {
        touch(width: key.width, in: &state)
        if let found = state.entries.value(for: key, hash: key.entryHash) {
            state.statistics.hits += 1
            return found
        }
        guard state.entriesByModelHash.find(key.modelHash, hash: key.modelHash).entry != nil else { return nil }
        // Reads only: no copy of the entries is held when `insert` mutates them below.
        let reusable = state.widths.firstByRecency { other -> RowMeasurement? in
            let atOther = key.at(width: other)
            guard other != key.width, let found = state.entries.peek(atOther, hash: atOther.entryHash),
                  found.validWidths.contains(width) else { return nil }
            return found
        }
        guard let found = reusable else { return nil }
        state.statistics.rangeHits += 1
        insert(found, for: key, in: &state)
        return found
    }

    @inlinable
    func store(_ measurement: RowMeasurement, for key: Key, in state: inout State) {
        Self.touch(width: key.width, in: &state)
        Self.insert(measurement, for: key, in: &state)
    }

    @inlinable
    static func insert(_ measurement: RowMeasurement, for key: Key, in state: inout State) {
        let isNew = state.entries.peek(key, hash: key.entryHash) == nil
        for evicted in state.entries.set(measurement, for: key, hash: key.entryHash, group: key.width) {
            countEntry(of: evicted.key, by: -1, in: &state)
            state.statistics.evictions += 1
        }
        if isNew { countEntry(of: key, by: 1, in: &state) }
    }

    /// Removes one entry.
    @inlinable
    static func removeEntry(_ key: Key, in state: inout State) {
        if state.entries.removeValue(for: key, hash: key.entryHash) != nil { countEntry(of: key, by: -1, in: &state) }
    }

    @inlinable
    static func countEntry(of key: Key, by delta: Int, in state: inout State) {
        // In place: one probe, no recency to keep.
        let found = state.entriesByModelHash.find(key.modelHash, hash: key.modelHash)
        if let slot = found.entry {
            let count = state.entriesByModelHash.entries[slot].value + delta
            if count > 0 {
                state.entriesByModelHash.entries[slot].value = count
            } else {
                _ = state.entriesByModelHash.remove(at: slot)
            }
        } else if delta > 0 {
            state.entriesByModelHash.insert(delta, for: key.modelHash, hash: key.modelHash, at: found.bucket)
        }
    }

    /// Marks `width` as most recently used; the width that falls out of the retained set takes its
    /// entries with it.
    @inlinable
    static func touch(width: Int, in state: inout State) {
        // The width used last (every row of a batch, say) is the newest already: nothing moves.
        if state.widths.newestKey == width { return }
        for dropped in state.widths.set((), for: width) {
            // The entries are filed in groups by width: only the dropped width's entries are visited
            // (a drag drops a width every step; a pass over every entry was most of a cache's share).
            while let (key, _) = state.entries.removeNewest(inGroup: dropped.key) {
                countEntry(of: key, by: -1, in: &state)
                state.statistics.evictions += 1
            }
            state.measuredByWidth[dropped.key] = nil
        }
    }
}
