package io.pinshard.jmh;

import io.pinshard.baseline.inputs.ImageCollection;
import io.pinshard.jmh.inputs.BenchmarkInputs;
import io.pinshard.writer.convert.ConvertException;
import io.pinshard.writer.convert.ConvertOptions;
import io.pinshard.writer.convert.ConvertProgress;
import io.pinshard.writer.convert.ConvertSummary;
import io.pinshard.writer.convert.Converter;
import io.pinshard.writer.convert.FolderLister;
import io.pinshard.writer.convert.InputListing;
import io.pinshard.writer.convert.OutputCodec;
import java.io.IOException;
import java.nio.file.Files;
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
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@code pinshard convert}'s library on the real photos (full-size JPEG and PNG, 2560x1600 to
 * 5120x2880): one operation converts the first {@code images} of the collection to shorter side 320
 * into a fresh dataset, with 1 and 2 workers. Timed single shots: a conversion is seconds long.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Thread)
public class ConvertBenchmark extends PinshardBenchmark {
    @Param({"1", "2"})
    public int workers;

    @Param("jpeg")
    public String codec;

    @Param("16")
    public int images;

    private InputListing listing;
    private Path output;
    private Path scratch;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ForkFlags.requirePresent();
        ImageCollection collection = BenchmarkInputs.prepareDefault().collection();
        InputListing all = FolderLister.list(collection.root(), true);
        if (all.items().size() < images) {
            throw new IllegalStateException(collection.root() + " holds " + all.items().size() + " images, fewer than "
                + images);
        }
        listing = new InputListing(all.source(), all.classes(), all.items().subList(0, images), 0);
        scratch = Files.createTempDirectory("pinshard-jmh-convert");
    }

    @Setup(Level.Invocation)
    public void freshOutput() throws IOException {
        output = scratch.resolve("dataset");
        BenchmarkInputs.deleteRecursively(output);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        BenchmarkInputs.deleteRecursively(scratch);
    }

    @Benchmark
    @ImagesPerOp(param = "images", loaderComparable = false)
    public ConvertSummary convert() throws ConvertException {
        ConvertOptions options = ConvertOptions.defaults().withCodec(OutputCodec.parse(codec)).withWorkers(workers);
        ConvertSummary summary = new Converter(options, ConvertProgress.NONE).run(listing, null, output);
        if (summary.written() != images) {
            throw new IllegalStateException("converted " + summary.written() + " of " + images + " images: "
                + summary.rejections());
        }
        return summary;
    }
}
