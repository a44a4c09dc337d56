// The floor for the whole-process comparison: raw hb_shape of the same items, nothing else.
// Reads the same SIZE <TAB> WIDTH <TAB> TEXT lines as pango-lines; shapes each text once with the
// primary font (no fallback, no breaking, no layout) and prints the glyph count per line.
// Build: cc -O2 hb_floor.c $(pkg-config --cflags --libs harfbuzz) -o hb-floor
#include <hb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: hb-floor PRIMARY_FONT < items\n");
        return 2;
    }
    hb_blob_t *blob = hb_blob_create_from_file_or_fail(argv[1]);
    if (!blob) {
        fprintf(stderr, "hb-floor: cannot read %s\n", argv[1]);
        return 2;
    }
    hb_face_t *face = hb_face_create(blob, 0);
    hb_font_t *font = hb_font_create(face);
    hb_buffer_t *buffer = hb_buffer_create();
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    double last_size = -1;
    while ((length = getline(&line, &capacity, stdin)) >= 0) {
        if (length > 0 && line[length - 1] == '\n') line[--length] = 0;
        char *size_field = strtok(line, "\t");
        char *width_field = strtok(NULL, "\t");
        char *text = width_field ? width_field + strlen(width_field) + 1 : NULL;
        if (!size_field || !width_field || text > line + length) { puts("error"); continue; }
        double size = atof(size_field);
        if (size != last_size) {
            hb_font_set_scale(font, (int)(size * 1024), (int)(size * 1024));
            last_size = size;
        }
        hb_buffer_clear_contents(buffer);
        hb_buffer_add_utf8(buffer, text, -1, 0, -1);
        hb_buffer_guess_segment_properties(buffer);
        hb_shape(font, buffer, NULL, 0);
        printf("%u\n", hb_buffer_get_length(buffer));
    }
    return 0;
}
