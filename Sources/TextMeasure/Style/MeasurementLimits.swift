import TextMeasureSupport

/// The one set of rules for the numbers a measurement takes: widths, sizes, line heights and line
/// limits. The library, the height cache, the list layer and the command-line tool all check their
/// input here, so a value is either refused everywhere, with the same ``TextMeasureError``, or works
/// everywhere.
///
/// Every range is closed and excludes NaN and the infinities. The bounds are generous for real layouts
/// and small enough that no arithmetic downstream can overflow: widths become integers in 1/1024 px,
/// sizes become HarfBuzz scales (`Int32`, size × 1024; × 65,536 up to 1,024 px in the browser
/// modes), heights are line counts times a line height.
///
/// ```swift
/// try MeasurementLimits.check(width: 390)          // fine
/// try MeasurementLimits.check(width: 1e12)         // throws TextMeasureError.invalidWidth(1e12)
/// MeasurementLimits.width                          // 0.001...1e9
/// ```
public enum MeasurementLimits {
    /// Widths in pixels: from a thousandth of a pixel (the layout unit is 1/1024 px) to a billion.
    public static let width: ClosedRange<Double> = WidthLimits.range
    /// Font sizes in pixels.
    public static let size: ClosedRange<Double> = 0.01...10_000
    /// Fixed line heights (``LineHeight/fixed(_:)``) in pixels.
    public static let lineHeight: ClosedRange<Double> = 0...100_000
    /// Line-height multiples of the size (``LineHeight/multiple(_:)``).
    public static let lineHeightMultiple: ClosedRange<Double> = 0...1_000
    /// `maxLines`: 0 means unlimited.
    public static let maxLines: ClosedRange<Int> = 0...Int(Int32.max)
    /// A text's length in UTF-8 bytes: byte offsets are stored in 32 bits.
    public static let textBytes: ClosedRange<Int> = 0...(Int(Int32.max) - 1)
    /// The spans of a ``StyledText``: each adds at most two style changes, and a prepared text tells
    /// at most 65,535 styles apart.
    public static let spans: ClosedRange<Int> = 0...10_000

    /// Whether `width` is a width the package measures at.
    ///
    /// - Parameter width: A width in pixels.
    /// - Returns: `true` when `width` is in ``width``; `false` for NaN and the infinities.
    @inlinable
    public static func isValid(width: Double) -> Bool {
        MeasurementLimits.width.contains(width)   // NaN is in no range
    }

    /// Checks a width.
    ///
    /// - Parameter width: A width in pixels.
    /// - Throws: ``TextMeasureError/invalidWidth(_:)`` when `width` is outside ``width``.
    public static func check(width: Double) throws(TextMeasureError) {
        guard isValid(width: width) else { throw .invalidWidth(width) }
    }

    /// Checks every number of a style: size, line height and `maxLines`.
    ///
    /// - Parameter style: The style to check.
    /// - Throws: ``TextMeasureError/invalidSize(_:)``, ``TextMeasureError/invalidLineHeight(_:)``,
    ///   ``TextMeasureError/invalidLineHeightMultiple(_:)`` or ``TextMeasureError/invalidMaxLines(_:)``
    ///   for the first value outside its range.
    public static func check(_ style: TextStyle) throws(TextMeasureError) {
        guard size.contains(style.size) else { throw .invalidSize(style.size) }
        switch style.lineHeight {
        case .natural: break
        case .fixed(let value):
            guard lineHeight.contains(value) else { throw .invalidLineHeight(value) }
        case .multiple(let value):
            guard lineHeightMultiple.contains(value) else { throw .invalidLineHeightMultiple(value) }
        }
        guard maxLines.contains(style.maxLines) else { throw .invalidMaxLines(style.maxLines) }
    }

    /// Checks a text's length.
    ///
    /// - Parameter textByteCount: The text's length in UTF-8 bytes.
    /// - Throws: ``TextMeasureError/textTooLong(byteCount:)`` when it is beyond ``textBytes``.
    public static func check(textByteCount: Int) throws(TextMeasureError) {
        guard textBytes.contains(textByteCount) else { throw .textTooLong(byteCount: textByteCount) }
    }

    /// A width in layout units (1/1024 px), once checked.
    ///
    /// - Throws: ``TextMeasureError/invalidWidth(_:)`` when `width` is outside ``width``.
    static func units(width: Double) throws(TextMeasureError) -> Int {
        try check(width: width)
        return Int((width * 1024).rounded())
    }

    /// A width in layout units for a width already known to be valid, or nil for any other.
    @inlinable
    package static func unitsIfValid(width: Double) -> Int? {
        WidthLimits.units(ifValid: width)
    }

    /// How a range reads in an error message: "from 0.001 to 1000000000".
    static func describe(_ range: ClosedRange<Double>) -> String {
        "from \(format(range.lowerBound)) to \(format(range.upperBound))"
    }

    /// A number as people write it: integers without ".0".
    static func format(_ value: Double) -> String {
        WidthLimits.format(value)
    }
}
