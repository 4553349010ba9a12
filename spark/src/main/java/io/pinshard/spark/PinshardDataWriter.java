package io.pinshard.spark;

import io.pinshard.format.DatasetManifest;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.FieldValues;
import io.pinshard.writer.convert.ConvertOptions;
import io.pinshard.writer.convert.ConvertedImage;
import io.pinshard.writer.convert.FolderLister;
import io.pinshard.writer.convert.ImageProcessor;
import io.pinshard.writer.convert.InputItem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * One task attempt: each row goes through convert's {@link ImageProcessor} (the same code, not a copy) and into
 * shards in this attempt's own staging folder ({@link Staging}); rejections are collected with their reasons. The
 * shards become part of the dataset only if the driver commits the job with this attempt's {@link TaskCommit};
 * {@link #abort()} deletes the folder.
 */
final class PinshardDataWriter implements DataWriter<InternalRow> {
    /** A label that means "reject this row" (the reason is in {@link #labelProblem}). */
    private static final int REJECT = Integer.MIN_VALUE;

    private final WriteSettings settings;
    private final int partition;
    private final long taskId;
    private final int attempt;
    private final Path staging;
    private final ConvertOptions options;
    private final ImageProcessor processor;
    private final DatasetWriterOptions writerOptions;
    private final Map<String, Integer> classNumbers = new HashMap<>();
    private final List<TaskCommit.Rejection> rejected = new ArrayList<>();
    private final UnsafeBuffer payloadView = new UnsafeBuffer(0, 0);
    private DatasetWriter writer;
    private FieldValues values;
    private String labelProblem;
    private long inputs;
    private long ignored;

    PinshardDataWriter(WriteSettings settings, String queryId, int partition, long taskId, int attempt) {
        this.settings = settings;
        this.partition = partition;
        this.taskId = taskId;
        this.attempt = attempt;
        this.staging = Staging.job(settings.output, queryId).resolve(Staging.attemptFolder(partition, taskId, attempt));
        this.options = settings.convert();
        this.processor = new ImageProcessor(options);
        this.writerOptions = options.writerOptions(settings.classes).withFields(settings.fields());
        for (int i = 0; i < settings.classes.size(); i++) {
            classNumbers.putIfAbsent(settings.classes.get(i), i);
        }
    }

    @Override
    public void write(InternalRow row) throws IOException {
        int[] o = settings.ordinals;
        String key;
        ConvertedImage result;
        int label;
        switch (settings.layout) {
            case FILES, PATHS -> {
                String path = row.getUTF8String(o[0]).toString();
                key = path;
                if (settings.root != null) {
                    if (!path.startsWith(settings.root + "/")) {
                        inputs++;
                        reject(path, "not below the folder of option root (" + settings.root + ")");
                        return;
                    }
                    key = path.substring(settings.root.length() + 1);
                    if (FolderLister.ignored(key)) {
                        ignored++;
                        return;
                    }
                }
                inputs++;
                label = label(row, key);
                if (label == REJECT) {
                    reject(key, labelProblem);
                    return;
                }
                if (settings.layout == WriteSettings.Layout.PATHS) {
                    result = convertFile(path, key, label);
                } else {
                    byte[] content = row.isNullAt(o[1]) ? null : row.getBinary(o[1]);
                    result = content == null ? ConvertedImage.rejected("cannot read: no content (null)", 0)
                        : processor.convertEncoded(content, 0, content.length);
                }
            }
            case PIXELS -> {
                key = row.getUTF8String(settings.keyOrdinal).toString();
                inputs++;
                label = label(row, key);
                if (label == REJECT) {
                    reject(key, labelProblem);
                    return;
                }
                byte[] pixels = row.isNullAt(o[3]) ? null : row.getBinary(o[3]);
                result = processor.convertPixels(row.getInt(o[0]), row.getInt(o[1]), row.getInt(o[2]), pixels);
            }
            default -> {
                key = row.getUTF8String(settings.keyOrdinal).toString();
                inputs++;
                label = label(row, key);
                if (label == REJECT) {
                    reject(key, labelProblem);
                    return;
                }
                String problem = row.isNullAt(o[3]) ? null : row.getUTF8String(o[3]).toString();
                Path file = row.isNullAt(o[0]) ? null : Path.of(row.getUTF8String(o[0]).toString());
                result = processor.convert(new InputItem(key, label, file, row.getLong(o[1]), row.getLong(o[2]), problem));
            }
        }
        if (result.isRejected()) {
            reject(key, result.rejectReason());
            return;
        }
        payloadView.wrap(result.payload());
        try {
            FieldValues values = fieldValues(row);
            writer().appendPayload(result.codec(), payloadView, 0, result.payload().length, result.height(), result.width(),
                result.channels(), label, key, values);
        } catch (IllegalArgumentException e) { // a key or field value the format cannot hold; checked before writing
            reject(key, e.getMessage());
        }
    }

    /** A {@link WriteSettings.Layout#PATHS} row's file, read and converted as convert reads and converts a file. */
    private ConvertedImage convertFile(String path, String key, int label) {
        Path file;
        try {
            file = LocalFiles.of(path);
        } catch (IllegalArgumentException e) {
            return ConvertedImage.rejected("cannot read: not a path (" + e.getMessage() + ")", 0);
        }
        if (file == null) {
            return ConvertedImage.rejected("cannot read: " + path + " is not a local file (rows of path and length name"
                + " local files; give rows on another file system binaryFile's content column)", 0);
        }
        return processor.convert(InputItem.file(key, label, file));
    }

    /** {@code text} if it is one JSON value (what verify demands of a json field), else the row's rejection. */
    private static String checkedJson(String field, String text) {
        try {
            io.pinshard.format.Json.ONE_VALUE.readTree(text);
            return text;
        } catch (IOException e) {
            throw new IllegalArgumentException("field " + field + " is not one JSON value: "
                + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /** The row's field values (option fields), or null when the write stores none. */
    private FieldValues fieldValues(InternalRow row) throws IOException {
        if (settings.fieldNames.length == 0) {
            return null;
        }
        if (values == null) {
            values = writer().newFieldValues();
        }
        values.clear();
        for (int f = 0; f < settings.fieldNames.length; f++) {
            int ordinal = settings.fieldOrdinals[f];
            String name = settings.fieldNames[f];
            if (row.isNullAt(ordinal)) {
                if (settings.fieldLengths[f] > 0) {
                    throw new IllegalArgumentException("field " + name + " is null; it holds exactly "
                        + settings.fieldLengths[f] + " values");
                }
                continue;
            }
            switch (settings.fieldTypes[f]) {
                case "utf8" -> values.utf8(name, row.getUTF8String(ordinal).toString());
                case "json" -> values.json(name, checkedJson(name, row.getUTF8String(ordinal).toString()));
                case "bytes" -> values.bytes(name, row.getBinary(ordinal));
                case "int32" -> values.int32(name, row.getArray(ordinal).toIntArray());
                case "int64" -> values.int64(name, row.getArray(ordinal).toLongArray());
                default -> values.float32(name, row.getArray(ordinal).toFloatArray());
            }
        }
        return values;
    }

    private void reject(String key, String reason) {
        rejected.add(new TaskCommit.Rejection(key, reason));
    }

    /** The row's label number, or {@link #REJECT} with {@link #labelProblem} set. */
    private int label(InternalRow row, String key) {
        switch (settings.labels) {
            case FOLDER -> {
                String[] names = key.split("/", -1);
                if (names.length <= settings.labelLevel) {
                    labelProblem = settings.labelLevel == 1 ? FolderLister.NOT_IN_CLASS_FOLDER
                        : "not inside a class folder at level " + settings.labelLevel + " (option labelLevel)";
                    return REJECT;
                }
                return className(names[settings.labelLevel - 1], "folder");
            }
            case COLUMN -> {
                int ordinal = settings.labelOrdinal;
                if (row.isNullAt(ordinal)) {
                    return -1;
                }
                if (settings.labelType == WriteSettings.LabelType.NAME) {
                    return className(row.getUTF8String(ordinal).toString(), "label");
                }
                long value = settings.labelType == WriteSettings.LabelType.NUMBER ? row.getInt(ordinal) : row.getLong(ordinal);
                int classes = settings.classes.size();
                if (value < -1 || value > Integer.MAX_VALUE || classes > 0 && value >= classes) {
                    labelProblem = "label " + value + " has no class name (there are " + classes + " classes)";
                    return REJECT;
                }
                return (int) value;
            }
            default -> {
                return -1;
            }
        }
    }

    private int className(String name, String what) {
        Integer number = classNumbers.get(name);
        if (number == null) {
            labelProblem = what + " '" + name + "' is not one of the " + settings.classes.size() + " classes";
            return REJECT;
        }
        return number;
    }

    private DatasetWriter writer() throws IOException {
        if (writer == null) {
            Files.createDirectories(staging);
            writer = DatasetWriter.resume(staging, writerOptions, Staging.shardPrefix(partition), List.of(), List.of());
        }
        return writer;
    }

    @Override
    public WriterCommitMessage commit() throws IOException {
        List<TaskCommit.StagedShard> shards = new ArrayList<>();
        if (writer != null) {
            for (DatasetManifest.ShardEntry entry : writer.finishShards()) {
                shards.add(new TaskCommit.StagedShard(entry.file(), entry.records(), entry.bytes(), entry.crc32c()));
            }
        }
        return new TaskCommit(partition, taskId, attempt, staging.toString(), List.copyOf(shards), List.copyOf(rejected),
            inputs, ignored);
    }

    @Override
    public void abort() throws IOException {
        close();
        Staging.deleteTree(staging);
    }

    @Override
    public void close() throws IOException {
        if (writer != null) {
            writer.close();
        }
    }
}
