#include "CUnicodeBidi.h"

#include <stdlib.h>
#include <unicode/ubidi.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>

int32_t cub_bidi_levels(const char *utf8, int32_t length, uint8_t *levels, uint8_t *paragraph_level) {
    *paragraph_level = 0;
    if (length <= 0) return 0;
    // UTF-16 (what ubidi takes), and for each UTF-16 unit the UTF-8 offset of its character.
    UChar *utf16 = malloc(sizeof(UChar) * (size_t)length);
    int32_t *offsets = malloc(sizeof(int32_t) * (size_t)length);
    if (utf16 == NULL || offsets == NULL) {
        free(utf16);
        free(offsets);
        return U_MEMORY_ALLOCATION_ERROR;
    }
    int32_t units = 0;
    for (int32_t i = 0; i < length;) {
        int32_t start = i;
        UChar32 c;
        U8_NEXT((const uint8_t *)utf8, i, length, c);
        if (c < 0) c = 0xFFFD;
        if (U16_LENGTH(c) == 2) {
            utf16[units] = U16_LEAD(c);
            offsets[units++] = start;
            utf16[units] = U16_TRAIL(c);
            offsets[units++] = start;
        } else {
            utf16[units] = (UChar)c;
            offsets[units++] = start;
        }
    }
    UErrorCode status = U_ZERO_ERROR;
    UBiDi *bidi = ubidi_openSized(units, 0, &status);
    if (U_SUCCESS(status)) ubidi_setPara(bidi, utf16, units, UBIDI_DEFAULT_LTR, NULL, &status);
    const UBiDiLevel *resolved = U_SUCCESS(status) ? ubidi_getLevels(bidi, &status) : NULL;
    if (U_SUCCESS(status) && resolved != NULL) {
        *paragraph_level = ubidi_getParaLevel(bidi) & 1;
        for (int32_t u = 0; u < units; u++) {
            int32_t end = u + 1 < units ? offsets[u + 1] : length;
            for (int32_t b = offsets[u]; b < end; b++) levels[b] = resolved[u];
        }
    }
    if (bidi != NULL) ubidi_close(bidi);
    free(utf16);
    free(offsets);
    return U_SUCCESS(status) ? 0 : (int32_t)status;
}
