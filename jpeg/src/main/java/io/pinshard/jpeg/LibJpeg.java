package io.pinshard.jpeg;

import org.bytedeco.javacpp.annotation.Cast;
import org.bytedeco.javacpp.annotation.NoException;
import org.bytedeco.javacpp.annotation.Platform;

/**
 * The JavaCPP binding of {@code src/main/native/pinshard_jpeg.h} (decode), {@code pinshard_jpeg_encode.h} and
 * {@code pinshard_shrink.h}, {@code pinshard_composite.h} (the converter's area shrink and alpha composite, there so
 * that it needs no OpenCV for them) over the system's libjpeg-turbo (Debian's
 * libjpeg62-turbo), generated and compiled at build time when gcc and {@code jpeglib.h} are there. Addresses
 * travel as {@code long}s: nothing is allocated per call. Loaded only through {@link TurboJpeg}, which falls
 * back to OpenCV when this JVM or machine lacks it; use {@link RegionDecoder}, not this class.
 */
@Platform(value = "linux-x86_64", include = {"pinshard_jpeg_cut.h", "pinshard_jpeg.h", "pinshard_jpeg_encode.h",
    "pinshard_shrink.h", "pinshard_composite.h"},
    link = "jpeg@.62")
@NoException
final class LibJpeg {
    private LibJpeg() {
    }

    /** See {@code pinshard_jpeg_decode} in {@code pinshard_jpeg.h}; the int codes are {@link JpegResultDescriptor}'s. */
    static native int pinshard_jpeg_decode(@Cast("const unsigned char*") long source, long length, int scale, int x,
        int y, int width, int height, int format, @Cast("unsigned char*") long destination, long stride, long capacity,
        @Cast("unsigned char*") long scratch, long scratchCapacity, @Cast("int*") long result,
        @Cast("char*") long message);

    /** See {@code pinshard_jpeg_encode} in {@code pinshard_jpeg_encode.h}. */
    static native int pinshard_jpeg_encode(@Cast("const unsigned char*") long source, int height, int width, long stride,
        int format, int quality, int restartMcus, @Cast("unsigned char*") long destination, long capacity,
        @Cast("long*") long length, @Cast("char*") long message);

    /** See {@code pinshard_jpeg_encode_bound}. */
    static native long pinshard_jpeg_encode_bound(int height, int width);

    /** See {@code pinshard_shrink} in {@code pinshard_shrink.h}. */
    static native int pinshard_shrink(@Cast("const unsigned char*") long source, int sourceHeight, int sourceWidth,
        long sourceStride, int channels, @Cast("unsigned char*") long destination, int height, int width, long stride);

    /** See {@code pinshard_composite} in {@code pinshard_composite.h}. */
    static native int pinshard_composite(@Cast("const unsigned char*") long source, int height, int width,
        long sourceStride, int channels, int background0, int background1, int background2,
        @Cast("unsigned char*") long destination, long stride);
}
