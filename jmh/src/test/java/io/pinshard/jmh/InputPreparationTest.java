package io.pinshard.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.baseline.NaiveLoader;
import io.pinshard.baseline.inputs.ImageCollection;
import io.pinshard.baseline.inputs.SyntheticImages;
import io.pinshard.format.Codec;
import io.pinshard.jmh.inputs.BenchmarkInputs;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.RecordDecoder;
import io.pinshard.reader.RecordView;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Input preparation on small generated images: files, datasets per codec, the naive loader over them. */
class InputPreparationTest {
    @TempDir
    static Path dir;
    static ImageCollection collection;
    static BenchmarkInputs inputs;
    static final ByteArrayOutputStream log = new ByteArrayOutputStream();

    @BeforeAll
    static void prepare() throws IOException {
        SyntheticImages.write(dir.resolve("generated"), 5, 2, 800, 500);
        collection = ImageCollection.scan(dir.resolve("generated"), true, "SYNTHETIC test images");
        inputs = BenchmarkInputs.prepare(dir.resolve("cache"), collection, new PrintStream(log, true));
    }

    @Test
    void smallCopiesHaveAShorterSideOf320() throws IOException {
        for (var image : inputs.smallJpegs()) {
            var decoded = javax.imageio.ImageIO.read(image.file().toFile());
            assertEquals(320, Math.min(decoded.getWidth(), decoded.getHeight()), image.file().toString());
            assertEquals(512, Math.max(decoded.getWidth(), decoded.getHeight()), image.file().toString());
        }
        assertEquals(5, inputs.fullSizeJpegs().size());
        assertTrue(Files.size(inputs.fullSizeJpegs().get(0).file()) > Files.size(inputs.smallJpegs().get(0).file()));
    }

    @Test
    void datasetsReplicateTheImagesInEveryCodecAndAgree() throws IOException {
        int records = 12;
        Path raw = inputs.dataset(Codec.RAW, records, new PrintStream(log, true));
        assertEquals(raw, inputs.dataset(Codec.RAW, records, new PrintStream(log, true)), "cached, not rebuilt");
        try (Dataset rawSet = Dataset.open(raw);
             Dataset lz4Set = Dataset.open(inputs.dataset(Codec.LZ4, records, new PrintStream(log, true)));
             Dataset jpegSet = Dataset.open(inputs.dataset(Codec.JPEG, records, new PrintStream(log, true)))) {
            for (Dataset d : new Dataset[] {rawSet, lz4Set, jpegSet}) {
                assertEquals(records, d.size());
                assertTrue(new DatasetVerifier().verify(d.directory()).isEmpty(), "verify " + d.directory());
            }
            RecordView view = new RecordView();
            RecordDecoder decoder = new RecordDecoder(true);
            int bytes = rawSet.record(7, view).decodedBytes();
            assertEquals(320 * 512 * 3, bytes);
            assertEquals(collection.images().get(7 % 5).label(), view.label());
            UnsafeBuffer a = new UnsafeBuffer(ByteBuffer.allocateDirect(bytes));
            UnsafeBuffer b = new UnsafeBuffer(ByteBuffer.allocateDirect(bytes));
            UnsafeBuffer c = new UnsafeBuffer(ByteBuffer.allocateDirect(bytes));
            decoder.decode(rawSet.record(7, view), a, 0);
            decoder.decode(lz4Set.record(7, view), b, 0);
            decoder.decode(jpegSet.record(7, view), c, 0);
            long jpegError = 0;
            for (int i = 0; i < bytes; i++) {
                assertEquals(a.getByte(i), b.getByte(i), "lz4 differs from raw at byte " + i);
                jpegError += Math.abs((a.getByte(i) & 0xFF) - (c.getByte(i) & 0xFF));
            }
            assertTrue(jpegError / (double) bytes < 4, "jpeg record is far from the raw pixels: " + jpegError / (double) bytes);
        }
    }

    @Test
    void naiveLoaderCropsEveryInputKind() throws IOException {
        for (var files : java.util.List.of(inputs.fullSizeJpegs(), inputs.smallJpegs())) {
            NaiveLoader loader = new NaiveLoader(files, 224, 1);
            byte[] batch = new byte[2 * loader.sampleBytes()];
            int label = loader.load(3, batch, 1);
            assertEquals(files.get(3).label(), label);
            int distinct = (int) java.util.stream.IntStream.range(loader.sampleBytes(), batch.length)
                .map(i -> batch[i]).distinct().count();
            assertTrue(distinct > 20, "the crop looks blank: " + distinct + " distinct byte values");
            assertEquals(0, java.util.stream.IntStream.range(0, loader.sampleBytes()).map(i -> batch[i]).filter(v -> v != 0)
                .count(), "slot 0 was written");
        }
    }
}
