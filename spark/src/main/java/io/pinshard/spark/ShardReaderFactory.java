package io.pinshard.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;

/** Sent to the executors: a {@link ShardReader} per shard partition. */
final class ShardReaderFactory implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;

    private final ReadSettings settings;

    ShardReaderFactory(ReadSettings settings) {
        this.settings = settings;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        return new ShardReader(settings, (PinshardScan.ShardPartition) partition);
    }
}
