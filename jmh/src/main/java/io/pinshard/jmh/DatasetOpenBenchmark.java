package io.pinshard.jmh;

import io.pinshard.baseline.inputs.ImageCollection;
import io.pinshard.jmh.inputs.BenchmarkInputs;
import io.pinshard.reader.Dataset;
import java.io.IOException;
import java.nio.file.Path;
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

/**
 * {@code Dataset.open} of a dataset of one-pixel records (1,000,000 by default): maps every shard and checks
 * its frame ({@link #openAndClose}); and open plus the first use of every shard, which checks every index entry,
 * with and without the index CRC ({@link #openAndCheckEveryIndex}). Measures metadata cost only.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class DatasetOpenBenchmark extends PinshardBenchmark {
    @Param("1000000")
    public int indexRecords;

    @Param({"true", "false"})
    public boolean checkIndexCrc;

    private Path directory;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ForkFlags.requirePresent();
        directory = BenchmarkInputs.tinyDataset(ImageCollection.defaultCacheRoot().resolve("jmh-inputs"), indexRecords, System.err);
    }

    @Benchmark
    public long openAndClose() {
        try (Dataset dataset = Dataset.open(directory, checkIndexCrc)) {
            return dataset.size();
        }
    }

    @Benchmark
    public long openAndCheckEveryIndex() {
        try (Dataset dataset = Dataset.open(directory, checkIndexCrc)) {
            long records = 0;
            for (int s = 0; s < dataset.shardCount(); s++) {
                records += dataset.shard(s).recordCount(); // the first use checks the shard's index
            }
            return records;
        }
    }
}
