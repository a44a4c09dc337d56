#include "CUnicodeBreak.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/ubrk.h>
#include <unicode/uchar.h>

// One prototype per kind, opened once; each thread clones its own working copies.
static UBreakIterator *line_prototype;
// ICU's `line_normal` rules (CSS `line-break: normal`: a break before small kana and U+30FC).
static UBreakIterator *line_normal_prototype;
static UBreakIterator *grapheme_prototype;
static UErrorCode prototype_status = U_ZERO_ERROR;
static pthread_once_t prototype_once = PTHREAD_ONCE_INIT;
static pthread_key_t thread_key;

typedef struct {
    UBreakIterator *line;
    UBreakIterator *line_normal;   // cloned on first use: most threads never need it
    UBreakIterator *grapheme;
    // The text as UTF-16 (ICU iterates native UTF-16 much faster than UTF-8 through UText), and for
    // each UTF-16 index the UTF-8 offset it starts at.
    UChar *utf16;
    int32_t *utf8_offset;
    int32_t capacity;
} thread_iterators;

static void free_thread_iterators(void *pointer) {
    thread_iterators *its = pointer;
    if (its == NULL) return;
    if (its->line) ubrk_close(its->line);
    if (its->line_normal) ubrk_close(its->line_normal);
    if (its->grapheme) ubrk_close(its->grapheme);
    free(its->utf16);
    free(its->utf8_offset);
    free(its);
}

// Converts UTF-8 (valid: it comes from a Swift String) to UTF-16 in the thread's buffers. Returns
// the UTF-16 length, or -1 when memory runs out.
static int32_t to_utf16(thread_iterators *its, const char *utf8, int32_t length) {
    if (length + 1 > its->capacity) {
        int32_t capacity = length + 1 > 256 ? length + 1 : 256;
        UChar *utf16 = realloc(its->utf16, sizeof(UChar) * (size_t)capacity);
        if (utf16 == NULL) return -1;
        its->utf16 = utf16;
        int32_t *offsets = realloc(its->utf8_offset, sizeof(int32_t) * (size_t)capacity);
        if (offsets == NULL) return -1;
        its->utf8_offset = offsets;
        its->capacity = capacity;
    }
    const unsigned char *bytes = (const unsigned char *)utf8;
    int32_t i = 0, n = 0;
    while (i < length) {
        uint32_t c = bytes[i];
        int32_t size = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (size == 2) c = (c & 0x1F) << 6 | (bytes[i + 1] & 0x3F);
        else if (size == 3) c = (c & 0x0F) << 12 | (bytes[i + 1] & 0x3F) << 6 | (bytes[i + 2] & 0x3F);
        else if (size == 4) c = (c & 0x07) << 18 | (bytes[i + 1] & 0x3F) << 12 | (bytes[i + 2] & 0x3F) << 6 | (bytes[i + 3] & 0x3F);
        if (c >= 0x10000) {
            its->utf8_offset[n] = i;
            its->utf16[n++] = (UChar)(0xD800 + ((c - 0x10000) >> 10));
            its->utf8_offset[n] = i;   // never a boundary: inside a surrogate pair
            its->utf16[n++] = (UChar)(0xDC00 + ((c - 0x10000) & 0x3FF));
        } else {
            its->utf8_offset[n] = i;
            its->utf16[n++] = (UChar)c;
        }
        i += size;
    }
    its->utf8_offset[n] = length;
    return n;
}

static void open_prototypes(void) {
    pthread_key_create(&thread_key, free_thread_iterators);
    // The root locale: UAX #14 defaults plus ICU's dictionaries for South-East Asian scripts.
    line_prototype = ubrk_open(UBRK_LINE, "", NULL, 0, &prototype_status);
    if (U_FAILURE(prototype_status)) return;
    // The same with the `lb` keyword: ICU picks its `line_normal` rule set.
    line_normal_prototype = ubrk_open(UBRK_LINE, "@lb=normal", NULL, 0, &prototype_status);
    if (U_FAILURE(prototype_status)) return;
    grapheme_prototype = ubrk_open(UBRK_CHARACTER, "", NULL, 0, &prototype_status);
}

static thread_iterators *iterators_for_this_thread(UErrorCode *status) {
    pthread_once(&prototype_once, open_prototypes);
    if (U_FAILURE(prototype_status)) {
        *status = prototype_status;
        return NULL;
    }
    thread_iterators *its = pthread_getspecific(thread_key);
    if (its != NULL) return its;
    its = calloc(1, sizeof *its);
    if (its == NULL) {
        *status = U_MEMORY_ALLOCATION_ERROR;
        return NULL;
    }
    its->line = ubrk_clone(line_prototype, status);
    if (U_SUCCESS(*status)) its->grapheme = ubrk_clone(grapheme_prototype, status);
    if (U_FAILURE(*status)) {
        free_thread_iterators(its);
        return NULL;
    }
    pthread_setspecific(thread_key, its);
    return its;
}

int32_t cub_analyze(const char *utf8, int32_t length, uint8_t *flags) {
    return cub_analyze_with(utf8, length, flags, CUB_STRICTNESS_STRICT);
}

int32_t cub_analyze_with(const char *utf8, int32_t length, uint8_t *flags, int32_t strictness) {
    memset(flags, 0, (size_t)length + 1);
    if (length == 0) return 0;
    UErrorCode status = U_ZERO_ERROR;
    thread_iterators *its = iterators_for_this_thread(&status);
    if (its == NULL) return status;
    UBreakIterator *line = its->line;
    if (strictness == CUB_STRICTNESS_NORMAL) {
        if (its->line_normal == NULL) {
            its->line_normal = ubrk_clone(line_normal_prototype, &status);
            if (U_FAILURE(status)) return status;
        }
        line = its->line_normal;
    }

    // ASCII without CR or LF (paragraphs never hold them): every byte is its own grapheme cluster
    // (UAX #29 joins nothing else in ASCII), so the grapheme pass can be skipped.
    int ascii = 1;
    for (int32_t i = 0; i < length; i++) {
        unsigned char byte = (unsigned char)utf8[i];
        if (byte >= 0x80 || byte == '\r' || byte == '\n') { ascii = 0; break; }
    }
    int32_t units = to_utf16(its, utf8, length);
    if (units < 0) return U_MEMORY_ALLOCATION_ERROR;
    const int32_t *offset = its->utf8_offset;

    if (ascii) {
        for (int32_t b = 1; b <= length; b++) flags[b] |= CUB_GRAPHEME_BOUNDARY;
    } else {
        ubrk_setText(its->grapheme, its->utf16, units, &status);
        if (U_SUCCESS(status)) {
            for (int32_t b = ubrk_following(its->grapheme, 0); b != UBRK_DONE; b = ubrk_next(its->grapheme)) {
                flags[offset[b]] |= CUB_GRAPHEME_BOUNDARY;
            }
        }
    }
    ubrk_setText(line, its->utf16, units, &status);
    if (U_SUCCESS(status)) {
        for (int32_t b = ubrk_following(line, 0); b != UBRK_DONE; b = ubrk_next(line)) {
            int32_t rule = ubrk_getRuleStatus(line);
            flags[offset[b]] |= CUB_LINE_BREAK;
            if (rule >= UBRK_LINE_HARD && rule < UBRK_LINE_HARD_LIMIT) flags[offset[b]] |= CUB_MANDATORY_BREAK;
        }
    }
    return U_FAILURE(status) ? status : 0;
}

uint8_t cub_scalar_properties(uint32_t c) {
    uint8_t properties = 0;
    int8_t type = u_charType((UChar32)c);
    if (c == '\t' || type == U_SPACE_SEPARATOR) properties |= CUB_HANGING_SPACE | CUB_FONT_NEUTRAL;
    if (type == U_CONTROL_CHAR || type == U_FORMAT_CHAR || (c >= 0xFE00 && c <= 0xFE0F) ||
        (c >= 0xE0100 && c <= 0xE01EF)) {
        properties |= CUB_FONT_NEUTRAL;
    }
    // Emoji properties only exist outside ASCII and Latin-1 letters; skip the look-ups for most text.
    if (c >= 0xA9) {
        if (u_hasBinaryProperty((UChar32)c, UCHAR_EMOJI_PRESENTATION)) properties |= CUB_EMOJI_PRESENTATION;
        if (u_hasBinaryProperty((UChar32)c, UCHAR_EXTENDED_PICTOGRAPHIC)) properties |= CUB_EXTENDED_PICTOGRAPHIC;
    }
    return properties;
}
