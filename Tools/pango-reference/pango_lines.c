// Reference line counts from Pango, for the differential test and the benchmark.
//
// Build: cc -O2 pango_lines.c $(pkg-config --cflags --libs pangocairo pangoft2 fontconfig) -o pango-lines
// Usage: pango-lines [--hyphens] [--quiet] [--runs] [--face FILE]... [--mono-family NAME] FONT_FILE...  < items
// Each input line is one item: SIZE <TAB> WIDTH <TAB> TEXT [<TAB> SPANS], where TEXT escapes \n, \r, \t and \\ .
// SPANS (optional: styled text) is `;`-separated spans START,END,FLAGS,SIZE: START and END count Unicode
// scalar values of the unescaped TEXT, END exclusive; FLAGS is a subset of `bim` (bold, italic, mono) or `-`;
// SIZE is px or `-`. Example: `0,5,b,-;3,9,bi,20`. As the package's styled text: a scalar is bold / italic /
// mono if any span covering it says so; its size is that of the last span covering it that has one, else
// the item's SIZE. The spans are flattened per scalar into maximal runs; each run with non-default
// attributes gets weight PANGO_WEIGHT_BOLD, style PANGO_STYLE_ITALIC, family = the mono list, an absolute
// size, next to the insert_hyphens(FALSE) attribute. A span edge inside a grapheme cluster is not moved:
// Pango gets the runs as they are. An empty SPANS field, or none, is plain text. A bad SPANS field (syntax,
// END past the text, START > END) gives the output line `error`.
// FONT_FILEs are the regular cascade, in order (their families are the font description's family list).
// --face FILE (repeatable) loads another face (a bold, italic or mono file) into the font configuration
// without adding its family to that list: fontconfig picks it for a bold or italic run of its family.
// --mono-family NAME: the mono list is NAME, then the regular families without the first (the `m` flag
// has no effect without it). The configuration is built from scratch (FcConfigCreate), so none of
// fontconfig's synthesis rules (90-synthetic.conf: embolden, oblique matrix) apply: a family without a
// bold face stays regular under `b` (Droid Sans Fallback, the emoji font: same advances bold or not), one
// without an italic face stays upright under `i`.
// Each output line is: LINE_COUNT <TAB> widths of the lines <TAB> heights of the lines, each list in Pango
// units (1/1024 px), comma-separated; a line's height is its logical extents' (`pango_layout_line_get_extents`),
// and the layout's height (`pango_layout_get_extents`) is their sum. With --quiet only LINE_COUNT, for
// timing; with --runs also each run's font, face, size, width and text.
//
// Pango is set up as the reference the project agrees with: the cairo font map with only the given font files (an FcConfig of
// their own), families in the given order as the fallback list, 72 dpi so sizes are pixels, unrounded
// glyph positions, PANGO_WRAP_WORD_CHAR, and no inserted hyphens unless --hyphens.
#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-fontmap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *unescape(char *s) {
    char *out = s, *in = s;
    while (*in) {
        if (*in == '\\' && in[1]) {
            in++;
            switch (*in) {
            case 'n': *out++ = '\n'; break;
            case 'r': *out++ = '\r'; break;
            case 't': *out++ = '\t'; break;
            default: *out++ = *in; break;
            }
            in++;
        } else {
            *out++ = *in++;
        }
    }
    *out = 0;
    return s;
}

// --runs: after each item, one line per run: line index, font family and face (weight, style), size in
// px, width (Pango units), text.
static void print_runs(PangoLayout *layout, const char *text) {
    for (int i = 0; i < pango_layout_get_line_count(layout); i++) {
        for (GSList *r = pango_layout_get_line_readonly(layout, i)->runs; r; r = r->next) {
            PangoGlyphItem *run = r->data;
            PangoFontDescription *d = pango_font_describe(run->item->analysis.font);
            char face[32];
            snprintf(face, sizeof face, "%s%s", pango_font_description_get_weight(d) >= PANGO_WEIGHT_BOLD ? "Bold" : "",
                     pango_font_description_get_style(d) != PANGO_STYLE_NORMAL ? "Italic" : "");
            printf("  line %d  %-22s %-10s %6.2f %7d  '%.*s'\n", i, pango_font_description_get_family(d),
                   face[0] ? face : "Regular", pango_font_description_get_size(d) / (double)PANGO_SCALE,
                   pango_glyph_string_get_width(run->glyphs), run->item->length, text + run->item->offset);
            pango_font_description_free(d);
        }
    }
}

// The attributes of one scalar after flattening the spans.
typedef struct {
    int bold, italic, mono;
    double size;  // px; 0: the item's size
} Style;

// Parses SPANS (see the header) and flattens it over the `count` scalars of the text into `styles`.
// Returns 0 on a syntax error or a span outside the text.
static int flatten_spans(const char *field, long count, Style *styles) {
    for (long i = 0; i < count; i++) styles[i] = (Style){0, 0, 0, 0};
    const char *p = field;
    while (*p) {
        char *end;
        long start = strtol(p, &end, 10);
        if (end == p || *end != ',') return 0;
        p = end + 1;
        long stop = strtol(p, &end, 10);
        if (end == p || *end != ',') return 0;
        p = end + 1;
        int bold = 0, italic = 0, mono = 0;
        if (*p == '-') {
            p++;
        } else {
            for (; *p && *p != ','; p++) {
                if (*p == 'b') bold = 1;
                else if (*p == 'i') italic = 1;
                else if (*p == 'm') mono = 1;
                else return 0;
            }
        }
        if (*p != ',') return 0;
        p++;
        double size = 0;
        if (*p == '-') {
            p++;
        } else {
            size = strtod(p, &end);
            if (end == p || !(size > 0)) return 0;
            p = end;
        }
        if (*p == ';') p++;
        else if (*p) return 0;
        if (start < 0 || start > stop || stop > count) return 0;
        for (long i = start; i < stop; i++) {
            styles[i].bold |= bold;
            styles[i].italic |= italic;
            styles[i].mono |= mono;
            if (size > 0) styles[i].size = size;  // the last span with a size wins
        }
    }
    return 1;
}

// One attribute over the bytes [start, end) of the text.
static void insert_attribute(PangoAttrList *list, PangoAttribute *attribute, guint start, guint end) {
    attribute->start_index = start;
    attribute->end_index = end;
    pango_attr_list_insert(list, attribute);
}

static int same_style(const Style *a, const Style *b) {
    return a->bold == b->bold && a->italic == b->italic && a->mono == b->mono && a->size == b->size;
}

// Adds the attributes of each run of equal styles (maximal, so runs are as few as possible) to `list`.
static void add_span_attributes(PangoAttrList *list, const char *text, long count, const Style *styles,
                                const char *mono_families) {
    long i = 0;
    const char *run_start = text;
    while (i < count) {
        long j = i + 1;
        while (j < count && same_style(&styles[j], &styles[i])) j++;
        const char *run_end = g_utf8_offset_to_pointer(run_start, j - i);
        guint start = run_start - text, end = run_end - text;
        const Style *s = &styles[i];
        if (s->bold) insert_attribute(list, pango_attr_weight_new(PANGO_WEIGHT_BOLD), start, end);
        if (s->italic) insert_attribute(list, pango_attr_style_new(PANGO_STYLE_ITALIC), start, end);
        if (s->mono && mono_families) insert_attribute(list, pango_attr_family_new(mono_families), start, end);
        if (s->size > 0) {
            insert_attribute(list, pango_attr_size_new_absolute((int)(s->size * PANGO_SCALE + 0.5)), start, end);
        }
        run_start = run_end;
        i = j;
    }
}

int main(int argc, char **argv) {
    int hyphens = 0, quiet = 0, runs = 0;
    FcConfig *config = FcConfigCreate();
    // fontconfig's standard rule for bitmap fonts (Debian's 10-scale-bitmap-fonts.conf, color part):
    // scale a color bitmap font's strike to the requested pixel size. Without it Noto Color Emoji is
    // used at its 109 ppem strike whatever the size asked for.
    static const char *scale_bitmaps =
        "<?xml version=\"1.0\"?><fontconfig>"
        "<match target=\"font\"><test name=\"outline\" compare=\"eq\"><bool>false</bool></test>"
        "<edit name=\"pixelsizefixupfactor\" mode=\"assign\"><divide><name target=\"pattern\">pixelsize</name>"
        "<name target=\"font\">pixelsize</name></divide></edit></match>"
        "<match target=\"font\"><test name=\"outline\" compare=\"eq\"><bool>false</bool></test>"
        "<test name=\"pixelsizefixupfactor\" compare=\"not_eq\"><double>1.0</double></test>"
        "<edit name=\"matrix\" mode=\"assign\"><times><name>matrix</name><matrix><name>pixelsizefixupfactor</name>"
        "<double>0</double><double>0</double><name>pixelsizefixupfactor</name></matrix></times></edit>"
        "<edit name=\"size\" mode=\"assign\"><divide><name>size</name><name>pixelsizefixupfactor</name></divide></edit>"
        "</match></fontconfig>";
    if (!FcConfigParseAndLoadFromMemory(config, (const FcChar8 *)scale_bitmaps, FcTrue)) {
        fprintf(stderr, "pango-lines: fontconfig rejected the bitmap scaling rule\n");
        return 2;
    }
    GString *families = g_string_new(NULL);
    GString *emoji_families = g_string_new(NULL);
    const char *mono_family = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--hyphens") == 0) { hyphens = 1; continue; }
        if (strcmp(argv[i], "--quiet") == 0) { quiet = 1; continue; }
        if (strcmp(argv[i], "--runs") == 0) { runs = 1; continue; }
        if ((strcmp(argv[i], "--face") == 0 || strcmp(argv[i], "--mono-family") == 0) && i + 1 == argc) {
            fprintf(stderr, "pango-lines: %s needs a value\n", argv[i]);
            return 2;
        }
        if (strcmp(argv[i], "--mono-family") == 0) { mono_family = argv[++i]; continue; }
        if (strcmp(argv[i], "--face") == 0) {  // in the configuration, not in the family list
            i++;
            if (!FcConfigAppFontAddFile(config, (const FcChar8 *)argv[i])) {
                fprintf(stderr, "pango-lines: cannot load font %s\n", argv[i]);
                return 2;
            }
            continue;
        }
        if (!FcConfigAppFontAddFile(config, (const FcChar8 *)argv[i])) {
            fprintf(stderr, "pango-lines: cannot load font %s\n", argv[i]);
            return 2;
        }
        int count = 0;
        FcPattern *pattern = FcFreeTypeQuery((const FcChar8 *)argv[i], 0, NULL, &count);
        FcChar8 *family = NULL;
        FcBool color = FcFalse;
        if (pattern && FcPatternGetString(pattern, FC_FAMILY, 0, &family) == FcResultMatch) {
            if (families->len) g_string_append_c(families, ',');
            g_string_append(families, (const char *)family);
            if (FcPatternGetBool(pattern, FC_COLOR, 0, &color) == FcResultMatch && color) {
                g_string_append_printf(emoji_families, "<family>%s</family>", family);
            }
        }
        if (pattern) FcPatternDestroy(pattern);
    }
    // The cairo font map (FreeType + fontconfig underneath), not pangoft2: pangoft2 does not scale
    // color bitmap fonts, so an emoji at 16 px would be 136 px wide. Hinting off, metrics unhinted.
    // fontconfig's generic "emoji" family (Debian's 60-generic.conf): Pango asks for it on emoji runs,
    // so that a ZWJ sequence or keycap is drawn whole by the color font.
    if (emoji_families->len) {
        gchar *alias = g_strdup_printf(
            "<?xml version=\"1.0\"?><fontconfig><alias binding=\"same\"><family>emoji</family>"
            "<prefer>%s</prefer></alias></fontconfig>", emoji_families->str);
        if (!FcConfigParseAndLoadFromMemory(config, (const FcChar8 *)alias, FcTrue)) {
            fprintf(stderr, "pango-lines: fontconfig rejected the emoji alias\n");
            return 2;
        }
        g_free(alias);
    }
    PangoFontMap *map = pango_cairo_font_map_new_for_font_type(CAIRO_FONT_TYPE_FT);
    pango_fc_font_map_set_config(PANGO_FC_FONT_MAP(map), config);
    pango_cairo_font_map_set_resolution(PANGO_CAIRO_FONT_MAP(map), 72);
    PangoContext *context = pango_font_map_create_context(map);
    cairo_font_options_t *options = cairo_font_options_create();
    cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY);
    pango_cairo_context_set_font_options(context, options);
    pango_context_set_round_glyph_positions(context, FALSE);
    pango_context_set_language(context, pango_language_from_string("en"));
    PangoLayout *layout = pango_layout_new(context);
    pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
    PangoAttrList *attrs = pango_attr_list_new();
    if (!hyphens) pango_attr_list_insert(attrs, pango_attr_insert_hyphens_new(FALSE));
    pango_layout_set_attributes(layout, attrs);
    PangoFontDescription *description = pango_font_description_new();
    pango_font_description_set_family(description, families->str);
    // The mono list: the mono family, then the regular families without the first.
    char *mono_families = NULL;
    if (mono_family) {
        const char *rest = strchr(families->str, ',');
        mono_families = g_strdup_printf("%s%s", mono_family, rest ? rest : "");
    }
    Style *styles = NULL;
    size_t styles_capacity = 0;

    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, stdin)) >= 0) {
        if (length > 0 && line[length - 1] == '\n') line[--length] = 0;
        char *size_field = strtok(line, "\t");
        char *width_field = strtok(NULL, "\t");
        char *text = width_field ? width_field + strlen(width_field) + 1 : NULL;
        if (!size_field || !width_field || text > line + length) {
            printf("error\n");
            continue;
        }
        char *spans_field = strchr(text, '\t');  // TEXT has its tabs escaped: a tab starts SPANS
        if (spans_field) *spans_field++ = 0;
        unescape(text);
        PangoAttrList *item_attrs = NULL;
        if (spans_field && *spans_field) {
            long count = g_utf8_strlen(text, -1);
            if ((size_t)count > styles_capacity) {
                styles_capacity = count;
                styles = realloc(styles, styles_capacity * sizeof(Style));
            }
            if (!flatten_spans(spans_field, count, styles)) {
                printf("error\n");
                continue;
            }
            item_attrs = pango_attr_list_copy(attrs);
            add_span_attributes(item_attrs, text, count, styles, mono_families);
        }
        pango_layout_set_attributes(layout, item_attrs ? item_attrs : attrs);
        if (item_attrs) pango_attr_list_unref(item_attrs);
        pango_font_description_set_absolute_size(description, atof(size_field) * PANGO_SCALE);
        pango_layout_set_font_description(layout, description);
        pango_layout_set_width(layout, pango_units_from_double(atof(width_field)));
        pango_layout_set_text(layout, text, -1);
        int count = pango_layout_get_line_count(layout);
        printf("%d", count);
        if (!quiet) {
            for (int field = 0; field < 2; field++) {
                putchar('\t');
                for (int i = 0; i < count; i++) {
                    PangoRectangle logical;
                    pango_layout_line_get_extents(pango_layout_get_line_readonly(layout, i), NULL, &logical);
                    printf(i ? ",%d" : "%d", field == 0 ? logical.width : logical.height);
                }
            }
        }
        putchar('\n');
        if (runs) print_runs(layout, text);
    }
    return 0;
}
