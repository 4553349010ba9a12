package io.pinshard.reader.loader;

import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.reader.MappedShard;
import io.pinshard.reader.RecordView;
import java.nio.ByteBuffer;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One worker's per-sample work: check, decode and crop one record into its place in a batch slot.
 * Raw payloads are cropped straight from the mapping (no copy); lz4 is decompressed into worker
 * scratch; jpeg is decoded at reduced DCT scale when the crop box allows. All scratch is made once.
 */
final class SampleProcessor implements AutoCloseable {
    private final LoaderOptions options;
    private final Crc32c crc = new Crc32c();
    private final LZ4SafeDecompressor lz4 = LZ4Factory.fastestInstance().safeDecompressor();
    private final CropBox box = new CropBox();
    private final SplitMix random = new SplitMix();
    private final CropResizer resizer;
    private final ByteBuffer scratchMemory;
    private final UnsafeBuffer scratch;
    private JpegCropDecoder jpeg;

    /** @param maxDecodedBytes the largest decoded record of the dataset (lz4 scratch size) */
    SampleProcessor(LoaderOptions options, int maxDecodedBytes, boolean needsScratch) {
        this.options = options;
        this.resizer = new CropResizer(options.crop(), options.resampler());
        this.scratchMemory = needsScratch ? ByteBuffer.allocateDirect(Math.max(64, align(maxDecodedBytes)))
            : null;
        this.scratch = needsScratch ? new UnsafeBuffer(scratchMemory) : null;
    }

    private static int align(int bytes) {
        return (bytes + 63) & ~63;
    }

    /** The crop box and flip this record gets for {@code sampleSeed}; the box is in stored-image pixels. */
    CropBox boxFor(RecordView record, long sampleSeed) {
        if (options.mode() == LoaderMode.TRAIN) {
            return box.randomResized(record.height(), record.width(), options, random.seed(sampleSeed));
        }
        return box.centre(record.height(), record.width(), options.evalCropFraction());
    }

    /**
     * Writes {@code crop x crop x 3} pixels of {@code record} to {@code destination}.
     *
     * @return payload bytes read
     * @throws ShardFormatException naming the record when it is corrupt
     */
    int process(RecordView record, long sampleSeed, long destination) {
        if (options.checkCrc() && !record.payloadIntact(crc)) {
            throw corrupt(record, Kind.CHECKSUM_MISMATCH, "payload CRC32C does not match the index");
        }
        CropBox crop = boxFor(record, sampleSeed);
        int channels = record.channels();
        long step = (long) record.width() * channels;
        Codec codec = record.codec();
        switch (codec) {
            case RAW -> resizer.resizeInto(record.payloadAddress(), step, channels, crop, destination);
            case LZ4 -> {
                decompressLz4(record);
                resizer.resizeInto(scratch.addressOffset(), step, channels, crop, destination);
            }
            case JPEG -> decodeJpegInto(record, crop, destination);
            default -> throw new IllegalStateException("unreachable: validated codec " + codec);
        }
        return record.payloadLength();
    }

    /** Whole-record LZ4 block into scratch, with the offset-taking API so the shared mapping is never duplicated. */
    private void decompressLz4(RecordView record) {
        ByteBuffer mapping = record.buffer().byteBuffer();
        int offset = record.buffer().wrapAdjustment() + record.payloadOffset();
        int decoded = record.decodedBytes();
        int written;
        try {
            written = lz4.decompress(mapping, offset, record.payloadLength(), scratchMemory, 0, decoded);
        } catch (LZ4Exception e) {
            throw corrupt(record, Kind.UNDECODABLE_PAYLOAD, "lz4 block is malformed: " + e.getMessage());
        }
        if (written != decoded) {
            throw corrupt(record, Kind.UNDECODABLE_PAYLOAD,
                "lz4 block decompresses to " + written + " bytes, the index says " + decoded);
        }
    }

    private void decodeJpegInto(RecordView record, CropBox crop, long destination) {
        if (jpeg == null) {
            jpeg = new JpegCropDecoder();
        }
        int factor = JpegCropDecoder.reduction(crop, options.crop(), options.reducedJpegDecode());
        String problem = jpeg.decode(record.payloadAddress(), record.payloadLength(), record.height(), record.width(),
            factor);
        if (problem != null) {
            throw corrupt(record, Kind.UNDECODABLE_PAYLOAD, problem);
        }
        if (factor > 1) {
            scaleBox(crop, record.height(), record.width(), jpeg.rows(), jpeg.cols());
        }
        resizer.resizeInto(jpeg.dataAddress(), jpeg.step(), 3, crop, destination);
    }

    /** Maps a box from full-size pixels to those of a reduced decode, rounding both edges to the nearest pixel. */
    static void scaleBox(CropBox crop, int height, int width, int rows, int cols) {
        int left = (int) Math.round((double) crop.x * cols / width);
        int right = (int) Math.round((double) (crop.x + crop.width) * cols / width);
        int top = (int) Math.round((double) crop.y * rows / height);
        int bottom = (int) Math.round((double) (crop.y + crop.height) * rows / height);
        crop.x = Math.min(left, cols - 1);
        crop.y = Math.min(top, rows - 1);
        crop.width = Math.max(1, Math.min(right, cols) - crop.x);
        crop.height = Math.max(1, Math.min(bottom, rows) - crop.y);
    }

    static ShardFormatException corrupt(RecordView record, Kind kind, String detail) {
        MappedShard shard = record.shard();
        return new ShardFormatException(kind, shard.dataset(), shard.name(), record.recordInShard(),
            detail + " (dataset record " + record.globalRecord() + ")", null);
    }

    @Override
    public void close() {
        resizer.close();
        if (jpeg != null) {
            jpeg.close();
            jpeg = null;
        }
        if (scratchMemory != null) {
            BufferUtil.free(scratchMemory);
        }
    }
}
