package io.pinshard.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.LoaderException;
import io.pinshard.loader.options.ErrorPolicy;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.ring.Batch;
import io.pinshard.reader.CrcCheck;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.MappedShard;
import io.pinshard.testkit.S3ServerExtension;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A cached shard a read finds corrupt is evicted and fetched again once (issue 37, path 2); when the copy fetched
 * again is bad too, the read fails naming the object, the shard and the record. S3CacheRepairTest (acceptance)
 * shows the repair through {@code ./pinshard}; this one the failure after it, which needs a store whose object is
 * bad or a second copy damaged on this disk.
 */
@Tag("process")
class CacheRepairTest {
    @RegisterExtension
    static final S3ServerExtension server = new S3ServerExtension();
    private static S3Client s3;

    @TempDir
    static Path temp;

    @BeforeAll
    static void client() {
        s3 = S3Clients.create(S3TestSettings.of(server).build());
    }

    @AfterAll
    static void stop() {
        s3.close();
    }

    private static S3ShardSource source(S3Location location, Path cache) {
        return S3ShardSource.open(location, S3TestSettings.of(server).build(), cache, Long.MAX_VALUE);
    }

    /**
     * The cached copy is damaged (its mtime kept: the reuse checks cannot see it), and so is the store's object: the
     * loader with CRC checks on every payload finds the record, drops the copy, fetches the object again, and fails
     * with the object's name and what its download failed, leaving no bad copy in the cache.
     */
    @Test
    void theLoaderFailsNamingTheObjectWhenTheCopyFetchedAgainIsBadToo() throws Exception {
        Path local = S3TestData.write(temp.resolve("bad-object"), 40, 32 << 10);
        S3Location location = S3TestData.upload(s3, local, "repair", "bad-object");
        Path cache = temp.resolve("cache-bad-object");
        DatasetManifest.ShardEntry first;
        Path cached;
        S3ShardSource warm = source(location, cache);
        try (Dataset remote = Dataset.open(warm)) {
            remote.shard(0);
            first = remote.manifest().shards().get(0);
            cached = warm.cache().shardFile(first);
        }
        damage(cached);
        byte[] object = Files.readAllBytes(local.resolve(first.file()));
        object[100] ^= 0x5a; // record 0's payload: the object no longer matches the manifest's CRC32C
        s3.putObject(p -> p.bucket("repair").key(location.key(first.file())), RequestBody.fromBytes(object));

        LoaderOptions options = LoaderOptions.builder().batchSize(4).crop(8).workers(1).crcCheck(CrcCheck.ALWAYS)
            .errorPolicy(ErrorPolicy.FAIL).build();
        try (Dataset remote = Dataset.open(source(location, cache));
             Loader loader = Loader.open(remote, options);
             Epoch epoch = loader.epoch(0)) {
            LoaderException failed = assertThrows(LoaderException.class, () -> {
                for (Batch batch : epoch) {
                    batch.close();
                }
            });
            String message = failed.getMessage() + " / " + failed.getCause();
            assertTrue(message.contains(location.uri(first.file())), "names the object: " + message);
            assertTrue(message.contains("replaced under the same key"), "says what the download found: " + message);
            assertFalse(Files.exists(cached), "the damaged copy left the cache");
        }
    }

    /**
     * Each shard is fetched again once per source: a second copy a read finds corrupt is dropped too, and the
     * error names the object, the shard and the record and says the copy was fetched again.
     */
    @Test
    void aShardIsFetchedAgainOnceThenTheErrorNamesObjectShardAndRecord() throws Exception {
        Path local = S3TestData.write(temp.resolve("twice"), 40, 32 << 10);
        S3Location location = S3TestData.upload(s3, local, "repair", "twice");
        S3ShardSource source = source(location, temp.resolve("cache-twice"));
        try (Dataset remote = Dataset.open(source)) {
            DatasetManifest.ShardEntry first = remote.manifest().shards().get(0);
            Path cached = source.cache().shardFile(first);
            byte[] object = Files.readAllBytes(local.resolve(first.file()));
            ShardFormatException found = new ShardFormatException(Kind.CHECKSUM_MISMATCH, remote.location(),
                first.file(), 3, "payload CRC32C does not match the index", null);

            MappedShard mapped = remote.shard(0);
            damage(cached);
            assertNull(remote.refetchCorrupt(0, mapped, found), "the first time: read it again");
            assertFalse(Files.exists(cached), "the bad copy is gone from the cache");
            mapped = remote.shard(0);
            assertEquals(2, source.downloads(0));
            assertArrayEquals(object, Files.readAllBytes(cached), "a new copy of the object");

            damage(cached);
            ShardFormatException second = remote.refetchCorrupt(0, mapped, found);
            assertNotNull(second, "the second time: fail");
            String message = second.getMessage();
            assertTrue(message.contains(location.uri(first.file())) && message.contains("shard " + first.file())
                && message.contains("record 3") && message.contains("fetched again"), message);
            assertFalse(Files.exists(cached), "the second bad copy is gone too");
        }
    }

    /** 64 bytes of record 0's payload complemented in place, the file's mtime put back (bit rot, touch -d). */
    static void damage(Path shard) throws IOException {
        FileTime mtime = Files.getLastModifiedTime(shard);
        try (FileChannel file = FileChannel.open(shard, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = ByteBuffer.allocate(64);
            file.read(bytes, 64);
            for (int i = 0; i < 64; i++) {
                bytes.put(i, (byte) ~bytes.get(i));
            }
            file.write(bytes.flip(), 64);
        }
        Files.setLastModifiedTime(shard, mtime);
    }
}
