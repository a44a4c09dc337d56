// LD_PRELOAD interposer on HarfBuzz's hb_shape_plan_execute: per call site and script, the number
// of calls, characters in, glyphs out and nanoseconds spent inside the call (elapsed time,
// CLOCK_MONOTONIC: run it pinned to one CPU, e.g. with taskset -c 0). Call sites are return
// addresses relative to the main executable's load address; hbshim-report.py maps them to source
// lines.
//
// Build: cc -O2 -shared -fPIC hbshim.c $(pkg-config --cflags --libs harfbuzz) -ldl -o hbshim.so
// Use:   HBSHIM_OUT=hb.txt LD_PRELOAD=$PWD/hbshim.so taskset -c 0 textmeasure batch < cold.jsonl
// Output, one line per (site, script): SITE(hex) SCRIPT CALLS CHARS GLYPHS NS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <hb.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <link.h>
typedef hb_bool_t (*exec_t)(hb_shape_plan_t*, hb_font_t*, hb_buffer_t*, const hb_feature_t*, unsigned);
static exec_t real;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
#define N 4096
static struct { uintptr_t ret; uint32_t script; uint64_t calls, chars, glyphs, ns; } tab[N];
static uintptr_t base;
static int cb(struct dl_phdr_info *info, size_t size, void *data) { if (!base) base = info->dlpi_addr; return 1; }
hb_bool_t hb_shape_plan_execute(hb_shape_plan_t *plan, hb_font_t *font, hb_buffer_t *buffer, const hb_feature_t *features, unsigned n) {
    if (!real) { real = (exec_t)dlsym(RTLD_NEXT, "hb_shape_plan_execute"); dl_iterate_phdr(cb, NULL); }
    uintptr_t ret = (uintptr_t)__builtin_return_address(0) - base;
    uint32_t script = hb_buffer_get_script(buffer);
    unsigned len = hb_buffer_get_length(buffer);
    struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
    hb_bool_t r = real(plan, font, buffer, features, n);
    clock_gettime(CLOCK_MONOTONIC, &b);
    uint64_t ns = (b.tv_sec - a.tv_sec) * 1000000000ull + (b.tv_nsec - a.tv_nsec);
    unsigned glyphs = hb_buffer_get_length(buffer);
    pthread_mutex_lock(&mu);
    unsigned h = (unsigned)((ret * 31 + script) % N);
    while (tab[h].calls && (tab[h].ret != ret || tab[h].script != script)) h = (h + 1) % N;
    tab[h].ret = ret; tab[h].script = script; tab[h].calls++; tab[h].chars += len; tab[h].glyphs += glyphs; tab[h].ns += ns;
    pthread_mutex_unlock(&mu);
    return r;
}
__attribute__((destructor)) static void dump(void) {
    const char *path = getenv("HBSHIM_OUT"); if (!path) return;
    FILE *f = fopen(path, "w"); if (!f) return;
    for (int i = 0; i < N; i++) if (tab[i].calls) {
        char tag[5]; hb_tag_to_string(tab[i].script, tag); tag[4] = 0;
        fprintf(f, "%lx %s %lu %lu %lu %lu\n", (unsigned long)tab[i].ret, tag, tab[i].calls, tab[i].chars, tab[i].glyphs, tab[i].ns);
    }
    fclose(f);
}
