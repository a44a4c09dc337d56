/// Blink's unit of layout, 1/64 px: the browser modes' grid of widths and positions, and what their
/// line heights are measured in.
enum LayoutUnit {
    /// LayoutUnits in a pixel.
    static let perPixel = 64

    /// A LayoutUnit in layout units of `unitsPerPixel` a pixel (see `TextStyle.unitsPerPixel`).
    static func inUnits(unitsPerPixel: Int) -> Int { unitsPerPixel / perPixel }

    /// `value` (not negative) rounded up to a whole multiple of `unit`, a LayoutUnit.
    static func roundedUp(_ value: Int, toMultipleOf unit: Int) -> Int {
        (value + unit - 1) / unit * unit
    }
}
