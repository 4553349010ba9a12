package io.pinshard.spark;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;

/** A batch scan with one input partition per shard, in manifest order (the dataset's record order). */
final class PinshardScan implements ScanBuilder, Scan, Batch {
    private final ReadSettings settings;

    PinshardScan(ReadSettings settings) {
        this.settings = settings;
    }

    @Override
    public Scan build() {
        return this;
    }

    @Override
    public StructType readSchema() {
        return settings.schema();
    }

    @Override
    public String description() {
        return "pinshard " + settings.path() + " (payload " + settings.payload().name().toLowerCase(java.util.Locale.ROOT) + ")";
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
        DatasetManifest manifest = Json.readManifest(Path.of(settings.path()));
        List<DatasetManifest.ShardEntry> shards = manifest.shards();
        InputPartition[] partitions = new InputPartition[shards.size()];
        long first = 0;
        for (int i = 0; i < partitions.length; i++) {
            partitions[i] = new ShardPartition(i, shards.get(i).file(), first);
            first += shards.get(i).records();
        }
        return partitions;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new ShardReaderFactory(settings);
    }

    /** Shard {@code position} of the manifest, whose first record is global record {@code firstRecord}. */
    record ShardPartition(int position, String file, long firstRecord) implements InputPartition {
    }
}
