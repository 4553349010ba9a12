package io.pinshard.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.format.ShardStructure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatasetWriterTest {
    @TempDir
    Path dir;

    private static final UnsafeBuffer PIXELS = new UnsafeBuffer(new byte[10 * 10 * 3]);

    private static List<String> files(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void nothingLooksLikeAShardOrDatasetUntilFinished() throws IOException {
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults())) {
            writer.appendPixels(PIXELS, 0, 10, 10, 3, -1, "a", Codec.RAW);
            assertEquals(List.of("shard-00000.pinshard.tmp"), files(dir), "only a temporary file while writing");
            writer.finish();
        }
        assertEquals(List.of("manifest.json", "shard-00000.pinshard"), files(dir));
    }

    @Test
    void closingWithoutFinishingLeavesNoShardAndNoManifest() throws IOException {
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults())) {
            writer.appendPixels(PIXELS, 0, 10, 10, 3, -1, "a", Codec.RAW);
        }
        assertEquals(List.of(), files(dir));
    }

    @Test
    void anAbandonedTemporaryShardHasNoValidFooter() throws IOException {
        DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults());
        for (int i = 0; i < 5000; i++) { // past the 1 MiB staging buffer, so bytes reach the file
            writer.appendPixels(PIXELS, 0, 10, 10, 3, -1, "k" + i, Codec.RAW);
        }
        // Simulated crash: no finish, no close.
        byte[] partial = Files.readAllBytes(dir.resolve("shard-00000.pinshard.tmp"));
        assertTrue(partial.length > 0);
        assertThrows(io.pinshard.format.ShardFormatException.class,
            () -> ShardStructure.read(new UnsafeBuffer(partial), new Crc32c(), true));
        writer.close();
    }

    @Test
    void rollsToANewShardAtTheTargetWithoutSplittingRecords() throws IOException {
        long target = 8 * 1024;
        DatasetManifest manifest;
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults().withTargetShardBytes(target))) {
            for (int i = 0; i < 100; i++) {
                writer.appendPixels(PIXELS, 0, 10, 10, 3, -1, "k" + i, Codec.RAW);
            }
            manifest = writer.finish();
        }
        // Each record costs 320 aligned payload bytes + a 40-byte index entry + its key: 22 fit in 8 KiB.
        assertEquals(5, manifest.shards().size());
        long records = 0;
        for (int s = 0; s < manifest.shards().size(); s++) {
            DatasetManifest.ShardEntry entry = manifest.shards().get(s);
            byte[] bytes = Files.readAllBytes(dir.resolve(entry.file()));
            assertEquals(entry.bytes(), bytes.length);
            assertTrue(bytes.length <= target, entry.file() + " holds " + bytes.length + " bytes");
            if (s < manifest.shards().size() - 1) {
                assertTrue(bytes.length > target - 365, "shard " + s + " was closed early at " + bytes.length);
            }
            ShardStructure structure = ShardStructure.read(new UnsafeBuffer(bytes), new Crc32c(), true);
            assertEquals(entry.records(), structure.recordCount());
            Crc32c crc = new Crc32c();
            crc.update(bytes, 0, bytes.length);
            assertEquals(entry.crc32c(), Crc32c.hex(crc.value()));
            records += structure.recordCount();
        }
        assertEquals(100, records);
        assertEquals(manifest, Json.readManifest(dir), "the manifest on disk is the one returned");
    }

    @Test
    void aRecordLargerThanTheTargetGetsAShardOfItsOwn() throws IOException {
        UnsafeBuffer big = new UnsafeBuffer(new byte[100 * 100 * 3]);
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults().withTargetShardBytes(4096))) {
            writer.appendPixels(PIXELS, 0, 10, 10, 3, -1, "small", Codec.RAW);
            writer.appendPixels(big, 0, 100, 100, 3, -1, "big", Codec.RAW);
            writer.appendPixels(PIXELS, 0, 10, 10, 3, -1, "small2", Codec.RAW);
            DatasetManifest manifest = writer.finish();
            assertEquals(List.of(1L, 1L, 1L), manifest.shards().stream().map(DatasetManifest.ShardEntry::records).toList());
        }
    }

    @Test
    void refusesRecordsTheReaderWouldRefuse() throws IOException {
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults().withClasses(List.of("a", "b")))) {
            assertThrows(IllegalArgumentException.class,
                () -> writer.appendPayload(Codec.RAW, PIXELS, 0, 299, 10, 10, 3, 0, "short raw payload"));
            assertThrows(IllegalArgumentException.class,
                () -> writer.appendPixels(PIXELS, 0, 10, 10, 2, 0, "two channels", Codec.RAW));
            assertThrows(IllegalArgumentException.class,
                () -> writer.appendPixels(PIXELS, 0, 10, 10, 3, 2, "label without a class", Codec.RAW));
            assertThrows(IllegalArgumentException.class,
                () -> writer.appendPixels(PIXELS, 0, 10, 10, 3, 0, "x".repeat(70_000), Codec.RAW));
            assertThrows(IllegalArgumentException.class,
                () -> writer.appendPixels(PIXELS, 0, 10, 10, 3, 0, "jpeg needs encoded bytes", Codec.JPEG));
            writer.appendPixels(PIXELS, 0, 10, 10, 3, 1, "fine", Codec.RAW);
            DatasetManifest manifest = writer.finish();
            assertEquals(1, manifest.records(), "refused records left no trace");
        }
    }

    @Test
    void refusesToOverwriteAFinishedDataset() throws IOException {
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults())) {
            writer.finish();
        }
        assertThrows(IOException.class, () -> new DatasetWriter(dir, DatasetWriterOptions.defaults()));
    }

    @Test
    void rejectedInputsAreListedInTheManifest() throws IOException {
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults())) {
            writer.reject("broken.jpg", "not an image");
            DatasetManifest manifest = writer.finish();
            assertEquals(List.of(new DatasetManifest.Rejected("broken.jpg", "not an image")), manifest.rejected());
        }
        assertEquals(1, Json.readManifest(dir).rejected().size());
        assertFalse(Files.exists(dir.resolve("manifest.json.tmp")));
    }

    @Test
    void lz4PayloadsAreSmallerForCompressibleImages() throws IOException {
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults())) {
            writer.appendPixels(new UnsafeBuffer(new byte[64 * 64 * 3]), 0, 64, 64, 3, -1, "flat", Codec.LZ4);
            DatasetManifest manifest = writer.finish();
            assertTrue(manifest.bytes() < 64 * 64 * 3 / 4, "a flat image compresses: " + manifest.bytes());
        }
    }

    @Test
    void aRecordThatWouldPushAShardPastTwoGibIsRefusedClearlyBeforeAnyByteIsWritten() throws IOException {
        // Readers address a shard with 32-bit offsets; the writer refuses instead of writing an unreadable file.
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults())) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> writer.appendPayload(Codec.JPEG, PIXELS, 0, Integer.MAX_VALUE - 100, 10, 10, 3, -1, "huge.jpg"));
            assertTrue(refused.getMessage().contains("huge.jpg") && refused.getMessage().contains("limit"),
                refused.getMessage());
            writer.appendPixels(PIXELS, 0, 10, 10, 3, -1, "fine", Codec.RAW);
            assertEquals(1, writer.finish().records(), "the refused record left no trace");
        }
    }
}
