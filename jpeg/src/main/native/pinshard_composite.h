/*
 * pinshard's alpha composite of 8-bit pixels on an opaque background, for the converter's PNGs with alpha: one
 * integer pass, where OpenCV's float blendLinear took longer than the PNG's decode (0.2 s for 5120x2880).
 * Bound by JavaCPP with pinshard_jpeg.h (io.pinshard.jpeg.LibJpeg).
 */
#ifndef PINSHARD_COMPOSITE_H
#define PINSHARD_COMPOSITE_H

#define PINSHARD_COMPOSITE_OK 0
#define PINSHARD_COMPOSITE_ARGUMENT 3

/*
 * Composites the height x width image at src (rows sstride bytes apart; channels 2: grey, alpha; or 4: three
 * colours, alpha) on the background b0, b1, b2 (in the colours' order) into 3-channel pixels at dst (rows dstride
 * bytes apart): each value (v * a + b * (255 - a)) / 255, rounded to nearest.
 */
static int pinshard_composite(const unsigned char *src, int height, int width, long sstride, int channels, int b0,
                              int b1, int b2, unsigned char *dst, long dstride) {
    int x, y;
    if (src == 0 || dst == 0 || height <= 0 || width <= 0 || (channels != 2 && channels != 4)
        || sstride < (long) width * channels || dstride < (long) width * 3 || b0 < 0 || b0 > 255 || b1 < 0
        || b1 > 255 || b2 < 0 || b2 > 255) {
        return PINSHARD_COMPOSITE_ARGUMENT;
    }
    for (y = 0; y < height; y++) {
        const unsigned char *in = src + (long) y * sstride;
        unsigned char *out = dst + (long) y * dstride;
        for (x = 0; x < width; x++) {
            unsigned int a = in[channels - 1];
            unsigned int inverse = 255 - a;
            unsigned int v0 = in[0];
            unsigned int v1 = channels == 4 ? in[1] : v0;
            unsigned int v2 = channels == 4 ? in[2] : v0;
            out[0] = (unsigned char) ((v0 * a + (unsigned int) b0 * inverse + 127) / 255);
            out[1] = (unsigned char) ((v1 * a + (unsigned int) b1 * inverse + 127) / 255);
            out[2] = (unsigned char) ((v2 * a + (unsigned int) b2 * inverse + 127) / 255);
            in += channels;
            out += 3;
        }
    }
    return PINSHARD_COMPOSITE_OK;
}

#endif
