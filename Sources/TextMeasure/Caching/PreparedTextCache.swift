
/// A bounded, thread-safe cache of prepared texts, so that the same text in the same style is shaped
/// once however many widths it is laid out at.
///
/// ```swift
/// let cache = PreparedTextCache(measurer: measurer, capacity: 2_000)
/// let a = try cache.measure(post.body, style: body, width: 343)   // shapes
/// let b = try cache.measure(post.body, style: body, width: 716)   // lays out the prepared text again
/// ```
///
/// Thread safety: any number of threads may call it at once. Preparing happens outside the lock, so
/// two threads missing the same text at once may both prepare it (the result is the same).
public final class PreparedTextCache: Sendable {
    /// What identifies a prepared text. `maxLines` and the line height are applied at layout, but are
    /// part of the key so that a prepared text's own style is the one asked for.
    struct Key: Hashable, Sendable {
        var text: TextKey
        var style: TextStyle
    }

    /// Hits and misses so far.
    public struct Statistics: Hashable, Sendable {
        public var hits = 0
        public var misses = 0
        public var evictions = 0
        public var entries = 0
    }

    public let measurer: TextMeasurer
    private let state: Locked<(store: LRUDictionary<Key, PreparedText>, statistics: Statistics)>

    /// A cache holding at most `capacity` prepared texts (least recently used evicted first).
    public init(measurer: TextMeasurer, capacity: Int = 1_000) {
        self.measurer = measurer
        state = Locked((LRUDictionary(capacity: max(1, capacity)), Statistics()))
    }

    /// The prepared form of `text` in `style`, from the cache or prepared now.
    public func prepared(_ text: String, style: TextStyle) throws(TextMeasureError) -> PreparedText {
        try prepared(TextKey(text), style: style)
    }

    /// The same, for a text already wrapped in a ``TextKey`` (hashed once, wherever it is used).
    public func prepared(_ text: TextKey, style: TextStyle) throws(TextMeasureError) -> PreparedText {
        let key = Key(text: text, style: style)
        let cached = state.withLock { state -> PreparedText? in
            let value = state.store.value(for: key)
            if value != nil { state.statistics.hits += 1 } else { state.statistics.misses += 1 }
            return value
        }
        if let cached { return cached }
        let prepared = try measurer.prepare(text.text, style: style)
        state.withLock { state in
            state.statistics.evictions += state.store.set(prepared, for: key).count
        }
        return prepared
    }

    /// Measures `text` at `width`, preparing it only the first time it is seen in this style.
    /// `withLines: false` skips the per-line detail (see ``PreparedText/layout(width:withLines:)``).
    public func measure(_ text: String, style: TextStyle, width: Double, withLines: Bool = true)
        throws(TextMeasureError) -> TextMeasurement {
        try measure(TextKey(text), style: style, width: width, withLines: withLines)
    }

    /// The same, for a text already wrapped in a ``TextKey``.
    public func measure(_ text: TextKey, style: TextStyle, width: Double, withLines: Bool = true)
        throws(TextMeasureError) -> TextMeasurement {
        try MeasurementLimits.check(width: width)
        return try prepared(text, style: style).layout(width: width, withLines: withLines)
    }

    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.entries = state.store.count
            return statistics
        }
    }

    public func removeAll() {
        state.withLock { $0.store.removeAll() }
    }
}
