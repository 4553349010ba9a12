/*
 * pinshard's area shrink of 8-bit interleaved pixels: OpenCV's INTER_AREA for scales >= 1 (each output pixel
 * the mean of the source box it covers, fractional edge pixels weighted by their coverage, float sums, rounded
 * half up), so the converter resizes what libjpeg-turbo decoded without loading OpenCV. Separable: each
 * source row is summed horizontally once (the row two output rows share is kept), then weighted into the
 * output row. Bound by JavaCPP with pinshard_jpeg.h (io.pinshard.jpeg.LibJpeg); scratch is malloc'ed per call.
 */
#ifndef PINSHARD_SHRINK_H
#define PINSHARD_SHRINK_H

#include <math.h>
#include <stdlib.h>

#define PINSHARD_SHRINK_OK 0
#define PINSHARD_SHRINK_ARGUMENT 3 /* sizes, strides or channels do not describe a shrink */
#define PINSHARD_SHRINK_MEMORY 4   /* malloc failed */

/* Taps of output cell i of a side of n source pixels shrunk to m (OpenCV's computeResizeAreaTab). */
static int pinshard_shrink_taps(int n, int m, int i, double scale, int *index, float *weight) {
    double f1 = i * scale;
    double f2 = f1 + scale;
    int s1 = (int) ceil(f1);
    int s2 = (int) floor(f2);
    double cell = scale < n - f1 ? scale : n - f1;
    int count = 0;
    int s;
    (void) m;
    if (s2 > n) {
        s2 = n;
    }
    if (s1 - f1 > 1e-3 && s1 - 1 >= 0) {
        index[count] = s1 - 1;
        weight[count++] = (float) ((s1 - f1) / cell);
    }
    for (s = s1; s < s2; s++) {
        index[count] = s;
        weight[count++] = (float) (1.0 / cell);
    }
    if (f2 - s2 > 1e-3 && s2 < n) {
        double w = f2 - s2 < 1.0 ? f2 - s2 : 1.0;
        index[count] = s2;
        weight[count++] = (float) ((w < cell ? w : cell) / cell);
    }
    return count;
}

static void pinshard_shrink_row(const unsigned char *row, int dw, int channels, int taps, const int *xcount,
                                const int *xindex, const float *xweight, float *out) {
    int dx, t, c;
    if (channels == 3) { /* the converter's case: the sums stay in registers */
        for (dx = 0; dx < dw; dx++) {
            float r = 0, g = 0, b = 0;
            const int *index = xindex + (long) dx * taps;
            const float *weight = xweight + (long) dx * taps;
            for (t = 0; t < xcount[dx]; t++) {
                const unsigned char *p = row + (long) index[t] * 3;
                r += p[0] * weight[t];
                g += p[1] * weight[t];
                b += p[2] * weight[t];
            }
            out[(long) dx * 3] = r;
            out[(long) dx * 3 + 1] = g;
            out[(long) dx * 3 + 2] = b;
        }
        return;
    }
    for (dx = 0; dx < dw; dx++) {
        float sum[4] = {0, 0, 0, 0};
        const int *index = xindex + (long) dx * taps;
        const float *weight = xweight + (long) dx * taps;
        for (t = 0; t < xcount[dx]; t++) {
            const unsigned char *p = row + (long) index[t] * channels;
            for (c = 0; c < channels; c++) {
                sum[c] += p[c] * weight[t];
            }
        }
        for (c = 0; c < channels; c++) {
            out[(long) dx * channels + c] = sum[c];
        }
    }
}

/*
 * Shrinks the sh x sw image at src (rows sstride bytes apart) to dh x dw at dst (rows dstride bytes apart),
 * channels 1..4 bytes per pixel. Needs 0 < dh <= sh and 0 < dw <= sw.
 */
static int pinshard_shrink(const unsigned char *src, int sh, int sw, long sstride, int channels, unsigned char *dst,
                           int dh, int dw, long dstride) {
    double sx, sy;
    int taps, ytaps, dx, dy, t, i;
    int *xcount, *xindex, *yindex;
    float *xweight, *yweight, *hrow, *acc;
    long width;
    int cached = -1;
    int status = PINSHARD_SHRINK_OK;

    if (src == 0 || dst == 0 || channels < 1 || channels > 4 || dh <= 0 || dw <= 0 || dh > sh || dw > sw
        || sstride < (long) sw * channels || dstride < (long) dw * channels) {
        return PINSHARD_SHRINK_ARGUMENT;
    }
    sx = (double) sw / dw;
    sy = (double) sh / dh;
    taps = (int) ceil(sx) + 2;
    ytaps = (int) ceil(sy) + 2;
    width = (long) dw * channels;
    xcount = (int *) malloc(sizeof(int) * dw);
    xindex = (int *) malloc(sizeof(int) * (size_t) dw * taps);
    xweight = (float *) malloc(sizeof(float) * (size_t) dw * taps);
    yindex = (int *) malloc(sizeof(int) * ytaps);
    yweight = (float *) malloc(sizeof(float) * ytaps);
    hrow = (float *) malloc(sizeof(float) * width);
    acc = (float *) malloc(sizeof(float) * width);
    if (!xcount || !xindex || !xweight || !yindex || !yweight || !hrow || !acc) {
        status = PINSHARD_SHRINK_MEMORY;
        goto done;
    }
    for (dx = 0; dx < dw; dx++) {
        xcount[dx] = pinshard_shrink_taps(sw, dw, dx, sx, xindex + (long) dx * taps, xweight + (long) dx * taps);
    }
    for (dy = 0; dy < dh; dy++) {
        int count = pinshard_shrink_taps(sh, dh, dy, sy, yindex, yweight);
        unsigned char *out = dst + (long) dy * dstride;
        for (i = 0; i < width; i++) {
            acc[i] = 0;
        }
        for (t = 0; t < count; t++) {
            float w = yweight[t];
            if (yindex[t] != cached) {
                pinshard_shrink_row(src + (long) yindex[t] * sstride, dw, channels, taps, xcount, xindex, xweight, hrow);
                cached = yindex[t];
            }
            for (i = 0; i < width; i++) {
                acc[i] += hrow[i] * w;
            }
        }
        for (i = 0; i < width; i++) {
            /* Half up, as OpenCV's integer-ratio path does (exact ties hardly occur at other ratios). */
            float v = acc[i] + 0.5f;
            out[i] = (unsigned char) (v < 0 ? 0 : v >= 255 ? 255 : (int) v);
        }
    }
done:
    free(xcount);
    free(xindex);
    free(xweight);
    free(yindex);
    free(yweight);
    free(hrow);
    free(acc);
    return status;
}

#endif
