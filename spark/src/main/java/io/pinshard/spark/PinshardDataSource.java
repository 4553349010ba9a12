package io.pinshard.spark;

import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code pinshard} Spark data source (DataSource V2). Writing, {@code df.write.format("pinshard")
 * .mode("append" or "overwrite").options(...).save(dir)}, converts image rows with {@code pinshard convert}'s own
 * image processing into a dataset that {@code pinshard verify} accepts ({@link WriteSettings} lists the options and
 * the row layouts); reading, {@code spark.read.format("pinshard").load(dir)}, gives one row per record, one
 * partition per shard ({@link ReadSettings}).
 */
public final class PinshardDataSource implements TableProvider, DataSourceRegister {
    /** The name {@code format(...)} takes. */
    public static final String SHORT_NAME = "pinshard";

    @Override
    public String shortName() {
        return SHORT_NAME;
    }

    /** A read's schema (a write passes the DataFrame's own, {@link #supportsExternalMetadata()}). */
    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return ReadSettings.parse(options).schema();
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new PinshardTable(schema, properties);
    }

    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }
}
