package io.pinshard.jpeg;

import static io.pinshard.jpeg.JpegResultDescriptor.ENCODED_LENGTH;
import static io.pinshard.jpeg.JpegResultDescriptor.FULL;
import static io.pinshard.jpeg.JpegResultDescriptor.MESSAGE_OFFSET;
import static io.pinshard.jpeg.JpegResultDescriptor.OK;

import java.nio.ByteBuffer;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Baseline JPEG encode through the system libjpeg-turbo ({@code pinshard_jpeg_encode.h}) with the settings
 * OpenCV's {@code imencode} uses (4:2:0 for colour, standard Huffman tables, JDCT_ISLOW), from pixels to memory
 * the caller owns, sized with {@link #maxEncodedLength}; available when {@link TurboJpeg#available} says so. One
 * per thread; a call allocates nothing on the JVM heap except on failure.
 */
public final class JpegEncoder implements AutoCloseable {
    /**
     * Restart markers every k MCUs, k the largest divisor of a row's MCUs up to this (2 MCUs: 32 pixels of a
     * 4:2:0 image): {@link RegionDecoder} then cuts a crop's intervals out of the stream (docs/loader.md has
     * what the markers cost in size).
     */
    public static final int DEFAULT_RESTART_MCUS = 2;

    /**
     * The restart interval, in MCUs, for a {@code width}-pixel-wide image of {@code channels} (1, or 3 encoded
     * 4:2:0): the largest divisor of a row's MCUs up to {@code restartMcus}, so that every interval lies in one
     * MCU row and a row holds whole intervals (what {@link RegionDecoder}'s cut needs); 0 for none. For
     * OpenCV's {@code IMWRITE_JPEG_RST_INTERVAL} too.
     */
    public static int restartInterval(int width, int channels, int restartMcus) {
        if (restartMcus <= 0 || width <= 0) {
            return 0;
        }
        int mcuWidth = channels == 1 ? 8 : 16;
        int perRow = (width + mcuWidth - 1) / mcuWidth;
        int interval = Math.min(restartMcus, perRow);
        while (perRow % interval != 0) {
            interval--;
        }
        return interval;
    }

    private final ByteBuffer memory = ByteBuffer.allocateDirect(JpegResultDescriptor.LENGTH);
    private final UnsafeBuffer result = new UnsafeBuffer(memory);
    private boolean closed;

    /** A capacity that holds the stream of any {@code height x width} image (libjpeg-turbo's worst case, and headers). */
    public static long maxEncodedLength(int height, int width) {
        return LibJpeg.pinshard_jpeg_encode_bound(height, width);
    }

    /**
     * Encodes the {@code height x width} image at {@code pixels} (rows {@code stride} bytes apart, {@code format}'s
     * bytes per pixel) at {@code quality} (1..100) to {@code destination} and returns the stream's length, with
     * restart markers every {@link #DEFAULT_RESTART_MCUS} MCUs at most.
     *
     * @throws IllegalArgumentException when the arguments do not describe an image, or the stream does not fit
     *                                  in {@code capacity} bytes (see {@link #maxEncodedLength})
     */
    public int encode(long pixels, int height, int width, long stride, RegionDecoder.Format format, int quality,
        long destination, long capacity) {
        return encode(pixels, height, width, stride, format, quality, DEFAULT_RESTART_MCUS, destination, capacity);
    }

    /**
     * {@link #encode(long, int, int, long, RegionDecoder.Format, int, long, long)} with restart markers every
     * {@code restartMcus} MCUs at most (0: none; see {@link #restartInterval}).
     */
    public int encode(long pixels, int height, int width, long stride, RegionDecoder.Format format, int quality,
        int restartMcus, long destination, long capacity) {
        if (closed) {
            throw new IllegalStateException("jpeg encoder is closed");
        }
        if (pixels == 0 || destination == 0) {
            throw new IllegalArgumentException("null address");
        }
        int status = LibJpeg.pinshard_jpeg_encode(pixels, height, width, stride, format.code, quality,
            restartInterval(width, format.channels, restartMcus), destination, capacity,
            result.addressOffset() + ENCODED_LENGTH, result.addressOffset() + MESSAGE_OFFSET);
        if (status == OK) {
            return Math.toIntExact(result.getLong(ENCODED_LENGTH));
        }
        String problem = status == FULL ? "the JPEG of a " + width + "x" + height + " image does not fit in " + capacity
            + " bytes" : problem();
        throw new IllegalArgumentException("jpeg encode of " + width + "x" + height + " at quality " + quality
            + " failed: " + problem);
    }

    private String problem() {
        return JpegResultDescriptor.message(result, MESSAGE_OFFSET);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            BufferUtil.free(memory);
        }
    }
}
