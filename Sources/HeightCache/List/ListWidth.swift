/// The width rule of the list layer, until TextMeasure's `MeasurementLimits` owns it.
// TODO: MeasurementLimits — replace with `MeasurementLimits.isValid(width:)` when it lands on main.
enum ListWidth {
    /// Whether `width` can lay out a list: a finite number greater than 0.
    static func isValid(_ width: Double) -> Bool {
        width.isFinite && width > 0
    }

    /// Traps with a message naming `caller` when `width` is not valid (a programming error, like an
    /// array index out of range).
    static func check(_ width: Double, in caller: StaticString) {
        precondition(isValid(width), "\(caller): width must be a finite number greater than 0, got \(width)")
    }
}
