/// A place where measurements outlive the process: the seam between the measuring code (this module,
/// `HeightCache`) and a persistent store (`TextMeasureStore`'s `HeightStore`, a SQLite file).
///
/// A store answers by (fonts, style, text) and a width: a stored result holds for every width inside
/// its ``StoredMeasurement/validWidthUnits``, so one entry answers a whole range of widths. A store is
/// an accelerator, never a source of truth: it may answer nil for anything (a miss, an unreadable
/// file), and the caller then measures.
///
/// Thread safety: implementations must be callable from any number of threads at once.
public protocol MeasurementStore: AnyObject, Sendable {
    /// The stored measurements for `queries`, in order; nil where nothing stored covers the width.
    ///
    /// - Parameters:
    ///   - queries: Texts, styles and widths, all measured with `fonts`.
    ///   - fonts: The cascade the measurements are made with; for styled texts (requests with
    ///     ``MeasureRequest/spans``, asked only of a store that ``keysSpans``), every face they may be
    ///     drawn with, the regular cascade's first.
    /// - Returns: One element per query.
    /// - Complexity: One look-up per query, batched (one read transaction for the whole array).
    func measurements(for queries: [MeasureRequest], fonts: FontCascade) -> [StoredMeasurement?]

    /// Queues measurements to be saved, and returns without waiting for them to be written.
    ///
    /// - Parameters:
    ///   - measurements: What `queries` measured, in the same order (same count).
    ///   - queries: The texts, styles and widths measured.
    ///   - fonts: The cascade they were measured with (for styled texts, every face, as above).
    func save(_ measurements: [StoredMeasurement], for queries: [MeasureRequest], fonts: FontCascade)

    /// Waits until everything queued by ``save(_:for:fonts:)`` before this call is written (or
    /// dropped because the store cannot be written).
    func flush()

    /// Whether the store keys measurements by their requests' ``MeasureRequest/spans`` too. A store
    /// that does not (the default) is never asked about styled text, which would otherwise get the
    /// plain text's heights.
    var keysSpans: Bool { get }
}

extension MeasurementStore {
    /// `false`: a store written before styled text is not asked about it.
    public var keysSpans: Bool { false }
}

/// What a ``MeasurementStore`` was asked before ``MeasureRequest`` served all three uses (a batch, a
/// store, the batch protocol): a text in a style at a width.
@available(*, deprecated, renamed: "MeasureRequest")
public typealias StoreQuery = MeasureRequest

/// A measurement without its lines: what a ``MeasurementStore`` keeps, and the widths (in layout
/// units, 1/1024 px) over which it holds.
public struct StoredMeasurement: Hashable, Sendable {
    /// Total height in pixels.
    public var height: Double
    /// Lines shown.
    public var lineCount: Int
    /// Whether the text needed more lines than `maxLines` allowed.
    public var isTruncated: Bool
    /// Height of one line in pixels.
    public var lineHeight: Double
    /// Width of the widest line shown, in pixels.
    public var widestLineWidth: Double
    /// The layout widths (1/1024 px units) at which these lines come out: lower bound inclusive, upper
    /// exclusive; `Int.max` as the upper bound means no wider width changes them.
    public var validWidthUnits: Range<Int>

    /// A stored measurement from its parts.
    public init(height: Double, lineCount: Int, isTruncated: Bool, lineHeight: Double, widestLineWidth: Double,
                validWidthUnits: Range<Int>) {
        self.height = height
        self.lineCount = lineCount
        self.isTruncated = isTruncated
        self.lineHeight = lineHeight
        self.widestLineWidth = widestLineWidth
        self.validWidthUnits = validWidthUnits
    }

    /// The stored form of `measurement` (its lines are dropped).
    ///
    /// - Parameter measurement: A measurement made by this package's layout.
    public init(_ measurement: TextMeasurement) {
        // Inverse of the layout's unit → pixel bounds: lower = max(0, (u − ½) / 1024), exact in doubles.
        let lowerBound = measurement.validWidths.lowerBound
        let upperBound = measurement.validWidths.upperBound
        let lower = lowerBound <= 0 ? 0 : Int((lowerBound * 1024 + 0.5).rounded())
        let upper = upperBound.isFinite ? Int((upperBound * 1024 + 0.5).rounded()) : Int.max
        self.init(height: measurement.height, lineCount: measurement.lineCount, isTruncated: measurement.isTruncated,
                  lineHeight: measurement.lineHeight, widestLineWidth: measurement.widestLineWidth,
                  validWidthUnits: lower..<max(lower, upper))
    }

    /// Whether it holds at `width` pixels.
    ///
    /// - Parameter width: A width in pixels.
    /// - Returns: Whether the width, rounded to layout units, lies in ``validWidthUnits``.
    public func holds(atWidth width: Double) -> Bool {
        guard let units = MeasurementLimits.unitsIfValid(width: width) else { return false }
        return validWidthUnits.contains(units)
    }

    /// The measurement, as layout without lines (`withLines: false`) returns it.
    public var measurement: TextMeasurement {
        let lower = max(0, (Double(validWidthUnits.lowerBound) - 0.5) / 1024)
        let upper = validWidthUnits.upperBound == Int.max
            ? Double.infinity : (Double(validWidthUnits.upperBound) - 0.5) / 1024
        return TextMeasurement(height: height, lineCount: lineCount, isTruncated: isTruncated, lineHeight: lineHeight,
                               widestLineWidth: widestLineWidth, lines: TextMeasurement.Lines(), validWidths: lower..<max(lower, upper))
    }
}
