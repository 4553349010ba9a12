package io.pinshard.jmh;

import io.pinshard.baseline.NaiveLoader;
import io.pinshard.jmh.inputs.BenchmarkInputs;
import java.io.IOException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The seed's baselines, one sample per operation on one thread: {@code full-size-jpeg} reads a
 * full-size JPEG file, decodes all of it with javax.imageio and random-resized-crops it (the "before");
 * {@code jpeg-320px-file} does the same from a 320-px JPEG file (the "after" without shards).
 */
@BenchmarkMode(Mode.Throughput)
@State(Scope.Thread)
public class NaiveLoaderBenchmark extends PinshardBenchmark {
    @Param({"full-size-jpeg", "jpeg-320px-file"})
    public String input;

    @Param("224")
    public int crop;

    private NaiveLoader loader;
    private byte[] sample;

    @Setup(Level.Trial)
    public void setUp() {
        ForkFlags.requirePresent();
        BenchmarkInputs inputs = BenchmarkInputs.prepareDefault();
        loader = new NaiveLoader(switch (input) {
            case "full-size-jpeg" -> inputs.fullSizeJpegs();
            case "jpeg-320px-file" -> inputs.smallJpegs();
            default -> throw new IllegalArgumentException("unknown input " + input);
        }, crop, 42);
        sample = new byte[loader.sampleBytes()];
    }

    @Benchmark
    @ImagesPerOp
    public int loadOneSample(Blackhole blackhole) throws IOException {
        int label = loader.load(loader.randomIndex(), sample, 0);
        blackhole.consume(sample);
        return label;
    }
}
