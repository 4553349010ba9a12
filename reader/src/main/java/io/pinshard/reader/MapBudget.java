package io.pinshard.reader;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * How many more memory mappings this process may make: the kernel's {@code vm.max_map_count} less the
 * mappings in use and {@link #JVM_HEADROOM} left for the JVM (thread stacks, malloc arenas, code heap,
 * native libraries), and how many shards of a dataset to keep mapped at once ({@link #limitFor}). On systems
 * without {@code /proc} there is no budget.
 *
 * @param configured the most shards to map at once that the caller asked for (0: {@value
 *                   Dataset#MAX_MAPPED_SHARDS_PROPERTY} or no such limit)
 */
record MapBudget(long maxMapCount, long inUse, int configured) {
    static final long JVM_HEADROOM = 4096;
    static final MapBudget UNLIMITED = new MapBudget(Long.MAX_VALUE, 0);

    MapBudget(long maxMapCount, long inUse) {
        this(maxMapCount, inUse, 0);
    }

    static MapBudget current() {
        Path limit = Path.of("/proc/sys/vm/max_map_count");
        Path maps = Path.of("/proc/self/maps");
        if (!Files.isReadable(limit) || !Files.isReadable(maps)) {
            return UNLIMITED;
        }
        // Line readers, not readAllBytes: /proc files report size 0, and some kernels then return one byte.
        try (BufferedReader max = Files.newBufferedReader(limit); Stream<String> lines = Files.lines(maps)) {
            return new MapBudget(Long.parseLong(max.readLine().trim()), lines.count());
        } catch (IOException | RuntimeException e) {
            return UNLIMITED;
        }
    }

    MapBudget withLimit(int maxMappedShards) {
        if (maxMappedShards < MappingBound.MIN_LIMIT) {
            throw new IllegalArgumentException("maxMappedShards must be at least " + MappingBound.MIN_LIMIT + ": "
                + maxMappedShards);
        }
        return new MapBudget(maxMapCount, inUse, maxMappedShards);
    }

    /**
     * How many of a dataset's {@code shards} to keep mapped at once: all of them when they fit both the
     * mappings left and the configured limit (the dataset then maps every shard at open); else the configured
     * limit, at most half the mappings left (the other half stays for the rest of the process: a second
     * dataset, the loader's memory, libraries loaded later).
     *
     * @throws IllegalStateException when fewer than {@link MappingBound#MIN_LIMIT} mappings would be left
     */
    int limitFor(String dataset, int shards) {
        long available = maxMapCount == Long.MAX_VALUE ? Long.MAX_VALUE : maxMapCount - inUse - JVM_HEADROOM;
        int asked = configured > 0 ? configured : Integer.getInteger(Dataset.MAX_MAPPED_SHARDS_PROPERTY, 0);
        if (shards <= available && (asked <= 0 || shards <= asked)) {
            return shards;
        }
        long limit = Math.min(asked > 0 ? asked : Long.MAX_VALUE,
            available == Long.MAX_VALUE ? Long.MAX_VALUE : available / 2);
        if (limit < MappingBound.MIN_LIMIT) {
            throw new IllegalStateException("dataset " + dataset + " has " + shards + " shards, but this process"
                + " may map only " + Math.max(0, available) + " more files: the kernel allows " + maxMapCount
                + " memory mappings per process (vm.max_map_count), " + inUse + " are in use and " + JVM_HEADROOM
                + " are kept for the JVM; pinshard needs at least " + MappingBound.MIN_LIMIT + " for shards. Raise"
                + " the limit (sysctl -w vm.max_map_count=" + Math.max(262_144, 2 * (inUse + JVM_HEADROOM + shards))
                + ") or convert into fewer, larger shards (convert --shard-size).");
        }
        return (int) Math.min(limit, shards);
    }
}
