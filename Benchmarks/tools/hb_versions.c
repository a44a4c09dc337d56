// What HarfBuzz itself costs per character on a corpus, to compare HarfBuzz versions on the shaping
// TextMeasure asks of it: each text split into runs by the first font of the cascade that has a
// glyph for the character (as the measurer's fallback does, without its script and cluster rules),
// every run shaped with its font at 15 px. The runs are found before the clock starts; only hb_shape
// is timed, best of ROUNDS rounds.
//
// Build against the system's HarfBuzz, or against another copy of the library (any build exporting
// the hb_* symbols; only functions present since HarfBuzz 2.x are called):
//   cc -O2 hb_versions.c $(pkg-config --cflags --libs harfbuzz) -o hb-versions-system
//   cc -O2 hb_versions.c $(pkg-config --cflags harfbuzz) /path/to/libharfbuzz.so
//      -Wl,-rpath,/path/to -o hb-versions-other
// Run: hb-versions ROUNDS CORPUS FONT... (fonts in cascade order; see docs/performance.md).
#include <hb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    unsigned text, start, length, font;
} Run;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: hb-versions ROUNDS CORPUS FONT...\n");
        return 2;
    }
    int rounds = atoi(argv[1]);
    int fontCount = argc - 3;
    hb_font_t **fonts = calloc(fontCount, sizeof *fonts);
    for (int i = 0; i < fontCount; i++) {
        hb_blob_t *blob = hb_blob_create_from_file_or_fail(argv[3 + i]);
        if (!blob) {
            fprintf(stderr, "hb-versions: cannot read %s\n", argv[3 + i]);
            return 2;
        }
        fonts[i] = hb_font_create(hb_face_create(blob, 0));
        hb_font_set_scale(fonts[i], 15 * 1024, 15 * 1024);
    }
    FILE *corpus = fopen(argv[2], "r");
    if (!corpus) {
        fprintf(stderr, "hb-versions: cannot read %s\n", argv[2]);
        return 2;
    }
    // Texts as code points; runs over them.
    size_t textCapacity = 1024, textCount = 0, runCapacity = 4096, runCount = 0, characters = 0;
    uint32_t **texts = malloc(textCapacity * sizeof *texts);
    unsigned *lengths = malloc(textCapacity * sizeof *lengths);
    Run *runs = malloc(runCapacity * sizeof *runs);
    hb_buffer_t *buffer = hb_buffer_create();
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, corpus)) >= 0) {
        if (length > 0 && line[length - 1] == '\n') line[--length] = 0;
        if (length == 0) continue;
        hb_buffer_clear_contents(buffer);
        hb_buffer_add_utf8(buffer, line, (int)length, 0, (int)length);
        unsigned count;
        hb_glyph_info_t *info = hb_buffer_get_glyph_infos(buffer, &count);
        if (textCount == textCapacity) {
            textCapacity *= 2;
            texts = realloc(texts, textCapacity * sizeof *texts);
            lengths = realloc(lengths, textCapacity * sizeof *lengths);
        }
        uint32_t *points = malloc(count * sizeof *points);
        for (unsigned i = 0; i < count; i++) points[i] = info[i].codepoint;
        texts[textCount] = points;
        lengths[textCount] = count;
        characters += count;
        for (unsigned i = 0; i < count; i++) {
            unsigned font = 0;
            hb_codepoint_t glyph;
            while (font < (unsigned)fontCount && !hb_font_get_nominal_glyph(fonts[font], points[i], &glyph)) font++;
            if (font == (unsigned)fontCount) font = 0;   // no font has it: the primary's .notdef
            if (runCount > 0 && runs[runCount - 1].text == textCount && runs[runCount - 1].font == font) {
                runs[runCount - 1].length++;
                continue;
            }
            if (runCount == runCapacity) {
                runCapacity *= 2;
                runs = realloc(runs, runCapacity * sizeof *runs);
            }
            runs[runCount++] = (Run){(unsigned)textCount, i, 1, font};
        }
        textCount++;
    }
    double best = 1e9;
    unsigned long glyphs = 0;
    for (int round = 0; round < rounds; round++) {
        glyphs = 0;
        double start = now();
        for (size_t r = 0; r < runCount; r++) {
            const Run *run = &runs[r];
            hb_buffer_clear_contents(buffer);
            hb_buffer_add_codepoints(buffer, texts[run->text], (int)lengths[run->text], run->start, (int)run->length);
            hb_buffer_guess_segment_properties(buffer);
            hb_shape(fonts[run->font], buffer, NULL, 0);
            glyphs += hb_buffer_get_length(buffer);
        }
        double elapsed = now() - start;
        if (elapsed < best) best = elapsed;
    }
    printf("HarfBuzz %s: %zu texts, %zu characters, %zu runs, %lu glyphs; best of %d: %.3f s, "
           "%.1f ns a character, %.2f us a text\n",
           hb_version_string(), textCount, characters, runCount, glyphs, rounds, best,
           best * 1e9 / characters, best * 1e6 / textCount);
    return 0;
}
