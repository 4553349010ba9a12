package io.pinshard.loader.augment;

import io.pinshard.format.Bt601;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Yuv420Rows#rgbRow} on the JDK Vector API, for {@link VectorCropResizer}: the same bytes as
 * {@link Bt601#decodeRow} (the same integer constants, flooring shift and clamp; {@code VectorYuv420RowsTest}), about
 * ten times as fast. Two steps, on the vector kernel's window size (64 bytes on AVX-512, else 32; "16" below is the
 * 512-bit size):
 *
 * <ol>
 *   <li>Per chroma sample, in 32-bit lanes, 16 samples a step: the three terms Bt601 adds to luma (R from Cr, G from
 *       both, B from Cb), each split into its positive and negative part (one of them 0, both 0..227), a sample's
 *       three parts put in the bytes of one int and packed by one byte permutation to the RGB row's order (sample j's
 *       R, G, B at 3j, 3j + 1, 3j + 2).
 *       Both pixel rows of a chroma row use these: the terms of the two most recent chroma rows are kept.</li>
 *   <li>Per 64 RGB bytes of the row (21.3 pixels), in byte lanes: the pixels' luma and their samples' terms permuted
 *       into place from windows of the luma row and the term rows (the tables depend on the block's place in a 3-block
 *       period and on the first column's parity), then {@code clamp(Y + t)} as an unsigned saturating add of the
 *       positive part and an unsigned saturating subtraction of the negative one: exactly Bt601's clamp, since one
 *       part is 0.</li>
 * </ol>
 *
 * The box's luma and chroma bytes are first copied out of the planes with JVM-guarded copies (the planes may be a
 * mapping; the Vector API of JDK 17 and of JDK 25 share no load from native memory), into arrays padded so that every
 * vector load and store stays inside them. Everything is allocated in the constructor; a row allocates nothing.
 * Only loaded with the {@code jdk.incubator.vector} module, as the vector kernel.
 */
final class VectorYuv420Rows {
    /** The vector kernel's window (VectorCropResizer.WINDOW), by the same rule: 512 bits where preferred and allowed. */
    private static final VectorSpecies<Byte> BYTES =
        ByteVector.SPECIES_PREFERRED.vectorBitSize() >= 512 && !PixelRows.held256() ? ByteVector.SPECIES_512
            : ByteVector.SPECIES_256;
    private static final int W = BYTES.length();
    /** Chroma samples per step of the term pass: one int per sample fills a window-sized vector. */
    private static final int SAMPLES = W / 4;
    /** A step's chroma bytes, and its terms narrowed to bytes. */
    private static final VectorSpecies<Byte> SAMPLE_BYTES = W == 64 ? ByteVector.SPECIES_128 : ByteVector.SPECIES_64;
    private static final VectorSpecies<Integer> INTS = W == 64 ? IntVector.SPECIES_512 : IntVector.SPECIES_256;
    /** Bytes per window: the vector kernel's, which VectorYuv420RowsTest checks. */
    static int windowBytes() {
        return W;
    }

    private static final int HALF = 1 << 15;
    private static final int SHIFT = 16;
    private static final int CHANNELS = 3;
    /** Output blocks per period: 3 blocks of W bytes are W whole pixels, W / 2 chroma samples. */
    private static final int PHASES = 3;

    /**
     * Unsigned less-than, the clamp's test: {@code UNSIGNED_LT} in JDK 17's Vector API, renamed {@code ULT} in JDK 24
     * (a direct reference to either name fails to link on the other JDKs); a constant, as the intrinsics need.
     */
    private static final VectorOperators.Comparison UNSIGNED_LESS = unsignedLess();

    /** Per phase: lane -> the block's pixel, counted from the block's first pixel ({@link #LUMA_START}). */
    private static final byte[] LUMA_LANES = new byte[PHASES * W];
    /** Per phase: the block's first pixel within its period. */
    private static final int[] LUMA_START = new int[PHASES];
    /** Per first-column parity and phase: lane -> the value's term, counted from {@link #TERM_START}. */
    private static final byte[] TERM_LANES = new byte[2 * PHASES * W];
    /** Per first-column parity and phase: the block's first term (3 per sample) within its period. */
    private static final int[] TERM_START = new int[2 * PHASES];
    /** Samples' terms as ints of 4 bytes (R, G, B, 0) -> 3 bytes each. */
    private static final byte[] PACK = new byte[W];

    static {
        for (int phase = 0; phase < PHASES; phase++) {
            int firstPixel = W * phase / CHANNELS;
            LUMA_START[phase] = firstPixel;
            for (int parity = 0; parity < 2; parity++) {
                int firstTerm = CHANNELS * ((firstPixel + parity) >> 1);
                TERM_START[parity * PHASES + phase] = firstTerm;
                for (int lane = 0; lane < W; lane++) {
                    int value = W * phase + lane;
                    int pixel = value / CHANNELS;
                    LUMA_LANES[phase * W + lane] = (byte) (pixel - firstPixel);
                    TERM_LANES[(parity * PHASES + phase) * W + lane] =
                        (byte) (CHANNELS * ((pixel + parity) >> 1) + value % CHANNELS - firstTerm);
                }
            }
        }
        for (int lane = 0; lane < W; lane++) {
            PACK[lane] = (byte) (lane < CHANNELS * SAMPLES ? lane / CHANNELS * 4 + lane % CHANNELS : 3);
        }
    }

    /*
     * The permutations as vector constants. A vector from ByteVector.fromArray has no exact class when C2 parses the
     * caller (the species' dummy vector may be made lazily), so a method called on it is bound by the call site's
     * type profile; where that profile is missing (a compile under load) the call stays virtual and every vector it
     * touches is boxed on the heap. A constant's class is exact, so these calls bind without a profile
     * (the loader pom's no-type-profiles run of VectorYuv420RowsTest keeps it so). Inexact, and so profile-bound:
     * whatever fromArray, convertShape and reinterpretAs* return, and what ByteVector's scalar forms (lanewise(op, e),
     * add(e), ...) return, since they have two return paths; exact: whatever a concrete vector class's own methods
     * return (lanewise with a vector operand, selectFrom, blend, compare).
     */
    private static final ByteVector LUMA_LANES_0 = ByteVector.fromArray(BYTES, LUMA_LANES, 0);
    private static final ByteVector LUMA_LANES_1 = ByteVector.fromArray(BYTES, LUMA_LANES, W);
    private static final ByteVector LUMA_LANES_2 = ByteVector.fromArray(BYTES, LUMA_LANES, 2 * W);
    private static final ByteVector EVEN_TERM_LANES_0 = ByteVector.fromArray(BYTES, TERM_LANES, 0);
    private static final ByteVector EVEN_TERM_LANES_1 = ByteVector.fromArray(BYTES, TERM_LANES, W);
    private static final ByteVector EVEN_TERM_LANES_2 = ByteVector.fromArray(BYTES, TERM_LANES, 2 * W);
    private static final ByteVector ODD_TERM_LANES_0 = ByteVector.fromArray(BYTES, TERM_LANES, 3 * W);
    private static final ByteVector ODD_TERM_LANES_1 = ByteVector.fromArray(BYTES, TERM_LANES, 4 * W);
    private static final ByteVector ODD_TERM_LANES_2 = ByteVector.fromArray(BYTES, TERM_LANES, 5 * W);
    private static final ByteVector PACK_LANES = ByteVector.fromArray(BYTES, PACK, 0);
    /** Bt601's factors (16.16 fixed point), as constants for the same reason. */
    private static final IntVector CR_TO_RED = IntVector.broadcast(INTS, 91881);
    private static final IntVector CB_TO_GREEN = IntVector.broadcast(INTS, -22554);
    private static final IntVector CR_TO_GREEN = IntVector.broadcast(INTS, -46802);
    private static final IntVector CB_TO_BLUE = IntVector.broadcast(INTS, 116130);
    /** XOR with it maps an unsigned byte to a signed one 128 less. */
    private static final ByteVector SIGN_BITS = ByteVector.broadcast(SAMPLE_BYTES, (byte) 0x80);

    private static VectorOperators.Comparison unsignedLess() {
        for (String name : new String[] {"ULT", "UNSIGNED_LT"}) {
            try {
                return (VectorOperators.Comparison) VectorOperators.class.getField(name).get(null);
            } catch (NoSuchFieldException | IllegalAccessException e) {
                // the other name
            }
        }
        throw new IllegalStateException("this JDK's Vector API has no unsigned less-than (UNSIGNED_LT or ULT)");
    }

    private final byte[] luma;
    private final byte[] cb;
    private final byte[] cr;
    /** Per chroma row slot (the row's parity): the positive and negative parts of its terms, interleaved. */
    private final byte[][] positive;
    private final byte[][] negative;
    /** The chroma row whose terms each slot holds, or -1. */
    private final int[] termRow = new int[2];

    private Yuv420Rows image;
    private int x;
    private int count;
    private int samples;

    /** Rows of up to {@code maxCount} pixels. */
    VectorYuv420Rows(int maxCount) {
        int maxSamples = (maxCount >> 1) + 1;
        this.luma = new byte[maxCount + 2 * W];
        this.cb = new byte[maxSamples + SAMPLES];
        this.cr = new byte[maxSamples + SAMPLES];
        int terms = CHANNELS * (maxSamples + SAMPLES) + 2 * W;
        this.positive = new byte[][] {new byte[terms], new byte[terms]};
        this.negative = new byte[][] {new byte[terms], new byte[terms]};
    }

    /**
     * Bytes a row may be written past its {@code 3 * count}: the converted row is stored a whole vector at a time.
     */
    static int overhang() {
        return W;
    }

    /** Starts a crop: rows of {@code count} pixels from column {@code x} of {@code image}. */
    void start(Yuv420Rows image, int x, int count) {
        this.image = image;
        this.x = x;
        this.count = count;
        this.samples = Yuv420Rows.chromaSamples(x, count);
        termRow[0] = -1;
        termRow[1] = -1;
    }

    /**
     * Writes the RGB pixels of image row {@code y} to {@code rgb[0..3 * count)} ({@link Bt601#decodeRow}'s bytes), and
     * may write up to {@link #overhang()} bytes more after them.
     */
    void rgbRow(int y, byte[] rgb) {
        int chromaRow = y >> 1;
        int slot = chromaRow & 1;
        if (termRow[slot] != chromaRow) {
            terms(chromaRow, positive[slot], negative[slot]);
            termRow[slot] = chromaRow;
        }
        image.lumaRow(y, x, count, luma);
        byte[] plus = positive[slot];
        byte[] minus = negative[slot];
        int parityPhases = (x & 1) * PHASES;
        boolean odd = (x & 1) != 0;
        ByteVector termLanes0 = odd ? ODD_TERM_LANES_0 : EVEN_TERM_LANES_0;
        ByteVector termLanes1 = odd ? ODD_TERM_LANES_1 : EVEN_TERM_LANES_1;
        ByteVector termLanes2 = odd ? ODD_TERM_LANES_2 : EVEN_TERM_LANES_2;
        int bytes = CHANNELS * count;
        int phase = 0;
        int period = 0;
        for (int out = 0; out < bytes; out += W) {
            int lumaAt = period * W + LUMA_START[phase];
            int termAt = period * (CHANNELS * W / 2) + TERM_START[parityPhases + phase];
            ByteVector lumaLanes = phase == 0 ? LUMA_LANES_0 : phase == 1 ? LUMA_LANES_1 : LUMA_LANES_2;
            ByteVector termLanes = phase == 0 ? termLanes0 : phase == 1 ? termLanes1 : termLanes2;
            ByteVector y8 = lumaLanes.selectFrom(ByteVector.fromArray(BYTES, luma, lumaAt));
            ByteVector up = termLanes.selectFrom(ByteVector.fromArray(BYTES, plus, termAt));
            ByteVector down = termLanes.selectFrom(ByteVector.fromArray(BYTES, minus, termAt));
            ByteVector sum = y8.add(up);
            sum = sum.blend((byte) -1, sum.compare(UNSIGNED_LESS, y8)); // saturated at 255
            ByteVector value = sum.sub(down);
            value = value.blend((byte) 0, sum.compare(UNSIGNED_LESS, down)); // and at 0
            value.intoArray(rgb, out);
            if (++phase == PHASES) {
                phase = 0;
                period++;
            }
        }
    }

    /**
     * Chroma row {@code chromaRow}'s terms, split into positive and negative parts, interleaved R, G, B. A compilation
     * of its own (the root pom's {@code dontinline}): inlined into {@link #rgbRow} the two pass C2's inlining budget and
     * their vectors are boxed.
     */
    private void terms(int chromaRow, byte[] plus, byte[] minus) {
        image.chromaRow(chromaRow, x >> 1, samples, cb, cr);
        for (int j = 0; j < samples; j += SAMPLES) {
            // a byte xor 0x80, sign-extended, is the unsigned byte minus 128: Bt601's cb and cr
            IntVector u = (IntVector) SIGN_BITS.lanewise(VectorOperators.XOR, ByteVector.fromArray(SAMPLE_BYTES, cb, j))
                .convertShape(VectorOperators.B2I, INTS, 0);
            IntVector v = (IntVector) SIGN_BITS.lanewise(VectorOperators.XOR, ByteVector.fromArray(SAMPLE_BYTES, cr, j))
                .convertShape(VectorOperators.B2I, INTS, 0);
            IntVector red = CR_TO_RED.mul(v).add(HALF).lanewise(VectorOperators.ASHR, SHIFT);
            IntVector green = CB_TO_GREEN.mul(u).add(CR_TO_GREEN.mul(v)).add(HALF).lanewise(VectorOperators.ASHR, SHIFT);
            IntVector blue = CB_TO_BLUE.mul(u).add(HALF).lanewise(VectorOperators.ASHR, SHIFT);
            IntVector redUp = red.max(0);
            IntVector greenUp = green.max(0);
            IntVector blueUp = blue.max(0);
            // each part 0..227: a sample's three in one int (R, G, B, 0 in little-endian bytes), packed to 3 bytes
            IntVector up = redUp.or(greenUp.lanewise(VectorOperators.LSHL, 8))
                .or(blueUp.lanewise(VectorOperators.LSHL, 16));
            IntVector down = redUp.sub(red).or(greenUp.sub(green).lanewise(VectorOperators.LSHL, 8))
                .or(blueUp.sub(blue).lanewise(VectorOperators.LSHL, 16));
            PACK_LANES.selectFrom(up.reinterpretAsBytes()).intoArray(plus, CHANNELS * j);
            PACK_LANES.selectFrom(down.reinterpretAsBytes()).intoArray(minus, CHANNELS * j);
        }
    }
}
