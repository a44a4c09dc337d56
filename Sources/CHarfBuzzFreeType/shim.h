// FreeType and HarfBuzz as seen from Swift.
//
// FreeType validates font files and enumerates collections; HarfBuzz shapes and supplies metrics.
// Nothing here is ICU: system ICU headers must never reach a Swift module (they clash with
// Foundation's bundled ICU on this toolchain), see Sources/CUnicodeBreak.
#ifndef CFREETYPE_SHIM_H
#define CFREETYPE_SHIM_H

#include <ft2build.h>
#include FT_FREETYPE_H
#include <hb.h>
#include <hb-ot.h>

/// FreeType reports errors as plain ints; this gives the message FreeType itself uses, or NULL.
static inline const char *cft_error_string(FT_Error error) {
    return FT_Error_String(error);
}

#endif
