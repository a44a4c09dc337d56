/// How much one request to `POST /v1/measure` may ask for (beyond it the server answers 413 with a
/// JSON error and measures nothing), and how many connections the server holds at once (beyond them
/// a new connection is closed as soon as it is accepted).
///
/// Widths, sizes and line counts are not limited here: every item goes through ``MeasurementLimits``
/// (the library's one set of rules, via `BatchProcessor`), and an item out of range gets the batch
/// protocol's error object.
///
/// Thread safety: a value type; `Sendable`.
package struct ServerLimits: Sendable, Equatable {
    /// The largest request body, in bytes (default 1 MiB).
    package var maximumBodyBytes: Int
    /// The most items in one request (default 1,000).
    package var maximumItems: Int
    /// The longest `"text"` of an item, in UTF-8 bytes (default 100,000).
    package var maximumTextBytes: Int
    /// The most connections held at once (default 1,000; see ``ConnectionLimitHandler``). An idle
    /// connection costs the server some kilobytes; this bounds what many idle or slow clients cost it.
    package var maximumConnections: Int

    /// Limits with the given values (the defaults are the server's).
    ///
    /// - Parameters:
    ///   - maximumBodyBytes: the largest request body, in bytes.
    ///   - maximumItems: the most items in one request.
    ///   - maximumTextBytes: the longest `"text"`, in UTF-8 bytes.
    ///   - maximumConnections: the most connections held at once.
    package init(maximumBodyBytes: Int = 1 << 20, maximumItems: Int = 1_000, maximumTextBytes: Int = 100_000,
                 maximumConnections: Int = 1_000) {
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumItems = maximumItems
        self.maximumTextBytes = maximumTextBytes
        self.maximumConnections = maximumConnections
    }
}
