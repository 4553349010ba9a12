package io.pinshard.jmh;

import io.pinshard.baseline.inputs.ImageCollection;
import io.pinshard.jmh.inputs.BenchmarkInputs;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import java.io.IOException;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Pointing a {@link RecordView} at a record and reading its index fields, in a random permutation or
 * in order, over a dataset of 1,000,000 records. Both orders go through the same index array, so the
 * difference is memory locality only.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class RecordAccessBenchmark extends PinshardBenchmark {
    @Param("1000000")
    public int indexRecords;

    @Param({"random", "sequential"})
    public String order;

    private Dataset dataset;
    private final RecordView view = new RecordView();
    private int[] sequence;
    private int cursor;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ForkFlags.requirePresent();
        dataset = Dataset.open(BenchmarkInputs.tinyDataset(ImageCollection.defaultCacheRoot().resolve("jmh-inputs"),
            indexRecords, System.err));
        sequence = new int[indexRecords];
        for (int i = 0; i < indexRecords; i++) {
            sequence[i] = i;
        }
        if (order.equals("random")) {
            SplittableRandom random = new SplittableRandom(7);
            for (int i = indexRecords - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                int t = sequence[i];
                sequence[i] = sequence[j];
                sequence[j] = t;
            }
        } else if (!order.equals("sequential")) {
            throw new IllegalArgumentException("unknown order " + order);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        dataset.close();
    }

    @Benchmark
    public long accessOneRecord() {
        int record = sequence[cursor];
        cursor = cursor + 1 == sequence.length ? 0 : cursor + 1;
        dataset.record(record, view);
        return view.label() + view.payloadLength() + view.height() + view.width() + view.payloadAddress();
    }
}
