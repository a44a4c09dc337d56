import ListLayout
import TextMeasure

extension HeightCache {
    /// A cache measuring rows described by `layout`, with content-aware estimates that learn from the
    /// rows measured. Prepared texts are kept so that a width change re-lays text out without
    /// reshaping it.
    ///
    /// - Parameters:
    ///   - layout: What a row holds.
    ///   - measurer: Measures and estimates the row's texts.
    ///   - capacity: The most heights kept: at least 1 (a precondition); more than
    ///     `HeightCache.maximumCapacity` counts as that.
    ///   - retainedWidths: How many recent widths keep their heights: at least 1 (a precondition);
    ///     more than `HeightCache.maximumCapacity` counts as that.
    ///   - preparedTexts: The most prepared texts kept: less than 1 counts as 1, more than
    ///     `PreparedTextCache.maximumCapacity` as that.
    ///   - preparedTextBytes: The most bytes the prepared texts kept take together.
    ///   - store: A persistent store (`TextMeasureStore`'s `HeightStore`) for the rows' texts: a text
    ///     not prepared in memory is looked up there before it is measured, and what is measured is
    ///     saved there off the caller's thread, so heights outlive the process. nil for none.
    /// - Throws: `TextMeasureError` if a text style in the layout is invalid.
    /// - Complexity: O(*e*) in the layout's elements (their styles are checked); storage for
    ///   `min(capacity, 100_000)` heights is reserved (address space, mapped as heights fill it).
    @inlinable
    public convenience init(
        layout: RowLayout<Model>, measurer: TextMeasurer, capacity: Int = 10_000, retainedWidths: Int = 4,
        preparedTexts: Int = 2_000, preparedTextBytes: Int = PreparedTextCache.defaultMaximumBytes,
        store: (any MeasurementStore)? = nil
    ) throws(TextMeasureError) {
        try self.init(layout: layout, measurer: measurer, capacity: capacity, retainedWidths: retainedWidths,
                      preparedTexts: preparedTexts, preparedTextBytes: preparedTextBytes, store: store,
                      specialized: Specialized())
    }

    /// Inlinable, so that the measuring and estimating closures are made, and ``RowLayout``'s code in
    /// them compiled, where `Model` is known: as generic code they spent about a third of a relayout
    /// in generic metadata look-ups and value witness calls.
    @inlinable
    package convenience init(
        layout: RowLayout<Model>, measurer: TextMeasurer, capacity: Int, retainedWidths: Int,
        preparedTexts: Int, preparedTextBytes: Int, store: (any MeasurementStore)?, specialized: Specialized
    ) throws(TextMeasureError) {
        try layout.validate(with: measurer)
        let texts = PreparedTextCache(measurer: measurer, capacity: preparedTexts, maximumBytes: preparedTextBytes,
                                      store: store)
        self.init(
            capacity: capacity, retainedWidths: retainedWidths, fallbackEstimate: 44,
            measuring: { model, width in
                // Styles were validated and the width checked by the caller: this cannot fail.
                guard let result = try? layout.measureWithTextHeight(model, width: width, texts: texts) else {
                    preconditionFailure("row layout failed to measure at width \(width)")
                }
                return Measured(result.measurement, textHeight: result.textHeight)
            },
            estimating: { model, width, scale in
                let result = layout.estimateWithTextHeight(model, width: width, measurer: measurer, textScale: scale)
                return Estimated(result.estimate, textHeight: result.textHeight)
            },
            specialized: specialized)
    }
}
