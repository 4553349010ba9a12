package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFooterDescriptor;
import io.pinshard.format.ShardFormatException;
import io.pinshard.loader.options.ErrorPolicy;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.reader.Dataset;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard whose index fails its checksum opens (open checks frames only) and is refused at its first use: the
 * loader's error policy decides, as for any corrupt record. Its records are never delivered.
 */
class LazyIndexLoaderTest {
    @TempDir
    Path temp;

    @Test
    void aCorruptIndexFailsTheRunOrIsSkippedUnderThePolicy() throws IOException {
        Path dir = TestDatasets.write(temp.resolve("raw"), 60, Codec.RAW, 3, 4 << 10);
        String bad = Json.readManifest(dir).shards().get(1).file();
        try (RandomAccessFile file = new RandomAccessFile(dir.resolve(bad).toFile(), "rw")) {
            byte[] footer = new byte[ShardFooterDescriptor.LENGTH];
            file.seek(file.length() - footer.length);
            file.readFully(footer);
            long index = ByteBuffer.wrap(footer).order(ByteOrder.LITTLE_ENDIAN).getLong(
                ShardFooterDescriptor.INDEX_OFFSET_OFFSET);
            file.seek(index + 20); // inside entry 0, under the index CRC (which now fails)
            int b = file.read();
            file.seek(index + 20);
            file.write(b ^ 0x10);
        }
        long first;
        long count;
        try (Dataset dataset = Dataset.open(dir)) {
            first = dataset.firstRecordOf(1);
            count = dataset.firstRecordOf(2) - first;
            try (Loader loader = Loader.open(dataset, TestDatasets.small().build()); Epoch epoch = loader.epoch(0)) {
                LoaderException e = assertThrows(LoaderException.class, () -> EpochContents.of(epoch));
                ShardFormatException cause = (ShardFormatException) e.getCause();
                assertEquals(ShardFormatException.Kind.CHECKSUM_MISMATCH, cause.kind());
                assertTrue(e.getMessage().contains(bad) && e.getMessage().contains("index CRC32C"), e.getMessage());
            }
        }
        try (Dataset dataset = Dataset.open(dir);
             Loader loader = Loader.open(dataset, TestDatasets.small().errorPolicy(ErrorPolicy.SKIP).build());
             Epoch epoch = loader.epoch(0)) {
            List<Long> ids = EpochContents.of(epoch).allIds();
            assertEquals(dataset.size(), ids.size(), "every slot filled");
            for (long r = first; r < first + count; r++) {
                assertFalse(ids.contains(r), "record " + r + " of the corrupt shard was delivered");
            }
        }
    }
}
