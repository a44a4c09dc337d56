#include "CUnicodeBreak.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>

// One prototype per kind, opened once; each thread clones its own working copies.
static UBreakIterator *line_prototype;
static UBreakIterator *grapheme_prototype;
static UErrorCode prototype_status = U_ZERO_ERROR;
static pthread_once_t prototype_once = PTHREAD_ONCE_INIT;
static pthread_key_t thread_key;

typedef struct {
    UBreakIterator *line;
    UBreakIterator *grapheme;
} thread_iterators;

static void free_thread_iterators(void *pointer) {
    thread_iterators *its = pointer;
    if (its == NULL) return;
    if (its->line) ubrk_close(its->line);
    if (its->grapheme) ubrk_close(its->grapheme);
    free(its);
}

static void open_prototypes(void) {
    pthread_key_create(&thread_key, free_thread_iterators);
    // The root locale: UAX #14 defaults plus ICU's dictionaries for South-East Asian scripts.
    line_prototype = ubrk_open(UBRK_LINE, "", NULL, 0, &prototype_status);
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
    memset(flags, 0, (size_t)length + 1);
    if (length == 0) return 0;
    UErrorCode status = U_ZERO_ERROR;
    thread_iterators *its = iterators_for_this_thread(&status);
    if (its == NULL) return status;

    UText text = UTEXT_INITIALIZER;
    utext_openUTF8(&text, utf8, length, &status);
    if (U_FAILURE(status)) return status;

    // ASCII without CR or LF (paragraphs never hold them): every byte is its own grapheme cluster
    // (UAX #29 joins nothing else in ASCII), so the grapheme pass can be skipped.
    int ascii = 1;
    for (int32_t i = 0; i < length; i++) {
        unsigned char byte = (unsigned char)utf8[i];
        if (byte >= 0x80 || byte == '\r' || byte == '\n') { ascii = 0; break; }
    }
    if (ascii) {
        for (int32_t b = 1; b <= length; b++) flags[b] |= CUB_GRAPHEME_BOUNDARY;
    } else {
        ubrk_setUText(its->grapheme, &text, &status);
    }
    if (!ascii && U_SUCCESS(status)) {
        for (int32_t b = ubrk_following(its->grapheme, 0); b != UBRK_DONE; b = ubrk_next(its->grapheme)) {
            flags[b] |= CUB_GRAPHEME_BOUNDARY;
        }
    }
    ubrk_setUText(its->line, &text, &status);
    if (U_SUCCESS(status)) {
        for (int32_t b = ubrk_following(its->line, 0); b != UBRK_DONE; b = ubrk_next(its->line)) {
            int32_t rule = ubrk_getRuleStatus(its->line);
            flags[b] |= CUB_LINE_BREAK;
            if (rule >= UBRK_LINE_HARD && rule < UBRK_LINE_HARD_LIMIT) flags[b] |= CUB_MANDATORY_BREAK;
        }
    }
    // The iterators keep a pointer to `text`; detach them before it goes out of scope.
    UErrorCode ignored = U_ZERO_ERROR;
    ubrk_setText(its->grapheme, NULL, 0, &ignored);
    ubrk_setText(its->line, NULL, 0, &ignored);
    utext_close(&text);
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
