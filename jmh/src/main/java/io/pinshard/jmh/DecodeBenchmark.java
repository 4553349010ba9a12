package io.pinshard.jmh;

import io.pinshard.format.Codec;
import io.pinshard.jmh.inputs.BenchmarkInputs;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordDecoder;
import io.pinshard.reader.RecordView;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
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
 * {@link RecordDecoder} on 320-px photos, one whole image per operation into off-heap memory, records
 * in random order: raw (a copy from the mapping), lz4 (decompression) and jpeg (libjpeg-turbo through
 * OpenCV). No crop: this is the per-codec cost the loader builds on.
 */
@BenchmarkMode(Mode.Throughput)
@State(Scope.Thread)
public class DecodeBenchmark extends PinshardBenchmark {
    @Param({"raw", "lz4", "jpeg"})
    public String codec;

    @Param("512")
    public int records;

    private Dataset dataset;
    private final RecordView view = new RecordView();
    private final RecordDecoder decoder = new RecordDecoder(false);
    private UnsafeBuffer destination;
    private int[] sequence;
    private int cursor;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ForkFlags.requirePresent();
        BenchmarkInputs inputs = BenchmarkInputs.prepareDefault();
        dataset = Dataset.open(inputs.dataset(Codec.fromLabel(codec), records, System.err));
        int largest = 0;
        for (long r = 0; r < dataset.size(); r++) {
            largest = Math.max(largest, dataset.record(r, view).decodedBytes());
        }
        ByteBuffer memory = BufferUtil.allocateDirectAligned(largest, 64);
        destination = new UnsafeBuffer(memory);
        SplittableRandom random = new SplittableRandom(11);
        sequence = random.ints(4096, 0, (int) dataset.size()).toArray();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        dataset.close();
    }

    @Benchmark
    @ImagesPerOp
    public int decodeOneImage() {
        int record = sequence[cursor];
        cursor = (cursor + 1) & (sequence.length - 1);
        dataset.record(record, view);
        return decoder.decode(view, destination.addressOffset(), destination.capacity());
    }
}
