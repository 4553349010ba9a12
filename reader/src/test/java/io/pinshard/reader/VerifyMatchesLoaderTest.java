package io.pinshard.reader;

import static java.nio.ByteOrder.LITTLE_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.vectors.TestVectorCatalog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code verify} calls intact must load: index entries changed and re-sealed with valid CRCs
 * (codec, shape, label), shards listed twice, files that are not regular files.
 */
class VerifyMatchesLoaderTest {
    private static final String JPEG_SHARD = "shard-00001.pinshard";

    @TempDir
    Path dir;

    /** The committed tiny dataset (its second shard holds jpeg records), copied so tests may damage it. */
    private Path tinyDataset() throws IOException {
        Path source = TestVectorCatalog.committedDirectory().resolve("tiny-dataset");
        Path copy = dir.resolve("tiny");
        Files.createDirectories(copy);
        try (var files = Files.list(source)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.copy(file, copy.resolve(file.getFileName()));
            }
        }
        return copy;
    }

    @Test
    void resealedShapeAndCodecMutantsThatVerifyAlsoDecode() throws IOException {
        Path dataset = tinyDataset();
        assertTrue(new DatasetVerifier().verify(dataset).isEmpty(), "the committed dataset verifies");
        byte[] original = Files.readAllBytes(dataset.resolve(JPEG_SHARD));
        List<String> mutants = new ArrayList<>();
        for (int record = 0; record < 3; record++) {
            mutate(dataset, original, record, IndexEntryDescriptor.HEIGHT_OFFSET, h -> h - 1, mutants);
            mutate(dataset, original, record, IndexEntryDescriptor.HEIGHT_OFFSET, h -> h + 1, mutants);
            mutate(dataset, original, record, IndexEntryDescriptor.WIDTH_OFFSET, w -> w + 1, mutants);
            mutate(dataset, original, record, IndexEntryDescriptor.WIDTH_OFFSET, w -> w - 1, mutants);
            mutate(dataset, original, record, IndexEntryDescriptor.CODEC_OFFSET, c -> 1, mutants); // jpeg -> lz4
            mutate(dataset, original, record, IndexEntryDescriptor.CODEC_OFFSET, c -> 0, mutants); // jpeg -> raw
        }
        assertTrue(mutants.isEmpty(), "verify said intact but a record does not decode: " + mutants);
    }

    /** Changes one u32 (or, for the codec, one byte) of an entry, re-seals, and compares verify with decoding. */
    private static void mutate(Path dataset, byte[] original, int record, int field, IntUnaryOperator change,
                               List<String> mutants) throws IOException {
        Files.write(dataset.resolve(JPEG_SHARD), original);
        ShardSurgery surgery = new ShardSurgery(dataset, JPEG_SHARD);
        int at = surgery.entry(record) + field;
        if (field == IndexEntryDescriptor.CODEC_OFFSET) {
            surgery.bytes.putByte(at, (byte) change.applyAsInt(surgery.bytes.getByte(at)));
        } else {
            surgery.bytes.putInt(at, change.applyAsInt(surgery.bytes.getInt(at, LITTLE_ENDIAN)), LITTLE_ENDIAN);
        }
        surgery.seal();
        List<Problem> problems = new DatasetVerifier().verify(dataset);
        String failure = decodeEverything(dataset);
        if (problems.isEmpty() && failure != null) {
            mutants.add("record " + record + " field @" + field + ": " + failure);
        }
        if (!problems.isEmpty()) {
            assertTrue(problems.stream().allMatch(p -> JPEG_SHARD.equals(p.shard())), problems.toString());
        }
    }

    /** Null when the dataset opens and every record decodes with payload checks on, else why not. */
    private static String decodeEverything(Path dataset) {
        RecordDecoder decoder = new RecordDecoder(true);
        ByteBuffer pixels = ByteBuffer.allocateDirect(1 << 20);
        try (Dataset open = Dataset.open(dataset)) {
            RecordView view = new RecordView();
            for (long i = 0; i < open.size(); i++) {
                decoder.decode(open.record(i, view), new UnsafeBuffer(pixels), 0);
            }
            return null;
        } catch (ShardFormatException e) {
            return e.getMessage();
        }
    }

    @Test
    void severalThreadsReportTheSameProblemsInTheSameOrder() throws IOException {
        TestImages.writeDataset(dir, 40, 512);
        List<DatasetManifest.ShardEntry> shards = Json.readManifest(dir).shards();
        assertTrue(shards.size() > 4, "several shards: " + shards.size());
        for (int s = 0; s < shards.size(); s += 2) {
            Path file = dir.resolve(shards.get(s).file());
            byte[] bytes = Files.readAllBytes(file);
            bytes[64 + s] ^= 1; // a payload byte of the shard's first record
            Files.write(file, bytes);
        }
        List<Problem> one = new DatasetVerifier(true, false, 1).verify(dir);
        assertFalse(one.isEmpty());
        assertEquals(one, new DatasetVerifier(true, false, 3).verify(dir));
        assertEquals(one, new DatasetVerifier(true, false, 64).verify(dir));
    }

    @Test
    void theMostCompressibleLz4RecordsStillOpenVerifyAndDecode() throws IOException {
        // All-zero images compress about as far as LZ4 can: the 255-bytes-per-payload-byte rule must admit them.
        DatasetWriterOptions options = DatasetWriterOptions.defaults();
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            for (int[] shape : new int[][] {{1000, 1000, 3}, {1, 65535, 1}, {4096, 4096, 4}}) {
                byte[] zeros = new byte[shape[0] * shape[1] * shape[2]];
                writer.appendPixels(new UnsafeBuffer(zeros), 0, shape[0], shape[1], shape[2], -1, "zeros",
                    Codec.LZ4);
            }
            writer.finish();
        }
        assertTrue(new DatasetVerifier().verify(dir).isEmpty());
        try (Dataset dataset = Dataset.open(dir)) {
            RecordView view = new RecordView();
            for (long i = 0; i < dataset.size(); i++) {
                dataset.record(i, view);
                assertTrue(view.decodedBytes() <= IndexEntryDescriptor.MAX_LZ4_RATIO * (long) view.payloadLength(),
                    view.decodedBytes() + " from " + view.payloadLength());
            }
        }
    }

    @Test
    void aShardListedTwiceUnderTwoNamesIsRefused() throws IOException {
        TestImages.writeDataset(dir, 6, 256);
        DatasetManifest manifest = Json.readManifest(dir);
        DatasetManifest.ShardEntry first = manifest.shards().get(0);
        Files.createLink(dir.resolve("shard-99999.pinshard"), dir.resolve(first.file()));
        listAlso(new DatasetManifest.ShardEntry("shard-99999.pinshard", first.records(), first.bytes(), first.crc32c()));

        ShardFormatException e = assertThrows(ShardFormatException.class, () -> TestImages.openAndTouchEveryShard(dir));
        assertTrue(e.getMessage().contains("shard-99999.pinshard") && e.getMessage().contains(first.file()), e.getMessage());
        List<Problem> problems = new DatasetVerifier().verify(dir);
        assertTrue(problems.stream().anyMatch(p -> "shard-99999.pinshard".equals(p.shard())), problems.toString());
    }

    @Test
    void aCopiedShardIsCaughtByItsHeaderShardNumber() throws IOException {
        TestImages.writeDataset(dir, 6, 256);
        DatasetManifest manifest = Json.readManifest(dir);
        DatasetManifest.ShardEntry first = manifest.shards().get(0);
        String copy = String.format("shard-%05d.pinshard", manifest.shards().size());
        Files.copy(dir.resolve(first.file()), dir.resolve(copy));
        listAlso(new DatasetManifest.ShardEntry(copy, first.records(), first.bytes(), first.crc32c()));

        ShardFormatException e = assertThrows(ShardFormatException.class, () -> TestImages.openAndTouchEveryShard(dir));
        assertEquals(ShardFormatException.Kind.MANIFEST_MISMATCH, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains(copy) && e.getMessage().contains("shard number"), e.getMessage());
        List<Problem> problems = new DatasetVerifier().verify(dir);
        assertTrue(problems.stream().anyMatch(p -> copy.equals(p.shard()) && p.detail().contains("shard number")),
            problems.toString());
    }

    private void listAlso(DatasetManifest.ShardEntry extra) throws IOException {
        DatasetManifest m = Json.readManifest(dir);
        List<DatasetManifest.ShardEntry> shards = new ArrayList<>(m.shards());
        shards.add(extra);
        Files.write(dir.resolve(DatasetManifest.FILE_NAME), Json.pretty(new DatasetManifest(m.format(),
            m.formatVersion(), m.records() + extra.records(), m.bytes() + extra.bytes(), m.classes(), shards,
            m.metadata(), m.rejected())));
    }

    @org.junit.jupiter.api.Tag("process")
    @Test
    void aFifoOrADeviceInPlaceOfAShardIsRefusedWithoutReadingIt() throws Exception {
        TestImages.writeDataset(dir, 6, 256);
        String shard = Json.readManifest(dir).shards().get(0).file();
        Files.delete(dir.resolve(shard));
        assertEquals(0, new ProcessBuilder("mkfifo", dir.resolve(shard).toString()).start().waitFor());
        expectRefused(shard);
        Files.delete(dir.resolve(shard));
        for (String device : List.of("/dev/zero", "/dev/urandom")) {
            Files.createSymbolicLink(dir.resolve(shard), Path.of(device));
            expectRefused(shard);
            Files.delete(dir.resolve(shard));
        }
    }

    private void expectRefused(String shard) {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            List<Problem> problems = new DatasetVerifier().verify(dir);
            assertTrue(problems.stream().anyMatch(p -> shard.equals(p.shard())
                && p.kind() == ShardFormatException.Kind.UNSAFE_FILE), problems.toString());
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> TestImages.openAndTouchEveryShard(dir));
            assertEquals(ShardFormatException.Kind.UNSAFE_FILE, e.kind(), e.getMessage());
        });
    }

    @Test
    void aDanglingLinkOrADirectoryInPlaceOfAShardIsAClearError() throws IOException {
        TestImages.writeDataset(dir, 6, 256);
        String shard = Json.readManifest(dir).shards().get(0).file();
        Files.delete(dir.resolve(shard));
        Files.createSymbolicLink(dir.resolve(shard), Path.of("gone.pinshard"));
        ShardFormatException e = assertThrows(ShardFormatException.class, () -> TestImages.openAndTouchEveryShard(dir));
        assertTrue(e.getMessage().contains(shard) && e.getMessage().contains("missing file")
            && e.getMessage().contains(dir.toString()), e.getMessage());
        Files.delete(dir.resolve(shard));
        Files.createDirectory(dir.resolve(shard));
        e = assertThrows(ShardFormatException.class, () -> TestImages.openAndTouchEveryShard(dir));
        assertEquals(ShardFormatException.Kind.UNSAFE_FILE, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("a directory"), e.getMessage());
        assertEquals(ShardFormatException.Kind.UNSAFE_FILE, new DatasetVerifier().verify(dir).get(0).kind());
    }

    @Test
    void aManifestThatIsADeviceIsRefused() throws IOException {
        TestImages.writeDataset(dir, 2, 1 << 20);
        Files.delete(dir.resolve(DatasetManifest.FILE_NAME));
        Files.createSymbolicLink(dir.resolve(DatasetManifest.FILE_NAME), Path.of("/dev/urandom"));
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> TestImages.openAndTouchEveryShard(dir));
            assertEquals(ShardFormatException.Kind.UNSAFE_FILE, e.kind(), e.getMessage());
            List<Problem> problems = new DatasetVerifier().verify(dir);
            assertEquals(ShardFormatException.Kind.UNSAFE_FILE, problems.get(0).kind(), problems.toString());
        });
    }

    @Test
    void linksOutOfTheDatasetDirectoryAreRefusedUnlessAllowed(@TempDir Path elsewhere) throws IOException {
        TestImages.writeDataset(dir, 6, 256);
        String shard = Json.readManifest(dir).shards().get(0).file();
        Files.move(dir.resolve(shard), elsewhere.resolve(shard));
        Files.createSymbolicLink(dir.resolve(shard), elsewhere.resolve(shard));
        ShardFormatException e = assertThrows(ShardFormatException.class, () -> TestImages.openAndTouchEveryShard(dir));
        assertEquals(ShardFormatException.Kind.UNSAFE_FILE, e.kind(), e.getMessage());
        assertFalse(new DatasetVerifier().verify(dir).isEmpty());
        assertTrue(new DatasetVerifier(true, true).verify(dir).isEmpty(), "allowed, the link is followed");

        // A link that stays inside the directory is fine.
        Files.delete(dir.resolve(shard));
        Files.move(elsewhere.resolve(shard), dir.resolve("real-" + shard));
        Files.createSymbolicLink(dir.resolve(shard), Path.of("real-" + shard));
        Dataset.open(dir).close();
    }

    @Test
    void labelsOutsideTheClassListAreCorrupt() throws IOException {
        for (int label : new int[] {3, 1000, Integer.MAX_VALUE}) {
            Path dataset = dir.resolve("labels-" + label);
            TestImages.writeDataset(dataset, 4, 1 << 20); // three classes
            String shard = Json.readManifest(dataset).shards().get(0).file();
            ShardSurgery surgery = new ShardSurgery(dataset, shard);
            surgery.bytes.putInt(surgery.entry(2) + IndexEntryDescriptor.LABEL_OFFSET, label, LITTLE_ENDIAN);
            surgery.seal();
            List<Problem> problems = new DatasetVerifier().verify(dataset);
            assertTrue(problems.stream().anyMatch(p -> shard.equals(p.shard()) && p.record() == 2
                && p.kind() == ShardFormatException.Kind.BAD_INDEX_ENTRY), problems.toString());
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> TestImages.openAndTouchEveryShard(dataset));
            assertEquals(2, e.record(), e.getMessage());
            assertTrue(e.getMessage().contains("label " + label), e.getMessage());
        }
    }
}
