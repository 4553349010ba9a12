package io.pinshard.writer;

import io.pinshard.format.Bt601;
import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.FieldsSectionPlacement;
import io.pinshard.format.Json;
import io.pinshard.format.ShardLayout;
import io.pinshard.format.Yuv420Descriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes a dataset directory: records go into shards named {@code shard-NNNNN.pinshard}, a new shard
 * starts when the next record would take the current one past the target size (records are never
 * split), and {@link #finish()} writes {@code manifest.json} last and atomically. A directory
 * without a manifest is not a dataset, so an interrupted write is never mistaken for a finished one.
 * {@link #close()} without {@link #finish()} removes the unfinished shard's temporary file.
 *
 * <p>With {@link DatasetWriterOptions#fields()} each record carries its field values ({@link #newFieldValues()},
 * passed to the {@code append} methods); the dataset is then format 1.1 (SPEC.md section 17). Without, it is
 * format 1.0, byte for byte as before fields existed.
 */
public final class DatasetWriter implements AutoCloseable {
    private final Path directory;
    private final DatasetWriterOptions options;
    private final byte[] shardMetadata;
    private final List<DatasetManifest.ShardEntry> shards = new ArrayList<>();
    private final List<DatasetManifest.Rejected> rejected = new ArrayList<>();
    private final LZ4Compressor lz4 = LZ4Factory.fastestInstance().fastCompressor();
    private ByteBuffer compressScratch = BufferUtil.allocateDirectAligned(64 * 1024, 64);
    private final UnsafeBuffer compressView = new UnsafeBuffer(compressScratch);
    private final String shardNamePrefix;
    private Consumer<DatasetManifest.ShardEntry> shardListener = entry -> { };
    private ShardWriter current;
    private long records;
    private long bytes;
    private boolean finished;

    public DatasetWriter(Path directory, DatasetWriterOptions options) throws IOException {
        this(directory, options, "", List.of(), List.of());
    }

    /**
     * A writer that continues a dataset whose first shards are already finished (a resumed run): the
     * next shard is numbered {@code finishedShards.size()}, and manifest totals include the finished
     * shards and the inputs already rejected. The caller has checked that the listed shard files are intact.
     *
     * @param shardNamePrefix prepended to every shard file name ("" for the standard names), e.g. a part id
     */
    public static DatasetWriter resume(Path directory, DatasetWriterOptions options, String shardNamePrefix,
                                       List<DatasetManifest.ShardEntry> finishedShards,
                                       List<DatasetManifest.Rejected> alreadyRejected) throws IOException {
        return new DatasetWriter(directory, options, shardNamePrefix, finishedShards, alreadyRejected);
    }

    private DatasetWriter(Path directory, DatasetWriterOptions options, String shardNamePrefix,
                          List<DatasetManifest.ShardEntry> finishedShards,
                          List<DatasetManifest.Rejected> alreadyRejected) throws IOException {
        if (shardNamePrefix.contains("/") || shardNamePrefix.contains("\\")) {
            throw new IllegalArgumentException("shard name prefix must be a plain name: " + shardNamePrefix);
        }
        this.directory = directory;
        this.options = options;
        this.shardNamePrefix = shardNamePrefix;
        for (DatasetManifest.ShardEntry entry : finishedShards) {
            shards.add(entry);
            records += entry.records();
            bytes += entry.bytes();
        }
        rejected.addAll(alreadyRejected);
        Files.createDirectories(directory);
        if (Files.exists(directory.resolve(DatasetManifest.FILE_NAME))) {
            throw new IOException(directory + " already holds a dataset (" + DatasetManifest.FILE_NAME + " exists)");
        }
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("classes", options.classes());
        if (!options.fields().isEmpty()) {
            metadata.put(FieldsSectionPlacement.FIELDS_KEY, options.fields());
        }
        metadata.put("preprocessing", options.preprocessing());
        metadata.put("writer", options.writerVersion());
        this.shardMetadata = Json.compact(metadata);
    }

    public static String shardFileName(int shardNumber) {
        return String.format("shard-%05d.pinshard", shardNumber);
    }

    /** Called after each shard is finished and renamed into place, before the next one starts. */
    public void onShardFinished(Consumer<DatasetManifest.ShardEntry> listener) {
        this.shardListener = listener;
    }

    /** Shards finished so far, in order. */
    public List<DatasetManifest.ShardEntry> finishedShards() {
        return List.copyOf(shards);
    }

    /** How many inputs were rejected so far. */
    public int rejectedCount() {
        return rejected.size();
    }

    /** The inputs rejected after the first {@code from}, in order: what a journal has not yet recorded. */
    public List<DatasetManifest.Rejected> rejectedSince(int from) {
        return List.copyOf(rejected.subList(from, rejected.size()));
    }

    /** A reusable encoder of one record's field values for this dataset's schema (one per writing thread). */
    public FieldValues newFieldValues() {
        return new FieldValues(options.fields());
    }

    /**
     * Appends uint8 pixels (height x width x channels, row-major) stored as {@code storeAs}, which
     * must be {@link Codec#RAW}, {@link Codec#LZ4} or {@link Codec#YUV420} (RGB only); LZ4 compression and the
     * conversion to YUV 4:2:0 ({@link Bt601}) happen here.
     */
    public void appendPixels(DirectBuffer pixels, int offset, int height, int width, int channels, int label,
                             String key, Codec storeAs) throws IOException {
        appendPixels(pixels, offset, height, width, channels, label, key, storeAs, null);
    }

    /**
     * As {@link #appendPixels(DirectBuffer, int, int, int, int, int, String, Codec)} with the record's field values
     * (null: every field empty, which only variable-length fields may be).
     */
    public void appendPixels(DirectBuffer pixels, int offset, int height, int width, int channels, int label,
                             String key, Codec storeAs, FieldValues fields) throws IOException {
        long decoded = ShardLayout.decodedBytes(height, width, channels);
        if (decoded > Integer.MAX_VALUE || decoded <= 0) {
            throw new IllegalArgumentException("image " + key + " has an invalid size " + height + "x" + width + "x" + channels);
        }
        int length = (int) decoded;
        switch (storeAs) {
            case RAW -> appendPayload(Codec.RAW, pixels, offset, length, height, width, channels, label, key, fields);
            case LZ4 -> {
                int compressed = compressLz4(pixels, offset, length);
                appendPayload(Codec.LZ4, compressView, 0, compressed, height, width, channels, label, key, fields);
            }
            case YUV420 -> {
                byte[] planes = toYuv420(pixels, offset, length, height, width, channels, key);
                appendPayload(Codec.YUV420, new UnsafeBuffer(planes), 0, planes.length, height, width, channels, label,
                    key, fields);
            }
            default -> throw new IllegalArgumentException("appendPixels stores raw, lz4 or yuv420, not " + storeAs
                + "; encode JPEG bytes first and use appendPayload");
        }
    }

    /** Appends a payload already in its stored form (raw, an LZ4 block, or JPEG bytes). */
    public void appendPayload(Codec codec, DirectBuffer payload, int offset, int length, int height, int width,
                              int channels, int label, String key) throws IOException {
        appendPayload(codec, payload, offset, length, height, width, channels, label, key, null);
    }

    /** As {@link #appendPayload(Codec, DirectBuffer, int, int, int, int, int, int, String)} with field values. */
    public void appendPayload(Codec codec, DirectBuffer payload, int offset, int length, int height, int width,
                              int channels, int label, String key, FieldValues fields) throws IOException {
        if (finished) {
            throw new IllegalStateException("dataset " + directory + " is finished");
        }
        if (label >= options.classes().size() && !options.classes().isEmpty()) {
            throw new IllegalArgumentException("label " + label + " of " + key + " has no class name (there are "
                + options.classes().size() + ")");
        }
        byte[] keyUtf8 = key.getBytes(StandardCharsets.UTF_8);
        if (current != null && current.records() > 0
            && current.projectedLength(length, keyUtf8.length, fields) > options.targetShardBytes()) {
            finishShard();
        }
        if (current == null) {
            current = new ShardWriter(directory.resolve(shardNamePrefix + shardFileName(shards.size())), shards.size(),
                options.alignment(), shardMetadata, options.fields());
        }
        current.append(codec, payload, offset, length, height, width, channels, label, keyUtf8, fields);
        records++;
    }

    /** Records an input that was not converted; it is listed in the manifest's {@code rejected} array. */
    public void reject(String path, String reason) {
        rejected.add(new DatasetManifest.Rejected(path, reason));
    }

    public long records() {
        return records;
    }

    /** Finishes the last shard and writes the manifest atomically. */
    public DatasetManifest finish() throws IOException {
        DatasetManifest manifest = writeManifest(directory, options, finishShards(), List.copyOf(rejected));
        finished = true;
        return manifest;
    }

    /**
     * Finishes the last shard and returns every shard finished, writing no manifest: for a writer whose shards
     * become part of a dataset that something else publishes (a Spark task's; the job writes the manifest).
     */
    public List<DatasetManifest.ShardEntry> finishShards() throws IOException {
        if (current != null) {
            finishShard();
        }
        return List.copyOf(shards);
    }

    /**
     * Writes {@code directory}'s manifest, last and atomically (a directory without one is not a dataset): the
     * totals of {@code shards} in their order, {@code options}' classes, preprocessing, writer and extra metadata.
     */
    public static DatasetManifest writeManifest(Path directory, DatasetWriterOptions options,
                                                List<DatasetManifest.ShardEntry> shards,
                                                List<DatasetManifest.Rejected> rejected) throws IOException {
        long records = 0;
        long bytes = 0;
        for (DatasetManifest.ShardEntry shard : shards) {
            records += shard.records();
            bytes += shard.bytes();
        }
        Map<String, Object> metadata = new LinkedHashMap<>(options.manifestMetadata());
        metadata.put("preprocessing", options.preprocessing());
        metadata.put("writer", options.writerVersion());
        DatasetManifest manifest = new DatasetManifest(DatasetManifest.FORMAT,
            DatasetManifest.formatVersionFor(options.fields()), records, bytes, options.classes(),
            options.fields().isEmpty() ? null : options.fields(), List.copyOf(shards), metadata, List.copyOf(rejected));
        Durability.writeAtomically(directory.resolve(DatasetManifest.FILE_NAME), Json.pretty(manifest));
        return manifest;
    }

    @Override
    public void close() throws IOException {
        if (current != null) {
            current.close();
            current = null;
        }
    }

    private void finishShard() throws IOException {
        ShardSummary summary = current.finish();
        current = null;
        DatasetManifest.ShardEntry entry = new DatasetManifest.ShardEntry(summary.file().getFileName().toString(),
            summary.records(), summary.bytes(), Crc32c.hex(summary.crc32c()));
        shards.add(entry);
        bytes += summary.bytes();
        shardListener.accept(entry);
    }

    /** The RGB image's yuv420 payload ({@link Bt601#encode}). */
    private static byte[] toYuv420(DirectBuffer pixels, int offset, int length, int height, int width, int channels,
                                   String key) {
        if (channels != Yuv420Descriptor.CHANNELS) {
            throw new IllegalArgumentException("yuv420 stores RGB images; " + key + " has " + channels + " channels");
        }
        byte[] rgb = new byte[length];
        pixels.getBytes(offset, rgb);
        byte[] planes = new byte[(int) Yuv420Descriptor.payloadLength(height, width)];
        Bt601.encode(rgb, 0, height, width, planes, 0);
        return planes;
    }

    private int compressLz4(DirectBuffer pixels, int offset, int length) {
        int bound = lz4.maxCompressedLength(length);
        if (compressScratch.capacity() < bound) {
            compressScratch = BufferUtil.allocateDirectAligned(Integer.highestOneBit(bound) << 1, 64);
            compressView.wrap(compressScratch);
        }
        ByteBuffer source = pixels.byteBuffer();
        if (source != null && source.isDirect()) {
            return lz4.compress(source, pixels.wrapAdjustment() + offset, length, compressScratch, 0, bound);
        }
        byte[] array = pixels.byteArray();
        if (array != null) {
            return lz4.compress(ByteBuffer.wrap(array), pixels.wrapAdjustment() + offset, length, compressScratch, 0, bound);
        }
        byte[] copy = new byte[length];
        pixels.getBytes(offset, copy);
        return lz4.compress(ByteBuffer.wrap(copy), 0, length, compressScratch, 0, bound);
    }
}
