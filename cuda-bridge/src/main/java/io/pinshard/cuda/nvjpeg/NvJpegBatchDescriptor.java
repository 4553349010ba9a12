package io.pinshard.cuda.nvjpeg;

import org.agrona.BitUtil;

/**
 * Layout of the host block that carries one batched nvJPEG decode's arguments ({@code nvjpegDecodeBatched}'s
 * {@code data}, {@code lengths} and {@code destinations} arrays), for a batch of at most {@code capacity} images,
 * and of the device buffer the images are decoded into. Little-endian, as the x86-64 and aarch64 hosts CUDA runs on.
 *
 * <pre>
 * host block, capacity N (8-byte aligned; allocated once per decoder, refilled per batch):
 *  0                 8N                 16N                                   16N + 64N
 *  +-----------------+------------------+--------------------------------------+
 *  | source[N]  u64  | length[N]  u64   | image[N]: nvjpegImage_t (64 bytes)   |
 *  | payload address | payload bytes    |  channel[4] u64 | pitch[4] u64       |
 *  +-----------------+------------------+--------------------------------------+
 *
 * device buffer: image i at i x outputStride, interleaved RGB (NVJPEG_OUTPUT_RGBI), pitch width x 3:
 *  +----------------------+----------------------+---
 *  | image 0, H0 x W0 x 3 | image 1, H1 x W1 x 3 | ...   each slot outputStride bytes (a multiple of 256)
 *  +----------------------+----------------------+---
 * </pre>
 *
 * {@code channel[0]} of image i is the device address of its slot and {@code pitch[0]} its row length in bytes;
 * channels 1-3 are unused by RGBI and written as zero. The source addresses point into mapped shards: nvJPEG reads
 * them on the host, so a payload's bytes must stay mapped until the decode returns.
 */
public final class NvJpegBatchDescriptor {
    /** Bytes of one source address (a {@code const unsigned char*}). */
    public static final int SOURCE_LENGTH = BitUtil.SIZE_OF_LONG;
    /** Bytes of one payload length (a {@code size_t}). */
    public static final int LENGTH_LENGTH = BitUtil.SIZE_OF_LONG;
    /** {@code nvjpegImage_t}: {@code unsigned char* channel[NVJPEG_MAX_COMPONENT]; size_t pitch[NVJPEG_MAX_COMPONENT]}. */
    public static final int MAX_COMPONENTS = 4;
    public static final int IMAGE_CHANNEL_OFFSET = 0;
    public static final int IMAGE_PITCH_OFFSET = IMAGE_CHANNEL_OFFSET + MAX_COMPONENTS * BitUtil.SIZE_OF_LONG;
    public static final int IMAGE_LENGTH = IMAGE_PITCH_OFFSET + MAX_COMPONENTS * BitUtil.SIZE_OF_LONG;
    /** Output slots start on this boundary, as CUDA's allocations and coalesced stores like. */
    public static final int OUTPUT_ALIGNMENT = 256;
    /** The most images one batch may hold (nvJPEG takes an int; far above any training batch). */
    public static final int MAX_CAPACITY = 1 << 16;
    /** Interleaved RGB output: three bytes per pixel. */
    public static final int OUTPUT_CHANNELS = 3;

    private NvJpegBatchDescriptor() {
    }

    public static long sourcesOffset(int capacity) {
        return 0;
    }

    public static long lengthsOffset(int capacity) {
        return sourcesOffset(capacity) + (long) capacity * SOURCE_LENGTH;
    }

    public static long imagesOffset(int capacity) {
        return lengthsOffset(capacity) + (long) capacity * LENGTH_LENGTH;
    }

    /** Bytes of the host block for {@code capacity} images. */
    public static long blockLength(int capacity) {
        checkCapacity(capacity);
        return imagesOffset(capacity) + (long) capacity * IMAGE_LENGTH;
    }

    /** Device bytes per image slot: the largest image allowed, {@code maxHeight x maxWidth x 3}, rounded up to 256. */
    public static long outputStride(int maxHeight, int maxWidth) {
        checkImageBounds(maxHeight, maxWidth);
        return BitUtil.align((long) maxHeight * maxWidth * OUTPUT_CHANNELS, OUTPUT_ALIGNMENT);
    }

    /** Device bytes for {@code images} slots of {@code outputStride} bytes. */
    public static long outputLength(int images, long outputStride) {
        return images * outputStride;
    }

    public static void checkCapacity(int capacity) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("an nvJPEG batch holds 1 to " + MAX_CAPACITY + " images, not " + capacity);
        }
    }

    /** Output slots are sized by these bounds; JPEG's own limit is 65,535 per side. */
    public static void checkImageBounds(int maxHeight, int maxWidth) {
        if (maxHeight < 1 || maxWidth < 1 || maxHeight > 0xFFFF || maxWidth > 0xFFFF) {
            throw new IllegalArgumentException("image bounds must be 1 to 65535 per side, not " + maxHeight + " x "
                + maxWidth);
        }
    }
}
