// libpng as seen from Swift: two wrappers around its full API.
//
// libpng reports errors by longjmp to a setjmp point, which Swift cannot set; the wrappers set it in
// C, never let a jump cross a Swift frame, and report the failure as a return value and a message.
// Used by TextMeasureRender (`textmeasure render`) to write pictures and by its tests to read them.
#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H

#include <png.h>
#include <errno.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Where a failure's message goes: libpng's error callback copies it here, then jumps back.
typedef struct {
    jmp_buf jump;
    char *message;
    size_t message_size;
} cpng_context;

static void cpng_error(png_structp png, png_const_charp message) {
    cpng_context *context = (cpng_context *)png_get_error_ptr(png);
    if (context->message_size > 0) {
        snprintf(context->message, context->message_size, "%s", message);
    }
    longjmp(context->jump, 1);
}

static void cpng_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

/// Writes `height` rows of `width` 8-bit RGBA pixels (row after row, no padding) to the PNG file at
/// `path`, with `text_count` UTF-8 text chunks (iTXt, uncompressed): `keys[i]` (1 to 79 Latin-1
/// characters) = `values[i]`. Returns 0 on success; -1 with a message in `message` otherwise.
static inline int cpng_write_rgba(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height,
                                  const char *const *keys, const char *const *values, int text_count,
                                  char *message, size_t message_size) {
    FILE *volatile file = fopen(path, "wb");
    if (file == NULL) {
        snprintf(message, message_size, "%s", strerror(errno));
        return -1;
    }
    cpng_context context = {.message = message, .message_size = message_size};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context, cpng_error, cpng_warning);
    png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
    png_textp volatile texts = text_count > 0 ? (png_textp)calloc((size_t)text_count, sizeof(png_text)) : NULL;
    if (png == NULL || info == NULL || (text_count > 0 && texts == NULL)) {
        snprintf(message, message_size, "out of memory");
        png_destroy_write_struct(&png, &info);
        free(texts);
        fclose(file);
        return -1;
    }
    if (setjmp(context.jump)) {
        png_destroy_write_struct(&png, &info);
        free(texts);
        fclose(file);
        return -1;
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    for (int i = 0; i < text_count; i++) {
        texts[i].compression = PNG_ITXT_COMPRESSION_NONE;
        texts[i].key = (png_charp)keys[i];
        texts[i].text = (png_charp)values[i];
        texts[i].itxt_length = strlen(values[i]);
        texts[i].lang = (png_charp)"";
        texts[i].lang_key = (png_charp)"";
    }
    if (text_count > 0) png_set_text(png, info, texts, text_count);
    png_write_info(png, info);
    for (uint32_t row = 0; row < height; row++) {
        png_write_row(png, rgba + (size_t)row * width * 4);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(texts);
    if (fclose(file) != 0) {
        snprintf(message, message_size, "%s", strerror(errno));
        return -1;
    }
    return 0;
}

/// Reads the PNG file at `path` as 8-bit RGBA (any PNG: palettes, gray, 16-bit and interlacing are
/// converted). On success returns 0 and sets `*rgba` (rows of `*width` × 4 bytes, no padding; free it
/// with `free`) and `*text` (`*text_size` bytes: each text chunk as key, NUL, value, NUL; free it too);
/// otherwise -1 with a message in `message`.
static inline int cpng_read_rgba(const char *path, uint8_t **rgba, uint32_t *width, uint32_t *height,
                                 char **text, size_t *text_size, char *message, size_t message_size) {
    *rgba = NULL;
    *text = NULL;
    *text_size = 0;
    FILE *volatile file = fopen(path, "rb");
    if (file == NULL) {
        snprintf(message, message_size, "%s", strerror(errno));
        return -1;
    }
    cpng_context context = {.message = message, .message_size = message_size};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, cpng_error, cpng_warning);
    png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
    uint8_t *volatile pixels = NULL;
    char *volatile chunks = NULL;
    png_bytep *volatile rows = NULL;
    if (png == NULL || info == NULL) {
        snprintf(message, message_size, "out of memory");
        png_destroy_read_struct(&png, &info, NULL);
        fclose(file);
        return -1;
    }
    if (setjmp(context.jump)) {
        png_destroy_read_struct(&png, &info, NULL);
        free(pixels);
        free(chunks);
        free(rows);
        fclose(file);
        return -1;
    }
    png_init_io(png, file);
    png_read_info(png, info);
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    uint32_t w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    pixels = (uint8_t *)malloc((size_t)w * h * 4 + 1);
    rows = (png_bytep *)malloc(sizeof(png_bytep) * (h + 1));
    if (pixels == NULL || rows == NULL) png_error(png, "out of memory");
    for (uint32_t row = 0; row < h; row++) rows[row] = pixels + (size_t)row * w * 4;
    png_read_image(png, rows);
    free(rows);
    rows = NULL;
    png_read_end(png, info);
    png_textp texts = NULL;
    int count = png_get_text(png, info, &texts, NULL);
    size_t size = 0;
    for (int i = 0; i < count; i++) size += strlen(texts[i].key) + 1 + strlen(texts[i].text) + 1;
    chunks = (char *)malloc(size + 1);
    if (chunks == NULL) png_error(png, "out of memory");
    size_t offset = 0;
    for (int i = 0; i < count; i++) {
        size_t key = strlen(texts[i].key) + 1, value = strlen(texts[i].text) + 1;
        memcpy(chunks + offset, texts[i].key, key);
        memcpy(chunks + offset + key, texts[i].text, value);
        offset += key + value;
    }
    png_destroy_read_struct(&png, &info, NULL);
    fclose(file);
    *rgba = pixels;
    *width = w;
    *height = h;
    *text = chunks;
    *text_size = size;
    return 0;
}

#endif
