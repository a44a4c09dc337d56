// Unicode text segmentation (UAX #14 line breaks, UAX #29 grapheme clusters) and a few character
// properties, from the system ICU, behind a plain C API.
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
    /// A line may be broken before this offset (UAX #14, with dictionary breaking for Thai, Lao,
    /// Khmer, Myanmar). `length` included.
    CUB_LINE_BREAK = 2,
    /// The line must be broken before this offset (after a BK/CR/LF/NL character).
    CUB_MANDATORY_BREAK = 4,
};

/// Analyzes `length` bytes of UTF-8 at `utf8`, writing flags into `flags[0...length]` (length + 1 bytes,
/// zeroed first). Returns 0 on success, or an ICU error code (> 0) when ICU could not analyze the text.
int32_t cub_analyze(const char *utf8, int32_t length, uint8_t *flags);

/// Whether `c` has the Unicode property Emoji_Presentation (shown as emoji by default).
int cub_is_emoji_presentation(uint32_t c);

/// Whether `c` has the Unicode property Extended_Pictographic.
int cub_is_extended_pictographic(uint32_t c);

/// Whether `c` is white space that hangs at the end of a line (general category Zs, or TAB).
int cub_is_hanging_space(uint32_t c);

/// Whether `c` is a control or format character, or a variation selector: characters that should not
/// make the font cascade switch fonts on their own.
int cub_is_font_neutral(uint32_t c);

#ifdef __cplusplus
}
#endif

#endif
