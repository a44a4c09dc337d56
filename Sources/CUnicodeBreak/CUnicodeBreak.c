#include "CUnicodeBreak.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <thai/thbrk.h>
#include <thai/thwchar.h>
#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/ucptrie.h>
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

static void load_line_machines(void);

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
    if (U_FAILURE(prototype_status)) return;
    load_line_machines();
}

void cub_prepare(void) {
    pthread_once(&prototype_once, open_prototypes);
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

// Could the three-byte UTF-8 sequence starting `b0 b1` encode a character that ICU breaks with a
// dictionary (Line_Break class SA)? Those are in U+0E00...0EFF (Thai, Lao), U+1000...10BF (Myanmar;
// the filter lets Georgian capitals through), U+1780...17FF (Khmer), U+1980...1ABF (New Tai Lue,
// Khmer symbols, Buginese, Tai Tham), U+A9C0...A9FF (Javanese, Myanmar Extended-B) and U+AA40...AAFF
// (Cham, Myanmar Extended-A, Tai Viet, Meetei Mayek extensions). A cheap filter (most text fails at
// `b0`); the caller checks the class of what passes.
static inline int dictionary_script_candidate(unsigned char b0, unsigned char b1) {
    switch (b0) {
    case 0xE0: return b1 >= 0xB8 && b1 <= 0xBB;
    case 0xE1: return (b1 >= 0x80 && b1 <= 0x82) || b1 == 0x9E || b1 == 0x9F || (b1 >= 0xA6 && b1 <= 0xAA);
    case 0xEA: return b1 == 0xA7 || (b1 >= 0xA9 && b1 <= 0xAB);
    default: return 0;
    }
}

static ThBrk *thai_shared(void);

int32_t cub_prepare_dictionaries(const char *utf8, int32_t length, int32_t engines) {
    UErrorCode status = U_ZERO_ERROR;
    thread_iterators *its = iterators_for_this_thread(&status);
    if (its == NULL) return 0;
    const unsigned char *bytes = (const unsigned char *)utf8;
    const int32_t end = length < (1 << 16) ? length : (1 << 16);
    UScriptCode seen[16];
    int32_t found = 0;
    for (int32_t i = 0; i + 2 < end && found < 16; i++) {
        if (!dictionary_script_candidate(bytes[i], bytes[i + 1]) || (bytes[i + 2] & 0xC0) != 0x80) continue;
        const UChar32 c = ((bytes[i] & 0x0F) << 12) | ((bytes[i + 1] & 0x3F) << 6) | (bytes[i + 2] & 0x3F);
        i += 2;
        // Only letters of class SA go to a dictionary: a Thai digit (NU) or mark of another class
        // found first must not stand for its script.
        if (u_getIntPropertyValue(c, UCHAR_LINE_BREAK) != U_LB_COMPLEX_CONTEXT) continue;
        status = U_ZERO_ERROR;
        const UScriptCode script = uscript_getScript(c, &status);
        if (U_FAILURE(status) || script <= USCRIPT_INHERITED) continue;
        int known = 0;
        for (int32_t k = 0; k < found; k++) known |= seen[k] == script;
        if (known) continue;
        seen[found++] = script;
        // Pango's Thai dictionary (loaded once per process, shared).
        if (script == USCRIPT_THAI && (engines & CUB_DICTIONARIES_PANGO)) (void)thai_shared();
        if (!(engines & CUB_DICTIONARIES_ICU)) continue;
        // Two of the character: a run ICU hands to the script's engine, which it loads then.
        const UChar run[2] = { (UChar)c, (UChar)c };
        status = U_ZERO_ERROR;
        ubrk_setText(its->line, run, 2, &status);
        if (U_SUCCESS(status)) (void)ubrk_following(its->line, 0);
    }
    // Not left pointing at `run`, which is gone on return (every analysis sets its text first anyway).
    static const UChar none[1] = { 0 };
    status = U_ZERO_ERROR;
    ubrk_setText(its->line, none, 0, &status);
    return found;
}

// ---- Grapheme cluster boundaries (UAX #29, as ICU's char.txt rules implement it) ----
//
// ICU's rule-based iterator walks its rules for every boundary; this state machine reads one table
// byte per character (docs/performance-profile.md has the counts). Per character: its Grapheme_Cluster_Break value (ICU's UGraphemeClusterBreak,
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

// Indic scripts whose items Pango 1.50 tailors (`break_indic`): a joiner and the character after it
// (and, when that is a virama, the one after the virama) never start a cluster.
static inline int is_pango_indic_block(uint32_t c) { return c >= 0x0900 && c < 0x0E00; }
static inline int is_pango_indic_virama(uint32_t c) {
    return c == 0x094D || c == 0x09CD || c == 0x0A4D || c == 0x0ACD || c == 0x0B4D || c == 0x0BCD ||
        c == 0x0C4D || c == 0x0CCD || c == 0x0D4D;
}

// Marks a boundary before every grapheme cluster after the first (UTF-8 offsets, `length` included).
// With `pango`, as GLib and Pango 1.50 find them instead of ICU 72: no conjunct rule (GB9c: a virama
// followed by a consonant ends a cluster), Pango's Indic tailoring after ZWJ and ZWNJ, and Thai and
// Lao SARA AM as clusters of their own.
static void grapheme_boundaries(const unsigned char *bytes, int32_t length, uint8_t *flags, int pango) {
    uint8_t previous = 0xFF;   // none yet
    int pict_then_extends = 0; // the characters since the last pictograph are Extend only
    int zwj_after_pict = 0;    // `previous` is a ZWJ that follows a pictograph and Extends (GB11)
    int regional_run = 0;      // regional indicators in a row ending at `previous`
    int conjunct = 0;          // GB9c: 1 after a consonant (and Extend-with-ccc or ZWJ), 2 once a virama followed
    int joined = 0;            // Pango: 1 after an Indic joiner, 2 after a joiner and a virama
    int32_t i = 0;
    while (i < length) {
        int32_t size;
        uint32_t c = decode_utf8(bytes + i, &size);
        // ASCII needs no table: CR, LF, the controls, and the rest Other.
        uint8_t value = c >= 0x80 ? gcb_of(c)
            : c == '\r' ? U_GCB_CR : c == '\n' ? U_GCB_LF : (c < 0x20 || c == 0x7F) ? U_GCB_CONTROL : U_GCB_OTHER;
        // GLib takes a SpacingMark from the general category Mc: Thai and Lao SARA AM (Lo) start a
        // cluster of their own in Pango.
        if (pango && (c == 0x0E33 || c == 0x0EB3)) value = U_GCB_OTHER;
        if (joined) {
            // Pango: after a joiner in Indic text (and after a virama after one), this character
            // joins the cluster whatever it is.
            joined = joined == 1 && is_pango_indic_virama(c) ? 2 : 0;
            zwj_after_pict = pict_then_extends = conjunct = regional_run = 0;
            previous = value & GCB_MASK;
            i += size;
            continue;
        }
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
            else if (!pango && conjunct == 2 && (value & GCB_CONSONANT)) join = 1;                            // GB9c
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
        if (pango && (c == 0x200D || c == 0x200C) && i > 0) {
            // `break_indic` looks at the script of the item; the joiner's neighbour tells it here.
            int32_t before = i - 1;
            while (before > 0 && (bytes[before] & 0xC0) == 0x80) before--;
            int32_t ignored;
            if (is_pango_indic_block(decode_utf8(bytes + before, &ignored))) joined = 1;
        }
        previous = g;
        i += size;
    }
    flags[length] |= CUB_GRAPHEME_BOUNDARY;
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

// ---- Line breaks (UAX #14 as ICU's line.txt / line_normal.txt rules implement it) ----
//
// ICU 72's line rules are not plain UAX #14: they chain rules (`!!chain`: a rule may continue from
// the end of another's match), tailor LB8a, LB9/LB10 (a combining mark after a space or a control
// is AL), LB15 (QU before OP), LB21a, LB25 (one regular expression over a whole number, prefix to
// postfix), LB30 (only OP/CP of East_Asian_Width other than F, W, H) and LB30b (unassigned
// pictographs as EB), and hand class SA (Thai, Lao, Khmer, Myanmar, ...) to dictionaries. Rather
// than restate those rules by hand, this pass runs the state machine ICU compiled from them: the
// iterator's binary rules (`ubrk_getBinaryRules`, a public API) hold a trie from character to
// category (a set of characters no rule tells apart: one Line_Break class, or part of one) and the
// forward DFA over categories; `line_breaks` is ICU's `RuleBasedBreakIterator::handleNext` loop,
// over UTF-8. Each match starts at the last break and runs until the DFA stops; the break goes after
// the last character that left it in an accepting state, or, for the three '/' rules (LB8
// `$ZW $SP* / [^...]`, LB15's `$SP $IS / [^...]`, LB30a's `$RI $CM* $RI / [...]`), at the '/'. A
// break's rule status says whether it is mandatory: 100 (UBRK_LINE_HARD) for LB4 and LB5, after BK,
// NL, LF, CR not before LF; 0 otherwise. The two rule sets differ only in CJ: NS in line.txt (LB21,
// no break before small kana), ID in line_normal.txt.
//
// What this saves is ICU's machinery around that loop (UTF-16, UText, the break cache, about 500
// instructions per break); the loop reads one category byte and one table row per character.
//
// Characters of a dictionary category ($dictionary = [$SA]) are ordinary categories to the loop, as
// to ICU's; the breaks ICU's dictionaries add inside their runs come from ICU's iterator over each run
// alone, cached (`dictionary_breaks`, which says why that is exact). If the compiled data is not in
// the layout this loop reads (RBBI data format 6, ICU 68 and later), every paragraph goes to ICU's
// iterator whole (`line_breaks_icu`).

typedef struct {
    // The forward state table as 16-bit rows of `stride` entries: accepting (0 no, 1 a break after
    // this character, > 1 a look-ahead rule completed: the break goes where that rule's '/' was),
    // look-ahead slot (> 1 at the '/' of a rule: remember this position), the flags a break there
    // gets (CUB_LINE_BREAK, and CUB_MANDATORY_BREAK if its rule status is UBRK_LINE_HARD), then
    // per category the next state: its row's offset, with LINE_ACCEPTS if that row's accepting is 1
    // and LINE_SPECIAL if it is the stop state (0, offset 0), completes a look-ahead rule or holds a
    // '/'. State 1 starts.
    uint16_t *rows;
    uint32_t stride;
    uint32_t dictionary_start;     // first category handled by ICU's dictionaries
    uint32_t categories;
    uint8_t unmatched;             // the flags of a break no rule made (rule-status group 0)
    UCPTrie *trie;                 // character → category: 3 and up (1 is end of text, 2 start)
    uint8_t ascii[128];            // categories of ASCII, looked up once
    // Categories of the other characters, filled as text shows them (as `gcb_table`): stored + 1,
    // so that zero means "not looked up yet".
    _Atomic(uint8_t) *table;
} line_machine;

// Index CUB_STRICTNESS_STRICT, CUB_STRICTNESS_NORMAL; `rows` NULL if that rule set is not usable.
static line_machine line_machines[2];

enum { RBBI_BOF_REQUIRED = 2, RBBI_8BITS_ROWS = 4, LINE_LOOKAHEAD_MAX = 64, LINE_END_OF_TEXT = 1 };
enum { LINE_ACCEPTS = 0x8000, LINE_SPECIAL = 0x4000, LINE_ROW_MASK = 0x3FFF };
// The category `line_category` gives a character the data has no valid category for (above every
// real one: the data must have fewer than LINE_INVALID categories).
enum { LINE_INVALID = 254 };

// The flags of a break whose rule has the rule-status group at `group` (the largest value of a group
// is ubrk_getRuleStatus's).
static uint16_t line_break_flags(const int32_t *groups, uint32_t group) {
    int32_t value = groups[group + (uint32_t)groups[group]];
    return value >= UBRK_LINE_HARD && value < UBRK_LINE_HARD_LIMIT ? CUB_LINE_BREAK | CUB_MANDATORY_BREAK : CUB_LINE_BREAK;
}

static uint32_t read_u32(const uint8_t *data, uint32_t offset) {
    uint32_t value;
    memcpy(&value, data + offset, sizeof value);
    return value;
}

// Reads the compiled rules of `iterator` into `m`. Leaves `m->rows` NULL when anything does not fit
// what `line_breaks` reads: a format other than 6 (RBBIDataHeader of ICU 68 and later), a table
// outside the data, rules that need the beginning-of-text pseudo-character ({bof}; ICU 72's line
// rules have none: their '^' only stops chaining), LINE_INVALID categories or more, an ASCII character outside
// 3...dictionary_start - 1 (other characters are checked as they are looked up), more look-ahead
// slots than `LINE_LOOKAHEAD_MAX`, rows of more than LINE_ROW_MASK entries in all.
static void load_line_machine(line_machine *m, UBreakIterator *iterator) {
    UErrorCode status = U_ZERO_ERROR;
    int32_t size = ubrk_getBinaryRules(iterator, NULL, 0, &status);
    if (size < 80 || (status != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(status))) return;
    uint8_t *data = malloc((size_t)size);
    if (data == NULL) return;
    status = U_ZERO_ERROR;
    ubrk_getBinaryRules(iterator, data, size, &status);
    // RBBIDataHeader: magic, format version, length, category count, then offset/length pairs of the
    // forward table, the reverse table, the trie, the rule source and the status table.
    uint32_t categories = read_u32(data, 12), table = read_u32(data, 16), table_length = read_u32(data, 20);
    uint32_t trie = read_u32(data, 32), trie_length = read_u32(data, 36);
    uint32_t statuses = read_u32(data, 48), statuses_length = read_u32(data, 52);
    if (U_FAILURE(status) || read_u32(data, 0) != 0xB1A0 || data[4] != 6 || categories >= LINE_INVALID ||
        table + table_length > (uint32_t)size || table_length < 20 || trie + trie_length > (uint32_t)size ||
        statuses + statuses_length > (uint32_t)size || statuses % 4 != 0 || statuses_length < 8) {
        free(data);
        return;
    }
    // RBBIStateTable: state count, row length in bytes, first dictionary category, look-ahead slot
    // count, flags, then the rows (8- or 16-bit fields).
    uint32_t states = read_u32(data, table), row_length = read_u32(data, table + 4);
    uint32_t table_flags = read_u32(data, table + 16);
    uint32_t width = table_flags & RBBI_8BITS_ROWS ? 1 : 2;
    // The rule-status groups: a count, then the values (the largest last).
    const int32_t *groups = (const int32_t *)(const void *)(data + statuses);
    uint32_t group_entries = statuses_length / 4;
    m->stride = 3 + categories;
    m->dictionary_start = read_u32(data, table + 8);
    m->categories = categories;
    int32_t actual = 0;
    m->trie = ucptrie_openFromBinary(UCPTRIE_TYPE_ANY, UCPTRIE_VALUE_BITS_ANY, data + trie, (int32_t)trie_length, &actual, &status);
    m->rows = malloc(sizeof(uint16_t) * m->stride * (states ? states : 1));
    if (U_FAILURE(status) || m->rows == NULL || states < 2 || row_length != width * m->stride ||
        20 + (uint64_t)states * row_length > table_length || (uint64_t)states * m->stride > LINE_ROW_MASK ||
        read_u32(data, table + 12) > LINE_LOOKAHEAD_MAX || (table_flags & RBBI_BOF_REQUIRED) ||
        m->dictionary_start > categories || groups[0] != 1) {
        goto fail;
    }
    uint16_t target_flags[LINE_ROW_MASK / 3 + 1];   // per state: what entering it means (LINE_ACCEPTS, LINE_SPECIAL)
    for (uint32_t s = 0; s < states; s++) {
        const uint8_t *row = data + table + 20 + s * row_length;
        for (uint32_t k = 0; k < m->stride; k++) {
            uint16_t value;
            if (width == 1) value = row[k];
            else memcpy(&value, row + 2 * k, 2);
            // Next states must be states; a look-ahead slot must fit the array; a status index
            // must point at a group (its count, then its values) inside the table.
            if ((k >= 3 && value >= states) || (k < 2 && value >= LINE_LOOKAHEAD_MAX) ||
                (k == 2 && (value >= group_entries || groups[value] < 1 ||
                            (uint32_t)groups[value] >= group_entries - value))) goto fail;
            if (k == 2) value = line_break_flags(groups, value);
            m->rows[s * m->stride + k] = value;
        }
        const uint16_t *row16 = m->rows + s * m->stride;
        target_flags[s] = (uint16_t)((row16[0] == 1 ? LINE_ACCEPTS : 0) |
                                     (s == 0 || row16[0] > 1 || row16[1] > 1 ? LINE_SPECIAL : 0));
    }
    // Next states as row offsets with the flags of the state they enter.
    for (uint32_t s = 0; s < states; s++) {
        for (uint32_t k = 3; k < m->stride; k++) {
            uint16_t *entry = &m->rows[s * m->stride + k];
            *entry = (uint16_t)(*entry * m->stride) | target_flags[*entry];
        }
    }
    for (UChar32 c = 0; c < 128; c++) {
        uint32_t category = ucptrie_get(m->trie, c);
        if (category < 3 || category >= m->dictionary_start) goto fail;
        m->ascii[c] = (uint8_t)category;
    }
    m->unmatched = (uint8_t)line_break_flags(groups, 0);
    m->table = calloc(0x110000, sizeof *m->table);
    if (m->table == NULL) goto fail;
    return;   // `data` stays: the trie reads it in place
fail:
    if (m->trie) ucptrie_close(m->trie);
    free(m->rows);
    free(data);
    memset(m, 0, sizeof *m);
}

static void load_line_machines(void) {
    load_line_machine(&line_machines[CUB_STRICTNESS_STRICT], line_prototype);
    load_line_machine(&line_machines[CUB_STRICTNESS_NORMAL], line_normal_prototype);
}

// The category of `c` (not ASCII: see `ascii`).
static inline uint32_t line_category(const line_machine *m, uint32_t c) {
    uint8_t stored = atomic_load_explicit(&m->table[c], memory_order_relaxed);
    if (stored == 0) {
        uint32_t category = ucptrie_get(m->trie, (UChar32)c);
        // Not a character's category (corrupt data): let ICU's iterator have the text.
        if (category < 3 || category >= m->categories) category = LINE_INVALID;
        stored = (uint8_t)(category + 1);
        // Threads racing here store the same byte.
        atomic_store_explicit(&m->table[c], stored, memory_order_relaxed);
    }
    return stored - 1u;
}

// The category of the character at `bytes[*index]` (before the end), moving `*index` past it;
// LINE_INVALID if it has no valid category.
__attribute__((always_inline))
static inline uint32_t next_line_category(const line_machine *m, const unsigned char *bytes, int32_t *index) {
    if (bytes[*index] < 0x80) return m->ascii[bytes[(*index)++]];
    int32_t size;
    uint32_t category = line_category(m, decode_utf8(bytes + *index, &size));
    *index += size;
    return category;
}

// Marks the line breaks the rules give the text (`length` > 0) as ICU's iterator `m` finds them:
// CUB_LINE_BREAK at each break, with CUB_MANDATORY_BREAK where the rule that matched has a hard-break
// status (UBRK_LINE_HARD: LB4, LB5 after BK, CR, LF, NL). Characters of dictionary categories are
// ordinary categories here, as in ICU's `handleNext` (which only counts them): the breaks the
// dictionaries add inside them are `dictionary_breaks`'s. Returns 0, 1 if the text holds a character
// of a dictionary category, or -1 with no line flag left set when a character has no valid category
// (every character is read by some match).
static int line_breaks(const line_machine *m, const unsigned char *bytes, int32_t length, uint8_t *flags) {
    // Where each look-ahead rule's '/' was last seen. ICU never reads a slot its match has not
    // written (its table builder guarantees it), so the slots are not cleared between matches.
    int32_t lookahead[LINE_LOOKAHEAD_MAX];
    memset(lookahead, 0xFF, sizeof lookahead);   // -1: not seen
    const uint16_t *rows = m->rows;
    int dictionary = 0;
    int32_t position = 0;   // the last break: each match starts here
    while (position < length) {
        int32_t index = position;   // after the character read last (ICU's native index)
        uint32_t category = next_line_category(m, bytes, &index);
        if (category >= m->dictionary_start) {
            if (category == LINE_INVALID) goto invalid;
            dictionary = 1;
        }
        const int32_t first = index;
        int32_t result = position;
        uint16_t marks = 0;
        const uint16_t *row = rows + m->stride;   // START_STATE
        for (;;) {
            uint32_t next = row[3 + category];
            row = rows + (next & LINE_ROW_MASK);
            if (next & LINE_ACCEPTS) {
                result = index;
                marks = row[2];
            }
            if (next & LINE_SPECIAL) {
                if (row[0] > 1 && lookahead[row[0]] >= 0) {
                    // A look-ahead rule completed: break where its '/' was.
                    result = lookahead[row[0]];
                    marks = row[2];
                    break;
                }
                if (row[1] > 1) lookahead[row[1]] = index;
                if (row == rows) break;   // STOP_STATE: no longer match is possible
            }
            if (index == length) {
                if (category == LINE_END_OF_TEXT) break;   // the end-of-text step is done
                category = LINE_END_OF_TEXT;
            } else {
                category = next_line_category(m, bytes, &index);
                if (category >= m->dictionary_start) {
                    if (category == LINE_INVALID) goto invalid;
                    dictionary = 1;
                }
            }
        }
        // No rule matched a character: ICU moves on by one.
        if (result <= position) {
            result = first;
            marks = m->unmatched;
        }
        flags[result] |= (uint8_t)marks;
        position = result;
    }
    return dictionary;
invalid:
    for (int32_t i = 0; i <= length; i++) flags[i] &= (uint8_t)~(CUB_LINE_BREAK | CUB_MANDATORY_BREAK);
    return -1;
}

// ---- Breaks inside runs of dictionary characters (class SA: Thai, Lao, Khmer, Myanmar, ...) ----
//
// What ICU 72 does (rbbi_cache.cpp, dictbe.cpp, brkeng.cpp): `BreakCache::populateFollowing` takes
// the rule boundaries from `handleNext` one segment [from, to) at a time; when the segment held
// dictionary characters, `DictionaryCache::populateDictionary` walks it, and at each character of a
// dictionary category asks the language engine for that character (`getLanguageBreakEngine`) to
// break the maximal run of the characters that engine handles, from there up to `to`
// (`DictionaryBreakEngine::findBreaks`; Thai, Lao, Burmese and Khmer engines, whose sets are
// [[:script:]&[:LineBreak=SA:]]; SA characters of other scripts go to the `UnhandledEngine`, which
// skips them and breaks nothing). An engine reads only its run and returns the breaks strictly
// inside it ("Don't return a break for the end of the dictionary range"). The segment's boundaries
// are then its two rule boundaries plus those breaks, and each interior break gets the rule status
// of the segment's END boundary (`DictionaryCache::following` returns fOtherRuleStatusIndex, the
// status `handleNext` gave `to`): so in a segment that ends after a BK character (U+000B, U+000C,
// U+0085, U+2028, U+2029), the breaks inside a dictionary run are mandatory too.
//
// So the breaks inside a maximal run of dictionary-category characters that no rule boundary
// splits depend on the run's text alone. A rule boundary can fall inside such a run (an SA mark is
// CM to the rules: after a dash it attaches to the dash, and the next SA letter may start a segment);
// ICU then hands the engines the two pieces separately, so the pieces are taken as runs of their
// own. `dictionary_breaks` gets a run's breaks from ICU's iterator over the run's text alone (one
// rule segment, since the rules treat SA as AL; the breaks inside are the engines', the same engines
// on the same characters, scripts mixed or not) and caches them, keyed by the run's bytes and the
// rule set, so that a run met before never reaches ICU. The differential tests (LineBreakTests, and
// millions of random texts during development) compare the result with ICU's iterator on whole
// texts: no difference.

// The cache: RUN_CACHE_SLOTS entries at most, open addressing over RUN_CACHE_PROBES slots from the
// hash, a run of more than RUN_CACHE_MAX_BYTES never stored; one mutex (a look-up holds it for a
// hash probe and a copy of a few offsets). When the probed slots are all taken, one of them (in
// turn) is replaced.
enum { RUN_CACHE_SLOTS = 4096, RUN_CACHE_PROBES = 8, RUN_CACHE_MAX_BYTES = 512 };

typedef struct {
    uint64_t hash;
    int32_t length;       // of the run, in bytes
    int32_t strictness;
    int32_t count;        // breaks strictly inside the run
    uint16_t breaks[];    // `count` byte offsets from the run's start, then the run's `length` bytes
} run_entry;

static run_entry *run_cache[RUN_CACHE_SLOTS];
static unsigned run_cache_turn;
static pthread_mutex_t run_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t run_hash(const unsigned char *bytes, int32_t length, int32_t strictness) {
    uint64_t h = 0x9E3779B97F4A7C15u ^ (uint64_t)length ^ ((uint64_t)strictness << 32);
    int32_t i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t word;
        memcpy(&word, bytes + i, 8);
        h = (h ^ word) * 0xFF51AFD7ED558CCDu;
        h ^= h >> 29;
    }
    for (; i < length; i++) h = (h ^ bytes[i]) * 0x100000001B3u;
    return h ^ (h >> 32);
}

static inline const unsigned char *run_entry_bytes(const run_entry *e) {
    return (const unsigned char *)(e->breaks + e->count);
}

// ORs `marks` into `flags` at the cached breaks of the run, if it is cached. Returns 1 if it was.
__attribute__((noinline))
static int run_cache_lookup(const unsigned char *run, int32_t length, int32_t strictness, uint64_t hash, uint8_t *flags, uint8_t marks) {
    int found = 0;
    pthread_mutex_lock(&run_cache_lock);
    for (unsigned p = 0; p < RUN_CACHE_PROBES; p++) {
        const run_entry *e = run_cache[(hash + p) % RUN_CACHE_SLOTS];
        if (e == NULL) break;   // entries are only ever replaced, never removed: no gaps
        if (e->hash == hash && e->length == length && e->strictness == strictness &&
            memcmp(run_entry_bytes(e), run, (size_t)length) == 0) {
            for (int32_t k = 0; k < e->count; k++) flags[e->breaks[k]] |= marks;
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&run_cache_lock);
    return found;
}

static void run_cache_store(const unsigned char *run, int32_t length, int32_t strictness, uint64_t hash, const uint16_t *breaks, int32_t count) {
    run_entry *e = malloc(sizeof *e + sizeof(uint16_t) * (size_t)count + (size_t)length);
    if (e == NULL) return;
    e->hash = hash;
    e->length = length;
    e->strictness = strictness;
    e->count = count;
    memcpy(e->breaks, breaks, sizeof(uint16_t) * (size_t)count);
    memcpy((unsigned char *)(e->breaks + count), run, (size_t)length);
    run_entry *old = NULL;
    pthread_mutex_lock(&run_cache_lock);
    unsigned p = 0;
    for (; p < RUN_CACHE_PROBES; p++) {
        run_entry **slot = &run_cache[(hash + p) % RUN_CACHE_SLOTS];
        if (*slot == NULL) {
            *slot = e;
            break;
        }
        if ((*slot)->hash == hash && (*slot)->length == length && (*slot)->strictness == strictness &&
            memcmp(run_entry_bytes(*slot), run, (size_t)length) == 0) {
            old = e;   // another thread stored it meanwhile
            break;
        }
    }
    if (p == RUN_CACHE_PROBES) {
        run_entry **slot = &run_cache[(hash + run_cache_turn++ % RUN_CACHE_PROBES) % RUN_CACHE_SLOTS];
        old = *slot;
        *slot = e;
    }
    pthread_mutex_unlock(&run_cache_lock);
    free(old);
}

// The thread's ICU line iterator for `strictness` (the `line_normal` one cloned on first use); NULL
// with `*status` set if it cannot be made.
static UBreakIterator *line_iterator(thread_iterators *its, int32_t strictness, UErrorCode *status) {
    if (strictness != CUB_STRICTNESS_NORMAL) return its->line;
    if (its->line_normal == NULL) {
        its->line_normal = ubrk_clone(line_normal_prototype, status);
        if (U_FAILURE(*status)) return NULL;
    }
    return its->line_normal;
}

// The breaks strictly inside the run (`length` bytes at `run`), from ICU's iterator over the run
// alone, ORed into `flags` (indexed from the run's start) with `marks`, and stored in the cache if the
// run is short enough. Returns 0, or an ICU error code.
__attribute__((noinline))
static int32_t run_breaks_icu(thread_iterators *its, const unsigned char *run, int32_t length, int32_t strictness, uint64_t hash, uint8_t *flags, uint8_t marks) {
    UErrorCode status = U_ZERO_ERROR;
    UBreakIterator *line = line_iterator(its, strictness, &status);
    if (line == NULL) return status;
    int32_t units = to_utf16(its, (const char *)run, length);
    if (units < 0) return U_MEMORY_ALLOCATION_ERROR;
    ubrk_setText(line, its->utf16, units, &status);
    if (U_FAILURE(status)) return status;
    uint16_t breaks[RUN_CACHE_MAX_BYTES];
    int32_t count = 0;
    for (int32_t b = ubrk_following(line, 0); b != UBRK_DONE && b < units; b = ubrk_next(line)) {
        int32_t offset = its->utf8_offset[b];
        flags[offset] |= marks;
        if (length <= RUN_CACHE_MAX_BYTES) breaks[count++] = (uint16_t)offset;
    }
    if (length <= RUN_CACHE_MAX_BYTES) run_cache_store(run, length, strictness, hash, breaks, count);
    return 0;
}

// Whether the `length` bytes of UTF-8 at `bytes` hold a character of the Thai block (U+0E00...0E7F).
static int holds_thai(const unsigned char *bytes, int32_t length) {
    for (int32_t i = 0; i + 1 < length; i++) {
        if (bytes[i] == 0xE0 && (bytes[i + 1] == 0xB8 || bytes[i + 1] == 0xB9)) return 1;
    }
    return 0;
}

// Adds the breaks inside each maximal run of dictionary-category characters that no rule break
// splits to the rule breaks `line_breaks` marked (see above), with the status of the rule break that
// ends the run's segment. Returns 0, or an ICU error code.
//
// With Pango's rules (`pango`), a run is left as the rules left it (no break between its characters)
// unless it holds Thai and libthai's dictionary is missing: Pango's UAX #14 breaks nowhere between two
// SA characters and `cub_pango_dictionary_breaks` adds libthai's breaks to Thai items, so ICU's
// breaks would only be removed again; without libthai, Thai keeps ICU's.
static int32_t dictionary_breaks(const line_machine *m, thread_iterators *its, const unsigned char *bytes, int32_t length, uint8_t *flags, int32_t strictness, int pango) {
    int32_t i = 0;
    while (i < length) {
        int32_t size = 1;
        if (bytes[i] < 0x80 || line_category(m, decode_utf8(bytes + i, &size)) < m->dictionary_start) {
            i += size;
            continue;
        }
        const int32_t start = i;
        i += size;
        const int32_t second = i;
        while (i < length && !(flags[i] & CUB_LINE_BREAK) && bytes[i] >= 0x80 &&
               line_category(m, decode_utf8(bytes + i, &size)) >= m->dictionary_start) {
            i += size;
        }
        if (i == second) continue;   // one character: nothing inside
        const int32_t run = i - start;
        if (pango && !(holds_thai(bytes + start, run) && thai_shared() == NULL)) continue;
        // The segment's end: the first rule break from the run's end on (`length` at the latest;
        // the runs after this one have no breaks of theirs marked yet).
        int32_t end = i;
        while (!(flags[end] & CUB_LINE_BREAK)) end++;
        const uint8_t marks = CUB_LINE_BREAK | (flags[end] & CUB_MANDATORY_BREAK);
        const uint64_t hash = run_hash(bytes + start, run, strictness);
        if (run <= RUN_CACHE_MAX_BYTES && run_cache_lookup(bytes + start, run, strictness, hash, flags + start, marks)) continue;
        int32_t status = run_breaks_icu(its, bytes + start, run, strictness, hash, flags + start, marks);
        if (status != 0) return status;
    }
    return 0;
}

// ICU's iterator for `strictness` over the text (converted to UTF-16 in the thread's buffers),
// ORing its breaks into `flags`. Returns 0, or an ICU error code.
static int32_t line_breaks_icu(thread_iterators *its, const char *utf8, int32_t length, uint8_t *flags, int32_t strictness) {
    UErrorCode status = U_ZERO_ERROR;
    UBreakIterator *line = line_iterator(its, strictness, &status);
    if (line == NULL) return status;
    int32_t units = to_utf16(its, utf8, length);
    if (units < 0) return U_MEMORY_ALLOCATION_ERROR;
    const int32_t *offset = its->utf8_offset;
    ubrk_setText(line, its->utf16, units, &status);
    if (U_FAILURE(status)) return status;
    for (int32_t b = ubrk_following(line, 0); b != UBRK_DONE; b = ubrk_next(line)) {
        int32_t rule = ubrk_getRuleStatus(line);
        flags[offset[b]] |= CUB_LINE_BREAK;
        if (rule >= UBRK_LINE_HARD && rule < UBRK_LINE_HARD_LIMIT) flags[offset[b]] |= CUB_MANDATORY_BREAK;
    }
    return 0;
}

int32_t cub_line_breaks_icu(const char *utf8, int32_t length, uint8_t *flags, int32_t strictness) {
    if (length == 0) return 0;
    UErrorCode status = U_ZERO_ERROR;
    thread_iterators *its = iterators_for_this_thread(&status);
    if (its == NULL) return status;
    return line_breaks_icu(its, utf8, length, flags, strictness);
}

int32_t cub_analyze(const char *utf8, int32_t length, uint8_t *flags) {
    return cub_analyze_with(utf8, length, flags, CUB_STRICTNESS_STRICT);
}

static void clear_breaks_between_sa(const unsigned char *bytes, int32_t length, uint8_t *flags);

static int32_t analyze(const char *utf8, int32_t length, uint8_t *flags, int32_t strictness);

static void break_after_word_initial_hyphens(const unsigned char *bytes, int32_t length, uint8_t *flags);

int32_t cub_analyze_with(const char *utf8, int32_t length, uint8_t *flags, int32_t strictness) {
    int32_t status = analyze(utf8, length, flags, strictness);
    if (status == 0 && strictness == CUB_RULES_PANGO) {
        // Pango 1.50's layout breaks a paragraph's lines only at its paragraph separators (which end
        // the paragraphs we are given); after a VT, FF or NEL (UAX #14 classes BK and NL) it breaks
        // only if the line is full, as at any other opportunity.
        for (int32_t i = 1; i < length; i++) flags[i] &= (uint8_t)~CUB_MANDATORY_BREAK;
        break_after_word_initial_hyphens((const unsigned char *)utf8, length, flags);
    }
    return status;
}

// ICU's line rules keep a hyphen that follows a break (a space, the paragraph's start) with the letter
// after it (`^($HY | $HH) $CM* $ALPlus`, its "LB 20.09", an ICU tailoring since ICU 63, not UAX #14; HH
// is U+2010): "-n" in "ls -n" is one word to ICU. Pango 1.50's UAX #14 has no such rule: after a
// hyphen it breaks before a letter as anywhere else (LB21a, which keeps a hyphen after a Hebrew letter
// with what follows, cannot apply after a break). So in Pango's rules the break goes back in, before
// the letter (after any combining marks on the hyphen; never after a zero width joiner, LB8a).
// $ALPlus is AL, AI, SG, XX and the dictionary scripts' SA, which Pango takes as AL unless the
// character is a mark.
static void break_after_word_initial_hyphen(const unsigned char *bytes, int32_t length, uint8_t *flags,
                                            int32_t i, int32_t size);

static void break_after_word_initial_hyphens(const unsigned char *bytes, int32_t length, uint8_t *flags) {
    const unsigned char *end = bytes + length;
    for (const unsigned char *hyphen = memchr(bytes, '-', (size_t)length); hyphen != NULL;
         hyphen = hyphen + 1 < end ? memchr(hyphen + 1, '-', (size_t)(end - hyphen - 1)) : NULL) {
        break_after_word_initial_hyphen(bytes, length, flags, (int32_t)(hyphen - bytes), 1);
    }
    // U+2010 HYPHEN is E2 80 90.
    for (const unsigned char *lead = memchr(bytes, 0xE2, (size_t)length); lead != NULL;
         lead = lead + 1 < end ? memchr(lead + 1, 0xE2, (size_t)(end - lead - 1)) : NULL) {
        if (end - lead >= 3 && lead[1] == 0x80 && lead[2] == 0x90) {
            break_after_word_initial_hyphen(bytes, length, flags, (int32_t)(lead - bytes), 3);
        }
    }
}

// The break before the letter after the hyphen of `size` bytes at `i`, where the hyphen follows a break.
static void break_after_word_initial_hyphen(const unsigned char *bytes, int32_t length, uint8_t *flags,
                                            int32_t i, int32_t size) {
    if (i > 0 && !(flags[i] & CUB_LINE_BREAK)) return;
    int32_t next = i + size;
    while (next < length) {
        int32_t scalar_size;
        uint32_t c = decode_utf8(bytes + next, &scalar_size);
        int32_t lb = u_getIntPropertyValue((UChar32)c, UCHAR_LINE_BREAK);
        if (lb == U_LB_COMBINING_MARK) { next += scalar_size; continue; }
        if (lb == U_LB_ZWJ) return;
        int8_t type = u_charType((UChar32)c);
        int is_mark = type == U_NON_SPACING_MARK || type == U_COMBINING_SPACING_MARK;
        if (lb == U_LB_ALPHABETIC || lb == U_LB_AMBIGUOUS || lb == U_LB_SURROGATE || lb == U_LB_UNKNOWN
            || (lb == U_LB_COMPLEX_CONTEXT && !is_mark)) {
            flags[next] |= CUB_LINE_BREAK;
        }
        return;
    }
}

static int32_t analyze(const char *utf8, int32_t length, uint8_t *flags, int32_t strictness) {
    int pango = strictness == CUB_RULES_PANGO;
    if (pango) strictness = CUB_STRICTNESS_STRICT;
    memset(flags, 0, (size_t)length + 1);
    if (length == 0) return 0;
    UErrorCode status = U_ZERO_ERROR;
    thread_iterators *its = iterators_for_this_thread(&status);
    if (its == NULL) return status;
    const unsigned char *bytes = (const unsigned char *)utf8;

    // ASCII without CR or LF (paragraphs never hold them): every byte is its own grapheme cluster
    // (UAX #29 joins nothing else in ASCII), so the grapheme pass can be skipped. At the first other
    // byte, the grapheme pass starts again from the beginning (the boundaries marked so far, between
    // two such bytes, are its).
    int32_t ascii = 0;
    while (ascii < length && bytes[ascii] < 0x80 && bytes[ascii] != '\r' && bytes[ascii] != '\n') {
        if (ascii > 0) flags[ascii] = CUB_GRAPHEME_BOUNDARY;
        ascii++;
    }
    if (ascii == length) flags[length] = CUB_GRAPHEME_BOUNDARY;
    else grapheme_boundaries(bytes, length, flags, pango);

    const line_machine *m = &line_machines[strictness == CUB_STRICTNESS_NORMAL];
    if (m->rows != NULL) {
        int found = line_breaks(m, bytes, length, flags);
        if (found == 0) return 0;
        if (found == 1) {
            return dictionary_breaks(m, its, bytes, length, flags, strictness, pango);
        }
    }
    int32_t status_icu = line_breaks_icu(its, utf8, length, flags, strictness);
    if (status_icu == 0 && pango) clear_breaks_between_sa(bytes, length, flags);
    return status_icu;
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
    // Default ignorables and emoji only exist from U+00AD and U+00A9 on; skip the look-ups for ASCII.
    if (c >= 0xAD && u_hasBinaryProperty((UChar32)c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT)) {
        properties |= CUB_DEFAULT_IGNORABLE;
    }
    if (c >= 0xA9) {
        if (u_hasBinaryProperty((UChar32)c, UCHAR_EMOJI_PRESENTATION)) properties |= CUB_EMOJI_PRESENTATION;
        if (u_hasBinaryProperty((UChar32)c, UCHAR_EXTENDED_PICTOGRAPHIC)) properties |= CUB_EXTENDED_PICTOGRAPHIC;
        if (u_hasBinaryProperty((UChar32)c, UCHAR_EMOJI_MODIFIER_BASE)) properties |= CUB_EMOJI_MODIFIER_BASE;
    }
    return properties;
}

// ---- Pango's dictionary breaks (`CUB_RULES_PANGO`) ----
//
// Pango 1.50 breaks Thai words with libthai (its `break_thai`, one Pango item at a time) and has no
// dictionary for the other scripts of Line_Break class SA. A `ThBrk` holds libthai's dictionary, a
// trie read from a file, which takes long to load: one is loaded per process, on first need (or
// early, by `cub_prepare_dictionaries`), and shared. `th_brk_find_breaks` only reads it (each call
// walks the trie with states and working memory of its own), so calls need no lock.

static ThBrk *thai_breaker;
static pthread_once_t thai_once = PTHREAD_ONCE_INIT;

static void load_thai_breaker(void) { thai_breaker = th_brk_new(NULL); }

// libthai's word breaker, loaded on first use; NULL when its dictionary is not installed.
static ThBrk *thai_shared(void) {
    pthread_once(&thai_once, load_thai_breaker);
    return thai_breaker;
}

static inline int is_complex_context(uint32_t c) {
    return c >= 0x0E00 && u_getIntPropertyValue((UChar32)c, UCHAR_LINE_BREAK) == U_LB_COMPLEX_CONTEXT;
}

// Pango's rules after ICU's iterator ran on the whole text (no compiled rules, or a character they do
// not know): its dictionaries' breaks between two SA characters go, as `dictionary_breaks` asks for
// none, but Thai's when libthai's dictionary is missing. (The mandatory marks some of them take go
// with every other one inside the text, in `cub_analyze_with`.)
static void clear_breaks_between_sa(const unsigned char *bytes, int32_t length, uint8_t *flags) {
    int previous_sa = 0, previous_thai = 0;
    for (int32_t i = 0; i < length;) {
        int32_t size;
        const uint32_t c = decode_utf8(bytes + i, &size);
        const int sa = is_complex_context(c), thai = c >= 0x0E00 && c <= 0x0E7F;
        if (previous_sa && sa && !((thai || previous_thai) && thai_shared() == NULL)) {
            flags[i] &= (uint8_t)~CUB_LINE_BREAK;
        }
        previous_sa = sa;
        previous_thai = thai;
        i += size;
    }
}

int32_t cub_pango_dictionary_breaks(const char *utf8, int32_t length, uint8_t *flags, int32_t is_thai) {
    const unsigned char *bytes = (const unsigned char *)utf8;
    ThBrk *brk = NULL;
    if (is_thai && (brk = thai_shared()) == NULL) return 0;

    // Characters and their byte offsets (the TIS-620 text has one byte per character).
    int32_t count = 0;
    for (int32_t i = 0; i < length; i++) count += (bytes[i] & 0xC0) != 0x80;
    enum { STACK = 512 };
    thchar_t tis_stack[STACK];
    int positions_stack[STACK];
    int32_t offsets_stack[STACK];
    thchar_t *tis = tis_stack;
    int *positions = positions_stack;
    int32_t *offsets = offsets_stack;
    if (brk != NULL && count + 1 > STACK) {
        tis = malloc((size_t)count + 1);
        positions = malloc(sizeof(int) * ((size_t)count + 1));
        offsets = malloc(sizeof(int32_t) * ((size_t)count + 1));
        if (tis == NULL || positions == NULL || offsets == NULL) {
            free(tis); free(positions); free(offsets);
            return -1;
        }
    }

    int previous_sa = 0;
    int32_t n = 0;
    for (int32_t i = 0; i < length;) {
        int32_t size;
        uint32_t c = decode_utf8(bytes + i, &size);
        int sa = is_complex_context(c);
        // Pango's UAX #14 takes SA as AL (or CM): no break between two of them (nor the mandatory mark
        // an ICU dictionary break takes before a VT, FF or NEL).
        if (previous_sa && sa) flags[i] &= (uint8_t)~(CUB_LINE_BREAK | CUB_MANDATORY_BREAK);
        previous_sa = sa;
        if (brk != NULL) {
            tis[n] = th_uni2tis((thwchar_t)c);
            offsets[n] = i;
        }
        n++;
        i += size;
    }
    if (brk != NULL) {
        tis[n] = 0;
        offsets[n] = length;
        int found = th_brk_find_breaks(brk, tis, positions, (size_t)n + 1);
        for (int k = 0; k < found; k++) {
            int p = positions[k];
            // A break libthai finds inside a grapheme cluster (it never should) is not taken.
            if (p > 0 && p <= n && (flags[offsets[p]] & CUB_GRAPHEME_BOUNDARY)) flags[offsets[p]] |= CUB_LINE_BREAK;
        }
        if (tis != tis_stack) { free(tis); free(positions); free(offsets); }
    }
    return 1;
}

// ---- Hyphens as Chromium's newer ICU breaks around them (the browser modes) ----
//
// Unicode 16's UAX #14 changed two rules Debian's ICU 72 (Unicode 15.0) has in their older form,
// and gave the dashes they concern a class of their own, HH (unambiguous hyphens):
// - LB20a, no break after a word-initial hyphen: (sot | BK | CR | LF | NL | SP | ZW | CB | GL)
//   (HY | HH) × (AL | HL). ICU 72's tailoring of it ("LB 20.09") keeps only "-" and U+2010 with a
//   following AL after a break: Hebrew letters, the other HH dashes and a hyphen after a no-break space
//   are breaks to it.
// - LB21a, a hyphen after a Hebrew letter: HL (HY | HH) × [^HL]. ICU 72 has HL (HY | BA) ×: no break
//   after any hyphen or BA character (a vertical bar, a soft hyphen, U+2002) that follows a Hebrew
//   letter, so "תל-אביב" is one word to it and two to Chromium.
// Measured in Chromium 156 (see docs/chromium-differences.md, rule 19): every BA character after a
// Hebrew letter, every dash after a space or a Hebrew letter, before letters of several scripts.

// UAX #14 class HH (Unicode 16), all BA (U+2010 also ICU 72's HH) in ICU 72.
static inline int is_unambiguous_hyphen(uint32_t c) {
    switch (c) {
    case 0x058A: case 0x05BE: case 0x1400: case 0x2010: case 0x2012: case 0x2013: case 0x2E17: case 0x2E40:
    case 0x2E5D: case 0x10EAD:
        return 1;
    default:
        return 0;
    }
}

// The line-break class of `c`, with the marks of class SA as CM (LB1), and the nonspacing marks of
// class GL (U+034F COMBINING GRAPHEME JOINER, U+035C…U+0362) too: Chromium joins them to the
// character before them, as marks.
static int32_t line_break_class(uint32_t c) {
    int32_t lb = u_getIntPropertyValue((UChar32)c, UCHAR_LINE_BREAK);
    if (lb == U_LB_COMPLEX_CONTEXT || lb == U_LB_GLUE) {
        int8_t type = u_charType((UChar32)c);
        if (type == U_NON_SPACING_MARK || (lb == U_LB_COMPLEX_CONTEXT && type == U_COMBINING_SPACING_MARK)) {
            return U_LB_COMBINING_MARK;
        }
    }
    return lb;
}

// Whether marks after a character of class `lb` stand alone (LB9 does not fold them into a space or a
// break; LB10 makes them AL).
static inline int takes_no_marks(int32_t lb) {
    return lb == U_LB_MANDATORY_BREAK || lb == U_LB_CARRIAGE_RETURN || lb == U_LB_LINE_FEED
        || lb == U_LB_NEXT_LINE || lb == U_LB_SPACE || lb == U_LB_ZWSPACE;
}

// The character ending at byte `end` with its marks folded into it (LB9), in `*c` and `*lb`; 0 at
// the start of the text. Marks after a space or a break, or at the start, are an AL (LB10).
static int character_before(const unsigned char *bytes, int32_t end, uint32_t *c, int32_t *lb) {
    int marks = 0;
    while (end > 0) {
        int32_t start = end - 1, size;
        while (start > 0 && (bytes[start] & 0xC0) == 0x80) start--;
        uint32_t ch = decode_utf8(bytes + start, &size);
        int32_t class = line_break_class(ch);
        if (class == U_LB_COMBINING_MARK || class == U_LB_ZWJ) { marks = 1; end = start; continue; }
        if (marks && takes_no_marks(class)) break;
        *c = ch;
        *lb = class;
        return 1;
    }
    if (!marks) return 0;
    *c = 'a';
    *lb = U_LB_ALPHABETIC;
    return 1;
}

// Whether the paragraph holds a Hebrew letter, an HH dash or a "-" after a no-break space (class GL
// past ASCII): without any, the rules change nothing. Each kind is looked for by its lead byte with
// memchr, which runs through text without them many times faster than a loop over its bytes.
static int has_hyphen_rule_candidates(const unsigned char *bytes, int32_t length) {
    static const unsigned char leads[] = {0xD7, 0xD6, 0xE2, 0xEF, 0xE1, 0xF0, '-'};
    const unsigned char *end = bytes + length;
    for (size_t k = 0; k < sizeof leads; k++) {
        for (const unsigned char *p = memchr(bytes, leads[k], (size_t)length); p != NULL;
             p = p + 1 < end ? memchr(p + 1, leads[k], (size_t)(end - p - 1)) : NULL) {
            if (*p == '-') {                         // after a no-break space (GL), marks on it or not
                uint32_t c;
                int32_t lb;
                // No ASCII character is GL: a "-" after one is decided without a property look-up.
                if (p > bytes && p[-1] >= 0x80 && character_before(bytes, (int32_t)(p - bytes), &c, &lb)
                    && lb == U_LB_GLUE) {
                    return 1;
                }
                continue;
            }
            if (end - p < 2) break;
            unsigned char b1 = p[1];
            switch (*p) {
            case 0xD6: if (b1 == 0x8A || b1 == 0xBE) return 1; break;                   // U+058A, U+05BE
            case 0xD7: if (b1 >= 0x90 && b1 <= 0xB2) return 1; break;                   // U+05D0…U+05F2
            case 0xEF: if (b1 == 0xAC || b1 == 0xAD) return 1; break;                   // U+FB00…U+FB7F
            default: {                                                  // U+1400, U+2010…, U+2E17…, U+10EAD
                int32_t size;
                if (end - p >= 3 && (*p != 0xF0 || end - p >= 4) && is_unambiguous_hyphen(decode_utf8(p, &size))) {
                    return 1;
                }
                break;
            }
            }
        }
    }
    return 0;
}

// What the rules need to know of a character, its combining marks folded into it (LB9).
enum hyphen_rule_kind {
    KIND_OTHER,
    KIND_HEBREW,         // HL
    KIND_HYPHEN,         // HY, HH
    KIND_BREAK_AFTER,    // BA but HH
    KIND_BEFORE_WORD,    // what a word-initial hyphen follows: BK, CR, LF, NL, SP, ZW, CB, GL (and sot)
};

// The classes ICU 72 breaks before after a BA character (the breaks LB21a took away after a Hebrew
// letter): AL and what LB1 resolves to it, HL, NU, ID, the Hangul classes, emoji, OP, PR, PO, B2, GL,
// CB, RI, and CJ where it is not NS (`line-break: normal`).
static int breaks_after_break_after(int32_t lb, int strict) {
    switch (lb) {
    case U_LB_ALPHABETIC: case U_LB_AMBIGUOUS: case U_LB_UNKNOWN: case U_LB_SURROGATE:
    case U_LB_COMPLEX_CONTEXT: case U_LB_HEBREW_LETTER: case U_LB_NUMERIC: case U_LB_IDEOGRAPHIC:
    case U_LB_H2: case U_LB_H3: case U_LB_JL: case U_LB_JV: case U_LB_JT: case U_LB_E_BASE:
    case U_LB_E_MODIFIER: case U_LB_OPEN_PUNCTUATION: case U_LB_PREFIX_NUMERIC: case U_LB_POSTFIX_NUMERIC:
    case U_LB_BREAK_BOTH: case U_LB_GLUE: case U_LB_CONTINGENT_BREAK: case U_LB_REGIONAL_INDICATOR:
        return 1;
    case U_LB_CONDITIONAL_JAPANESE_STARTER:
        return !strict;
    default:
        return 0;
    }
}

// LB20a's letters: AL and what LB1 resolves to it (AI, SG, XX, SA), HL.
static inline int is_letter_class(int32_t lb) {
    return lb == U_LB_ALPHABETIC || lb == U_LB_HEBREW_LETTER || lb == U_LB_AMBIGUOUS || lb == U_LB_UNKNOWN
        || lb == U_LB_SURROGATE || lb == U_LB_COMPLEX_CONTEXT;
}

int32_t cub_is_unambiguous_hyphen_before_letter(const char *utf8, int32_t length, int32_t hyphen, int32_t next) {
    const unsigned char *bytes = (const unsigned char *)utf8;
    if (hyphen < 0 || next <= hyphen || next >= length) return 0;
    int32_t size;
    if (!is_unambiguous_hyphen(decode_utf8(bytes + hyphen, &size)) || hyphen + size != next) return 0;
    return is_letter_class(line_break_class(decode_utf8(bytes + next, &size)));
}

void cub_browser_hyphen_breaks(const char *utf8, int32_t length, uint8_t *flags, int32_t strictness) {
    const unsigned char *bytes = (const unsigned char *)utf8;
    if (!has_hyphen_rule_candidates(bytes, length)) return;
    int strict = strictness != CUB_STRICTNESS_NORMAL;
    enum hyphen_rule_kind before = KIND_OTHER, last = KIND_BEFORE_WORD;   // sot
    int last_is_ascii = 0, last_takes_marks = 0;
    for (int32_t i = 0; i < length;) {
        int32_t size;
        uint32_t c = decode_utf8(bytes + i, &size);
        int32_t lb = line_break_class(c);
        int is_mark = lb == U_LB_COMBINING_MARK || lb == U_LB_ZWJ;
        // LB9: a mark belongs to the character before it; LB10: after a space or a break, it is an AL.
        if (is_mark && last_takes_marks) { i += size; continue; }
        if (is_mark) lb = U_LB_ALPHABETIC;
        if (last == KIND_HYPHEN) {
            if (before == KIND_HEBREW && lb == U_LB_HEBREW_LETTER) {
                flags[i] |= CUB_LINE_BREAK;                                   // LB21a: HL HY ÷ HL
            } else if (before == KIND_BEFORE_WORD && is_letter_class(lb) && !(last_is_ascii && c < 0x80)) {
                flags[i] &= (uint8_t)~CUB_LINE_BREAK;                         // LB20a (ASCII pairs: Blink's table)
            }
        } else if (last == KIND_BREAK_AFTER && before == KIND_HEBREW && breaks_after_break_after(lb, strict)) {
            flags[i] |= CUB_LINE_BREAK;                                       // no LB21a after BA
        }
        enum hyphen_rule_kind kind;
        if (lb == U_LB_HEBREW_LETTER) kind = KIND_HEBREW;
        else if (lb == U_LB_HYPHEN || is_unambiguous_hyphen(c)) kind = KIND_HYPHEN;
        else if (lb == U_LB_BREAK_AFTER) kind = KIND_BREAK_AFTER;
        else if (lb == U_LB_MANDATORY_BREAK || lb == U_LB_CARRIAGE_RETURN || lb == U_LB_LINE_FEED
                 || lb == U_LB_NEXT_LINE || lb == U_LB_SPACE || lb == U_LB_ZWSPACE
                 || lb == U_LB_CONTINGENT_BREAK || lb == U_LB_GLUE) kind = KIND_BEFORE_WORD;
        else kind = KIND_OTHER;
        before = last;
        last = kind;
        last_is_ascii = c < 0x80;
        last_takes_marks = !takes_no_marks(lb);
        i += size;
    }
}

// ---- Quotation marks between East Asian characters (the browser modes) ----
//
// Unicode 15.1's UAX #14 split LB19 so that a quotation mark that opens or closes (general category
// Pi or Pf) no longer glues East Asian text together:
//   LB19   × [QU - Pi]        [QU - Pf] ×
//   LB19a  [^EA] × QU         × QU ([^EA] | eot)        QU × [^EA]        (sot | [^EA]) QU ×
// where EA is East_Asian_Width F, W or H. So a line may break before "“" and after "”" when East
// Asian characters stand on both sides (他说|“我们”|然后), which Chinese text does constantly, and
// nowhere around "\"" or "'". Debian's ICU 72 (Unicode 15.0) has LB19 as × QU and QU ×. The rules
// before LB19 still hold: no break after an opening bracket (LB14, "「“"), nor before what LB13 and
// LB21 keep with what precedes it ("”。", "”ー" under line-break: strict). Measured in Chromium 156
// (see docs/chromium-differences.md, rule 21; Tests/Fixtures/chromium/quote-breaks.tsv).

// Whether `c` is a quotation mark of class QU that opens (1) or closes (2): Pi or Pf. 0 otherwise.
static inline int quote_kind(uint32_t c) {
    switch (c) {
    case 0x00AB: case 0x2018: case 0x201B: case 0x201C: case 0x201F: case 0x2039: case 0x2E02: case 0x2E04:
    case 0x2E09: case 0x2E0C: case 0x2E1C: case 0x2E20:
        return 1;
    case 0x00BB: case 0x2019: case 0x201D: case 0x203A: case 0x2E03: case 0x2E05: case 0x2E0A: case 0x2E0D:
    case 0x2E1D: case 0x2E21:
        return 2;
    default:
        return 0;
    }
}

static inline int is_east_asian(uint32_t c) {
    int32_t ea = u_getIntPropertyValue((UChar32)c, UCHAR_EAST_ASIAN_WIDTH);
    return ea == U_EA_FULLWIDTH || ea == U_EA_WIDE || ea == U_EA_HALFWIDTH;
}

// Where the marks after byte `start` end: the next character's first byte (LB9 folds them into what
// they follow).
static int32_t skip_marks(const unsigned char *bytes, int32_t length, int32_t start) {
    while (start < length) {
        int32_t size;
        int32_t class = line_break_class(decode_utf8(bytes + start, &size));
        if (class != U_LB_COMBINING_MARK && class != U_LB_ZWJ) break;
        start += size;
    }
    return start;
}

// Whether a line may break between a closing quotation mark and an East Asian character of class
// `lb` after it, as far as the rules before LB19a are concerned: not before what LB11, LB12a, LB13,
// LB21 and LB22 keep with what precedes it.
static int breaks_after_closing_quote(int32_t lb, int strict) {
    switch (lb) {
    case U_LB_CLOSE_PUNCTUATION: case U_LB_CLOSE_PARENTHESIS: case U_LB_EXCLAMATION: case U_LB_INFIX_NUMERIC:
    case U_LB_BREAK_SYMBOLS: case U_LB_BREAK_AFTER: case U_LB_HYPHEN: case U_LB_NONSTARTER: case U_LB_INSEPARABLE:
    case U_LB_GLUE: case U_LB_WORD_JOINER: case U_LB_ZWSPACE: case U_LB_SPACE: case U_LB_QUOTATION:
    case U_LB_MANDATORY_BREAK: case U_LB_CARRIAGE_RETURN: case U_LB_LINE_FEED: case U_LB_NEXT_LINE:
        return 0;
    case U_LB_CONDITIONAL_JAPANESE_STARTER:
        return !strict;
    default:
        return 1;
    }
}

void cub_browser_quote_breaks(const char *utf8, int32_t length, uint8_t *flags, int32_t strictness) {
    const unsigned char *bytes = (const unsigned char *)utf8;
    int strict = strictness != CUB_STRICTNESS_NORMAL;
    // Every Pi and Pf quotation mark starts with 0xC2 (U+00AB, U+00BB) or 0xE2 (U+2018…, U+2E02…).
    static const unsigned char leads[] = {0xC2, 0xE2};
    const unsigned char *end = bytes + length;
    for (size_t k = 0; k < sizeof leads; k++) {
        for (const unsigned char *p = memchr(bytes, leads[k], (size_t)length); p != NULL;
             p = p + 1 < end ? memchr(p + 1, leads[k], (size_t)(end - p - 1)) : NULL) {
            if (end - p < (leads[k] == 0xC2 ? 2 : 3)) break;
            int32_t at = (int32_t)(p - bytes), size;
            int kind = quote_kind(decode_utf8(p, &size));
            if (kind == 0 || at == 0) continue;
            uint32_t before, after;
            int32_t before_class;
            if (!character_before(bytes, at, &before, &before_class) || !is_east_asian(before)) continue;
            int32_t next = skip_marks(bytes, length, at + size);
            if (next >= length) continue;
            after = decode_utf8(bytes + next, &size);
            if (!is_east_asian(after)) continue;
            if (kind == 1) {
                if (before_class != U_LB_OPEN_PUNCTUATION) flags[at] |= CUB_LINE_BREAK;     // LB14 first
            } else if (breaks_after_closing_quote(line_break_class(after), strict)) {
                flags[next] |= CUB_LINE_BREAK;
            }
        }
    }
}
