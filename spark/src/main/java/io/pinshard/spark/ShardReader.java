package io.pinshard.spark;

import io.pinshard.format.DatasetFiles;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import io.pinshard.reader.CrcCheck;
import io.pinshard.reader.MappedShard;
import io.pinshard.reader.RecordDecoder;
import io.pinshard.reader.RecordLimits;
import io.pinshard.reader.RecordView;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Reads one shard with the project's reader: the same file checks as {@link io.pinshard.reader.Dataset#open} for this
 * shard (a regular file of the manifest's size, its header number, its record count, every index entry against the
 * format's and the dataset's limits, the index checksum), each label against the class list, and, when payloads are
 * asked for, {@link RecordDecoder} (CRC32C, lz4, libjpeg-turbo) exactly as the loader decodes them.
 */
final class ShardReader implements PartitionReader<InternalRow> {
    private final ReadSettings settings;
    private final PinshardScan.ShardPartition partition;
    private final List<String> classes;
    private final MappedShard shard;
    private final RecordDecoder decoder;
    private final UTF8String shardName;
    private final UnsafeBuffer copyView = new UnsafeBuffer(0, 0);
    private RecordView view = new RecordView();
    private ByteBuffer pixels;
    private long record = -1;

    ShardReader(ReadSettings settings, PinshardScan.ShardPartition partition) {
        this.settings = settings;
        this.partition = partition;
        Path directory = Path.of(settings.path());
        DatasetManifest manifest = Json.readManifest(directory);
        this.classes = manifest.classes();
        DatasetFiles files = DatasetFiles.of(directory, manifest);
        int position = partition.position();
        if (position >= manifest.shards().size() || !manifest.shards().get(position).file().equals(partition.file())) {
            throw new IllegalStateException("pinshard: the manifest of " + directory + " changed after the scan was planned");
        }
        MappedShard opened = MappedShard.open(files.checkShard(position), directory.toString(), true, RecordLimits.of(manifest));
        try {
            long listed = manifest.shards().get(position).records();
            if (opened.recordCount() != listed) {
                throw new ShardFormatException(ShardFormatException.Kind.MANIFEST_MISMATCH, directory.toString(), opened.name(),
                    -1, "shard holds " + opened.recordCount() + " records, the manifest says " + listed, null);
            }
            files.checkOpened(position, opened.structure());
        } catch (RuntimeException e) {
            opened.close();
            throw e;
        }
        if (!settings.fieldNames().isEmpty()) {
            opened.fields(manifest.fieldSchema()); // the section checked against the manifest's schema, once per shard
        }
        this.shard = opened;
        this.shardName = UTF8String.fromString(opened.name());
        this.decoder = settings.payload() == ReadSettings.Payload.NONE ? null
            : new RecordDecoder(settings.checkCrc() ? CrcCheck.ALWAYS : CrcCheck.NEVER);
    }

    @Override
    public boolean next() {
        if (record + 1 >= shard.recordCount()) {
            return false;
        }
        record++;
        view = shard.record(record, partition.firstRecord() + record, view);
        try {
            IndexEntryDescriptor.checkLabel(view.label(), classes.size());
        } catch (ShardFormatException e) {
            throw view.corrupt(e.kind(), e.detail());
        }
        return true;
    }

    @Override
    public InternalRow get() {
        int label = view.label();
        int fixed = settings.fixedColumns();
        Object[] values = new Object[fixed + settings.fieldNames().size()];
        values[0] = UTF8String.fromString(view.key());
        values[1] = label;
        values[2] = label >= 0 && label < classes.size() ? UTF8String.fromString(classes.get(label)) : null;
        values[3] = view.height();
        values[4] = view.width();
        values[5] = view.channels();
        values[6] = UTF8String.fromString(view.codec().label());
        values[7] = view.payloadLength();
        values[8] = shardName;
        values[9] = view.recordInShard();
        values[10] = view.globalRecord();
        switch (settings.payload()) {
            case STORED -> values[11] = copy(decoder.readPayload(view), view.payloadLength());
            case PIXELS -> {
                int bytes = view.decodedBytes();
                if (pixels == null || pixels.capacity() < bytes) {
                    pixels = BufferUtil.allocateDirectAligned(Math.max(bytes, 1 << 16), 64);
                }
                decoder.decode(view, BufferUtil.address(pixels), pixels.capacity());
                values[11] = copy(BufferUtil.address(pixels), bytes);
            }
            default -> {
            }
        }
        for (int f = 0; f < settings.fieldNames().size(); f++) {
            values[fixed + f] = fieldValue(f);
        }
        return new GenericInternalRow(values);
    }

    /** This record's value of field {@code f} as its column's Spark value. */
    private Object fieldValue(int f) {
        int elements = view.fieldElements(f);
        switch (settings.fieldTypes().get(f)) {
            case "utf8", "json" -> {
                return UTF8String.fromBytes(fieldBytes(f));
            }
            case "bytes" -> {
                return fieldBytes(f);
            }
            case "int32" -> {
                int[] ints = new int[elements];
                for (int k = 0; k < elements; k++) {
                    ints[k] = view.fieldInt(f, k);
                }
                return UnsafeArrayData.fromPrimitiveArray(ints);
            }
            case "int64" -> {
                long[] longs = new long[elements];
                for (int k = 0; k < elements; k++) {
                    longs[k] = view.fieldLong(f, k);
                }
                return UnsafeArrayData.fromPrimitiveArray(longs);
            }
            default -> {
                float[] floats = new float[elements];
                for (int k = 0; k < elements; k++) {
                    floats[k] = view.fieldFloat(f, k);
                }
                return UnsafeArrayData.fromPrimitiveArray(floats);
            }
        }
    }

    private byte[] fieldBytes(int f) {
        byte[] bytes = new byte[view.fieldLength(f)];
        view.copyField(f, new UnsafeBuffer(bytes), 0);
        return bytes;
    }

    private byte[] copy(long address, int length) {
        byte[] bytes = new byte[length];
        copyView.wrap(address, length);
        copyView.getBytes(0, bytes);
        return bytes;
    }

    @Override
    public void close() {
        if (decoder != null) {
            decoder.close();
        }
        shard.close();
    }
}
