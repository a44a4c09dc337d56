#include "CUnicodeBidi.h"

#include <pthread.h>
#include <stdlib.h>
#include <unicode/ubidi.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>

// Each thread keeps its UBiDi and UTF-16 buffers: `.pango` resolves the levels of every paragraph
// holding right-to-left text, and a UBiDi keeps its working memory from one paragraph to the next.
typedef struct {
    UBiDi *bidi;
    UChar *utf16;
    int32_t *offsets;
    int32_t capacity;
} bidi_scratch;

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void free_scratch(void *pointer) {
    bidi_scratch *scratch = pointer;
    if (scratch == NULL) return;
    if (scratch->bidi != NULL) ubidi_close(scratch->bidi);
    free(scratch->utf16);
    free(scratch->offsets);
    free(scratch);
}

static void make_key(void) { (void)pthread_key_create(&scratch_key, free_scratch); }

// This thread's scratch with room for `length` UTF-16 units, or NULL when memory ran out.
static bidi_scratch *scratch_for(int32_t length) {
    pthread_once(&scratch_once, make_key);
    bidi_scratch *scratch = pthread_getspecific(scratch_key);
    if (scratch == NULL) {
        scratch = calloc(1, sizeof(bidi_scratch));
        if (scratch == NULL) return NULL;
        if (pthread_setspecific(scratch_key, scratch) != 0) {
            free(scratch);
            return NULL;
        }
    }
    if (scratch->bidi == NULL && (scratch->bidi = ubidi_open()) == NULL) return NULL;
    if (length > scratch->capacity) {
        int32_t capacity = length > 256 ? length : 256;
        UChar *utf16 = realloc(scratch->utf16, sizeof(UChar) * (size_t)capacity);
        if (utf16 == NULL) return NULL;
        scratch->utf16 = utf16;
        int32_t *offsets = realloc(scratch->offsets, sizeof(int32_t) * (size_t)capacity);
        if (offsets == NULL) return NULL;
        scratch->offsets = offsets;
        scratch->capacity = capacity;
    }
    return scratch;
}

int32_t cub_bidi_levels(const char *utf8, int32_t length, uint8_t *levels, uint8_t *paragraph_level) {
    *paragraph_level = 0;
    if (length <= 0) return 0;
    bidi_scratch *scratch = scratch_for(length);
    if (scratch == NULL) return U_MEMORY_ALLOCATION_ERROR;
    // UTF-16 (what ubidi takes), and for each UTF-16 unit the UTF-8 offset of its character.
    UChar *utf16 = scratch->utf16;
    int32_t *offsets = scratch->offsets;
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
    ubidi_setPara(scratch->bidi, utf16, units, UBIDI_DEFAULT_LTR, NULL, &status);
    const UBiDiLevel *resolved = U_SUCCESS(status) ? ubidi_getLevels(scratch->bidi, &status) : NULL;
    if (U_SUCCESS(status) && resolved != NULL) {
        *paragraph_level = ubidi_getParaLevel(scratch->bidi) & 1;
        for (int32_t u = 0; u < units; u++) {
            int32_t end = u + 1 < units ? offsets[u + 1] : length;
            for (int32_t b = offsets[u]; b < end; b++) levels[b] = resolved[u];
        }
    }
    return U_SUCCESS(status) ? 0 : (int32_t)status;
}
