/// The font cascades a ``TextMeasurer`` draws each face with: regular text, and the bold, italic,
/// bold italic, monospaced and bold monospaced stretches of a ``StyledText``.
///
/// Each is a whole cascade, primary first, so that a face can fall back as the regular one does: the
/// bundled bold cascade is Noto Sans Bold, Noto Sans Arabic Bold, …, then the regular faces of the
/// fonts that have no bold (Droid Sans Fallback, Nanum Gothic, the math, symbol and emoji fonts).
/// Faces missing here fall back to others; nothing is emboldened or slanted.
///
/// ```swift
/// let cascades = try FontCascades(
///     regular: FontCascade(files: ["Inter-Regular.ttf", "NotoSansArabic-Regular.ttf"]),
///     bold: FontCascade(files: ["Inter-Bold.ttf", "NotoSansArabic-Bold.ttf"]),
///     monospace: FontCascade(files: ["JetBrainsMono-Regular.ttf", "NotoSansArabic-Regular.ttf"]))
/// let measurer = TextMeasurer(cascades: cascades)
/// ```
///
/// Thread safety: immutable and `Sendable`.
public struct FontCascades: Sendable {
    /// Plain text, and every face not given.
    public let regular: FontCascade
    /// Bold text; nil draws it with ``regular``.
    public let bold: FontCascade?
    /// Italic text; nil draws it with ``regular``.
    public let italic: FontCascade?
    /// Bold italic text; nil draws it with ``bold``, else ``italic``, else ``regular``.
    public let boldItalic: FontCascade?
    /// Monospaced text (italic or not); nil draws it with ``regular``.
    public let monospace: FontCascade?
    /// Bold monospaced text; nil draws it with ``monospace``, else ``bold``, else ``regular``.
    public let monospaceBold: FontCascade?

    /// Cascades for each face; the faces not given fall back as each property says.
    ///
    /// - Parameters:
    ///   - regular: Plain text.
    ///   - bold: Bold text.
    ///   - italic: Italic text.
    ///   - boldItalic: Bold italic text.
    ///   - monospace: Monospaced text.
    ///   - monospaceBold: Bold monospaced text.
    public init(regular: FontCascade, bold: FontCascade? = nil, italic: FontCascade? = nil,
                boldItalic: FontCascade? = nil, monospace: FontCascade? = nil, monospaceBold: FontCascade? = nil) {
        self.regular = regular
        self.bold = bold
        self.italic = italic
        self.boldItalic = boldItalic
        self.monospace = monospace
        self.monospaceBold = monospaceBold
    }

    /// The bundled cascades: ``BundledFonts/fileNames`` for regular text, ``BundledFonts/boldFileNames``
    /// and the other lists of ``BundledFonts`` for the other faces.
    ///
    /// - Returns: Every face's cascade, from the folder holding the bundled fonts.
    /// - Throws: ``FontError/bundledFontsNotFound(searched:)`` when no folder of
    ///   ``BundledFonts/searchPath()`` holds the regular files, or the ``FontError`` of a file that is
    ///   missing or cannot be loaded.
    /// - Complexity: Validates each of the files once per process (see ``FontCascade/init(files:)``);
    ///   no face is loaded.
    public static func bundled() throws(FontError) -> FontCascades {
        let folder = try BundledFonts.folder()
        func cascade(_ names: [String]) throws(FontError) -> FontCascade {
            try FontCascade(files: names.map { FontFile(path: folder + "/" + $0) })
        }
        return FontCascades(regular: try cascade(BundledFonts.fileNames), bold: try cascade(BundledFonts.boldFileNames),
                            italic: try cascade(BundledFonts.italicFileNames),
                            boldItalic: try cascade(BundledFonts.boldItalicFileNames),
                            monospace: try cascade(BundledFonts.monospaceFileNames),
                            monospaceBold: try cascade(BundledFonts.monospaceBoldFileNames))
    }

    /// The cascade drawing `face`, after the fallbacks.
    func cascade(for face: FaceKind) -> FontCascade {
        switch face {
        case .regular: regular
        case .bold: bold ?? regular
        case .italic: italic ?? regular
        case .boldItalic: boldItalic ?? bold ?? italic ?? regular
        case .monospace: monospace ?? regular
        case .monospaceBold: monospaceBold ?? monospace ?? bold ?? regular
        }
    }
}
