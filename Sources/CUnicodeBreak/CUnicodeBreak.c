#include "CUnicodeBreak.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>

// One prototype per kind, opened once; each thread clones its own working copies.
static UBreakIterator *line_prototype;
// ICU's `line_normal` rules (CSS `line-break: normal`: a break before small kana and U+30FC).
static UBreakIterator *line_normal_prototype;
static UBreakIterator *grapheme_prototype;
static UErrorCode prototype_status = U_ZERO_ERROR;
static pthread_once_t prototype_once = PTHREAD_ONCE_INIT;
static pthread_key_t thread_key;

// Grapheme_Cluster_Break look-ups (see `grapheme_boundaries`): one byte per code point, stored XOR
// GCB_UNKNOWN so that the zeroed allocation reads as "not looked up yet"; allocated with the break
// iterators' prototypes, filled one character at a time as text shows them (pages of the 1.1 MB that
// no text reaches are never mapped). NULL if the allocation failed: every look-up then asks ICU.
enum { GCB_UNKNOWN = 0x1F };
static _Atomic(uint8_t) *gcb_table;

typedef struct {
    UBreakIterator *line;
    UBreakIterator *line_normal;   // cloned on first use: most threads never need it
    UBreakIterator *grapheme;      // cloned on first use: only cub_grapheme_boundaries_icu needs it
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

// The scalar starting at `bytes` (valid UTF-8) and, in `*size`, its length in bytes.
static inline uint32_t decode_utf8(const unsigned char *bytes, int32_t *size) {
    uint32_t c = bytes[0];
    if (c < 0x80) { *size = 1; return c; }
    if (c < 0xE0) { *size = 2; return (c & 0x1F) << 6 | (bytes[1] & 0x3F); }
    if (c < 0xF0) { *size = 3; return (c & 0x0F) << 12 | (bytes[1] & 0x3F) << 6 | (bytes[2] & 0x3F); }
    *size = 4;
    return (c & 0x07) << 18 | (bytes[1] & 0x3F) << 12 | (bytes[2] & 0x3F) << 6 | (bytes[3] & 0x3F);
}

// Makes the thread's UTF-16 buffers hold a text of `length` UTF-8 bytes. Returns 0, or -1 when
// memory runs out.
static int reserve_utf16(thread_iterators *its, int32_t length) {
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
    return 0;
}

// Stores the scalar `c` (at UTF-8 offset `i`) as UTF-16 at `utf16[n]`, with the UTF-8 offset of each
// unit; returns the next unit's index.
static inline int32_t put_utf16(UChar *utf16, int32_t *utf8_offset, int32_t n, uint32_t c, int32_t i) {
    if (c >= 0x10000) {
        utf8_offset[n] = i;
        utf16[n++] = (UChar)(0xD800 + ((c - 0x10000) >> 10));
        utf8_offset[n] = i;   // never a boundary: inside a surrogate pair
        utf16[n++] = (UChar)(0xDC00 + ((c - 0x10000) & 0x3FF));
    } else {
        utf8_offset[n] = i;
        utf16[n++] = (UChar)c;
    }
    return n;
}

// Converts UTF-8 (valid: it comes from a Swift String) to UTF-16 in the thread's buffers. Returns
// the UTF-16 length, or -1 when memory runs out.
static int32_t to_utf16(thread_iterators *its, const char *utf8, int32_t length) {
    if (reserve_utf16(its, length) < 0) return -1;
    const unsigned char *bytes = (const unsigned char *)utf8;
    int32_t i = 0, n = 0;
    while (i < length) {
        int32_t size;
        uint32_t c = decode_utf8(bytes + i, &size);
        n = put_utf16(its->utf16, its->utf8_offset, n, c, i);
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
    gcb_table = calloc(0x110000, sizeof *gcb_table);
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
    if (U_FAILURE(*status)) {
        free_thread_iterators(its);
        return NULL;
    }
    pthread_setspecific(thread_key, its);
    return its;
}

// ---- Grapheme cluster boundaries (UAX #29, as ICU's char.txt rules implement it) ----
//
// ICU's rule-based iterator costs about 250 instructions per boundary; this state machine reads one
// table byte per character. Per character: its Grapheme_Cluster_Break value (ICU's UGraphemeClusterBreak,
// 0...17, or GCB_EXTEND_CCC for an Extend with a non-zero combining class) in the low five bits;
// GCB_PICT for Extended_Pictographic (either side of a ZWJ in an emoji sequence, GB11); and for ICU's
// Indic conjunct rule (its GB9c, for Bengali, Devanagari, Gujarati, Malayalam, Oriya and Telugu),
// GCB_CONSONANT for a consonant (Indic_Syllabic_Category) and GCB_VIRAMA for a virama (ccc 9) of those
// scripts.

enum { GCB_MASK = 0x1F, GCB_EXTEND_CCC = 18, GCB_CONSONANT = 0x20, GCB_PICT = 0x40, GCB_VIRAMA = 0x80 };

static int gcb_conjunct_script(UChar32 c) {
    // The six scripts' blocks (Devanagari's extensions included); nothing else needs the look-up.
    if (!((c >= 0x0900 && c < 0x0D80) || (c >= 0xA8E0 && c < 0xA900) || (c >= 0x11B00 && c < 0x11B60))) return 0;
    UErrorCode status = U_ZERO_ERROR;
    UScriptCode script = uscript_getScript(c, &status);
    return U_SUCCESS(status) && (script == USCRIPT_BENGALI || script == USCRIPT_DEVANAGARI ||
        script == USCRIPT_GUJARATI || script == USCRIPT_MALAYALAM || script == USCRIPT_ORIYA || script == USCRIPT_TELUGU);
}


static uint8_t gcb_compute(UChar32 c) {
    uint8_t value = (uint8_t)u_getIntPropertyValue(c, UCHAR_GRAPHEME_CLUSTER_BREAK) & GCB_MASK;
    if (value == U_GCB_EXTEND && u_getCombiningClass(c) != 0) value = GCB_EXTEND_CCC;
    if (gcb_conjunct_script(c)) {
        if (u_getCombiningClass(c) == 9) value |= GCB_VIRAMA;
        if (u_getIntPropertyValue(c, UCHAR_INDIC_SYLLABIC_CATEGORY) == U_INSC_CONSONANT) value |= GCB_CONSONANT;
    }
    if (c >= 0xA9 && u_hasBinaryProperty(c, UCHAR_EXTENDED_PICTOGRAPHIC)) value |= GCB_PICT;
    return value;
}

static inline uint8_t gcb_of(uint32_t c) {
    if (c >= 0x110000) return U_GCB_OTHER;
    if (gcb_table == NULL) return gcb_compute((UChar32)c);
    uint8_t value = atomic_load_explicit(&gcb_table[c], memory_order_relaxed) ^ GCB_UNKNOWN;
    if ((value & GCB_MASK) == GCB_UNKNOWN) {
        value = gcb_compute((UChar32)c);
        // Threads racing here store the same byte.
        atomic_store_explicit(&gcb_table[c], value ^ GCB_UNKNOWN, memory_order_relaxed);
    }
    return value;
}

static inline int gcb_is_control(uint8_t g) { return g == U_GCB_CONTROL || g == U_GCB_CR || g == U_GCB_LF; }

// Marks a boundary before every grapheme cluster after the first (UTF-8 offsets, `length` included),
// and converts the text to UTF-16 in the thread's buffers in the same pass (see `to_utf16`: one
// decoding per scalar). Returns the UTF-16 length, or -1 when memory runs out.
static int32_t grapheme_boundaries(thread_iterators *its, const unsigned char *bytes, int32_t length, uint8_t *flags) {
    if (reserve_utf16(its, length) < 0) return -1;
    UChar *utf16 = its->utf16;
    int32_t *utf8_offset = its->utf8_offset;
    int32_t n = 0;
    uint8_t previous = 0xFF;   // none yet
    int pict_then_extends = 0; // the characters since the last pictograph are Extend only
    int zwj_after_pict = 0;    // `previous` is a ZWJ that follows a pictograph and Extends (GB11)
    int regional_run = 0;      // regional indicators in a row ending at `previous`
    int conjunct = 0;          // GB9c: 1 after a consonant (and Extend-with-ccc or ZWJ), 2 once a virama followed
    int32_t i = 0;
    while (i < length) {
        int32_t size;
        uint32_t c = decode_utf8(bytes + i, &size);
        n = put_utf16(utf16, utf8_offset, n, c, i);
        // ASCII needs no table: CR, LF, the controls, and the rest Other.
        uint8_t value = c >= 0x80 ? gcb_of(c)
            : c == '\r' ? U_GCB_CR : c == '\n' ? U_GCB_LF : (c < 0x20 || c == 0x7F) ? U_GCB_CONTROL : U_GCB_OTHER;
        if (value == U_GCB_OTHER) {
            // The common case, Other with none of the flags: no rule before GB999 joins it except
            // GB9b (after a Prepend; GB3 to GB8, GB9, GB9a, GB9c, GB11 and GB12/13 need another class
            // or flag on this side), and it ends every state below.
            if (previous != 0xFF && previous != U_GCB_PREPEND) flags[i] |= CUB_GRAPHEME_BOUNDARY;
            zwj_after_pict = pict_then_extends = conjunct = regional_run = 0;
            previous = U_GCB_OTHER;
            i += size;
            continue;
        }
        uint8_t g = value & GCB_MASK;
        if (previous != 0xFF) {
            uint8_t p = previous;
            int join;
            if (p == U_GCB_CR && g == U_GCB_LF) join = 1;                                   // GB3
            else if (gcb_is_control(p) || gcb_is_control(g)) join = 0;                      // GB4, GB5
            else if (p == U_GCB_L && (g == U_GCB_L || g == U_GCB_V || g == U_GCB_LV || g == U_GCB_LVT)) join = 1; // GB6
            else if ((p == U_GCB_LV || p == U_GCB_V) && (g == U_GCB_V || g == U_GCB_T)) join = 1;              // GB7
            else if ((p == U_GCB_LVT || p == U_GCB_T) && g == U_GCB_T) join = 1;                               // GB8
            else if (g == U_GCB_EXTEND || g == GCB_EXTEND_CCC || g == U_GCB_ZWJ || g == U_GCB_SPACING_MARK) join = 1; // GB9, GB9a
            else if (p == U_GCB_PREPEND) join = 1;                                                             // GB9b
            else if (conjunct == 2 && (value & GCB_CONSONANT)) join = 1;                                      // GB9c
            else if (zwj_after_pict && (value & GCB_PICT)) join = 1;                                          // GB11
            else if (p == U_GCB_REGIONAL_INDICATOR && g == U_GCB_REGIONAL_INDICATOR) join = regional_run % 2; // GB12, GB13
            else join = 0;                                                                                     // GB999
            if (!join) flags[i] |= CUB_GRAPHEME_BOUNDARY;
        }
        zwj_after_pict = g == U_GCB_ZWJ && pict_then_extends;
        if (value & GCB_PICT) pict_then_extends = 1;
        else if (g != U_GCB_EXTEND && g != GCB_EXTEND_CCC) pict_then_extends = 0;
        if (value & GCB_CONSONANT) conjunct = 1;
        else if (value & GCB_VIRAMA) conjunct = conjunct ? 2 : 0;
        else if (g != GCB_EXTEND_CCC && g != U_GCB_ZWJ) conjunct = 0;
        regional_run = g == U_GCB_REGIONAL_INDICATOR ? regional_run + 1 : 0;
        previous = g;
        i += size;
    }
    flags[length] |= CUB_GRAPHEME_BOUNDARY;
    utf8_offset[n] = length;
    return n;
}

int32_t cub_grapheme_boundaries_icu(const char *utf8, int32_t length, uint8_t *flags) {
    if (length == 0) return 0;
    UErrorCode status = U_ZERO_ERROR;
    thread_iterators *its = iterators_for_this_thread(&status);
    if (its == NULL) return status;
    if (its->grapheme == NULL) {
        // Cloned on first use: only this reference needs ICU's grapheme iterator.
        its->grapheme = ubrk_clone(grapheme_prototype, &status);
        if (U_FAILURE(status)) return status;
    }
    int32_t units = to_utf16(its, utf8, length);
    if (units < 0) return U_MEMORY_ALLOCATION_ERROR;
    ubrk_setText(its->grapheme, its->utf16, units, &status);
    if (U_FAILURE(status)) return status;
    for (int32_t b = ubrk_following(its->grapheme, 0); b != UBRK_DONE; b = ubrk_next(its->grapheme)) {
        flags[its->utf8_offset[b]] |= CUB_GRAPHEME_BOUNDARY;
    }
    return 0;
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
    // (UAX #29 joins nothing else in ASCII), so the grapheme pass can be skipped. The bytes are
    // converted to UTF-16 and marked as they are checked; at the first other byte, the grapheme pass
    // starts again from the beginning (the boundaries marked so far, between two such bytes, are its).
    if (reserve_utf16(its, length) < 0) return U_MEMORY_ALLOCATION_ERROR;
    UChar *utf16 = its->utf16;
    int32_t *utf8_offset = its->utf8_offset;
    int32_t units = 0;
    while (units < length) {
        unsigned char byte = (unsigned char)utf8[units];
        if (byte >= 0x80 || byte == '\r' || byte == '\n') break;
        utf16[units] = byte;
        utf8_offset[units] = units;
        if (units > 0) flags[units] = CUB_GRAPHEME_BOUNDARY;
        units++;
    }
    if (units == length) {
        utf8_offset[length] = length;
        flags[length] = CUB_GRAPHEME_BOUNDARY;
    } else {
        units = grapheme_boundaries(its, (const unsigned char *)utf8, length, flags);
    }
    if (units < 0) return U_MEMORY_ALLOCATION_ERROR;
    const int32_t *offset = its->utf8_offset;
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

static uint8_t scalar_properties(uint32_t c);

uint8_t cub_scalar_properties_uncached(uint32_t c) { return scalar_properties(c); }

/* The properties of the scalars of planes 0 and 1 (every script's letters, and the emoji), each
   computed on first use: ICU's emoji look-ups cost about 150 instructions a scalar, and the
   itemizer asks for every scalar of every text. Bit 7 marks an entry as computed. Threads may
   compute the same entry at once; they store the same byte, with relaxed atomics (128 KiB of
   zeroed memory, touched page by page as scripts are met). */
static uint8_t plane01_properties[0x20000];

uint8_t cub_scalar_properties(uint32_t c) {
    if (c >= 0x20000) return scalar_properties(c);
    uint8_t known = __atomic_load_n(&plane01_properties[c], __ATOMIC_RELAXED);
    if (known & 0x80) return known & 0x7F;
    uint8_t properties = scalar_properties(c);
    __atomic_store_n(&plane01_properties[c], (uint8_t)(properties | 0x80), __ATOMIC_RELAXED);
    return properties;
}

static uint8_t scalar_properties(uint32_t c) {
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
