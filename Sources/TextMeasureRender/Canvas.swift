/// An opaque RGBA picture in memory, drawn on by alpha blending, in device pixels (x right, y down).
///
/// Drawing outside the canvas is clipped. Thread safety: a value type; one writer at a time.
package struct Canvas: Sendable {
    /// Size in pixels.
    package let width: Int
    package let height: Int
    /// Rows of `width` RGBA pixels, top row first, 4 bytes a pixel.
    package private(set) var pixels: [UInt8]

    /// A canvas of `width` × `height` pixels filled with `background`.
    package init(width: Int, height: Int, background: RGBA = .white) {
        precondition(width > 0 && height > 0, "a canvas has at least one pixel")
        self.width = width
        self.height = height
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = background.red
            pixels[i + 1] = background.green
            pixels[i + 2] = background.blue
            pixels[i + 3] = 255
        }
        self.pixels = pixels
    }

    /// Replaces every pixel with `rgba` (rows of `width` RGBA pixels, top first; as many bytes as
    /// the canvas holds), as read from a file.
    package mutating func replacePixels(with rgba: UnsafeBufferPointer<UInt8>) {
        precondition(rgba.count == pixels.count, "the pixels do not match the canvas's size")
        pixels = Array(rgba)
    }

    /// The color at `(x, y)`, which must be inside the canvas.
    package func pixel(x: Int, y: Int) -> RGBA {
        let i = (y * width + x) * 4
        return RGBA(pixels[i], pixels[i + 1], pixels[i + 2], alpha: pixels[i + 3])
    }

    /// Blends `color` over the pixel at `(x, y)` with `coverage` (0…1) times the color's alpha.
    @inline(__always)
    package mutating func blend(x: Int, y: Int, color: RGBA, coverage: Double = 1) {
        guard x >= 0 && y >= 0 && x < width && y < height else { return }
        let a = coverage * Double(color.alpha) / 255
        guard a > 0 else { return }
        let i = (y * width + x) * 4
        pixels[i] = Self.mix(pixels[i], color.red, a)
        pixels[i + 1] = Self.mix(pixels[i + 1], color.green, a)
        pixels[i + 2] = Self.mix(pixels[i + 2], color.blue, a)
    }

    /// Blends a premultiplied color (channels 0…1, already multiplied by `alpha`) over `(x, y)`.
    @inline(__always)
    package mutating func blend(x: Int, y: Int, premultipliedRed red: Double, green: Double, blue: Double,
                                alpha: Double) {
        guard x >= 0 && y >= 0 && x < width && y < height, alpha > 0 else { return }
        let i = (y * width + x) * 4
        let keep = 1 - min(1, alpha)
        pixels[i] = Self.channel(red * 255 + Double(pixels[i]) * keep)
        pixels[i + 1] = Self.channel(green * 255 + Double(pixels[i + 1]) * keep)
        pixels[i + 2] = Self.channel(blue * 255 + Double(pixels[i + 2]) * keep)
    }

    /// Fills the pixels `x0..<x1` × `y0..<y1` (clipped) with `color`.
    package mutating func fill(x0: Int, y0: Int, x1: Int, y1: Int, color: RGBA) {
        for y in max(0, y0)..<max(max(0, y0), min(height, y1)) {
            for x in max(0, x0)..<max(max(0, x0), min(width, x1)) { blend(x: x, y: y, color: color) }
        }
    }

    /// Draws the outline of `x0..<x1` × `y0..<y1`, `thickness` pixels wide, inside the rectangle.
    package mutating func stroke(x0: Int, y0: Int, x1: Int, y1: Int, thickness: Int, color: RGBA) {
        let t = max(1, thickness)
        fill(x0: x0, y0: y0, x1: x1, y1: min(y1, y0 + t), color: color)
        fill(x0: x0, y0: max(y0 + t, y1 - t), x1: x1, y1: y1, color: color)
        fill(x0: x0, y0: y0 + t, x1: min(x1, x0 + t), y1: y1 - t, color: color)
        fill(x0: max(x0 + t, x1 - t), y0: y0 + t, x1: x1, y1: y1 - t, color: color)
    }

    @inline(__always)
    private static func mix(_ under: UInt8, _ over: UInt8, _ a: Double) -> UInt8 {
        channel(Double(over) * a + Double(under) * (1 - a))
    }

    @inline(__always)
    private static func channel(_ value: Double) -> UInt8 {
        UInt8(max(0, min(255, value.rounded())))
    }
}
