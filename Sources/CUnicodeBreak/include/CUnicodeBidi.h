// Unicode bidirectional levels (UAX #9) from the system ICU, behind a plain C API: what drawing a
// line in visual order needs, and what splitting a right-to-left paragraph into runs at its level
// changes (the `.pango` mode itemizes as Pango does, so preparing such a paragraph calls it).
//
// Like CUnicodeBreak.h, this header uses only C types; ICU is included only in the .c file.
#ifndef CUNICODEBIDI_H
#define CUNICODEBIDI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Resolves the embedding level of every character of one paragraph of `length` bytes of UTF-8 at
/// `utf8` (rules P2–P3 pick the paragraph's direction from its first strong character, left-to-right
/// when it has none; rules W1–I2 resolve the levels; the line rules L1–L2 are the caller's), and writes
/// it into `levels[0..<length]`, once per byte of the character. `*paragraph_level` receives the
/// paragraph's level: 0 for left-to-right, 1 for right-to-left.
///
/// Returns 0 on success, or an ICU error code (> 0). Any thread may call it; each thread keeps one
/// ICU bidi object and one UTF-16 buffer of its own and reuses them across calls, because preparing
/// calls this once per right-to-left paragraph; they are freed when the thread exits.
int32_t cub_bidi_levels(const char *utf8, int32_t length, uint8_t *levels, uint8_t *paragraph_level);

#ifdef __cplusplus
}
#endif

#endif
