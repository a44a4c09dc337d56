/// The font files given on a command line for each face of styled text: `--font` for the regular
/// cascade, `--bold-font`, `--italic-font`, `--bold-italic-font`, `--mono-font` and
/// `--mono-bold-font` for the others (see `FontCascades`). Each list is a cascade, primary first.
package struct FaceFonts: Sendable {
    package var regular: [String] = []
    package var bold: [String] = []
    package var italic: [String] = []
    package var boldItalic: [String] = []
    package var monospace: [String] = []
    package var monospaceBold: [String] = []

    package init(regular: [String] = [], bold: [String] = [], italic: [String] = [], boldItalic: [String] = [],
                 monospace: [String] = [], monospaceBold: [String] = []) {
        self.regular = regular
        self.bold = bold
        self.italic = italic
        self.boldItalic = boldItalic
        self.monospace = monospace
        self.monospaceBold = monospaceBold
    }

    /// Whether no font was given: the bundled fonts, every face.
    package var isEmpty: Bool {
        regular.isEmpty && bold.isEmpty && italic.isEmpty && boldItalic.isEmpty && monospace.isEmpty && monospaceBold.isEmpty
    }
}
