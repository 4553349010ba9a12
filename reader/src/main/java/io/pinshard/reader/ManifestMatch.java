package io.pinshard.reader;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.ManifestRules;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;

/** A mapped shard against its manifest entry: the record count, and the header's shard number for its place. */
final class ManifestMatch {
    private ManifestMatch() {
    }

    /**
     * @throws ShardFormatException {@link Kind#MANIFEST_MISMATCH} naming the dataset and the shard when it does not
     *                              match
     */
    static void check(String location, DatasetManifest.ShardEntry entry, int expectedNumber, MappedShard mapped) {
        if (mapped.recordCount() != entry.records()) {
            throw new ShardFormatException(Kind.MANIFEST_MISMATCH, location, entry.file(), -1, "shard holds "
                + mapped.recordCount() + " records, the manifest says " + entry.records(), null);
        }
        ManifestRules.checkShardNumber(location, entry.file(), expectedNumber, mapped.structure().shardNumber());
    }
}
