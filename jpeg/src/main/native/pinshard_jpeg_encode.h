/*
 * pinshard's JPEG encode through the system libjpeg-turbo: baseline, 4:2:0 for colour, Huffman tables not
 * optimised, JDCT_ISLOW, the settings OpenCV's imencode uses, into a buffer the caller owns (never malloc'ed by
 * libjpeg: a destination manager that refuses to grow). Errors longjmp back here as in pinshard_jpeg.h.
 * Bound by JavaCPP with pinshard_jpeg.h (io.pinshard.jpeg.LibJpeg).
 */
#ifndef PINSHARD_JPEG_ENCODE_H
#define PINSHARD_JPEG_ENCODE_H

#include "pinshard_jpeg.h"

#define PINSHARD_JPEG_FULL 5 /* the encoded stream does not fit in the destination */

typedef struct {
    struct jpeg_destination_mgr pub;
    pinshard_jpeg_error *error;
} pinshard_jpeg_fixed_destination;

static void pinshard_jpeg_init_destination(j_compress_ptr cinfo) {
    (void) cinfo;
}

static boolean pinshard_jpeg_empty_output_buffer(j_compress_ptr cinfo) {
    pinshard_jpeg_fixed_destination *destination = (pinshard_jpeg_fixed_destination *) cinfo->dest;
    destination->error->warnings = -1; /* marks "full" for the longjmp target */
    snprintf(destination->error->message, PINSHARD_JPEG_MESSAGE_LENGTH, "encoded stream is larger than the buffer");
    longjmp(destination->error->jump, 1);
    return FALSE;
}

static void pinshard_jpeg_term_destination(j_compress_ptr cinfo) {
    (void) cinfo;
}

/* Worst-case size of the stream for a height x width image (libjpeg-turbo's tjBufSize for 4:4:4, plus headers). */
static long pinshard_jpeg_encode_bound(int height, int width) {
    return (long) ((width + 15) & ~15) * (long) ((height + 15) & ~15) * 6L + 4096L;
}

/*
 * Encodes the height x width image at src (rows stride bytes apart) in format 1 (grey), 3 (RGB) or 4 (BGR) at
 * quality 1..100 into dst (capacity bytes). On OK, *length is the stream's size. restartMcus > 0 writes a
 * restart marker every restartMcus MCUs (io.pinshard.jpeg.JpegEncoder.restartInterval picks it so that a region
 * decode can cut out the intervals it needs, pinshard_jpeg_cut.h); 0 writes none.
 */
static int pinshard_jpeg_encode(const unsigned char *src, int height, int width, long stride, int format, int quality,
                                int restartMcus, unsigned char *dst, long capacity, long *length, char *message) {
    struct jpeg_compress_struct cinfo;
    pinshard_jpeg_error error;
    pinshard_jpeg_fixed_destination destination;
    int channels = format == 1 ? 1 : 3;

    *length = 0;
    message[0] = 0;
    if (src == 0 || dst == 0 || height <= 0 || width <= 0 || height > 65500 || width > 65500
        || (format != 1 && format != 3 && format != 4) || quality < 1 || quality > 100
        || stride < (long) width * channels || capacity <= 0 || restartMcus < 0 || restartMcus > 65535) {
        snprintf(message, PINSHARD_JPEG_MESSAGE_LENGTH, "bad arguments");
        return PINSHARD_JPEG_ARGUMENT;
    }
    memset(&cinfo, 0, sizeof(cinfo));
    cinfo.err = pinshard_jpeg_errors(&error, message);
    if (setjmp(error.jump)) {
        int full = error.warnings < 0;
        jpeg_destroy_compress(&cinfo);
        return full ? PINSHARD_JPEG_FULL : PINSHARD_JPEG_CORRUPT;
    }
    jpeg_create_compress(&cinfo);
    destination.pub.next_output_byte = dst;
    destination.pub.free_in_buffer = (size_t) capacity;
    destination.pub.init_destination = pinshard_jpeg_init_destination;
    destination.pub.empty_output_buffer = pinshard_jpeg_empty_output_buffer;
    destination.pub.term_destination = pinshard_jpeg_term_destination;
    destination.error = &error;
    cinfo.dest = &destination.pub;
    cinfo.image_width = (JDIMENSION) width;
    cinfo.image_height = (JDIMENSION) height;
    cinfo.input_components = channels;
    cinfo.in_color_space = format == 1 ? JCS_GRAYSCALE : format == 3 ? JCS_RGB : JCS_EXT_BGR;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.restart_interval = (unsigned int) restartMcus;
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW) (src + (long) cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    *length = capacity - (long) destination.pub.free_in_buffer;
    jpeg_destroy_compress(&cinfo);
    return PINSHARD_JPEG_OK;
}

#endif
