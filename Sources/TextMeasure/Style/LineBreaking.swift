/// Which engine's line-breaking rules a layout follows.
///
/// Both modes break at UAX #14 opportunities (ICU's rules; words of Thai, Lao, Khmer and Myanmar as
/// each engine finds them, see the table), break a word wider than the line between grapheme
/// clusters, and let white space at the end of a line hang (``pango`` only its last character, as Pango
/// does). They differ in the details browsers and Pango disagree on:
///
/// | | ``pango`` | ``browser`` |
/// |---|---|---|
/// | hard breaks | `\n`, `\r\n`, lone `\r`, U+2028, U+2029; a U+2028 just before another or at the end adds no empty line | `\n` and `\r\n` only; a final one adds no empty line |
/// | between two ASCII characters | ICU (UAX #14) | Blink's pair table: no break after `/` in a URL |
/// | `-` before a digit | no break | a break after an ASCII letter or digit |
/// | `-` starting a word, before a letter (`ls -la`) | a break after it | no break |
/// | after a run of spaces | ICU | always a break |
/// | small kana, `ー` | no break before (strict) | a break before (`line-break: normal`) |
/// | white space at a line's end | all of it but its last character counts (all of it before a paragraph separator); what does not fit starts the next line, and white space with a break before it joins a line only whole | hangs |
/// | white space after a cluster wider than the line | starts the next line | hangs |
/// | a line fits when | its width ≤ the width | its width ≤ the width in 1/64 px, + 1/64 px |
/// | a word broken between clusters | cluster by cluster, as drawn | as many as fit in context, then back off until it fits as drawn |
/// | tabs | stops of 8 spaces, at least a space away | stops of 8 unrounded spaces, at least half a space away |
/// | a space's font | its neighbours' | the first that has it |
/// | Thai, Lao, Khmer, Myanmar words | Thai's from libthai's dictionary; none inside the others' runs of letters | ICU's dictionaries |
/// | grapheme clusters | GLib's rules | ICU's (with the conjunct rule) |
/// | a word where no break fits | the narrowest piece Pango looks at | as far as the clusters reach in context |
/// | natural line height | the fonts on the line, their runs on the first run's baseline (hanging, ideographic or alphabetic), exact, no strut | the fonts on the line on the alphabetic baseline and the primary font's strut, rounded to pixels |
///
/// ``browser`` follows Chromium for a text view styled `white-space: pre-wrap; overflow-wrap: anywhere;
/// word-break: normal; line-break: auto`; ``browserStrict`` is the same with `line-break: strict`. What
/// still differs from Chromium, and why: `docs/chromium-differences.md`.
///
/// ```swift
/// let style = TextStyle(size: 15, breaking: .browser)
/// let m = try measurer.measure("https://example.com/a/b", style: style, width: 120)
/// ```
public enum LineBreaking: String, Hashable, Sendable, CaseIterable {
    /// Pango 1.50's `PANGO_WRAP_WORD_CHAR` (and what UIKit's word wrapping does): the default.
    case pango
    /// CSS Text 3 as Blink (Chromium) ships it: `white-space: pre-wrap; overflow-wrap: anywhere;
    /// line-break: auto; word-break: normal`.
    case browser
    /// ``browser`` with `line-break: strict`: no break before small kana and the prolonged sound mark.
    case browserStrict = "browser-strict"

    /// Whether this is one of the browser modes.
    var isBrowser: Bool { self != .pango }
}
