// Unicode text segmentation (UAX #14 line breaks, UAX #29 grapheme clusters) and a few character
// properties, as the system ICU defines them, behind a plain C API. Grapheme clusters come from a
// table-driven state machine of our own, line breaks from our own loop over the line rules ICU
// compiled (ICU's iterator itself only for the breaks inside runs of class SA, which it breaks with
// dictionaries: each run alone, the answers cached by the run's bytes, shared by all threads);
// both are tested against ICU's iterators (`cub_grapheme_boundaries_icu`, `cub_line_breaks_icu`).
//
// Why a C target: a Swift module that sees system <unicode/*.h> and Foundation fails to compile on
// this toolchain. This header uses only C types; ICU is included only in the .c file.
//
// Thread safety: every function may be called from any thread. Break iterators are stateful, so each
// thread lazily clones its own from a shared prototype (freed when the thread exits).
#ifndef CUNICODEBREAK_H
#define CUNICODEBREAK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Flags stored per byte offset by `cub_analyze`.
enum {
    /// A grapheme cluster starts at this offset (offset 0 excluded; `length` included).
    CUB_GRAPHEME_BOUNDARY = 1,
    /// A line may be broken before this offset (UAX #14, with ICU's dictionary breaking for Thai, Lao,
    /// Khmer, Myanmar but in `CUB_RULES_PANGO`). `length` included.
    CUB_LINE_BREAK = 2,
    /// The line must be broken before this offset (after a BK/CR/LF/NL character).
    CUB_MANDATORY_BREAK = 4,
};

/// Analyzes `length` bytes of UTF-8 at `utf8`, writing flags into `flags[0...length]` (length + 1 bytes,
/// zeroed first). Returns 0 on success, or an ICU error code (> 0) when ICU could not analyze the text.
/// The flags are exactly those of ICU's character and line break iterators: line breaks come from
/// ICU's compiled line rules run by this library's own loop; inside a run of Line_Break class SA
/// characters (dictionary breaking), from ICU's iterator over that run alone, cached (at most 4,096
/// runs of at most 512 bytes, behind a mutex).
int32_t cub_analyze(const char *utf8, int32_t length, uint8_t *flags);

/// Which of ICU's line-break rule sets `cub_analyze_with` uses (CSS `line-break`).
enum {
    /// ICU's default rules: no break before small kana and U+30FC (UAX #14 class CJ as NS). `cub_analyze`.
    CUB_STRICTNESS_STRICT = 0,
    /// ICU's `line_normal` rules (locale keyword `lb=normal`): CJ breaks like an ideograph.
    CUB_STRICTNESS_NORMAL = 1,
    /// ICU's default line rules with grapheme clusters as Pango 1.50 finds them (GLib's rules: no
    /// conjunct rule GB9c; Pango's Indic tailoring keeps a joiner's next character, and a virama's
    /// after a joiner, in the cluster; Thai and Lao SARA AM, letters by category, start clusters), and
    /// no break between two SA characters (ICU's dictionary breaks are not taken, but for Thai when
    /// libthai's dictionary is missing): `cub_pango_dictionary_breaks` adds Thai words' breaks, item by
    /// item. No mandatory break before `length`: after a VT, FF or NEL, Pango's layout breaks only a
    /// full line.
    CUB_RULES_PANGO = 2,
};

/// `cub_analyze` with the line-break rules `strictness` (a `CUB_STRICTNESS_*` value, or
/// `CUB_RULES_PANGO`).
int32_t cub_analyze_with(const char *utf8, int32_t length, uint8_t *flags, int32_t strictness);

/// Re-breaks the words of one Pango item of dictionary script (Thai, Lao, Khmer, Myanmar: Line_Break
/// class SA) as Pango 1.50 does, in the `length` bytes of UTF-8 at `utf8` whose flags (as
/// `cub_analyze_with` left them) are `flags[0...length]`: Pango's UAX #14 breaks nowhere between two
/// SA characters, so any break there is removed, mandatory or not (`CUB_RULES_PANGO` takes none from
/// ICU's dictionaries, but for Thai when libthai's dictionary is missing); in a Thai item
/// (`is_thai`), libthai's word breaks (`th_brk_find_breaks` on the item's TIS-620 text, as Pango's
/// `break_thai`) are added, `flags[length]` included. Without libthai's dictionary (Debian's
/// `libthai-data`), Thai keeps ICU's breaks. Returns 1 when the breaks were changed as Pango's, 0
/// when libthai was not available (nothing changed), -1 when memory ran out (nothing changed).
/// Thread-safe: libthai's dictionary is loaded once per process (or by `cub_prepare_dictionaries`) and
/// only read.
int32_t cub_pango_dictionary_breaks(const char *utf8, int32_t length, uint8_t *flags, int32_t is_thai);

/// Moves the breaks around hyphens in `length` bytes of UTF-8 at `utf8` whose flags (as
/// `cub_analyze_with` left them for `strictness`, `CUB_STRICTNESS_NORMAL` or `CUB_STRICTNESS_STRICT`)
/// are `flags[0...length]` to where Unicode 16's UAX #14, which Chromium's ICU follows, has them:
/// no break after a word-initial hyphen or dash before a letter (LB20a; Hebrew letters, the dashes of
/// class HH and a hyphen after a no-break space included), a break after a hyphen or dash between two
/// Hebrew letters, and after a BA character that follows a Hebrew letter where one follows any other
/// letter (LB21a). A "-" before an ASCII character is left as it is (Blink's pair table decides there).
/// Only `CUB_LINE_BREAK` changes. Returns at once when the text holds no Hebrew letter, no HH dash and
/// no "-" after a no-break space.
/// Thread-safe.
void cub_browser_hyphen_breaks(const char *utf8, int32_t length, uint8_t *flags, int32_t strictness);

/// Lets a line break before an opening quotation mark (general category Pi, class QU: "“", "‘", "«")
/// and after a closing one (Pf: "”", "’", "»") with East Asian characters (East_Asian_Width F, W, H)
/// on both sides, as Unicode 15.1's LB19a, which Chromium's ICU follows, does (Debian's ICU 72 keeps
/// every quotation mark with both neighbours): `flags[0...length]` as `cub_analyze_with` left them for
/// `strictness`. Not after an opening bracket, nor before a character LB13, LB21 or LB22 keep with
/// what precedes it. Only `CUB_LINE_BREAK` changes; only the quotation marks' neighbours are looked at.
/// Thread-safe.
void cub_browser_quote_breaks(const char *utf8, int32_t length, uint8_t *flags, int32_t strictness);

/// Whether the scalar at byte `hyphen` of the `length` bytes of UTF-8 at `utf8` is a dash of UAX #14
/// class HH (Unicode 16: U+058A, U+05BE, U+1400, U+2010, U+2012, U+2013, U+2E17, U+2E40, U+2E5D,
/// U+10EAD) ending at byte `next`, where a letter LB20a keeps with a word-initial hyphen starts (AL,
/// what resolves to AL, HL). Returns 1 or 0. Thread-safe.
int32_t cub_is_unambiguous_hyphen_before_letter(const char *utf8, int32_t length, int32_t hyphen, int32_t next);

/// Opens what every analysis shares (ICU's iterators to clone, the compiled line rules) now, as the
/// first analysis would: a thread with time to spare can take that cost off the first text, which
/// other threads' first texts would wait for. Thread-safe; after the first call, nothing.
void cub_prepare(void);

/// The dictionaries `cub_prepare_dictionaries` loads: ICU's engines, which the browser modes' analysis
/// uses (`CUB_RULES_PANGO` does not: Pango breaks no SA text with them), and libthai's, which
/// `cub_pango_dictionary_breaks` uses.
enum {
    CUB_DICTIONARIES_ICU = 1,
    CUB_DICTIONARIES_PANGO = 2,
};

/// Loads the line-break dictionaries in `engines` (`CUB_DICTIONARIES_*` bits) for the scripts whose
/// letters of Line_Break class SA (Thai, Lao, Myanmar, Khmer and their neighbours) occur in the first
/// `length` bytes of UTF-8 at `utf8` (at most the first 64 KiB are read; text written as JSON escapes
/// is not seen), as the first analysis of such text would. ICU builds each engine's character sets on
/// first use and libthai reads its trie, which takes long next to a text's measuring, holding a lock
/// every thread's first text of that script waits on; a thread with time to spare (a batch waiting
/// for its fonts) can take that cost off the first text. Libthai has a dictionary for Thai only.
/// Also does what `cub_prepare` does.
/// Thread-safe; returns the number of scripts whose SA letters were found.
int32_t cub_prepare_dictionaries(const char *utf8, int32_t length, int32_t engines);

/// Property bits returned by `cub_scalar_properties`.
enum {
    /// General category Zs, or TAB: white space that hangs at the end of a line.
    CUB_HANGING_SPACE = 1,
    /// Control or format character, or variation selector: never chooses a font on its own.
    CUB_FONT_NEUTRAL = 2,
    /// Emoji_Presentation: shown as emoji by default.
    CUB_EMOJI_PRESENTATION = 4,
    /// Extended_Pictographic.
    CUB_EXTENDED_PICTOGRAPHIC = 8,
    /// Default_Ignorable_Code_Point: HarfBuzz draws it as nothing when the font lacks it.
    CUB_DEFAULT_IGNORABLE = 16,
    /// Emoji_Modifier_Base: Pango's emoji segmentation draws it as emoji even without a modifier.
    CUB_EMOJI_MODIFIER_BASE = 32,
};

/// All the properties above for `c`, in one call. Planes 0 and 1 come from a table filled on first
/// use (thread-safe: relaxed atomic bytes), the rest from ICU each time.
uint8_t cub_scalar_properties(uint32_t c);

/// `cub_scalar_properties` computed from ICU, without the table (for tests).
uint8_t cub_scalar_properties_uncached(uint32_t c);

/// Grapheme cluster boundaries of `length` bytes of UTF-8 at `utf8` from ICU's own character break
/// iterator, ORed into `flags[1...length]` as `CUB_GRAPHEME_BOUNDARY` (`flags` as for `cub_analyze`,
/// not zeroed). `cub_analyze` finds the same boundaries with its own table-driven state machine; this
/// is the reference it is tested against. Returns 0, or an ICU error code.
int32_t cub_grapheme_boundaries_icu(const char *utf8, int32_t length, uint8_t *flags);

/// Line breaks of `length` bytes of UTF-8 at `utf8` from ICU's own line break iterator for
/// `strictness`, ORed into `flags[1...length]` as `CUB_LINE_BREAK` and `CUB_MANDATORY_BREAK` (`flags`
/// as for `cub_analyze`, not zeroed). `cub_analyze_with` runs ICU's compiled line rules itself and
/// asks ICU's iterator only about runs its dictionaries break (class SA); this, on the whole text, is
/// the reference it is tested against. Returns 0, or an ICU error code.
int32_t cub_line_breaks_icu(const char *utf8, int32_t length, uint8_t *flags, int32_t strictness);

#ifdef __cplusplus
}
#endif

// Bidirectional levels, for drawing lines in visual order.
#include "CUnicodeBidi.h"

#endif
