import Foundation
import TextMeasure

/// Font loading under fuzzing: arbitrary bytes as a font file loaded as `TextMeasurer(fonts:)` loads
/// it (`FontCascade(files:)`, through the process-wide registry).
///
/// Loading must either throw a ``FontError`` (typed throws make anything else impossible to throw) or
/// succeed without crashing; a font that loads must then measure a few short texts, alone and as a
/// fallback behind a real font, with finite, non-negative heights.
///
/// The library reads fonts from files only, so each input is written to a fresh temporary file (the
/// process-wide font registry keeps a face per path: a path used twice would answer the second input
/// with the first one's face). Faces that load stay in the registry until the process ends, so
/// `Fuzz/run` runs this target in rounds of a bounded number of executions.
enum FontFuzzer {
    /// A private folder for this process's temporary font files: in memory (`/dev/shm`) where there is
    /// one, since creating files on disk was a tenth of each execution.
    private static let folder: String = {
        for parent in ["/dev/shm", "/tmp"] {
            var template = Array("\(parent)/fuzz-font-XXXXXX".utf8CString)
            if let made = mkdtemp(&template) { return String(cString: made) }
        }
        fatalError("FuzzFont: mkdtemp failed (errno \(errno))")
    }()
    nonisolated(unsafe) private static var counter = 0

    /// A real font behind the fuzzed one in the fallback cascade.
    private static let realFont: FontFile = {
        do {
            return try BundledFonts.files()[0]
        } catch {
            fatalError("FuzzFont: \(error)")
        }
    }()

    /// Texts in several scripts, with ligatures, marks, emoji and breaks.
    static let texts = ["Hello, world — fi ffi 123", "שלום עולם", "สวัสดีครับ", "مرحبا بالعالم", "नमस्ते", "日本語 😀👍🏽\n\tx"]

    /// Loads one input as a font and measures with it if it loads.
    static func check(_ input: UnsafeBufferPointer<UInt8>) {
        counter += 1
        let path = folder + "/\(counter).ttf"
        guard let file = fopen(path, "wb") else { fatalError("FuzzFont: cannot create \(path)") }
        if input.count > 0 { guard fwrite(input.baseAddress!, 1, input.count, file) == input.count else { fatalError("FuzzFont: short write") } }
        fclose(file)
        defer { unlink(path) }

        // A collection's header ("ttcf") makes a second face index worth trying.
        let isCollection = input.starts(with: Array("ttcf".utf8))
        for faceIndex in isCollection ? [0, 1] : [0] {
            let font = FontFile(path: path, faceIndex: faceIndex)
            let cascade: FontCascade
            do {
                cascade = try FontCascade(files: [font])
            } catch {
                continue   // a FontError: the expected answer for most inputs
            }
            measure(with: measurer(cascade), input)
            if let fallback = try? FontCascade(files: [realFont, font]) {
                measure(with: measurer(fallback), input)
            }
        }
    }

    /// What `TextMeasurer(fonts:)` makes of a cascade, with a small shaped-word cache: the default one
    /// reserves room for 50,000 words, which would be most of each execution's time here.
    private static func measurer(_ cascade: FontCascade) -> TextMeasurer {
        TextMeasurer(cascade: cascade, shapeCacheCapacity: 64)
    }

    private static func measure(with measurer: TextMeasurer, _ input: UnsafeBufferPointer<UInt8>) {
        for (text, style, width) in [(texts[0], TextStyle(size: 17), 100.0),
                                     (texts.joined(separator: " "), TextStyle(size: 13, maxLines: 2), 60),
                                     (texts[5], TextStyle(size: 1), 1)] {
            let result: TextMeasurement
            do {
                result = try measurer.measure(text, style: style, width: width)
            } catch {
                fatalError("FuzzFont: a valid style and width were refused: \(error) (\(input.count) bytes)")
            }
            // A font whose line gap makes its natural line height negative (hhea lineGap −25600,
            // Fuzz/regressions/font/negative-natural-line-height) once measured negative heights.
            guard result.height.isFinite, result.height >= 0, result.lineCount >= 1 else {
                fatalError("FuzzFont: height \(result.height), \(result.lineCount) lines (\(input.count) bytes)")
            }
        }
    }
}
