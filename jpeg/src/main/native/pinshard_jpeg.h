/*
 * pinshard's one native JPEG decode: libjpeg-turbo's own API for a region (jpeg_crop_scanline columns to the
 * iMCU grid, jpeg_skip_scanlines rows) at scale M/8, into memory the caller owns. Bound by JavaCPP
 * (io.pinshard.jpeg.LibJpeg). libjpeg reports errors through error_exit, which must not return: it longjmps
 * back here, so a hostile stream becomes a status code and a message, never a crash or an exit().
 * The source is always a copy the JVM made (never a file mapping), the destination is checked against the
 * capacity the caller gives before the first row is written.
 */
#ifndef PINSHARD_JPEG_H
#define PINSHARD_JPEG_H

#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <jpeglib.h>

#include "pinshard_jpeg_cut.h"

/* Status codes (io.pinshard.jpeg.JpegResultDescriptor keeps the Java side's copy). */
#define PINSHARD_JPEG_OK 0
#define PINSHARD_JPEG_UNSUPPORTED 1 /* not 1 or 3 components (CMYK, YCCK): the caller's other decoder takes it */
#define PINSHARD_JPEG_CORRUPT 2     /* libjpeg's error, text in message[0..] */
#define PINSHARD_JPEG_ARGUMENT 3    /* region, scale, format or destination do not fit this stream */

/* result[] ints, written on every return. */
#define PINSHARD_JPEG_R_WIDTH 0
#define PINSHARD_JPEG_R_HEIGHT 1
#define PINSHARD_JPEG_R_COMPONENTS 2
#define PINSHARD_JPEG_R_PROGRESSIVE 3
#define PINSHARD_JPEG_R_SCALED_WIDTH 4
#define PINSHARD_JPEG_R_SCALED_HEIGHT 5
#define PINSHARD_JPEG_R_REGION_X 6
#define PINSHARD_JPEG_R_REGION_WIDTH 7
#define PINSHARD_JPEG_R_WARNINGS 8
#define PINSHARD_JPEG_R_STREAM_BYTES 9 /* bytes libjpeg decoded: the restart-interval cut's, or the whole stream's */
#define PINSHARD_JPEG_RESULT_INTS 10

/* message: the error at 0, the first warning at PINSHARD_JPEG_MESSAGE_LENGTH; each NUL-terminated. */
#define PINSHARD_JPEG_MESSAGE_LENGTH JMSG_LENGTH_MAX
/* A progressive stream of thousands of tiny scans costs seconds of CPU (djpeg -maxscans guards the same). */
#define PINSHARD_JPEG_MAX_SCANS 1000

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char *message;
    int warnings;
} pinshard_jpeg_error;

typedef struct {
    struct jpeg_progress_mgr pub;
    pinshard_jpeg_error *error;
} pinshard_jpeg_progress;

static void pinshard_jpeg_error_exit(j_common_ptr cinfo) {
    pinshard_jpeg_error *error = (pinshard_jpeg_error *) cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->message);
    longjmp(error->jump, 1);
}

static void pinshard_jpeg_emit_message(j_common_ptr cinfo, int level) {
    pinshard_jpeg_error *error = (pinshard_jpeg_error *) cinfo->err;
    if (level < 0) { /* a warning: counted, the first kept (the converter rejects grey-filled corrupt data) */
        if (error->warnings++ == 0) {
            (*cinfo->err->format_message)(cinfo, error->message + PINSHARD_JPEG_MESSAGE_LENGTH);
        }
    }
}

static void pinshard_jpeg_output_message(j_common_ptr cinfo) {
    (void) cinfo; /* never to stderr */
}

/* libjpeg's standard error manager with the three hooks above: the one setup for decode and encode. */
static struct jpeg_error_mgr *pinshard_jpeg_errors(pinshard_jpeg_error *error, char *message) {
    struct jpeg_error_mgr *manager = jpeg_std_error(&error->pub);
    manager->error_exit = pinshard_jpeg_error_exit;
    manager->emit_message = pinshard_jpeg_emit_message;
    manager->output_message = pinshard_jpeg_output_message;
    error->message = message;
    error->warnings = 0;
    return manager;
}

static void pinshard_jpeg_progress_monitor(j_common_ptr cinfo) {
    if (cinfo->is_decompressor && ((j_decompress_ptr) cinfo)->input_scan_number > PINSHARD_JPEG_MAX_SCANS) {
        pinshard_jpeg_progress *progress = (pinshard_jpeg_progress *) cinfo->progress;
        snprintf(progress->error->message, PINSHARD_JPEG_MESSAGE_LENGTH, "more than %d scans", PINSHARD_JPEG_MAX_SCANS);
        longjmp(progress->error->jump, 1);
    }
}

/* Rows asked of libjpeg per jpeg_read_scanlines call (with 2x vertical chroma it writes a pair at once). */
#define PINSHARD_JPEG_ROWS_PER_READ 16

/* pinshard_jpeg_decode of the stream as it is (no cut). */
static int pinshard_jpeg_decode_stream(const unsigned char *src, long length, int scale, int x, int y, int w, int h,
                                       int format, unsigned char *dst, long stride, long capacity, int *result,
                                       char *message) {
    struct jpeg_decompress_struct cinfo;
    pinshard_jpeg_error error;
    pinshard_jpeg_progress progress;
    JDIMENSION xoffset;
    JDIMENSION width;
    long rowBytes;
    int i;

    for (i = 0; i < PINSHARD_JPEG_RESULT_INTS; i++) {
        result[i] = 0;
    }
    message[0] = 0;
    message[PINSHARD_JPEG_MESSAGE_LENGTH] = 0;
    if (length <= 0 || scale < 1 || scale > 8 || (format != 1 && format != 3 && format != 4) || stride <= 0) {
        snprintf(message, PINSHARD_JPEG_MESSAGE_LENGTH, "bad arguments");
        return PINSHARD_JPEG_ARGUMENT;
    }
    memset(&cinfo, 0, sizeof(cinfo));
    cinfo.err = pinshard_jpeg_errors(&error, message);
    if (setjmp(error.jump)) {
        result[PINSHARD_JPEG_R_WARNINGS] = error.warnings;
        jpeg_destroy_decompress(&cinfo);
        return PINSHARD_JPEG_CORRUPT;
    }
    jpeg_create_decompress(&cinfo);
    progress.pub.progress_monitor = pinshard_jpeg_progress_monitor;
    progress.error = &error;
    cinfo.progress = &progress.pub;
    jpeg_mem_src(&cinfo, src, (unsigned long) length);
    jpeg_read_header(&cinfo, TRUE);
    result[PINSHARD_JPEG_R_WIDTH] = (int) cinfo.image_width;
    result[PINSHARD_JPEG_R_HEIGHT] = (int) cinfo.image_height;
    result[PINSHARD_JPEG_R_COMPONENTS] = cinfo.num_components;
    result[PINSHARD_JPEG_R_PROGRESSIVE] = cinfo.progressive_mode ? 1 : 0;
    if (!((cinfo.num_components == 1 && cinfo.jpeg_color_space == JCS_GRAYSCALE)
          || (cinfo.num_components == 3 && (cinfo.jpeg_color_space == JCS_YCbCr || cinfo.jpeg_color_space == JCS_RGB)))) {
        snprintf(message, PINSHARD_JPEG_MESSAGE_LENGTH, "%d components, colour space %d", cinfo.num_components,
                 (int) cinfo.jpeg_color_space);
        jpeg_destroy_decompress(&cinfo);
        return PINSHARD_JPEG_UNSUPPORTED;
    }
    cinfo.scale_num = (unsigned int) scale;
    cinfo.scale_denom = 8;
    cinfo.out_color_space = format == 1 ? JCS_GRAYSCALE : format == 3 ? JCS_RGB : JCS_EXT_BGR;
    jpeg_calc_output_dimensions(&cinfo);
    result[PINSHARD_JPEG_R_SCALED_WIDTH] = (int) cinfo.output_width;
    result[PINSHARD_JPEG_R_SCALED_HEIGHT] = (int) cinfo.output_height;
    if (x < 0 || y < 0 || w <= 0 || h <= 0 || (long) x + w > (long) cinfo.output_width
        || (long) y + h > (long) cinfo.output_height) {
        snprintf(message, PINSHARD_JPEG_MESSAGE_LENGTH, "region %dx%d at (%d, %d) is outside the %ux%u image", w, h,
                 x, y, cinfo.output_width, cinfo.output_height);
        jpeg_destroy_decompress(&cinfo);
        return PINSHARD_JPEG_ARGUMENT;
    }
    jpeg_start_decompress(&cinfo);
    /* One column of margin each side: fancy upsampling of the region's edge columns lacks their outer neighbour. */
    xoffset = (JDIMENSION) (x > 0 ? x - 1 : 0);
    width = (JDIMENSION) ((long) x + w + 1 < (long) cinfo.output_width ? x + w + 1 : (int) cinfo.output_width) - xoffset;
    if (xoffset != 0 || width != cinfo.output_width) {
        jpeg_crop_scanline(&cinfo, &xoffset, &width);
    }
    result[PINSHARD_JPEG_R_REGION_X] = (int) xoffset;
    result[PINSHARD_JPEG_R_REGION_WIDTH] = (int) width;
    rowBytes = (long) width * cinfo.output_components;
    if (rowBytes > stride || stride > capacity || (long) (h - 1) * stride > capacity - rowBytes) {
        snprintf(message, PINSHARD_JPEG_MESSAGE_LENGTH, "%d rows of %ld bytes, %ld apart, do not fit in %ld bytes",
                 h, rowBytes, stride, capacity);
        jpeg_destroy_decompress(&cinfo);
        return PINSHARD_JPEG_ARGUMENT;
    }
    if (y > 0 && jpeg_skip_scanlines(&cinfo, (JDIMENSION) y) != (JDIMENSION) y) {
        snprintf(message, PINSHARD_JPEG_MESSAGE_LENGTH, "could not skip %d rows", y);
        jpeg_destroy_decompress(&cinfo);
        return PINSHARD_JPEG_CORRUPT;
    }
    while (cinfo.output_scanline < (JDIMENSION) (y + h)) {
        /* Several rows per call: with 2x vertical chroma the upsampler then writes both rows of a pair at once. */
        JSAMPROW rows[PINSHARD_JPEG_ROWS_PER_READ];
        JDIMENSION first = cinfo.output_scanline - (JDIMENSION) y;
        JDIMENSION count = (JDIMENSION) (y + h) - cinfo.output_scanline;
        JDIMENSION r;
        if (count > PINSHARD_JPEG_ROWS_PER_READ) {
            count = PINSHARD_JPEG_ROWS_PER_READ;
        }
        for (r = 0; r < count; r++) {
            rows[r] = dst + (long) (first + r) * stride;
        }
        if (jpeg_read_scanlines(&cinfo, rows, count) == 0) {
            snprintf(message, PINSHARD_JPEG_MESSAGE_LENGTH, "decoder stopped at row %u", cinfo.output_scanline);
            jpeg_destroy_decompress(&cinfo);
            return PINSHARD_JPEG_CORRUPT;
        }
    }
    result[PINSHARD_JPEG_R_WARNINGS] = error.warnings;
    result[PINSHARD_JPEG_R_STREAM_BYTES] = (int) length;
    jpeg_destroy_decompress(&cinfo); /* mid-image: rows below the region are never decoded */
    return PINSHARD_JPEG_OK;
}

/*
 * pinshard_jpeg_decode through the restart-interval cut: PINSHARD_JPEG_OK with the results in the whole image's
 * terms, or -1 when there is nothing to cut (no scratch, another shape of stream, a region outside the image, a
 * region that needs every MCU) or the cut failed; the caller then decodes the stream as it is.
 */
static int pinshard_jpeg_decode_cut(const unsigned char *src, long length, int scale, int x, int y, int w, int h,
                                    int format, unsigned char *dst, long stride, long capacity,
                                    unsigned char *scratch, long scratchCapacity, int *result, char *message) {
    pinshard_jpeg_layout layout;
    long cols, rows, left, right, top, bottom, k, col0, col1, row0, row1, cut;
    int dx, dy;
    if (scratch == 0 || length <= 0 || scale < 1 || scale > 8 || scratchCapacity < length + 2
        || !pinshard_jpeg_read_layout(src, length, &layout)) {
        return -1;
    }
    cols = ((long) layout.width * scale + 7) / 8;
    rows = ((long) layout.height * scale + 7) / 8;
    if (x < 0 || y < 0 || w <= 0 || h <= 0 || (long) x + w > cols || (long) y + h > rows) {
        return -1;
    }
    /* The region and its margin in full-size pixels, then in MCUs, columns to whole restart intervals. */
    left = (long) (x > 0 ? x - 1 : 0) * 8 / scale;
    right = (((long) x + w + 1 < cols ? (long) x + w + 1 : cols) * 8 + scale - 1) / scale;
    top = (long) (y > 0 ? y - 1 : 0) * 8 / scale;
    bottom = (((long) y + h + 1 < rows ? (long) y + h + 1 : rows) * 8 + scale - 1) / scale;
    k = layout.restartMcus;
    col0 = left / layout.mcuWidth / k * k;
    col1 = ((right + layout.mcuWidth - 1) / layout.mcuWidth + k - 1) / k * k;
    row0 = top / layout.mcuHeight;
    row1 = (bottom + layout.mcuHeight - 1) / layout.mcuHeight;
    col1 = col1 < layout.mcusPerRow ? col1 : layout.mcusPerRow;
    row1 = row1 < layout.mcuRows ? row1 : layout.mcuRows;
    if (col0 == 0 && col1 == layout.mcusPerRow && row0 == 0 && row1 == layout.mcuRows) {
        return -1;
    }
    cut = pinshard_jpeg_cut(src, length, &layout, (int) col0, (int) col1, (int) row0, (int) row1, scratch,
                            scratchCapacity);
    /* The cut starts on the MCU grid, so its offset is a whole number of scaled pixels. */
    dx = (int) (col0 * layout.mcuWidth * scale / 8);
    dy = (int) (row0 * layout.mcuHeight * scale / 8);
    if (cut == 0 || pinshard_jpeg_decode_stream(scratch, cut, scale, x - dx, y - dy, w, h, format, dst, stride,
                                                capacity, result, message) != PINSHARD_JPEG_OK) {
        return -1;
    }
    result[PINSHARD_JPEG_R_WIDTH] = layout.width;
    result[PINSHARD_JPEG_R_HEIGHT] = layout.height;
    result[PINSHARD_JPEG_R_SCALED_WIDTH] = (int) cols;
    result[PINSHARD_JPEG_R_SCALED_HEIGHT] = (int) rows;
    result[PINSHARD_JPEG_R_REGION_X] += dx;
    return PINSHARD_JPEG_OK;
}

/*
 * Decodes rows [y, y + h) and at least columns [x, x + w) of the stream's image at scale scale/8 (1..8), as
 * format 1 (grey), 3 (RGB) or 4 (BGR, 3 bytes), to dst, rows stride bytes apart, capacity bytes in all. The
 * columns widen to the iMCU grid: result[REGION_X] and result[REGION_WIDTH] say which were decoded (row
 * pixel 0 is column REGION_X; the asked columns are the same pixels as in a whole decode). x, y, w, h are in
 * scaled pixels: ceil(width * scale / 8) columns in all.
 *
 * Given scratch (at least length + 2 bytes) and a stream with restart markers that divide its rows
 * (pinshard_jpeg_cut.h), libjpeg decodes only the cut of the MCUs around the region, one scaled pixel of margin
 * each side so that upsampled chroma at the cut's edges stays out of the region; result[STREAM_BYTES] says how
 * much it read. Any other stream, or a cut that fails, decodes as it is.
 */
static int pinshard_jpeg_decode(const unsigned char *src, long length, int scale, int x, int y, int w, int h,
                                int format, unsigned char *dst, long stride, long capacity, unsigned char *scratch,
                                long scratchCapacity, int *result, char *message) {
    if (pinshard_jpeg_decode_cut(src, length, scale, x, y, w, h, format, dst, stride, capacity, scratch,
                                 scratchCapacity, result, message) == PINSHARD_JPEG_OK) {
        return PINSHARD_JPEG_OK;
    }
    /* No cut, or one libjpeg refused: the whole stream's decode says what is wrong, in libjpeg's words. */
    return pinshard_jpeg_decode_stream(src, length, scale, x, y, w, h, format, dst, stride, capacity, result, message);
}

#endif
