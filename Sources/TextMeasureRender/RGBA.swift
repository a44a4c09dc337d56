/// An sRGB color with straight (not premultiplied) alpha, 8 bits a channel.
package struct RGBA: Hashable, Sendable {
    package var red: UInt8
    package var green: UInt8
    package var blue: UInt8
    package var alpha: UInt8

    /// Creates a color from its channels.
    package init(_ red: UInt8, _ green: UInt8, _ blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Creates an opaque color from `0xRRGGBB`.
    package init(hex: UInt32) {
        self.init(UInt8(hex >> 16 & 0xFF), UInt8(hex >> 8 & 0xFF), UInt8(hex & 0xFF))
    }

    package static let white = RGBA(255, 255, 255)
    package static let black = RGBA(0, 0, 0)
}
