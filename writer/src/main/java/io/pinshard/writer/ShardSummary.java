package io.pinshard.writer;

import java.nio.file.Path;

/** A finished shard: where it is, how many records and bytes it holds, and the CRC32C of the whole file. */
public record ShardSummary(Path file, long records, long bytes, int crc32c) {
}
