package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The {@link ShardSourceContract} over a dataset directory, and what only a directory does. */
class LocalShardSourceTest extends ShardSourceContract {
    @Override
    protected ShardSource open(Path written, String name) {
        return LocalShardSource.open(written);
    }

    /** The directory written is the store. */
    @Override
    protected void store(Path written, String name) {
    }

    @Override
    protected void replaceShard(Path written, String name, String file, byte[] bytes) throws Exception {
        Files.write(written.resolve(file), bytes);
    }

    @Test
    void openChecksEveryListedFileBeforeAnyIsAcquired() throws Exception {
        String file = Json.readManifest(written).shards().get(2).file();
        Files.delete(written.resolve(file));
        ShardFormatException e = assertThrows(ShardFormatException.class, () -> LocalShardSource.open(written));
        assertEquals(file, e.shard(), e.getMessage());
    }
}
