extension HeightCache {
    /// The cache's batch look-ups (``HeightCache/measurements(for:width:)``,
    /// ``HeightCache/estimatedHeights(for:width:conservative:)``), compiled for the model type the cache
    /// was made with.
    ///
    /// A generic caller that is not itself specialized (``ListHeights``, whose methods are compiled
    /// once for every item type) would otherwise run the look-up as generic code: Swift's generic
    /// metadata look-ups and value witness calls were about 60 % of a width-drag step's
    /// instructions. The public initializers are inlinable and make this value where the caller's
    /// model type is known, so the closure below is specialized there; every later call goes through
    /// it, whoever makes it.
    @usableFromInline
    package struct Specialized: Sendable {
        /// ``HeightCache/measurementsBody(for:width:)`` of a cache.
        /// Arguments: the cache, the models, their hash values when the caller has them, the width.
        @usableFromInline let measurements: @Sendable (HeightCache, [Model], [Int]?, Double) -> [RowMeasurement]

        /// ``HeightCache/estimatedHeightsBody(for:width:conservative:)`` of a cache.
        /// Arguments: the cache, the models, the width, whether conservative.
        @usableFromInline let estimatedHeights: @Sendable (HeightCache, [Model], Double, Bool) -> [Double]

        @inlinable
        package init() {
            measurements = { cache, models, modelHashes, width in
                cache.measurementsBody(for: models, modelHashes: modelHashes, width: width)
            }
            estimatedHeights = { cache, models, width, conservative in
                cache.estimatedHeightsBody(for: models, width: width, conservative: conservative)
            }
        }
    }
}
