package io.pinshard.reader;

import java.nio.file.Path;

/** How a shard file gets mapped ({@link MappedShard#openFrame} or {@link MappedShard#open}); tests inject failures. */
@FunctionalInterface
interface ShardOpener {
    MappedShard open(Path file, String dataset, boolean checkIndexCrc, RecordLimits limits);
}
