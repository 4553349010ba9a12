package io.pinshard.reader;

import io.pinshard.format.Crc32c;
import io.pinshard.format.JpegFrame;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import java.nio.ByteBuffer;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Turns a record's payload into uint8 pixels (height x width x channels) in a caller-supplied
 * off-heap buffer: raw is copied, lz4 decompressed (with the bounds-checking decompressor: payloads
 * are untrusted), jpeg decoded. One decoder per thread; raw and lz4 decoding allocate nothing.
 */
public final class RecordDecoder {
    private final boolean checkCrc;
    private final Crc32c crc = new Crc32c();
    private final LZ4SafeDecompressor lz4 = LZ4Factory.fastestInstance().safeDecompressor();
    private final UnsafeBuffer addressView = new UnsafeBuffer(0, 0);
    private ByteBuffer mappingSource;
    private ByteBuffer mappingView;
    private JpegDecoder jpeg;

    /** @param checkCrc whether every decode first checks the payload's CRC32C */
    public RecordDecoder(boolean checkCrc) {
        this.checkCrc = checkCrc;
    }

    /**
     * Decodes {@code record} into {@code destination} at {@code offset}; the destination must be
     * backed by native memory (a direct buffer, a mapping, or an address).
     *
     * @return the number of bytes written, {@link RecordView#decodedBytes()}
     * @throws ShardFormatException naming dataset, shard and record when the payload is corrupt
     */
    public int decode(RecordView record, MutableDirectBuffer destination, int offset) {
        int decoded = record.decodedBytes();
        if (destination.addressOffset() == 0 || destination.byteArray() != null) {
            throw new IllegalArgumentException("destination must be off-heap memory");
        }
        destination.boundsCheck(offset, decoded);
        return decode(record, destination.addressOffset() + offset, decoded);
    }

    /** Decodes into native memory at {@code address}, which must hold {@code capacity} bytes. */
    public int decode(RecordView record, long address, int capacity) {
        int decoded = record.decodedBytes();
        if (capacity < decoded) {
            throw new IllegalArgumentException(record + " needs " + decoded + " bytes, the destination holds " + capacity);
        }
        if (checkCrc && !record.payloadIntact(crc)) {
            throw corrupt(record, Kind.CHECKSUM_MISMATCH, "payload CRC32C does not match the index");
        }
        switch (record.codec()) {
            case RAW -> {
                addressView.wrap(address, decoded);
                addressView.putBytes(0, record.buffer(), record.payloadOffset(), decoded);
            }
            case LZ4 -> decompressLz4(record, address, decoded);
            case JPEG -> {
                checkJpegFrame(record);
                if (jpeg == null) {
                    jpeg = new JpegDecoder();
                }
                String problem = jpeg.decode(record.payloadAddress(), record.payloadLength(), record.height(),
                    record.width(), record.channels(), address);
                if (problem != null) {
                    throw corrupt(record, Kind.UNDECODABLE_PAYLOAD, problem);
                }
            }
            default -> throw new IllegalStateException("unreachable: validated codec " + record.codec());
        }
        return decoded;
    }

    /** The stream's own frame must match the index before OpenCV allocates anything from it. */
    private static void checkJpegFrame(RecordView record) {
        long frame = JpegFrame.read(record.buffer(), record.payloadOffset(), record.payloadLength());
        if (frame == JpegFrame.MALFORMED) {
            throw corrupt(record, Kind.UNDECODABLE_PAYLOAD, "jpeg payload has no frame header or does not end with EOI");
        }
        int components = JpegFrame.components(frame);
        if (JpegFrame.height(frame) != record.height() || JpegFrame.width(frame) != record.width()
            || (components != 1 && components != 3 && components != 4)) {
            throw corrupt(record, Kind.UNDECODABLE_PAYLOAD, "jpeg frame is " + JpegFrame.height(frame) + "x"
                + JpegFrame.width(frame) + " with " + components + " components, the index says "
                + record.height() + "x" + record.width() + "x" + record.channels());
        }
    }

    private void decompressLz4(RecordView record, long address, int decoded) {
        ByteBuffer source = record.buffer().byteBuffer();
        if (mappingSource != source) {
            mappingSource = source;
            mappingView = source.duplicate();
        }
        addressView.wrap(address, decoded);
        ByteBuffer target = addressView.byteBuffer();
        int written;
        try {
            if (target != null) {
                written = lz4.decompress(mappingView, record.payloadOffset(), record.payloadLength(), target, 0, decoded);
            } else {
                written = decompressThroughScratch(record, address, decoded);
            }
        } catch (LZ4Exception e) {
            throw corrupt(record, Kind.UNDECODABLE_PAYLOAD, "lz4 block is malformed: " + e.getMessage());
        }
        if (written != decoded) {
            throw corrupt(record, Kind.UNDECODABLE_PAYLOAD,
                "lz4 block decompresses to " + written + " bytes, the index says " + decoded);
        }
    }

    private ByteBuffer scratch;

    // An UnsafeBuffer wrapped around a bare address has no ByteBuffer for the LZ4 API; decompress into
    // a reusable direct scratch buffer and copy.
    private int decompressThroughScratch(RecordView record, long address, int decoded) {
        if (scratch == null || scratch.capacity() < decoded) {
            scratch = ByteBuffer.allocateDirect(Math.max(decoded, 1 << 16));
        }
        int written = lz4.decompress(mappingView, record.payloadOffset(), record.payloadLength(), scratch, 0, decoded);
        addressView.putBytes(0, scratch, 0, Math.min(written, decoded));
        return written;
    }

    private static ShardFormatException corrupt(RecordView record, Kind kind, String detail) {
        MappedShard shard = record.shard();
        return new ShardFormatException(kind, shard.dataset(), shard.name(), record.recordInShard(),
            detail + " (dataset record " + record.globalRecord() + ")", null);
    }
}
