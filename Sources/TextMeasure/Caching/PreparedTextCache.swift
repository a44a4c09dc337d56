import TextMeasureSupport

/// A bounded, thread-safe cache of prepared texts, so that the same text in the same style is shaped
/// once however many widths it is laid out at.
///
/// ```swift
/// let cache = PreparedTextCache(measurer: measurer, capacity: 2_000, maximumBytes: 32 << 20)
/// let a = try cache.measure(post.body, style: body, width: 343)   // shapes
/// let b = try cache.measure(post.body, style: body, width: 716)   // lays out the prepared text again
/// ```
///
/// Memory: bounded by bytes as well as by count, because prepared texts vary a thousandfold in size.
/// A prepared text takes about 25 to 45 times its text's UTF-8 bytes (a grapheme cluster's advance,
/// a segment per word, and the text itself): a short row a few kilobytes, a 1 MB text 25–45 MB. The
/// cache holds at most `capacity` texts and at most `maximumBytes` of them (default
/// ``defaultMaximumBytes``, 64 MiB), evicting the least recently used first; a text whose prepared
/// form alone is larger than `maximumBytes` is measured but not kept. An evicted text is freed at once
/// (unless a caller still holds it) when the thread that evicts it is the one that prepared it;
/// otherwise it waits for that thread's next stored text, which frees it there: malloc frees a block
/// under the lock of the arena of the thread that allocated it, and that thread, allocating
/// meanwhile, made the other sleep (about ten times in a two-core batch of 16,000 lines). At most 64
/// texts, and at most a sixteenth of `maximumBytes`, wait at a time; beyond that the evicting thread
/// frees them.
///
/// Persistence: given a ``MeasurementStore`` (`TextMeasureStore`'s `HeightStore`), measurements without
/// lines (`withLines: false`) are looked up in memory first (a prepared text held: layout is arithmetic),
/// then in the store, and only then measured; what was measured is queued for the store, which writes
/// it off the caller's thread. Without a store nothing of this costs anything.
///
/// Thread safety: any number of threads may call it at once. Preparing happens outside the lock, so
/// two threads missing the same text at once may both prepare it (the result is the same; one is kept).
public final class PreparedTextCache: Sendable {
    /// What identifies a prepared text. `maxLines` and the line height are applied at layout, but are
    /// part of the key so that a prepared text's own style is the one asked for.
    struct Key: Hashable, Sendable {
        var text: TextKey
        var style: TextStyle
        /// A styled text's spans (empty for plain text): compared only when the texts are equal.
        var spans: [TextSpan] = []

        /// The hash the prepared texts are filed under: the text's (hashed once, when its key was made)
        /// mixed with the size by one multiplication. `hashValue` hashed the style again with SipHash,
        /// its line breaking by its raw value, a `String`: as much as the text's own hash, every
        /// measurement. The other style fields are left to `==` (a text in two styles is rare).
        var fileHash: Int { text.hash ^ Int(truncatingIfNeeded: style.size.bitPattern &* 0x9E37_79B9_7F4A_7C15) }
    }

    /// Hits and misses so far, and what is held now.
    public struct Statistics: Hashable, Sendable {
        /// Texts found prepared.
        public var hits = 0
        /// Texts prepared (not found).
        public var misses = 0
        /// Prepared texts dropped to stay within the count or the byte bound.
        public var evictions = 0
        /// Texts measured but not kept, because their prepared form alone exceeds ``maximumBytes``.
        public var oversized = 0
        /// Prepared texts held now.
        public var entries = 0
        /// Bytes the held prepared texts take (at most ``maximumBytes``).
        public var bytes = 0
        /// Measurements answered by the ``store`` (texts not held in memory).
        public var storeHits = 0
        /// Measurements the ``store`` was asked for and did not have.
        public var storeMisses = 0
    }

    /// The byte budget when none is given: 64 MiB.
    public static let defaultMaximumBytes = 64 << 20

    /// The largest ``capacity``: 268,435,456 (2^28) texts. A larger capacity given to
    /// ``init(measurer:capacity:maximumBytes:store:)`` is taken as this one (``maximumBytes`` bounds
    /// the texts held long before that many are).
    public static let maximumCapacity = 1 << 28

    /// The measurer that prepares the texts.
    public let measurer: TextMeasurer
    /// The most prepared texts held: 1 to ``maximumCapacity``.
    public let capacity: Int
    /// The most bytes the held prepared texts take together (see ``Statistics/bytes``).
    public let maximumBytes: Int
    /// Where measurements without lines are looked up before measuring, and saved after; nil for none.
    public let store: (any MeasurementStore)?

    /// A held text and the thread that prepared it (its ``CurrentThread/id``).
    fileprivate struct Held: Sendable {
        var text: PreparedText
        var maker: UInt
    }

    fileprivate struct State {
        var store: LRUDictionary<Key, Held>
        /// The sum of the held texts' `byteCount`s.
        var bytes = 0
        var statistics = Statistics()
        /// Evicted texts waiting to be freed by the thread that prepared them (see the type's
        /// discussion), by that thread.
        var waiting: [UInt: [PreparedText]] = [:]
        var waitingCount = 0
        var waitingBytes = 0
    }

    /// The most evicted texts that wait for the thread that prepared them.
    fileprivate static let maximumWaiting = 64

    private let state: Locked<State>

    /// A cache of the texts `measurer` prepares, within a count and a byte bound.
    ///
    /// - Parameters:
    ///   - measurer: Prepares the texts the cache does not hold.
    ///   - capacity: The most prepared texts held: less than 1 counts as 1, more than
    ///     ``maximumCapacity`` as ``maximumCapacity``.
    ///   - maximumBytes: The most bytes held (0 keeps nothing; less counts as 0); a text whose
    ///     prepared form alone is larger is measured but not kept.
    ///   - store: A persistent store consulted after memory and before measuring (see the type's
    ///     discussion); nil for none.
    /// - Complexity: O(1): nothing is reserved for the texts before they come.
    public init(measurer: TextMeasurer, capacity: Int = 1_000, maximumBytes: Int = defaultMaximumBytes,
                store: (any MeasurementStore)? = nil) {
        self.measurer = measurer
        self.store = store
        self.capacity = min(max(1, capacity), Self.maximumCapacity)
        self.maximumBytes = max(0, maximumBytes)
        state = Locked(State(store: LRUDictionary(capacity: self.capacity)))
    }

    /// The prepared form of `text` in `style`, from the cache or prepared now.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - style: Its style.
    /// - Returns: The prepared text, ready to lay out at any width.
    /// - Throws: ``TextMeasureError`` when the style is invalid or Unicode analysis fails.
    /// - Complexity: O(1) when held; preparing otherwise (linear in the text's length).
    public func prepared(_ text: String, style: TextStyle) throws(TextMeasureError) -> PreparedText {
        try prepared(TextKey(text), style: style)
    }

    /// The same, for a text already wrapped in a ``TextKey`` (hashed once, wherever it is used).
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - style: Its style.
    /// - Returns: The prepared text, ready to lay out at any width.
    /// - Throws: ``TextMeasureError`` when the style is invalid or Unicode analysis fails.
    /// - Complexity: O(1) when held; preparing otherwise (linear in the text's length).
    public func prepared(_ text: TextKey, style: TextStyle) throws(TextMeasureError) -> PreparedText {
        try prepared(text, spans: [], style: style)
    }

    /// The prepared form of a styled text in `style`, from the cache or prepared now (keyed by its
    /// text, spans and style).
    ///
    /// - Parameters:
    ///   - text: The text and its spans.
    ///   - style: Its style.
    /// - Returns: The prepared text, ready to lay out at any width.
    /// - Throws: ``TextMeasureError`` when the style or a span is invalid or Unicode analysis fails.
    /// - Complexity: O(1) when held; preparing otherwise (linear in the text's length).
    public func prepared(_ text: StyledText, style: TextStyle) throws(TextMeasureError) -> PreparedText {
        try prepared(TextKey(text.text), spans: text.spans, style: style)
    }

    /// ``prepared(_:style:)-(StyledText,_)`` for a text already wrapped in a ``TextKey``.
    package func prepared(_ text: TextKey, spans: [TextSpan], style: TextStyle) throws(TextMeasureError) -> PreparedText {
        let key = Key(text: text, style: style, spans: spans)
        let cached = state.withLock { state -> PreparedText? in
            let value = state.store.value(for: key, hash: key.fileHash)?.text
            if value != nil { state.statistics.hits += 1 } else { state.statistics.misses += 1 }
            return value
        }
        if let cached { return cached }
        let prepared = spans.isEmpty ? try measurer.prepare(text.text, style: style)
            : try measurer.prepare(StyledText(text.text, spans: spans), style: style)
        store(prepared, for: key)
        return prepared
    }

    /// Keeps `prepared` if it fits the budget, evicting the least recently used texts until the cache
    /// is within both bounds. Evicted texts are freed after the lock is released, here if this thread
    /// prepared them, else by the thread that did (see the type's discussion), which also frees here
    /// the texts that were waiting for this one. At the count bound the new text takes the oldest
    /// one's place (one eviction, no array); only the byte bound may evict more.
    private func store(_ prepared: PreparedText, for key: Key) {
        let size = prepared.byteCount
        let maximumBytes = self.maximumBytes
        let hash = key.fileHash
        let thread = CurrentThread.id
        let freed = state.withLock { state -> (first: PreparedText?, more: [PreparedText], waited: [PreparedText]) in
            let waited = state.takeWaiting(for: thread)
            guard size <= maximumBytes else {
                state.statistics.oversized += 1
                return (nil, [], waited)
            }
            if state.store.peek(key, hash: hash) != nil { return (nil, [], waited) }   // another thread stored it first
            let evicted = state.store.insertNew(Held(text: prepared, maker: thread), for: key, hash: hash)?.value
            if let evicted { state.bytes -= evicted.text.byteCount }
            state.bytes += size
            // The new text alone fits, so this stops before reaching it.
            var more: [PreparedText] = []
            var evictions = evicted == nil ? 0 : 1
            while state.bytes > maximumBytes, let oldest = state.store.removeOldest() {
                state.bytes -= oldest.value.text.byteCount
                evictions += 1
                if let text = state.leaveWaiting(oldest.value, thread: thread, maximumBytes: maximumBytes) {
                    more.append(text)
                }
            }
            state.statistics.evictions += evictions
            let first = evicted.flatMap { state.leaveWaiting($0, thread: thread, maximumBytes: maximumBytes) }
            return (first, more, waited)
        }
        _ = freed
    }

    /// Measures `text` at `width`, preparing it only the first time it is seen in this style.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - style: Its style.
    ///   - width: The width in pixels, a finite number above 0.
    ///   - withLines: `false` skips the per-line detail (see ``PreparedText/layout(width:withLines:)``).
    /// - Returns: Lines, height, truncation and the range of widths over which the result holds.
    /// - Throws: ``TextMeasureError`` for an invalid width or style.
    /// - Complexity: Layout is linear in the number of segments; preparing, when not held, linear in
    ///   the text's length.
    public func measure(_ text: String, style: TextStyle, width: Double, withLines: Bool = true)
        throws(TextMeasureError) -> TextMeasurement {
        try measure(TextKey(text), style: style, width: width, withLines: withLines)
    }

    /// The same, for a text already wrapped in a ``TextKey``.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - style: Its style.
    ///   - width: The width in pixels, a finite number above 0.
    ///   - withLines: `false` skips the per-line detail.
    /// - Returns: Lines, height, truncation and the range of widths over which the result holds.
    /// - Throws: ``TextMeasureError`` for an invalid width or style.
    /// - Complexity: As for a `String`.
    public func measure(_ text: TextKey, style: TextStyle, width: Double, withLines: Bool = true)
        throws(TextMeasureError) -> TextMeasurement {
        try measure(text, spans: [], style: style, width: width, withLines: withLines)
    }

    /// Measures a styled text at `width`, preparing it only the first time it is seen with these
    /// spans in this style.
    ///
    /// - Parameters:
    ///   - text: The text and its spans.
    ///   - style: Its style.
    ///   - width: The width in pixels, a finite number above 0.
    ///   - withLines: `false` skips the per-line detail.
    /// - Returns: Lines, height, truncation and the range of widths over which the result holds.
    /// - Throws: ``TextMeasureError`` for an invalid width, style or span.
    /// - Complexity: As for a `String`.
    public func measure(_ text: StyledText, style: TextStyle, width: Double, withLines: Bool = true)
        throws(TextMeasureError) -> TextMeasurement {
        try measure(TextKey(text.text), spans: text.spans, style: style, width: width, withLines: withLines)
    }

    /// ``measure(_:style:width:withLines:)-(StyledText,_,_,_)`` for a text already wrapped in a ``TextKey``.
    package func measure(_ text: TextKey, spans: [TextSpan], style: TextStyle, width: Double, withLines: Bool)
        throws(TextMeasureError) -> TextMeasurement {
        try MeasurementLimits.check(width: width)
        guard let store, spans.isEmpty || store.keysSpans else {
            return try prepared(text, spans: spans, style: style).layout(width: width, withLines: withLines)
        }
        let query = MeasureRequest(text: text.text, spans: spans, style: style, width: width)
        return try measurements(for: [query], keys: [text], withLines: withLines, store: store)[0].get()
    }

    /// Measures many texts without their lines: memory first, then one batched look-up in the
    /// ``store`` for the rest, then measuring what neither had (and queueing it for the store).
    ///
    /// - Parameter queries: Texts, styles and widths.
    /// - Returns: One result per query, in order; a query that cannot be measured (a width or style
    ///   out of range) gets its error and the others go on.
    /// - Complexity: One lock per query for memory, one store read for the misses, and preparing the
    ///   texts neither holds (linear in their length).
    public func measurements(for queries: [MeasureRequest]) -> [Result<TextMeasurement, TextMeasureError>] {
        measurements(for: queries, keys: queries.map { TextKey($0.text) })
    }

    /// ``measurements(for:)`` for requests whose texts' keys are made already (`keys[i]` is
    /// `queries[i].text`'s).
    package func measurements(for queries: [MeasureRequest], keys: [TextKey]) -> [Result<TextMeasurement, TextMeasureError>] {
        guard let store, store.keysSpans || queries.allSatisfy({ $0.spans.isEmpty }) else {
            return zip(queries, keys).map { query, key in
                Result { () throws(TextMeasureError) -> TextMeasurement in
                    try measure(key, spans: query.spans, style: query.style, width: query.width, withLines: false)
                }
            }
        }
        return measurements(for: queries, keys: keys, withLines: false, store: store)
    }

    /// The prepared form of `text` with `spans` in `style` if memory holds it: nothing prepared, no
    /// store asked, no hit or miss counted (a caller counts the ones it uses with ``countHits(_:)``).
    /// For a caller that must not wait on preparing or a store (a server's event loop): it learns for
    /// the price of the look-up whether either would happen, and hands the text elsewhere if so.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - spans: Its spans (empty for plain text).
    ///   - style: Its style.
    /// - Returns: The held prepared text, or nil.
    /// - Complexity: One lock and one look-up.
    package func held(_ text: TextKey, spans: [TextSpan], style: TextStyle) -> PreparedText? {
        let key = Key(text: text, style: style, spans: spans)
        return state.withLock { $0.store.value(for: key, hash: key.fileHash)?.text }
    }

    /// Why `query` cannot be measured (a width or style out of ``MeasurementLimits``), or nil.
    private static func refusal(of query: MeasureRequest) -> TextMeasureError? {
        do throws(TextMeasureError) {
            try MeasurementLimits.check(width: query.width)
            try MeasurementLimits.check(query.style)
            return nil
        } catch {
            return error
        }
    }

    private func measurements(for queries: [MeasureRequest], keys: [TextKey], withLines: Bool,
                              store: any MeasurementStore) -> [Result<TextMeasurement, TextMeasureError>] {
        var results = [Result<TextMeasurement, TextMeasureError>?](repeating: nil, count: queries.count)
        // 1. Memory: a held prepared text lays out in arithmetic, faster than any store.
        var missing: [Int] = []
        for (index, query) in queries.enumerated() {
            if let refusal = Self.refusal(of: query) {
                results[index] = .failure(refusal)
                continue
            }
            let key = Key(text: keys[index], style: query.style, spans: query.spans)
            let held = state.withLock { state -> PreparedText? in
                let value = state.store.value(for: key, hash: key.fileHash)?.text
                if value != nil { state.statistics.hits += 1 }
                return value
            }
            if let held {
                results[index] = Result { () throws(TextMeasureError) -> TextMeasurement in
                    try held.layout(width: query.width, withLines: withLines)
                }
            } else {
                missing.append(index)
            }
        }
        guard !missing.isEmpty else { return results.map { $0! } }   // every slot was filled above
        // 2. The store, once for all the texts memory lacked (a measurement with lines needs layout);
        //    styled texts once more, with every face they may be drawn with as their fonts.
        let styledFaces = missing.contains { !queries[$0].spans.isEmpty } ? try? measurer.styledFaceCascade() : nil
        let stored = withLines ? [] : Self.lookUp(missing.map { queries[$0] }, in: store, fonts: measurer.cascade,
                                                  styledFaces: styledFaces)
        var measuredQueries: [MeasureRequest] = []
        var measured: [StoredMeasurement] = []
        var storeHits = 0
        for (position, index) in missing.enumerated() {
            if position < stored.count, let hit = stored[position], hit.holds(atWidth: queries[index].width) {
                results[index] = .success(hit.measurement)
                storeHits += 1
                continue
            }
            // 3. Measured; queued for the store.
            let query = queries[index]
            let result = Result { () throws(TextMeasureError) -> TextMeasurement in
                try prepared(keys[index], spans: query.spans, style: query.style)
                    .layout(width: query.width, withLines: withLines)
            }
            if case .success(let measurement) = result {
                measuredQueries.append(query)
                measured.append(StoredMeasurement(measurement))
            }
            results[index] = result
        }
        let misses = withLines ? 0 : missing.count - storeHits
        state.withLock { state in
            state.statistics.storeHits += storeHits
            state.statistics.storeMisses += misses
        }
        if !measured.isEmpty {
            let plain = measuredQueries.indices.filter { measuredQueries[$0].spans.isEmpty }
            if !plain.isEmpty {
                store.save(plain.map { measured[$0] }, for: plain.map { measuredQueries[$0] }, fonts: measurer.cascade)
            }
            let styled = measuredQueries.indices.filter { !measuredQueries[$0].spans.isEmpty }
            if !styled.isEmpty, let styledFaces {
                store.save(styled.map { measured[$0] }, for: styled.map { measuredQueries[$0] }, fonts: styledFaces)
            }
        }
        return results.map { $0! }   // every slot was filled above
    }

    /// The store's answers for `queries`, in order: plain texts' asked with `fonts`, styled texts'
    /// with `styledFaces` (none when those cannot be loaded).
    private static func lookUp(_ queries: [MeasureRequest], in store: any MeasurementStore, fonts: FontCascade,
                               styledFaces: FontCascade?) -> [StoredMeasurement?] {
        guard queries.contains(where: { !$0.spans.isEmpty }) else { return store.measurements(for: queries, fonts: fonts) }
        var answers = [StoredMeasurement?](repeating: nil, count: queries.count)
        let plain = queries.indices.filter { queries[$0].spans.isEmpty }
        if !plain.isEmpty {
            for (index, answer) in zip(plain, store.measurements(for: plain.map { queries[$0] }, fonts: fonts)) {
                answers[index] = answer
            }
        }
        let styled = queries.indices.filter { !queries[$0].spans.isEmpty }
        if let styledFaces {
            for (index, answer) in zip(styled, store.measurements(for: styled.map { queries[$0] }, fonts: styledFaces)) {
                answers[index] = answer
            }
        }
        return answers
    }

    /// Counters so far, with the entries and bytes held now.
    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.entries = state.store.count
            statistics.bytes = state.bytes
            return statistics
        }
    }

    /// Evicted texts waiting for the thread that prepared them to free them (see the type's
    /// discussion), and their bytes.
    package var waitingToBeFreed: (count: Int, bytes: Int) {
        state.withLock { ($0.waitingCount, $0.waitingBytes) }
    }

    /// Counts texts a caller found prepared without asking: the batch lays a block's lines that repeat
    /// the previous line's text out from the prepared text it already holds, and reports them here once
    /// a block, so that ``Statistics/hits`` still counts every text that was not prepared again.
    ///
    /// - Parameter count: How many texts were reused.
    /// - Complexity: O(1), one lock.
    package func countHits(_ count: Int) {
        state.withLock { $0.statistics.hits += count }
    }

    /// Drops every prepared text (counters are kept).
    public func removeAll() {
        let dropped = state.withLock { state -> (LRUDictionary<Key, Held>, [UInt: [PreparedText]]) in
            let dropped = (state.store, state.waiting)
            state.store = LRUDictionary(capacity: capacity)
            state.bytes = 0
            state.waiting = [:]
            state.waitingCount = 0
            state.waitingBytes = 0
            return dropped
        }
        _ = dropped   // freed here, outside the lock
    }
}

extension PreparedTextCache.State {
    /// Takes the evicted texts waiting for `thread` to free them (empty, without allocating, if none).
    fileprivate mutating func takeWaiting(for thread: UInt) -> [PreparedText] {
        guard waitingCount > 0, let texts = waiting.removeValue(forKey: thread) else { return [] }
        waitingCount -= texts.count
        for text in texts { waitingBytes -= text.byteCount }
        return texts
    }

    /// Leaves the evicted `held` for the thread that prepared it to free, if that is another than
    /// `thread` and there is room; returns it otherwise, for `thread` to free.
    fileprivate mutating func leaveWaiting(_ held: PreparedTextCache.Held, thread: UInt, maximumBytes: Int) -> PreparedText? {
        let size = held.text.byteCount
        guard held.maker != thread, waitingCount < PreparedTextCache.maximumWaiting,
              waitingBytes + size <= maximumBytes / 16 else { return held.text }
        waiting[held.maker, default: []].append(held.text)
        waitingCount += 1
        waitingBytes += size
        return nil
    }
}
