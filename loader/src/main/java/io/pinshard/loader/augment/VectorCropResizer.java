package io.pinshard.loader.augment;

import io.pinshard.loader.options.PixelFormat;
import io.pinshard.loader.options.Resampler;
import java.util.Arrays;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Crop box -> bilinear resize (half-pixel centres, edge clamp, as torchvision and OpenCV INTER_LINEAR)
 * -> optional mirror of a 3-channel uint8 image, with the JDK Vector API on 512-bit vectors where the CPU has
 * them (AVX-512; 1.17-1.27x the crops per second of 256-bit ones on a Xeon, see docs/benchmarks.md) and 256-bit ones
 * otherwise. Below, "16 values" and "32-byte window" are the 256-bit sizes; 512-bit vectors double them.
 *
 * <p>Horizontal pass first, 16 output values per step and no gathers: a 32-byte window of the source row
 * is permuted ({@code selectFrom}) by a per-crop index table into (left, right) byte pairs, which become
 * 16-bit lanes weighted with 8-bit fixed-point weights. Boxes so wide that 16 values need more than one
 * window use two windows of 8 values each; a half-block spans at most four source pixels, which fit a
 * window up to a scale of 8/3 (2.5 is promised, see {@link io.pinshard.loader.options.Resampler}). The mirror is the same table read
 * backwards, so it costs nothing. Source rows are resized in pairs, so each block's tables serve two rows.
 * The vertical pass then blends two horizontally resized rows (each computed once per crop), 32 values
 * per step. Each pass rounds to 8 bits: results are within 2 grey levels of exact bilinear, 0.3 on average.
 * Each finished row, still in an L1-sized buffer, goes to the destination through {@link VectorPixelRows}: as it is
 * (uint8 NHWC) or converted to the loader's float format and layout on its way, so a float slot is written once.
 *
 * <p>A yuv420 record ({@link #resizeInto(Yuv420Rows, CropBox, long)}) goes through the same passes: each source row the
 * horizontal pass needs is converted from the box's luma and chroma bytes to RGB ({@link VectorYuv420Rows}: integer
 * BT.601 on vectors, the bytes of {@link io.pinshard.format.Bt601}) into the row buffer it would otherwise have copied
 * into, so its crop is exactly the crop of the RGB the record decodes to, and no RGB image is made.
 *
 * <p>Everything is allocated in the constructor; a call allocates nothing, with or without C2's type profiles: every
 * vector a method is called on has a class C2 knows exactly when it parses the kernel (a constant, a concrete vector
 * class's own result, or a {@code Class.cast} to the species' class; see {@link #WINDOW_CLASS}), so no vector call
 * waits for a profile that a compile under load may lack (the loader pom's no-type-profiles runs keep it so). Only
 * loaded when the {@code jdk.incubator.vector} module is present (see {@link io.pinshard.loader.options.Resampler}).
 */
public final class VectorCropResizer implements CropKernel {
    /** 512-bit vectors where the CPU has them (AVX-512: half the instructions per row), else 256. */
    private static final boolean WIDE = ByteVector.SPECIES_PREFERRED.vectorBitSize() >= 512 && !PixelRows.held256();
    static final VectorSpecies<Byte> WINDOW = WIDE ? ByteVector.SPECIES_512 : ByteVector.SPECIES_256;
    private static final VectorSpecies<Byte> HALF = WIDE ? ByteVector.SPECIES_256 : ByteVector.SPECIES_128;
    private static final VectorSpecies<Short> LANES = WIDE ? ShortVector.SPECIES_512 : ShortVector.SPECIES_256;
    private static final int WINDOW_BYTES = WINDOW.length();
    private static final int STEP = WINDOW_BYTES / 2;
    private static final int HALF_STEP = STEP / 2;
    private static final int CHANNELS = 3;
    private static final int WEIGHT_BITS = BilinearAxis.WEIGHT_BITS;
    private static final int ONE = BilinearAxis.ONE;
    private static final short ROUND = BilinearAxis.ROUND;
    private static final short LOW_BYTE = 0xFF;
    /** The upper half of a pair vector's lanes (16..31 on 256 bits): the second half-block's (left, right) pairs. */
    private static final VectorMask<Byte> UPPER_HALF = VectorMask.fromLong(WINDOW, -1L << (WINDOW_BYTES / 2));
    /*
     * Every vector a call is made on has an exact class when C2 parses the kernel, as in VectorYuv420Rows (whose
     * Javadoc says which Vector API results C2 knows exactly): what fromArray, reinterpretAs*, convertShape and the
     * scalar forms (and(e), lanewise(LSHR, n), ...) return has none, so a call on it would be bound by a type profile,
     * and where that is missing or polluted the call stays virtual and its vectors are heap objects (246 MB per 20
     * crops with -XX:-UseTypeProfile). Class.cast to the species' vector class (an intrinsic: no bytecode to inline, no
     * instruction once C2 sees the class) gives such a value its exact class; a vector constant's is exact already.
     * Not ZERO.or(v): each such call inlines a whole lanewise template, and with them the kernel passed C2's inlining
     * budget (DesiredMethodLimit) in its second weigh, whose calls were then left virtual again.
     */
    private static final Class<ByteVector> WINDOW_CLASS = ExactVectors.vectorClass(WINDOW);
    private static final Class<ByteVector> HALF_CLASS = ExactVectors.vectorClass(HALF);
    private static final Class<ShortVector> LANES_CLASS = ExactVectors.vectorClass(LANES);
    private static final ShortVector LOW_BYTES = ShortVector.broadcast(LANES, LOW_BYTE);
    private static final ShortVector ROUNDING = ShortVector.broadcast(LANES, ROUND);

    private final int crop;
    private final int values;
    private final int blocks;
    /** Length of the resized and output row buffers: whole 32-byte vectors. */
    private final int rowBytes;
    private final int maxBoxWidth;

    private final int[] column;
    private final int[] columnWeight;
    private final int[] row;
    private final int[] rowWeight;
    private final byte[] pairLanes;
    private final byte[] secondPairLanes;
    private final int[] window;
    private final int[] secondWindow;
    private final int[] leftByte;
    private final short[] leftWeight;
    private final short[] rightWeight;

    private final byte[] sourceRow;
    private final byte[] nextSourceRow;
    private final byte[][] resizedRows;
    private final int[] resizedRowTag = new int[4];
    private final byte[] outputRow;
    private final VectorPixelRows rows;
    private final UnsafeBuffer source = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer target = new UnsafeBuffer(new byte[0]);
    /** The yuv420 rows of the crop in progress, converted on vectors; null when it reads RGB from {@link #source}. */
    private VectorYuv420Rows yuv;
    private final VectorYuv420Rows yuvRows;

    public VectorCropResizer(int crop) {
        this(crop, PixelFormat.UINT8_NHWC);
    }

    /** A kernel writing {@code crop x crop x 3} images in {@code pixels}. */
    public VectorCropResizer(int crop, PixelFormat pixels) {
        this.crop = crop;
        this.rows = new VectorPixelRows(crop, pixels);
        this.values = crop * CHANNELS;
        int padded = (values + STEP - 1) / STEP * STEP;
        this.blocks = padded / STEP;
        this.maxBoxWidth = Resampler.VECTOR_MAX_SCALE * crop + 1;
        this.column = new int[crop];
        this.columnWeight = new int[crop];
        this.row = new int[crop];
        this.rowWeight = new int[crop];
        this.pairLanes = new byte[blocks * WINDOW_BYTES];
        this.secondPairLanes = new byte[blocks * WINDOW_BYTES];
        this.window = new int[blocks];
        this.secondWindow = new int[blocks];
        this.leftByte = new int[padded];
        this.leftWeight = new short[padded];
        this.rightWeight = new short[padded];
        int overhang = Math.max(WINDOW_BYTES, VectorYuv420Rows.overhang()); // the window's reach, the yuv420 rows' store
        this.sourceRow = new byte[maxBoxWidth * CHANNELS + overhang];
        this.nextSourceRow = new byte[maxBoxWidth * CHANNELS + overhang];
        this.rowBytes = (padded + WINDOW_BYTES - 1) / WINDOW_BYTES * WINDOW_BYTES;
        this.resizedRows = new byte[][] {new byte[rowBytes], new byte[rowBytes], new byte[rowBytes], new byte[rowBytes]};
        this.outputRow = new byte[rowBytes];
        this.yuvRows = new VectorYuv420Rows(maxBoxWidth);
    }

    /** Why this JVM cannot run the kernel well, or null; called reflectively by {@link io.pinshard.loader.options.Resampler}. */
    public static String unsupportedReason() {
        int bits = ByteVector.SPECIES_PREFERRED.vectorBitSize();
        return bits >= WINDOW.vectorBitSize() ? null
            : "the CPU offers " + bits + "-bit vectors; the kernel needs 256 (AVX2)";
    }

    /** Bytes per source window: 64 with 512-bit vectors, 32 with 256-bit ones. */
    static int windowBytes() {
        return WINDOW_BYTES;
    }

    @Override
    public PixelRows rows() {
        return rows;
    }

    /**
     * Whether {@link #resizeInto} takes {@code box}: its source windows reach every value's neighbours (the column
     * tables are made for it on the way, in plain Java).
     */
    public boolean accepts(CropBox box) {
        return box.width <= maxBoxWidth && columnTables(box.width, box.flip);
    }

    @Override
    public boolean resizeInto(long image, long step, CropBox box, long destination) {
        if (!accepts(box)) {
            return false;
        }
        long lastByte = (long) (box.y + box.height - 1) * step + (long) (box.x + box.width) * CHANNELS;
        source.wrap(image, Math.toIntExact(lastByte));
        yuv = null;
        resize(box, step, destination);
        return true;
    }

    @Override
    public boolean resizeInto(Yuv420Rows image, CropBox box, long destination) {
        if (!accepts(box)) {
            return false;
        }
        yuvRows.start(image, box.x, box.width);
        yuv = yuvRows;
        resize(box, 0, destination);
        yuv = null;
        return true;
    }

    /** The crop of {@code box} once the column tables are made and the source is set ({@link #source} or {@link #yuv}). */
    private void resize(CropBox box, long step, long destination) {
        BilinearAxis.fill(row, rowWeight, box.height, crop);
        target.wrap(destination, Math.toIntExact(rows.imageBytes()));
        Arrays.fill(resizedRowTag, -1);
        int boxRowBytes = box.width * CHANNELS;
        for (int y = 0; y < crop; y++) {
            int top = row[y];
            int bottom = Math.min(top + 1, box.height - 1);
            byte[] upper = resizedRow(top, box, step, boxRowBytes);
            byte[] lower = resizedRow(bottom, box, step, boxRowBytes);
            if (rowWeight[y] == 0) {
                rows.writeRow(upper, y, target);
            } else {
                blendRows(upper, lower, (short) (ONE - rowWeight[y]), (short) rowWeight[y]);
                rows.writeRow(outputRow, y, target);
            }
        }
    }

    /**
     * Source row {@code r} of the box, horizontally resized. Rows are resized in pairs (r with r + 1, which
     * the next output row usually needs; the last row with the one above it; a 1-row box with itself) and
     * the four most recent are kept. One code path for every row keeps C2's compiled kernel the only one hot.
     */
    private byte[] resizedRow(int r, CropBox box, long step, int boxRowBytes) {
        int slot = r & 3;
        if (resizedRowTag[slot] != r) {
            int first = Math.max(0, Math.min(r, box.height - 2));
            int second = Math.min(first + 1, box.height - 1);
            sourceRow(box.y + first, box, step, boxRowBytes, sourceRow);
            sourceRow(box.y + second, box, step, boxRowBytes, nextSourceRow);
            resizeRows(resizedRows[first & 3], resizedRows[(first + 1) & 3]);
            resizedRowTag[first & 3] = first;
            resizedRowTag[(first + 1) & 3] = second == first ? -1 : second;
        }
        return resizedRows[slot];
    }

    /** Image row {@code y}'s box columns as RGB bytes: copied from the image, or converted from yuv420 planes. */
    private void sourceRow(int y, CropBox box, long step, int boxRowBytes, byte[] into) {
        if (yuv != null) {
            yuv.rgbRow(y, into); // writes at most a window past the row: into has that room
        } else {
            source.getBytes(Math.toIntExact(y * step + (long) box.x * CHANNELS), into, 0, boxRowBytes);
        }
    }

    /** Rows in {@code sourceRow} and {@code nextSourceRow} at once: each block's tables are loaded once for both. */
    private void resizeRows(byte[] into, byte[] nextInto) {
        for (int b = 0; b < blocks; b++) {
            int lanes = b * WINDOW_BYTES;
            ByteVector permutation = WINDOW_CLASS.cast(ByteVector.fromArray(WINDOW, pairLanes, lanes));
            ByteVector pairs = permutation.selectFrom(ByteVector.fromArray(WINDOW, sourceRow, window[b]));
            ByteVector nextPairs = permutation.selectFrom(ByteVector.fromArray(WINDOW, nextSourceRow, window[b]));
            if (secondWindow[b] >= 0) {
                ByteVector second = WINDOW_CLASS.cast(ByteVector.fromArray(WINDOW, secondPairLanes, lanes));
                pairs = pairs.blend(second.selectFrom(ByteVector.fromArray(WINDOW, sourceRow, secondWindow[b])),
                    UPPER_HALF);
                nextPairs = nextPairs.blend(second.selectFrom(ByteVector.fromArray(WINDOW, nextSourceRow,
                    secondWindow[b])), UPPER_HALF);
            }
            int k = b * STEP;
            ShortVector left = ShortVector.fromArray(LANES, leftWeight, k);
            ShortVector right = ShortVector.fromArray(LANES, rightWeight, k);
            // pairs is a phi of the two paths, which C2 types as a ByteVector: weigh starts from a constant again
            weigh(pairs, left, right).intoArray(into, k);
            weigh(nextPairs, left, right).intoArray(nextInto, k);
        }
    }

    /**
     * (left, right) byte pairs -> 16 weighted values rounded to bytes. Must be inlined into its caller, whatever C2
     * compiled first: the root pom's JVM flags say so ({@code -XX:CompileCommand=inline,...VectorCropResizer::weigh});
     * called as a compiled method of its own, its vectors are heap objects (67 KB per batch at crop 32, 512-bit).
     */
    private static ByteVector weigh(ByteVector pairs, ShortVector left, ShortVector right) {
        // little-endian lanes: each short is left | right << 8
        ShortVector pair = LANES_CLASS.cast(WINDOW_CLASS.cast(pairs).reinterpretAsShorts());
        ShortVector weighted = LOW_BYTES.and(pair).mul(left)
            .add(LANES_CLASS.cast(pair.lanewise(VectorOperators.LSHR, 8)).mul(right)).add(ROUNDING);
        weighted = LANES_CLASS.cast(weighted.lanewise(VectorOperators.LSHR, WEIGHT_BITS));
        return HALF_CLASS.cast(weighted.convertShape(VectorOperators.S2B, HALF, 0));
    }

    /**
     * Vertical blend, 32 values per step without widening: even and odd bytes are weighted in the low and
     * high halves of 16-bit lanes, and the two 8-bit results are put back in place with one shift and or.
     */
    private void blendRows(byte[] upper, byte[] lower, short upperWeight, short lowerWeight) {
        ShortVector upperWeights = ShortVector.broadcast(LANES, upperWeight);
        ShortVector lowerWeights = ShortVector.broadcast(LANES, lowerWeight);
        for (int k = 0; k < rowBytes; k += WINDOW_BYTES) {
            ShortVector a = LANES_CLASS.cast(WINDOW_CLASS.cast(ByteVector.fromArray(WINDOW, upper, k))
                .reinterpretAsShorts());
            ShortVector b = LANES_CLASS.cast(WINDOW_CLASS.cast(ByteVector.fromArray(WINDOW, lower, k))
                .reinterpretAsShorts());
            ShortVector even = LOW_BYTES.and(a).mul(upperWeights).add(LOW_BYTES.and(b).mul(lowerWeights))
                .add(ROUNDING);
            even = LANES_CLASS.cast(even.lanewise(VectorOperators.LSHR, WEIGHT_BITS));
            ShortVector odd = LANES_CLASS.cast(a.lanewise(VectorOperators.LSHR, 8)).mul(upperWeights)
                .add(LANES_CLASS.cast(b.lanewise(VectorOperators.LSHR, 8)).mul(lowerWeights))
                .add(ROUNDING);
            odd = LANES_CLASS.cast(odd.lanewise(VectorOperators.LSHR, WEIGHT_BITS));
            WINDOW_CLASS.cast(even.or(LANES_CLASS.cast(odd.lanewise(VectorOperators.LSHL, 8))).reinterpretAsBytes())
                .intoArray(outputRow, k);
        }
    }

    /**
     * Per output value: which source bytes (left and right neighbour of the same channel) and weights, as
     * window offsets and permutation lanes per 16-value block. False when a half-block spans more than a window.
     */
    private boolean columnTables(int width, boolean flip) {
        BilinearAxis.fill(column, columnWeight, width, crop);
        for (int k = 0, pixel = 0; pixel < crop; pixel++) {
            int from = flip ? crop - 1 - pixel : pixel;
            int left = column[from] * CHANNELS;
            short weight = (short) columnWeight[from];
            for (int c = 0; c < CHANNELS; c++, k++) {
                leftByte[k] = left + c;
                rightWeight[k] = weight;
                leftWeight[k] = (short) (ONE - weight);
            }
        }
        for (int k = values; k < leftByte.length; k++) { // padding repeats the last value
            leftByte[k] = leftByte[values - 1];
            rightWeight[k] = rightWeight[values - 1];
            leftWeight[k] = leftWeight[values - 1];
        }
        for (int b = 0; b < blocks; b++) {
            int first = b * STEP;
            int lanes = b * WINDOW_BYTES;
            int low = lowest(first, STEP);
            if (highest(first, STEP) + CHANNELS - low < WINDOW_BYTES) {
                window[b] = low;
                secondWindow[b] = -1;
                fillLanes(pairLanes, lanes, first, STEP, low);
                continue;
            }
            int second = first + HALF_STEP;
            int lowFirst = lowest(first, HALF_STEP);
            int lowSecond = lowest(second, HALF_STEP);
            if (highest(first, HALF_STEP) + CHANNELS - lowFirst >= WINDOW_BYTES
                || highest(second, HALF_STEP) + CHANNELS - lowSecond >= WINDOW_BYTES) {
                return false;
            }
            window[b] = lowFirst;
            secondWindow[b] = lowSecond;
            fillLanes(pairLanes, lanes, first, HALF_STEP, lowFirst);
            fillLanes(secondPairLanes, lanes + 2 * HALF_STEP, second, HALF_STEP, lowSecond);
        }
        return true;
    }

    private void fillLanes(byte[] lanes, int at, int firstValue, int count, int windowStart) {
        for (int i = 0; i < count; i++) {
            int left = leftByte[firstValue + i] - windowStart;
            lanes[at + 2 * i] = (byte) left;
            lanes[at + 2 * i + 1] = (byte) (left + CHANNELS);
        }
    }

    /**
     * Lowest left byte of values {@code [first, first + count)}. Left pixels are monotonic along the row (rising,
     * or falling when mirrored) and a pixel's bytes are its channel 0 byte and the next two, so the extremes are
     * among the first three and the last three values (a partial end pixel's neighbour included): no full scan.
     * The padding after the last value repeats it, so the ends are taken among real values (all padding: equal).
     */
    private int lowest(int first, int count) {
        int real = realValues(first, count);
        int low = Integer.MAX_VALUE;
        for (int i = 0, ends = Math.min(CHANNELS, real); i < ends; i++) {
            low = Math.min(low, Math.min(leftByte[first + i], leftByte[first + real - 1 - i]));
        }
        return low;
    }

    private int highest(int first, int count) {
        int real = realValues(first, count);
        int high = 0;
        for (int i = 0, ends = Math.min(CHANNELS, real); i < ends; i++) {
            high = Math.max(high, Math.max(leftByte[first + i], leftByte[first + real - 1 - i]));
        }
        return high;
    }

    /** How many of values {@code [first, first + count)} are real (not padding); all of them when all are padding. */
    private int realValues(int first, int count) {
        return first >= values ? count : Math.min(first + count, values) - first;
    }
}
