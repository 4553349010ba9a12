package io.pinshard.jmh;

import io.pinshard.format.Codec;
import io.pinshard.jmh.inputs.BenchmarkInputs;
import io.pinshard.reader.Dataset;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import java.io.IOException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * pinshard's loader, one batch per operation (256 random-resized crops of 224 x 224 with flips, in
 * off-heap memory): codecs raw / lz4 / jpeg, 1 and 2 worker threads, random and quasi-random order,
 * over 320-px photos. Epochs follow one another as a trainer's would; the loader's steady state
 * allocates nothing on the heap, which {@code -prof gc} shows per batch, epoch starts included (see
 * {@link #smallDataset}: a dataset smaller than one batch). Images per operation are the batch size, so
 * with a small dataset read images/s as operations/s times its record count.
 */
@BenchmarkMode(Mode.Throughput)
@State(Scope.Thread)
public class LoaderBenchmark extends PinshardBenchmark {
    @Param({"raw", "lz4", "jpeg"})
    public String codec;

    @Param({"1", "2"})
    public int workers;

    @Param({"random", "quasi-random"})
    public String order;

    @Param("256")
    public int batch;

    @Param("224")
    public int crop;

    @Param("512")
    public int records;

    /**
     * When above 0, the loader reads a dataset of this many records instead of {@link #records}: below the
     * batch size it gives one partial batch per epoch, so every operation includes an epoch start (persistent
     * workers, issue 11). Default 0; e.g. {@code -p smallDataset=0,25}.
     */
    @Param("0")
    public int smallDataset;

    private Dataset dataset;
    private Loader loader;
    private Epoch epoch;
    private int epochNumber;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ForkFlags.requirePresent();
        BenchmarkInputs inputs = BenchmarkInputs.prepareDefault();
        int size = smallDataset > 0 ? smallDataset : records;
        dataset = Dataset.open(inputs.dataset(Codec.fromLabel(codec), size, System.err));
        loader = Loader.open(dataset, LoaderOptions.builder().batchSize(batch).crop(crop).workers(workers)
            .order(SampleOrder.parse(order)).seed(1).dropLast(size >= batch) // below a batch: one partial batch
            .build());
        epoch = loader.epoch(epochNumber);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        epoch.close();
        try {
            loader.close();
        } catch (RuntimeException e) {
            // Report, do not hide: the batches measured above are unaffected by a failure to free memory.
            System.err.println("LoaderBenchmark: Loader.close() failed (a loader bug to fix): " + e);
            e.printStackTrace();
        } finally {
            dataset.close();
        }
    }

    @Benchmark
    @ImagesPerOp(param = "batch")
    public void nextBatch(Blackhole blackhole) {
        if (!epoch.hasNext()) {
            epoch.close();
            epoch = loader.epoch(++epochNumber);
        }
        try (Batch next = epoch.next()) {
            blackhole.consume(next.address());
            blackhole.consume(next.label(next.size() - 1));
        }
    }
}
