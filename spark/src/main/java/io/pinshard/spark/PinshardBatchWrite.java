package io.pinshard.spark;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.Durability;
import io.pinshard.writer.convert.ConvertOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * The driver's side of a write. Tasks stage their shards ({@link Staging}); Spark's commit coordinator lets one
 * attempt per partition commit; {@link #commit} takes exactly one message per partition, moves those shards into
 * the dataset directory and writes {@code manifest.json} once, last and atomically ({@link
 * DatasetWriter#writeManifest}), with every task's rejected inputs. Whatever else is staged (failed, retried,
 * speculative or denied attempts) is deleted unread. {@link #abort} deletes the staging and writes nothing: a
 * directory without a manifest is not a dataset.
 */
final class PinshardBatchWrite implements BatchWrite {
    private final WriteSettings settings;
    private final String queryId;
    private final boolean overwrite;

    PinshardBatchWrite(WriteSettings settings, String queryId, boolean overwrite) {
        this.settings = settings;
        this.queryId = queryId;
        this.overwrite = overwrite;
    }

    @Override
    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
        try {
            Files.createDirectories(Staging.job(settings.output, queryId));
        } catch (IOException e) {
            throw new UncheckedIOException("pinshard: cannot create the staging folder in " + settings.output, e);
        }
        return new PinshardDataWriterFactory(settings, queryId);
    }

    @Override
    public boolean useCommitCoordinator() {
        return true;
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
        try {
            publish(messages);
        } catch (IOException e) {
            throw new UncheckedIOException("pinshard: committing " + settings.output + " failed (no manifest was written,"
                + " so it is not a dataset): " + e, e);
        }
    }

    private void publish(WriterCommitMessage[] messages) throws IOException {
        // One message per partition: Spark sends that; a second one for a partition (a duplicate attempt handed in
        // through the API) is ignored, and its staged shards are deleted with the rest of the staging.
        TreeMap<Integer, TaskCommit> byPartition = new TreeMap<>();
        for (WriterCommitMessage message : messages) {
            if (message instanceof TaskCommit commit) {
                byPartition.putIfAbsent(commit.partition(), commit);
            }
        }
        Path output = Path.of(settings.output);
        Path jobStaging = Staging.job(settings.output, queryId);
        Path manifestFile = output.resolve(DatasetManifest.FILE_NAME);
        List<String> replaced = List.of();
        if (Files.exists(manifestFile)) {
            if (!overwrite) {
                throw new IOException(output + " became a dataset while this job ran (" + DatasetManifest.FILE_NAME + " exists)");
            }
            replaced = Json.readManifest(output).shards().stream().map(DatasetManifest.ShardEntry::file).toList();
            Files.delete(manifestFile); // from here on the directory is not a dataset until the new manifest lands
        }
        List<DatasetManifest.ShardEntry> shards = new ArrayList<>();
        List<DatasetManifest.Rejected> rejected = new ArrayList<>();
        long inputs = 0;
        long ignored = 0;
        for (TaskCommit commit : byPartition.values()) {
            Path staged = jobStaging.resolve(Path.of(commit.staging()).getFileName());
            for (TaskCommit.StagedShard shard : commit.shards()) {
                Path source = staged.resolve(shard.file());
                long size = Files.size(source);
                if (size != shard.bytes()) {
                    throw new IOException("staged shard " + source + " holds " + size + " bytes, its task reported " + shard.bytes());
                }
                Files.move(source, output.resolve(shard.file()), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                shards.add(new DatasetManifest.ShardEntry(shard.file(), shard.records(), shard.bytes(), shard.crc32c()));
            }
            commit.rejected().forEach(r -> rejected.add(new DatasetManifest.Rejected(r.path(), r.reason())));
            inputs += commit.inputs();
            ignored += commit.ignored();
        }
        Durability.syncDirectory(output);
        ConvertOptions convert = settings.convert();
        Map<String, Object> spark = new LinkedHashMap<>();
        spark.put("inputs", inputs);
        spark.put("ignored", ignored);
        spark.put("partitions", byPartition.size());
        spark.put("shardBytes", convert.shardBytes());
        spark.put("queryId", queryId);
        DatasetWriterOptions options = convert.writerOptions(settings.classes).withFields(settings.fields())
            .withManifestMetadata(Map.of("spark", spark));
        DatasetWriter.writeManifest(output, options, shards, rejected);
        Set<String> kept = new HashSet<>();
        shards.forEach(s -> kept.add(s.file()));
        for (String old : replaced) {
            if (!kept.contains(old)) {
                Files.deleteIfExists(output.resolve(old));
            }
        }
        Staging.removeJob(settings.output, queryId);
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
        try {
            Staging.removeJob(settings.output, queryId);
        } catch (IOException e) {
            throw new UncheckedIOException("pinshard: the aborted job's staging " + Staging.job(settings.output, queryId)
                + " could not be removed (it holds no manifest, so it is not a dataset)", e);
        }
    }
}
