package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.ShardFormatException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.agrona.LangUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whatever fails while a dataset opens (a checked "Map failed", an Error), every shard mapped so far is unmapped. */
class OpenFailureTest {
    @TempDir
    Path dir;
    int shards;

    @BeforeEach
    void write() throws IOException {
        TestImages.writeDataset(dir, 60, 1024);
        try (Dataset dataset = Dataset.open(dir)) {
            shards = dataset.shardCount();
        }
        assertTrue(shards >= 4, "the test needs several shards, got " + shards);
    }

    @Test
    void checkedMapFailedAtShardKClosesTheShardsBeforeIt() {
        List<MappedShard> opened = new ArrayList<>();
        int failAt = 3;
        Throwable thrown = assertThrows(Throwable.class, () -> Dataset.open(LocalShardSource.open(dir), true, MapBudget.UNLIMITED,
            (file, name, crc, limits) -> {
                if (opened.size() == failAt) {
                    LangUtil.rethrowUnchecked(new IOException("Map failed")); // what FileChannel.map throws
                }
                MappedShard shard = MappedShard.open(file, name, crc, limits);
                opened.add(shard);
                return shard;
            }));
        assertTrue(thrown instanceof IOException || thrown instanceof ShardFormatException, thrown.toString());
        assertEquals(failAt, opened.size());
        for (MappedShard shard : opened) {
            assertTrue(shard.isClosed(), shard.name() + " stayed mapped");
        }
    }

    @Test
    void anErrorAtShardKClosesTheShardsBeforeIt() {
        List<MappedShard> opened = new ArrayList<>();
        OutOfMemoryError oom = new OutOfMemoryError("injected");
        Throwable thrown = assertThrows(Throwable.class, () -> Dataset.open(LocalShardSource.open(dir), true, MapBudget.UNLIMITED,
            (file, name, crc, limits) -> {
                if (opened.size() == 2) {
                    throw oom;
                }
                MappedShard shard = MappedShard.open(file, name, crc, limits);
                opened.add(shard);
                return shard;
            }));
        assertSame(oom, thrown);
        opened.forEach(shard -> assertTrue(shard.isClosed(), shard.name() + " stayed mapped"));
    }

    @Test
    void tooFewMappingsLeftForTheBoundIsRefusedBeforeMapping() {
        List<MappedShard> opened = new ArrayList<>();
        ShardOpener recording = (file, name, crc, limits) -> {
            MappedShard shard = MappedShard.open(file, name, crc, limits);
            opened.add(shard);
            return shard;
        };
        // A kernel allowing one mapping fewer than the shards beyond what the process holds and the JVM's headroom;
        // half of that (what a bound may take) is below the bound's minimum. (BoundedMappingTest: a bound that fits.)
        MapBudget tight = new MapBudget(1000 + MapBudget.JVM_HEADROOM + shards - 1, 1000);
        assertTrue((shards - 1) / 2 < MappingBound.MIN_LIMIT, "the test needs fewer shards, got " + shards);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Dataset.open(LocalShardSource.open(dir), true, tight,
            recording));
        assertTrue(opened.isEmpty(), "nothing may be mapped before the refusal");
        String message = e.getMessage();
        assertTrue(message.contains("vm.max_map_count") && message.contains(Integer.toString(shards))
            && message.contains(Long.toString(tight.maxMapCount())), message);
        // With exactly enough room every shard is mapped at open.
        MapBudget enough = new MapBudget(1000 + MapBudget.JVM_HEADROOM + shards, 1000);
        try (Dataset dataset = Dataset.open(LocalShardSource.open(dir), true, enough, recording)) {
            assertEquals(shards, opened.size());
            assertEquals(Integer.MAX_VALUE, dataset.mappingLimit());
        }
    }

    @Test
    void thisMachinesBudgetIsRead() {
        MapBudget budget = MapBudget.current();
        if (budget != MapBudget.UNLIMITED) {
            assertTrue(budget.maxMapCount() > 0 && budget.inUse() > 0, budget.toString());
            assertFalse(budget.inUse() > budget.maxMapCount(), budget.toString());
        }
    }
}
