package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Crc32c;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link ShardSource} promises, run against each implementation by a subclass that says how to store a
 * dataset where the source reads it (Netty's AbstractByteBufTest pattern): {@link LocalShardSourceTest} over a
 * directory, the s3 module's over a real S3 server on loopback. Each test writes a small dataset of its own and
 * stores it under a name of its own.
 */
public abstract class ShardSourceContract {
    private static final int RECORDS = 48;

    @TempDir
    protected Path temp;
    /** The dataset as written, the reference every source's shards are compared with. */
    protected Path written;
    /** The dataset's name where the source reads it: one per test, so no test sees another's store or cache. */
    protected String name;

    /** A new source over the dataset stored as {@code name} (written from {@code written}). */
    protected abstract ShardSource open(Path written, String name) throws Exception;

    /** Stores a dataset written at {@code written} as {@code name}, where {@link #open} finds it. */
    protected abstract void store(Path written, String name) throws Exception;

    /** Replaces the stored shard file {@code file} of dataset {@code name} by {@code bytes}. */
    protected abstract void replaceShard(Path written, String name, String file, byte[] bytes) throws Exception;

    @BeforeEach
    void writeAndStore(TestInfo test) throws Exception {
        name = test.getTestMethod().orElseThrow().getName();
        written = temp.resolve("written-" + name);
        TestImages.writeDataset(written, RECORDS, 1024);
        store(written, name);
    }

    @Test
    public void servesTheManifestAsWrittenAndSaysHowItFetches() throws Exception {
        try (ShardSource source = open(written, name)) {
            DatasetManifest manifest = Json.readManifest(written);
            assertEquals(manifest, source.manifest());
            assertTrue(manifest.shards().size() >= 3, "the contract needs several shards: " + manifest.shards().size());
            assertTrue(source.limitBytes() > 0, "limit " + source.limitBytes());
            // A local source has nothing to fetch ahead; a remote one fetches with at least one thread.
            assertEquals(source.local(), source.fetchConcurrency() == 0, "local " + source.local()
                + ", fetch concurrency " + source.fetchConcurrency());
            assertTrue(Files.isDirectory(source.directory()), source.directory().toString());
            for (int i = 0; i < manifest.shards().size(); i++) {
                String file = manifest.shards().get(i).file();
                assertTrue(source.origin(i).endsWith(file), source.origin(i) + " names " + file);
            }
        }
    }

    @Test
    public void acquireMakesEachShardALocalFileOfItsWrittenBytesAndTheSameFileWhileHeld() throws Exception {
        try (ShardSource source = open(written, name)) {
            DatasetManifest manifest = source.manifest();
            for (int i = 0; i < manifest.shards().size(); i++) {
                String file = manifest.shards().get(i).file();
                Path local = source.acquire(i);
                assertArrayEquals(Files.readAllBytes(written.resolve(file)), Files.readAllBytes(local), file);
                assertEquals(local, source.acquire(i), "acquired again while held");
            }
            // Each shard downloaded once, held twice; or never, for files already at hand.
            assertEquals(source.local() ? 0 : manifest.bytes(), source.bytesFetched());
            for (int i = 0; i < manifest.shards().size(); i++) {
                String file = manifest.shards().get(i).file();
                source.release(i);
                assertArrayEquals(Files.readAllBytes(written.resolve(file)), Files.readAllBytes(source.acquire(i)),
                    file + " acquired after its release");
            }
        }
    }

    @Test
    public void aDatasetOverTheSourceReadsEveryRecordAsTheDirectoryDoes() throws Exception {
        try (Dataset served = Dataset.open(open(written, name)); Dataset here = Dataset.open(written)) {
            assertEquals(here.size(), served.size());
            Crc32c crc = new Crc32c();
            RecordView a = new RecordView();
            RecordView b = new RecordView();
            for (long r = 0; r < here.size(); r++) {
                served.record(r, a);
                here.record(r, b);
                assertEquals(b.key(), a.key(), "record " + r);
                assertEquals(b.storedCrc(), a.storedCrc(), "record " + r);
                assertTrue(a.payloadIntact(crc), "record " + r);
            }
        }
    }

    @Test
    public void aStoredShardThatNoLongerMatchesTheManifestIsRefusedNamingIt() throws Exception {
        try (ShardSource source = open(written, name)) {
            String file = source.manifest().shards().get(1).file();
            byte[] bytes = Files.readAllBytes(written.resolve(file));
            replaceShard(written, name, file, Arrays.copyOf(bytes, bytes.length / 2));
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> source.acquire(1));
            assertEquals(file, e.shard(), e.getMessage());
            assertTrue(e.getMessage().contains(file), e.getMessage());
        }
    }

    @Test
    public void aDiscardedCopyIsReplacedOrKeptAsTheSourceSays() throws Exception {
        try (ShardSource source = open(written, name)) {
            String file = source.manifest().shards().get(0).file();
            source.acquire(0);
            boolean fetchesAgain = source.discard(0);
            assertEquals(!source.local(), fetchesAgain, "a local directory has no other copy; a store has");
            assertArrayEquals(Files.readAllBytes(written.resolve(file)), Files.readAllBytes(source.acquire(0)),
                file + " after the discard");
        }
    }

    @Test
    public void aClosedSourceRefusesUseAndClosingAgainIsHarmless() throws Exception {
        ShardSource source = open(written, name);
        source.acquire(0);
        source.close();
        source.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> source.acquire(0));
        assertTrue(e.getMessage().contains(source.location()) && e.getMessage().contains("closed"), e.getMessage());
    }
}
