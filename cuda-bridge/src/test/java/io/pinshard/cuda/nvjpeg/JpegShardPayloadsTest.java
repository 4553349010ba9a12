package io.pinshard.cuda.nvjpeg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link JpegShardPayloads} on shards the real writer made (JPEG records from ImageIO, a raw record among them, small
 * shards so the payloads span files): every JPEG payload is found at an address whose bytes are the encoded image,
 * in record order across shards, with the index's sizes; other codecs are counted; a shard whose index was tampered
 * with is refused naming the file. What GpuCheck's nvJPEG section feeds {@link NvJpegBatch} with.
 */
class JpegShardPayloadsTest {
    @TempDir
    Path directory;

    @Test
    void findsEveryJpegPayloadInRecordOrderAcrossShards() throws IOException {
        List<byte[]> jpegs = writeDataset(7);
        try (Stream<Path> files = Files.list(directory)) {
            assertTrue(files.filter(p -> p.toString().endsWith(".pinshard")).count() > 1, "payloads span shards");
        }
        try (JpegShardPayloads payloads = JpegShardPayloads.map(directory)) {
            assertEquals(jpegs.size(), payloads.count());
            assertEquals(1, payloads.otherCodecs(), "the raw record is counted, not kept");
            long bytes = 0;
            for (int i = 0; i < payloads.count(); i++) {
                byte[] mapped = new byte[payloads.length(i)];
                new UnsafeBuffer(payloads.address(i), payloads.length(i)).getBytes(0, mapped);
                assertArrayEquals(jpegs.get(i), mapped, "payload " + i);
                assertEquals(16 + i, payloads.height(i));
                assertEquals(24 + 2 * i, payloads.width(i));
                bytes += jpegs.get(i).length;
            }
            assertEquals(bytes, payloads.bytes());
            assertEquals(16 + 6, payloads.maxHeight());
            assertEquals(24 + 12, payloads.maxWidth());
        }
    }

    @Test
    void aTamperedIndexIsRefusedNamingTheShard() throws IOException {
        writeDataset(3);
        Path first;
        try (Stream<Path> files = Files.list(directory)) {
            first = files.filter(p -> p.toString().endsWith(".pinshard")).sorted().findFirst().orElseThrow();
        }
        try (FileChannel channel = FileChannel.open(first, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer footer = ByteBuffer.allocate(16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            channel.read(footer, channel.size() - 64);
            long indexOffset = footer.getLong(8);
            ByteBuffer flipped = ByteBuffer.allocate(1);
            channel.read(flipped, indexOffset + 20);
            flipped.put(0, (byte) (flipped.get(0) ^ 0x40)).rewind();
            channel.write(flipped, indexOffset + 20); // inside entry 0: the index CRC no longer matches
        }
        IOException e = assertThrows(IOException.class, () -> JpegShardPayloads.map(directory));
        assertTrue(e.getMessage().contains(first.toString()), e.getMessage());
    }

    @Test
    void aFolderWithoutShardsIsRefused() {
        IOException e = assertThrows(IOException.class, () -> JpegShardPayloads.map(directory));
        assertTrue(e.getMessage().contains("no *.pinshard"), e.getMessage());
    }

    /** {@code count} JPEGs of growing size with one raw record after the first; returns the JPEG bytes in order. */
    private List<byte[]> writeDataset(int count) throws IOException {
        List<byte[]> jpegs = new ArrayList<>();
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("a", "b"))
            .withTargetShardBytes(2048);
        try (DatasetWriter writer = new DatasetWriter(directory, options)) {
            for (int i = 0; i < count; i++) {
                byte[] jpeg = TestJpegs.encode(TestJpegs.rgb(16 + i, 24 + 2 * i, i));
                jpegs.add(jpeg);
                writer.appendPayload(Codec.JPEG, new UnsafeBuffer(jpeg), 0, jpeg.length, 16 + i, 24 + 2 * i, 3,
                    i % 2, "img/" + i + ".jpg");
                if (i == 0) {
                    byte[] raw = new byte[4 * 4 * 3];
                    writer.appendPixels(new UnsafeBuffer(raw), 0, 4, 4, 3, 1, "raw/0", Codec.RAW);
                }
            }
            writer.finish();
        }
        return jpegs;
    }
}
