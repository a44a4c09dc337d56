/// Where things go in a picture of a text measured at a width, and how large the picture is.
///
/// Lengths are layout pixels (the unit of `--width` and of the measured height); the picture is drawn
/// at ``scale`` device pixels per layout pixel. The text area — `width` × `height`, the measured
/// box — starts ``margin`` from the left and top; the footer below it holds the caption:
///
/// ```
///   pixel width  = ⌈(margin + width + margin) × scale⌉ = ⌈(width + 32) × scale⌉
///   pixel height = ⌈(margin + height + footer) × scale⌉ = ⌈(height + 56) × scale⌉
/// ```
///
/// The size depends on the width and the measured height only, never on the glyphs: a line that
/// overflows the width (an unbreakable cluster wider than a line) is clipped at the picture's edge.
package struct PictureGeometry: Hashable, Sendable {
    /// Space left of, right of and above the text area, in layout pixels.
    package static let margin = 16.0
    /// Space below the text area, for the caption, in layout pixels.
    package static let footer = 40.0
    /// The largest picture side, in device pixels.
    package static let maximumSide = 16_384
    /// The most device pixels in a picture (256 MiB of RGBA).
    package static let maximumPixels = 1 << 26

    /// The width the text was wrapped at, in layout pixels.
    package let width: Double
    /// The measured height, in layout pixels.
    package let height: Double
    /// Device pixels per layout pixel.
    package let scale: Double

    /// The geometry of a picture of a text measured `height` tall at `width`, drawn at `scale`.
    package init(width: Double, height: Double, scale: Double) {
        self.width = width
        self.height = height
        self.scale = scale
    }

    /// The picture's width in device pixels.
    package var pixelWidth: Int { Self.pixels((width + 2 * Self.margin) * scale) }
    /// The picture's height in device pixels.
    package var pixelHeight: Int { Self.pixels((Self.margin + height + Self.footer) * scale) }

    /// The device x of the layout x `x` (0 = the text area's left edge).
    package func x(_ x: Double) -> Double { (Self.margin + x) * scale }
    /// The device y of the layout y `y` (0 = the text area's top edge).
    package func y(_ y: Double) -> Double { (Self.margin + y) * scale }

    /// The first device column beyond the width: text that fits its lines inks only columns left of
    /// it; the red guide is drawn from it.
    package var guideColumn: Int { Self.pixels(x(width)) }

    /// The device rows of a line `height` layout pixels tall whose top is `top` layout pixels below
    /// the text area's top (see ``TextMeasurement/Line``).
    package func rows(ofLineAt top: Double, height: Double) -> Range<Int> {
        Int(y(top).rounded())..<Int(y(top + height).rounded())
    }

    /// Checks that the picture is not too large to make.
    ///
    /// - Throws: ``RenderError`` naming the size when a side exceeds ``maximumSide`` or the area
    ///   ``maximumPixels``.
    package func checkSize() throws(RenderError) {
        guard width.isFinite && height.isFinite && scale.isFinite else { throw RenderError("the picture's size is not finite") }
        let w = (width + 2 * Self.margin) * scale, h = (Self.margin + height + Self.footer) * scale
        guard w <= Double(Self.maximumSide) && h <= Double(Self.maximumSide) && w * h <= Double(Self.maximumPixels) else {
            throw RenderError("""
                the picture would be \(Int(w.rounded(.up))) × \(Int(h.rounded(.up))) pixels; at most \
                \(Self.maximumSide) a side and \(Self.maximumPixels) in all (use a smaller --width, --scale \
                or --max-lines)
                """)
        }
    }

    /// Rounds up, forgiving the last bits of floating-point error (320 × 1.1 is not 352.00000000000006).
    private static func pixels(_ value: Double) -> Int {
        Int((value - 1e-9).rounded(.up))
    }
}
