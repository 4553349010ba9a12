package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Bt601;
import io.pinshard.format.Codec;
import io.pinshard.format.Yuv420Descriptor;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Property test: whatever is written comes back identically (shapes, labels, codecs, keys, pixels; yuv420 pixels
 * as {@link Bt601} converts them there and back, odd sizes and 1x1 included) for random datasets, alignments and
 * shard sizes; 60 seeded cases, reproducible by seed.
 */
class RoundTripPropertyTest {

    record Image(int height, int width, int channels, int label, Codec codec, String key) {
    }

    /** A random dataset description: 0..40 images of random shape, label, codec and key. */
    static List<Image> randomImages(SplittableRandom random) {
        Codec[] codecs = {Codec.RAW, Codec.LZ4, Codec.YUV420};
        int[] channelChoices = {1, 3, 4};
        List<Image> images = new ArrayList<>();
        int count = random.nextInt(41);
        for (int i = 0; i < count; i++) {
            StringBuilder key = new StringBuilder();
            for (int k = random.nextInt(31); k > 0; k--) {
                key.append((char) random.nextInt(' ', 0x100));
            }
            Codec codec = codecs[random.nextInt(codecs.length)];
            int channels = codec == Codec.YUV420 ? 3 : channelChoices[random.nextInt(3)]; // yuv420 is RGB only
            images.add(new Image(random.nextInt(1, 41), random.nextInt(1, 41), channels, random.nextInt(-1, 5), codec,
                key.toString()));
        }
        return images;
    }

    /** What a yuv420 record of {@code rgb} decodes to: the reference conversion there and back. */
    static byte[] yuv420Decoded(byte[] rgb, Image image) {
        byte[] planes = new byte[(int) Yuv420Descriptor.payloadLength(image.height(), image.width())];
        Bt601.encode(rgb, 0, image.height(), image.width(), planes, 0);
        byte[] decoded = new byte[rgb.length];
        Bt601.decode(planes, 0, image.height(), image.width(), decoded, 0);
        return decoded;
    }

    static LongStream seeds() {
        return LongStream.range(0, 60);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void writtenRecordsReadBackIdentically(long seed) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        List<Image> images = randomImages(random);
        int alignment = new int[] {64, 128, 256, 4096}[random.nextInt(4)];
        long targetShardBytes = new long[] {512, 4096, 20_000, 1 << 20}[random.nextInt(4)];
        Path dir = Files.createTempDirectory("roundtrip");
        try {
            DatasetWriterOptions options = DatasetWriterOptions.defaults().withAlignment(alignment)
                .withTargetShardBytes(targetShardBytes).withClasses(List.of("c0", "c1", "c2", "c3", "c4"));
            List<byte[]> written = new ArrayList<>();
            try (DatasetWriter writer = new DatasetWriter(dir, options)) {
                for (int i = 0; i < images.size(); i++) {
                    Image image = images.get(i);
                    byte[] pixels = TestImages.pixels(i, image.height(), image.width(), image.channels());
                    written.add(image.codec() == Codec.YUV420 ? yuv420Decoded(pixels, image) : pixels);
                    writer.appendPixels(new UnsafeBuffer(pixels), 0, image.height(), image.width(), image.channels(),
                        image.label(), image.key(), image.codec());
                }
                writer.finish();
            }
            try (Dataset dataset = Dataset.open(dir)) {
                assertEquals(images.size(), dataset.size());
                RecordView view = new RecordView();
                RecordDecoder decoder = new RecordDecoder(true);
                ByteBuffer out = ByteBuffer.allocateDirect(40 * 40 * 4);
                UnsafeBuffer outView = new UnsafeBuffer(out);
                for (int i = 0; i < images.size(); i++) {
                    Image image = images.get(i);
                    dataset.record(i, view);
                    assertEquals(image.height(), view.height());
                    assertEquals(image.width(), view.width());
                    assertEquals(image.channels(), view.channels());
                    assertEquals(image.label(), view.label());
                    assertEquals(image.codec(), view.codec());
                    assertEquals(image.key(), view.key());
                    assertEquals(0, view.payloadOffset() % alignment, "payload alignment");
                    int n = decoder.decode(view, outView, 0);
                    byte[] read = new byte[n];
                    outView.getBytes(0, read);
                    assertArrayEquals(written.get(i), read, "pixels of record " + i);
                }
                for (int s = 0; s < dataset.shardCount(); s++) {
                    MappedShard shard = dataset.shard(s);
                    assertTrue(shard.recordCount() == 1 || shard.buffer().capacity() <= targetShardBytes,
                        "a shard with several records stays within the target size");
                }
            }
            assertTrue(new DatasetVerifier().verify(dir).isEmpty(), "verify passes");
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
