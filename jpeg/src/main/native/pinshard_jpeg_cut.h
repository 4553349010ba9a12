/*
 * Restart-interval cut: from a baseline JPEG with restart markers every k MCUs (k dividing the MCUs of a row,
 * which is what pinshard_jpeg_encode writes), build a smaller, valid JPEG of only the MCU rows and columns a
 * crop box needs, so that libjpeg's Huffman decoder (about half of a region decode's time) never sees the rest.
 *
 * Why it is exact: every restart interval starts with the DC predictions at zero and at a byte boundary, so an
 * interval's entropy-coded bytes decode the same wherever they stand. The cut copies the header with the frame's
 * height and width made those of the kept MCUs, then the kept intervals in order, renumbering the RST markers
 * between them (RST0..RST7 in turn), then EOI. Its pixels are those of the whole image's same MCUs; only
 * upsampled chroma at its edges differs, so the caller keeps a margin there.
 *
 * Hostile input: every length is checked against the buffer before it is read; anything but the one shape this
 * cuts (SOF0/SOF1, 8-bit, 1 or 3 components, one interleaved scan with every component, DRI whose interval
 * divides a row, RST markers in sequence) returns 0 and the caller decodes the stream as it is, so libjpeg
 * reports its own errors. No allocation; the cut is at most length + 2 bytes.
 */
#ifndef PINSHARD_JPEG_CUT_H
#define PINSHARD_JPEG_CUT_H

#include <string.h>

typedef struct {
    long frame;        /* offset of the SOF segment's height field (width follows) */
    long data;         /* offset of the first entropy-coded byte, just after the SOS segment */
    int width;
    int height;
    int mcuWidth;      /* pixels */
    int mcuHeight;
    int mcusPerRow;
    int mcuRows;
    int restartMcus;   /* DRI: MCUs per restart interval */
} pinshard_jpeg_layout;

static int pinshard_jpeg_be16(const unsigned char *at) {
    return (at[0] << 8) | at[1];
}

/* 1 and the layout when the stream has the one shape pinshard_jpeg_cut takes, else 0. */
static int pinshard_jpeg_read_layout(const unsigned char *src, long length, pinshard_jpeg_layout *layout) {
    long pos = 2;
    int components = 0;
    int maxH = 1;
    int maxV = 1;
    int i;
    memset(layout, 0, sizeof(*layout));
    if (length < 4 || src[0] != 0xFF || src[1] != 0xD8) {
        return 0;
    }
    for (;;) {
        int marker;
        long segment;
        while (pos < length && src[pos] == 0xFF && pos + 1 < length && src[pos + 1] == 0xFF) {
            pos++; /* fill bytes before a marker */
        }
        if (pos + 4 > length || src[pos] != 0xFF) {
            return 0;
        }
        marker = src[pos + 1];
        segment = pinshard_jpeg_be16(src + pos + 2);
        if (segment < 2 || pos + 2 + segment > length) {
            return 0;
        }
        if (marker == 0xC0 || marker == 0xC1) { /* baseline or extended sequential, Huffman */
            if (components != 0 || segment < 8 || src[pos + 4] != 8) {
                return 0;
            }
            layout->frame = pos + 5;
            layout->height = pinshard_jpeg_be16(src + pos + 5);
            layout->width = pinshard_jpeg_be16(src + pos + 7);
            components = src[pos + 9];
            /* 65500 is libjpeg's JPEG_MAX_DIMENSION: a larger frame must reach libjpeg whole, to be refused. */
            if ((components != 1 && components != 3) || segment != 8 + 3L * components || layout->height == 0
                || layout->width == 0 || layout->height > 65500 || layout->width > 65500) {
                return 0;
            }
            for (i = 0; i < components; i++) {
                int h = src[pos + 11 + 3 * i] >> 4;
                int v = src[pos + 11 + 3 * i] & 15;
                if (h < 1 || h > 4 || v < 1 || v > 4) {
                    return 0;
                }
                maxH = h > maxH ? h : maxH;
                maxV = v > maxV ? v : maxV;
            }
            if (components == 1) { /* a one-component scan is never interleaved: its MCU is one 8x8 block */
                maxH = 1;
                maxV = 1;
            }
        } else if (marker == 0xDD) {
            if (segment != 4) {
                return 0;
            }
            layout->restartMcus = pinshard_jpeg_be16(src + pos + 4);
        } else if (marker == 0xDA) {
            int scanComponents = pos + 4 < length ? src[pos + 4] : 0;
            long tail = pos + 5 + 2L * scanComponents;
            if (components == 0 || scanComponents != components || segment != 6 + 2L * scanComponents
                || src[tail] != 0 || src[tail + 1] != 63 || src[tail + 2] != 0) {
                return 0;
            }
            layout->data = pos + 2 + segment;
            break;
        } else if (!(marker == 0xC4 || marker == 0xDB || marker == 0xFE || (marker >= 0xE0 && marker <= 0xEF))) {
            return 0; /* progressive, lossless, arithmetic, DNL, or a marker without a length here */
        }
        pos += 2 + segment;
    }
    layout->mcuWidth = 8 * maxH;
    layout->mcuHeight = 8 * maxV;
    layout->mcusPerRow = (layout->width + layout->mcuWidth - 1) / layout->mcuWidth;
    layout->mcuRows = (layout->height + layout->mcuHeight - 1) / layout->mcuHeight;
    return layout->restartMcus > 0 && layout->mcusPerRow % layout->restartMcus == 0;
}

/*
 * The next marker at or after pos in entropy-coded data: returns the offset of its first 0xFF (fill bytes
 * included) and sets *code to its code and *after to the offset just past it; returns length with *code 0
 * when the data ends first. Stuffed 0xFF 0x00 is data.
 */
static long pinshard_jpeg_next_marker(const unsigned char *src, long length, long pos, int *code, long *after) {
    while (pos < length) {
        const unsigned char *hit = (const unsigned char *) memchr(src + pos, 0xFF, (size_t) (length - pos));
        long start;
        long next;
        if (hit == 0) {
            break;
        }
        start = hit - src;
        next = start + 1;
        while (next < length && src[next] == 0xFF) {
            next++;
        }
        if (next >= length) {
            break;
        }
        if (src[next] != 0) {
            *code = src[next];
            *after = next + 1;
            return start;
        }
        pos = next + 1;
    }
    *code = 0;
    *after = length;
    return length;
}

/*
 * Writes to dst the JPEG of MCU columns [col0, col1) and rows [row0, row1) (col0 and col1 multiples of the
 * restart interval, as mcusPerRow is) and returns its length, or 0 when the stream's markers are not where
 * its layout says (the caller then decodes the stream whole, and libjpeg reports what is wrong).
 */
static long pinshard_jpeg_cut(const unsigned char *src, long length, const pinshard_jpeg_layout *layout, int col0,
                              int col1, int row0, int row1, unsigned char *dst, long capacity) {
    long perRow = layout->mcusPerRow / layout->restartMcus;
    long first = col0 / layout->restartMcus;
    long last = (col1 + layout->restartMcus - 1) / layout->restartMcus; /* exclusive, within a row */
    long lastInterval = (long) (row1 - 1) * perRow + last - 1;
    long interval = 0;
    long pos = layout->data;
    long out = layout->data;
    long width;
    long height;
    long kept = 0; /* intervals written; an RST goes before each but the first */
    if (col0 < 0 || col0 >= col1 || col1 > layout->mcusPerRow || row0 < 0 || row0 >= row1 || row1 > layout->mcuRows
        || col0 % layout->restartMcus != 0 || col1 % layout->restartMcus != 0 || capacity < length + 2) {
        return 0;
    }
    memcpy(dst, src, (size_t) layout->data);
    width = col1 == layout->mcusPerRow ? layout->width - (long) col0 * layout->mcuWidth
                                       : (long) (col1 - col0) * layout->mcuWidth;
    height = row1 == layout->mcuRows ? layout->height - (long) row0 * layout->mcuHeight
                                     : (long) (row1 - row0) * layout->mcuHeight;
    dst[layout->frame] = (unsigned char) (height >> 8);
    dst[layout->frame + 1] = (unsigned char) height;
    dst[layout->frame + 2] = (unsigned char) (width >> 8);
    dst[layout->frame + 3] = (unsigned char) width;
    for (;;) {
        int code;
        long after;
        long end = pinshard_jpeg_next_marker(src, length, pos, &code, &after);
        long row = interval / perRow;
        long column = interval % perRow;
        if (row >= row0 && column >= first && column < last) {
            if (out + 2 + (end - pos) + 2 > capacity) {
                return 0;
            }
            if (kept > 0) { /* not "out > data": a hostile empty interval must still get its marker */
                dst[out++] = 0xFF;
                dst[out++] = (unsigned char) (0xD0 + ((kept - 1) & 7));
            }
            kept++;
            memcpy(dst + out, src + pos, (size_t) (end - pos));
            out += end - pos;
        }
        if (interval == lastInterval) {
            break;
        }
        if (code != 0xD0 + (int) (interval & 7)) {
            return 0; /* a marker missing, out of turn, or another marker in the scan */
        }
        pos = after;
        interval++;
    }
    dst[out++] = 0xFF;
    dst[out++] = 0xD9;
    return out;
}

#endif
