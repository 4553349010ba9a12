package io.pinshard.jmh;

import io.pinshard.format.Codec;
import io.pinshard.jmh.inputs.BenchmarkInputs;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.loader.augment.CropBox;
import io.pinshard.loader.augment.CropResizer;
import io.pinshard.loader.augment.Yuv420Rows;
import io.pinshard.memory.HeapRounds;
import io.pinshard.loader.options.AugmentOptions;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.Resampler;
import io.pinshard.loader.sample.SplitMix;
import java.io.IOException;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The loader's inner loop alone, one crop per operation on one thread: a random record of a raw
 * dataset of 320-px photos (mapped, mostly not in CPU caches), a torchvision random-resized-crop box
 * and flip, bilinear to 224 x 224 x 3 into off-heap memory, with each resampler; beside it, the memory
 * bandwidth references: a plain copy of the same output bytes (224 rows of 672 bytes from the box's
 * corner) and a plain copy of every row of the box (the bytes a crop must read).
 * The loader's own pieces (CropBox, CropResizer, SplitMix) are public for this benchmark.
 */
@BenchmarkMode(Mode.Throughput)
@State(Scope.Thread)
public class CropKernelBenchmark extends PinshardBenchmark {
    /**
     * vector, opencv (resamplers), vector-yuv420 (the vector kernel on the yuv420 form of the same records),
     * rows-yuv420 (only the yuv420 box rows' conversion to RGB, the part of vector-yuv420 that raw has not) or
     * copy-output, copy-box (memory references).
     */
    @Param({"vector", "opencv", "vector-yuv420", "rows-yuv420", "copy-output", "copy-box"})
    public String work;

    @Param("512")
    public int records;

    @Param("224")
    public int crop;

    private Dataset dataset;
    private final RecordView view = new RecordView();
    private final SplitMix random = new SplitMix();
    private final CropBox box = new CropBox();
    private AugmentOptions augment;
    private CropResizer resizer;
    private UnsafeBuffer destination;
    private final UnsafeBuffer source = new UnsafeBuffer(new byte[0]);
    private final Yuv420Rows yuv = new Yuv420Rows();
    private byte[] yuvRow = new byte[0];
    private long sample;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ForkFlags.requirePresent();
        Codec codec = work.endsWith("-yuv420") ? Codec.YUV420 : Codec.RAW;
        dataset = Dataset.open(BenchmarkInputs.prepareDefault().dataset(codec, records, System.err));
        // VECTOR fails here, with the reason, where the kernel cannot run; the copies need no kernel.
        Resampler resampler = work.startsWith("vector") ? Resampler.VECTOR : Resampler.OPENCV;
        augment = LoaderOptions.builder().crop(crop).resampler(resampler).build().augment();
        resizer = new CropResizer(crop, resampler);
        destination = new UnsafeBuffer(BufferUtil.allocateDirectAligned(crop * crop * 3, 64));
        // The vector kernel runs interpreted, allocating megabytes per crop, until C2 compiles it (~1 s):
        // crop here until two rounds of 100 in a row allocate under 1 KiB, so even jmh/run.sh quick's
        // one-second warm-up measures compiled code.
        HeapRounds.untilQuiet(() -> {
            for (int i = 0; i < 100; i++) {
                cropOneImage();
            }
        }, 2, 200);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        resizer.close();
        dataset.close();
    }

    @Benchmark
    @ImagesPerOp(loaderComparable = false)
    public long cropOneImage() {
        long seed = SplitMix.mix(11, 0, sample++);
        dataset.record(Long.remainderUnsigned(seed, dataset.size()), view);
        box.randomResized(view.height(), view.width(), augment, random.seed(seed));
        long step = (long) view.width() * view.channels();
        switch (work) {
            case "copy-output" -> copyRows(step, Math.min(crop, view.height() - box.y()), Math.min(crop * 3L,
                step - box.x() * 3L));
            case "copy-box" -> copyRows(step, box.height(), box.width() * 3L);
            case "vector-yuv420" -> resizer.resizeWithKernel(yuvImage(), box, destination.addressOffset());
            case "rows-yuv420" -> convertRows();
            default -> resizer.resizeInto(view.payloadAddress(), step, view.channels(), box, destination.addressOffset());
        }
        return destination.getLong(0);
    }

    private Yuv420Rows yuvImage() {
        return yuv.wrap(view.payloadAddress(), view.payloadLength(), view.height(), view.width());
    }

    /** Every box row of the yuv420 record converted to RGB, as the kernel converts them (into one reused row). */
    private void convertRows() {
        Yuv420Rows image = yuvImage();
        if (yuvRow.length < box.width() * 3) {
            yuvRow = new byte[box.width() * 3];
        }
        for (int r = 0; r < box.height(); r++) {
            image.rgbRow(box.y() + r, box.x(), box.width(), yuvRow, 0);
        }
        destination.putByte(0, yuvRow[0]);
    }

    /** {@code rows} rows of {@code bytes} from the box's corner, packed into the destination (wrapping). */
    private void copyRows(long step, int rows, long bytes) {
        source.wrap(view.payloadAddress(), view.payloadLength());
        int capacity = destination.capacity();
        int at = 0;
        for (int r = 0; r < rows; r++) {
            int length = (int) bytes;
            if (at + length > capacity) {
                at = 0;
            }
            source.getBytes((int) ((box.y() + r) * step + box.x() * 3L), destination, at, length);
            at += length;
        }
    }
}
