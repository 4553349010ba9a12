package io.pinshard.jpeg;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;

import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.opencv_core.Mat;

/**
 * One OpenCV {@code cv::Mat} header re-aimed at any native memory (a mapped payload, a region of a
 * decoded image, a batch slot) by rewriting its fields in place, so per-sample OpenCV calls need no
 * new JavaCPP objects: making a {@code Mat} per call costs a few hundred heap bytes and a deallocator.
 *
 * <p>Field offsets are those of OpenCV 4.x on 64-bit platforms ({@code flags, dims, rows, cols, data,
 * datastart, dataend, datalimit, allocator, u, size.p, step.p, step.buf[2]}); the constructor checks them
 * against a header OpenCV built and refuses to run when they differ.
 */
public final class MatHeader implements AutoCloseable {
    public static final int FLAGS = 0;
    public static final int DIMS = 4;
    public static final int ROWS = 8;
    public static final int COLS = 12;
    public static final int DATA = 16;
    public static final int DATASTART = 24;
    public static final int DATAEND = 32;
    public static final int DATALIMIT = 40;
    public static final int SIZE_P = 64;
    public static final int STEP_P = 72;
    public static final int STEP_BUF = 80;
    public static final int LENGTH = 96;

    private static final int MAGIC_VAL = 0x42FF0000;
    private static final int CONTINUOUS_FLAG = 1 << 14;
    private static final int SUBMATRIX_FLAG = 1 << 15;
    private static final int CN_SHIFT = 3;

    private final BytePointer placeholder = new BytePointer(64);
    private final Mat mat;
    private final UnsafeBuffer fields;

    public MatHeader() {
        mat = new Mat(1, 1, CV_8UC1, placeholder);
        fields = new UnsafeBuffer(mat.address(), LENGTH);
        checkLayout(mat, fields);
    }

    /** The OpenCV matrix whose fields this header rewrites. */
    public Mat mat() {
        return mat;
    }

    /**
     * Points the header at {@code rows x cols} uint8 pixels of {@code channels} channels at
     * {@code address}, rows {@code step} bytes apart.
     */
    public Mat point(long address, int rows, int cols, int channels, long step) {
        long rowBytes = (long) cols * channels;
        int type = (channels - 1) << CN_SHIFT; // CV_8UC(n)
        boolean continuous = step == rowBytes || rows == 1;
        fields.putInt(FLAGS, MAGIC_VAL | type | (continuous ? CONTINUOUS_FLAG : SUBMATRIX_FLAG));
        fields.putInt(DIMS, 2);
        fields.putInt(ROWS, rows);
        fields.putInt(COLS, cols);
        long end = address + (rows - 1) * step + rowBytes;
        fields.putLong(DATA, address);
        fields.putLong(DATASTART, address);
        fields.putLong(DATAEND, end);
        fields.putLong(DATALIMIT, end);
        fields.putLong(STEP_BUF, step);
        fields.putLong(STEP_BUF + 8, channels);
        return mat;
    }

    private static void checkLayout(Mat mat, UnsafeBuffer fields) {
        long base = mat.address();
        boolean ok = fields.getInt(DIMS) == mat.dims() && fields.getInt(ROWS) == mat.rows()
            && fields.getInt(COLS) == mat.cols() && fields.getLong(DATA) == mat.data().address()
            && fields.getLong(SIZE_P) == base + ROWS && fields.getLong(STEP_P) == base + STEP_BUF
            && fields.getLong(STEP_BUF) == mat.step1(0) * mat.elemSize1();
        if (!ok) {
            throw new IllegalStateException("this OpenCV build's cv::Mat layout differs from the one pinshard expects");
        }
    }

    @Override
    public void close() {
        mat.close();
        placeholder.close();
    }
}
