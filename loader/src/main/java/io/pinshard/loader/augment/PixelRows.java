package io.pinshard.loader.augment;

import io.pinshard.loader.options.PixelFormat;
import io.pinshard.memory.DType;
import io.pinshard.memory.HalfFloats;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The last step of a crop: one finished output row, {@code crop x 3} interleaved RGB bytes still in a worker's
 * L1-sized row buffer, written into the destination image in the loader's {@link PixelFormat} (uint8 NHWC: a copy;
 * a float type: {@code x * scale + shift} rounded to its element type; NCHW: the three channels to their planes). The
 * destination is written once, with JVM-guarded copies (a truncated shared ring faults as an {@link InternalError},
 * never a SIGBUS in native code); there is no pass over the finished image.
 *
 * <p>This class is the scalar path, by a table of the 768 values a format can write (one per channel and byte):
 * exact by construction, used where the JDK's vector module is missing. {@link VectorPixelRows} computes the same
 * values with the Vector API. Everything is allocated in the constructor; a row allocates nothing.
 */
public class PixelRows {
    /**
     * System property: {@code 256} keeps the vector kernels (the crop's and the rows') at 256-bit vectors on a CPU
     * with 512-bit ones (to measure the two side by side, and to test the 256-bit path there).
     */
    public static final String BITS_PROPERTY = "pinshard.vector.bits";
    /** Channels of a crop (RGB). */
    static final int CHANNELS = 3;
    /** Room after a row's last value: any vector may read or write one whole vector past it. */
    static final int SLACK = 64;

    final int crop;
    final int values;
    final PixelFormat format;
    final int elementBytes;
    final boolean planar;
    /** Output row, {@code values x elementBytes} bytes (NCHW: three planes' rows, each padded); then copied out. */
    final byte[] out;
    /** Distance between the NCHW planes' rows in {@link #out}, in values. */
    final int planeRow;
    final UnsafeBuffer outBuffer;
    private final int[] table;
    private final byte[] tileRow;

    /** Rows of {@code crop x 3} values in {@code format}. */
    public PixelRows(int crop, PixelFormat format) {
        this.crop = crop;
        this.values = crop * CHANNELS;
        this.format = format;
        this.elementBytes = format.elementBytes();
        this.planar = format.layout() == PixelFormat.Layout.NCHW;
        this.planeRow = crop + SLACK;
        this.out = new byte[(CHANNELS * planeRow + SLACK) * elementBytes + SLACK * Float.BYTES];
        this.outBuffer = new UnsafeBuffer(out);
        this.table = new int[CHANNELS * 256];
        for (int c = 0; c < CHANNELS; c++) {
            for (int x = 0; x < 256; x++) {
                table[c * 256 + x] = encode(format, c, x);
            }
        }
        this.tileRow = new byte[values + SLACK];
    }

    /** The bits channel {@code c}'s byte {@code x} becomes in {@code format} (the reference every path must equal). */
    static int encode(PixelFormat format, int c, int x) {
        float value = format.value(c, x);
        DType type = format.dtype();
        if (type == DType.FLOAT32) {
            return Float.floatToRawIntBits(value);
        }
        if (type == DType.FLOAT16) {
            return HalfFloats.toFloat16(value) & 0xFFFF;
        }
        if (type == DType.BFLOAT16) {
            return HalfFloats.toBfloat16(value) & 0xFFFF;
        }
        return x;
    }

    /** Whether a row is a plain copy (uint8 NHWC, the crop itself). */
    public final boolean isCopy() {
        return format.isCrop();
    }

    /** Bytes of one image in the destination. */
    public final long imageBytes() {
        return format.imageBytes(crop);
    }

    /**
     * Writes output row {@code y} of an image: {@code row} holds its {@code crop x 3} RGB bytes (and may be read
     * {@link #SLACK} bytes past them); {@code image} wraps the whole destination image.
     */
    public void writeRow(byte[] row, int y, UnsafeBuffer image) {
        if (isCopy()) {
            image.putBytes(y * values, row, 0, values);
            return;
        }
        for (int k = 0; k < values; k++) {
            int c = k % CHANNELS;
            int bits = table[c * 256 + (row[k] & 0xFF)];
            int at = planar ? c * planeRow + k / CHANNELS : k;
            switch (elementBytes) {
                case 4 -> outBuffer.putInt(at * 4, bits);
                case 2 -> outBuffer.putShort(at * 2, (short) bits);
                default -> outBuffer.putByte(at, (byte) bits);
            }
        }
        copyOut(y, image);
    }

    /** The finished row in {@link #out} to row {@code y} of {@code image}: one guarded copy per row or plane row. */
    final void copyOut(int y, UnsafeBuffer image) {
        if (!planar) {
            image.putBytes(y * values * elementBytes, out, 0, values * elementBytes);
            return;
        }
        int planeBytes = crop * crop * elementBytes;
        for (int c = 0; c < CHANNELS; c++) {
            image.putBytes(c * planeBytes + y * crop * elementBytes, out, c * planeRow * elementBytes,
                crop * elementBytes);
        }
    }

    /**
     * Writes a whole finished uint8 NHWC crop ({@code tile}, {@code crop x crop x 3} bytes, e.g. what OpenCV resized
     * into a worker's private image, which stays in L2) into {@code image} in this format, row by row.
     */
    public final void writeTile(UnsafeBuffer tile, UnsafeBuffer image) {
        for (int y = 0; y < crop; y++) {
            tile.getBytes(y * values, tileRow, 0, values);
            writeRow(tileRow, y, image);
        }
    }

    /** Whether {@link #BITS_PROPERTY} holds the vector kernels to 256-bit vectors. */
    static boolean held256() {
        return "256".equals(System.getProperty(BITS_PROPERTY, "").trim());
    }
}
