/*
 * Fuzzes pinshard_jpeg_cut.h under AddressSanitizer and UBSan (CutFuzzTest builds and runs it): every source
 * stream sits in a buffer of exactly its length and every destination in one of exactly its capacity, so any read
 * or write past either aborts the run. Usage: cut_fuzz ITERATIONS SEED FILE... (baseline JPEGs with restart
 * markers); prints "iterations N layouts L cuts C" and exits 0, or aborts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pinshard_jpeg_cut.h"

static unsigned long long state;

static unsigned next_random(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (unsigned) (state >> 11);
}

static unsigned char *load(const char *path, long *length) {
    FILE *file = fopen(path, "rb");
    unsigned char *bytes;
    if (file == 0 || fseek(file, 0, SEEK_END) != 0 || (*length = ftell(file)) <= 0 || fseek(file, 0, SEEK_SET) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    bytes = malloc((size_t) *length);
    if (bytes == 0 || fread(bytes, 1, (size_t) *length, file) != (size_t) *length) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(file);
    return bytes;
}

/* A hostile copy of seed in a buffer of exactly its new length. */
static unsigned char *mutate(const unsigned char *seed, long seedLength, long *length) {
    unsigned char *out;
    long i;
    long at;
    switch (next_random() % 7) {
        case 0: /* as it is */
            *length = seedLength;
            out = malloc((size_t) *length);
            memcpy(out, seed, (size_t) *length);
            return out;
        case 1: /* truncated: anywhere, or (half the time) within the headers */
            *length = 1 + (long) (next_random() % (unsigned) (next_random() % 2 || seedLength < 700 ? seedLength : 700));
            out = malloc((size_t) *length);
            memcpy(out, seed, (size_t) *length);
            return out;
        case 2: /* a marker inserted anywhere: RST out of turn, EOI, SOS, 0xFF fill */
            *length = seedLength + 2;
            out = malloc((size_t) *length);
            at = (long) (next_random() % (unsigned) seedLength);
            memcpy(out, seed, (size_t) at);
            out[at] = 0xFF;
            out[at + 1] = (unsigned char) ((unsigned[]) {0xD0, 0xD3, 0xD7, 0xD9, 0xDA, 0xFF, 0x00, 0xDD}[next_random() % 8]);
            memcpy(out + at + 2, seed + at, (size_t) (seedLength - at));
            return out;
        case 3: /* a range deleted (an interval's bytes, a marker, a header's tail) */
            at = (long) (next_random() % (unsigned) seedLength);
            i = 1 + (long) (next_random() % 64);
            if (at + i > seedLength) {
                i = seedLength - at;
            }
            *length = seedLength - i;
            if (*length < 1) {
                *length = 1;
                i = seedLength - 1;
                at = 1;
            }
            out = malloc((size_t) *length);
            memcpy(out, seed, (size_t) at);
            memcpy(out + at, seed + at + i, (size_t) (seedLength - at - i));
            return out;
        default: /* bytes changed: anywhere, or in the headers (frame size, DRI, segment lengths) */
            *length = seedLength;
            out = malloc((size_t) *length);
            memcpy(out, seed, (size_t) *length);
            for (i = 1 + next_random() % 8; i > 0; i--) {
                long span = next_random() % 2 ? seedLength : (seedLength < 700 ? seedLength : 700);
                out[next_random() % (unsigned) span] = (unsigned char) next_random();
            }
            return out;
    }
}

int main(int argc, char **argv) {
    long iterations;
    int files = argc - 3;
    unsigned char **seeds;
    long *lengths;
    long n;
    long layouts = 0;
    long cuts = 0;
    int f;
    if (argc < 4) {
        fprintf(stderr, "usage: cut_fuzz ITERATIONS SEED FILE...\n");
        return 2;
    }
    iterations = atol(argv[1]);
    state = strtoull(argv[2], 0, 10) | 1;
    seeds = malloc(sizeof(*seeds) * (size_t) files);
    lengths = malloc(sizeof(*lengths) * (size_t) files);
    for (f = 0; f < files; f++) {
        seeds[f] = load(argv[3 + f], &lengths[f]);
    }
    for (n = 0; n < iterations; n++) {
        pinshard_jpeg_layout layout;
        long length;
        f = (int) (next_random() % (unsigned) files);
        unsigned char *src = mutate(seeds[f], lengths[f], &length);
        if (pinshard_jpeg_read_layout(src, length, &layout)) {
            int k = layout.restartMcus;
            int intervals = layout.mcusPerRow / k;
            int a = (int) (next_random() % (unsigned) intervals);
            int b = a + 1 + (int) (next_random() % (unsigned) (intervals - a));
            int row0 = (int) (next_random() % (unsigned) layout.mcuRows);
            int row1 = row0 + 1 + (int) (next_random() % (unsigned) (layout.mcuRows - row0));
            long capacity = length + 2;
            unsigned char *dst = malloc((size_t) capacity);
            long cut;
            layouts++;
            if (layout.data > length || layout.frame + 4 > layout.data || layout.mcusPerRow % k != 0) {
                fprintf(stderr, "layout outside the stream\n");
                abort();
            }
            cut = pinshard_jpeg_cut(src, length, &layout, a * k, b * k, row0, row1, dst, capacity);
            if (cut > 0) {
                cuts++;
                if (cut > capacity || dst[0] != 0xFF || dst[1] != 0xD8 || dst[cut - 2] != 0xFF || dst[cut - 1] != 0xD9) {
                    fprintf(stderr, "cut of %ld bytes for a capacity of %ld is not a stream\n", cut, capacity);
                    abort();
                }
            }
            /* Refused: too little room, columns off the interval grid, empty or reversed ranges. */
            if (pinshard_jpeg_cut(src, length, &layout, a * k, b * k, row0, row1, dst, length + 1) != 0
                || (k > 1 && pinshard_jpeg_cut(src, length, &layout, a * k + 1, b * k, row0, row1, dst, capacity) != 0)
                || pinshard_jpeg_cut(src, length, &layout, b * k, a * k, row0, row1, dst, capacity) != 0
                || pinshard_jpeg_cut(src, length, &layout, a * k, b * k, row1, row0, dst, capacity) != 0) {
                fprintf(stderr, "a cut the rules refuse was made\n");
                abort();
            }
            free(dst);
        }
        free(src);
    }
    printf("iterations %ld layouts %ld cuts %ld\n", iterations, layouts, cuts);
    for (f = 0; f < files; f++) {
        free(seeds[f]);
    }
    free(seeds);
    free(lengths);
    return 0;
}
