import TextMeasureSupport

/// The faces a measurer draws hex boxes' digits with (see ``HexBoxFont``): what stands for Pango's
/// `monospace` family at each face's weight and slant.
///
/// Pango draws the digits in the font its font map matches for `monospace` with the run font's
/// weight and slant. For a measurer that is its monospaced face where it has one: regular upright
/// text takes the monospace cascade's first font, bold upright text the bold monospace one; italic
/// text, which no bundled monospace face has, its italic (or bold italic) face; a measurer without
/// those faces, its primary font. Each face is opened when a hex box first needs it: a measurer that
/// never meets a character its fonts lack never opens a file for this.
///
/// Thread safety: `Sendable`; the faces are found under a lock, once.
final class HexBoxDigitFaces: Sendable {
    /// Where the faces come from: cascades given, or the bundled files in a folder.
    enum Source: Sendable {
        case given(FontCascades)
        case bundled(regular: FontCascade, folder: String)
    }

    private let source: Source
    /// Per ``FaceKind`` (by raw value), the face once found.
    private let faces = Locked<[FontFace?]>(Array(repeating: nil, count: FaceKind.allCases.count))

    init(_ source: Source) {
        self.source = source
    }

    /// The face drawing the digits of hex boxes in text of `kind`.
    ///
    /// - Complexity: O(1) once found; the first call for a kind may open (validate) one bundled file.
    func face(for kind: FaceKind) -> FontFace {
        if let face = faces.withLock({ $0[kind.rawValue] }) { return face }
        let found = find(kind)
        faces.withLock { $0[kind.rawValue] = found }
        return found
    }

    /// The hex-box font of `run`'s font, its digits in the face standing for `monospace` in the run's
    /// style: what the preparation and the glyph layout shape a run with ``Run/drawsHexBoxes`` with.
    ///
    /// - Parameters:
    ///   - run: The run.
    ///   - fonts: The fonts of the run's style.
    ///   - styled: The styled text's styles; nil for plain text.
    /// - Complexity: O(1) under two locks once made (see ``ScaledFonts/hexBoxFont(at:digits:)``).
    func hexBoxFont(for run: Run, in fonts: ScaledFonts, styled: StyledPreparation?) -> HexBoxFont {
        let kind = run.style == 0 ? FaceKind.regular : styled.unsafelyUnwrapped.runs.styles[run.style].face
        return fonts.hexBoxFont(at: run.font, digits: face(for: kind))
    }

    private func find(_ kind: FaceKind) -> FontFace {
        switch source {
        case .given(let cascades):
            let cascade: FontCascade = switch kind {
            case .regular, .monospace: cascades.monospace ?? cascades.regular
            case .bold, .monospaceBold: cascades.monospaceBold ?? cascades.bold ?? cascades.monospace ?? cascades.regular
            case .italic, .boldItalic: cascades.cascade(for: kind)
            }
            return cascade.fonts[0]
        case .bundled(let regular, let folder):
            let name = switch kind {
            case .regular, .monospace: BundledFonts.monospaceFileNames[0]
            case .bold, .monospaceBold: BundledFonts.monospaceBoldFileNames[0]
            case .italic: BundledFonts.italicFileNames[0]
            case .boldItalic: BundledFonts.boldItalicFileNames[0]
            }
            // A bundled file that cannot be opened leaves the digits to the primary font.
            let cascade = try? FontCascade(files: [FontFile(path: folder + "/" + name)])
            return cascade?.fonts[0] ?? regular.fonts[0]
        }
    }
}
