/// The widths the package lays out at, shared by the text engine (`MeasurementLimits.width`) and the
/// list layer (which takes widths without measuring text): from a thousandth of a pixel (the layout
/// unit is 1/1024 px) to a billion, finite.
@usableFromInline
package enum WidthLimits {
    /// Widths in pixels.
    @usableFromInline package static let range: ClosedRange<Double> = 0.001...1_000_000_000

    /// Whether `width` is in ``range`` (NaN and the infinities are in no range).
    @inlinable
    package static func isValid(_ width: Double) -> Bool {
        range.contains(width)
    }

    /// A valid width in layout units (1/1024 px), or nil for any other.
    @inlinable
    package static func units(ifValid width: Double) -> Int? {
        isValid(width) ? Int((width * 1024).rounded()) : nil
    }

    /// "width 0 is out of range: must be a finite number from 0.001 to 1000000000", naming the field
    /// `field`: the message every refused width gets.
    @usableFromInline
    package static func outOfRange(_ width: Double, field: String = "width") -> String {
        "\(field) \(format(width)) is out of range: must be a finite number from \(format(range.lowerBound)) "
            + "to \(format(range.upperBound))"
    }

    /// A number as people write it: integers without ".0".
    package static func format(_ value: Double) -> String {
        if value.isFinite && value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
        return String(describing: value)
    }
}
