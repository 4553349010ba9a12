package io.pinshard.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;

/** Sent to the executors: makes each task attempt's {@link PinshardDataWriter}. */
final class PinshardDataWriterFactory implements DataWriterFactory {
    private static final long serialVersionUID = 1L;

    private final WriteSettings settings;
    private final String queryId;

    PinshardDataWriterFactory(WriteSettings settings, String queryId) {
        this.settings = settings;
        this.queryId = queryId;
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
        org.apache.spark.TaskContext context = org.apache.spark.TaskContext.get();
        return new PinshardDataWriter(settings, queryId, partitionId, taskId, context == null ? 0 : context.attemptNumber());
    }
}
