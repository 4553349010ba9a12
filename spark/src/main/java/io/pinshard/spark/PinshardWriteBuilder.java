package io.pinshard.spark;

import io.pinshard.format.DatasetManifest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;

/**
 * {@code mode("append")} writes a new dataset and refuses a directory that already holds one; {@code
 * mode("overwrite")} (truncate) replaces it at job commit. Options and rows are checked here, on the driver, before
 * any task runs.
 */
final class PinshardWriteBuilder implements WriteBuilder, SupportsTruncate {
    private final LogicalWriteInfo info;
    private boolean overwrite;

    PinshardWriteBuilder(LogicalWriteInfo info) {
        this.info = info;
    }

    @Override
    public WriteBuilder truncate() {
        overwrite = true;
        return this;
    }

    @Override
    public Write build() {
        WriteSettings settings = WriteSettings.resolve(info.options().asCaseSensitiveMap(), info.schema(),
            SparkSession.active().sparkContext().hadoopConfiguration());
        if (!overwrite && Files.exists(Path.of(settings.output).resolve(DatasetManifest.FILE_NAME))) {
            throw new IllegalArgumentException("pinshard: " + settings.output + " already holds a dataset ("
                + DatasetManifest.FILE_NAME + " exists); mode(\"overwrite\") replaces it");
        }
        boolean replace = overwrite;
        return new Write() {
            @Override
            public String description() {
                return "pinshard dataset " + settings.output;
            }

            @Override
            public BatchWrite toBatch() {
                return new PinshardBatchWrite(settings, info.queryId(), replace);
            }
        };
    }
}
