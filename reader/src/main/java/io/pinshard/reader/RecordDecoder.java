package io.pinshard.reader;

import io.pinshard.format.Bt601;
import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.JpegFrame;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.format.Yuv420Descriptor;
import io.pinshard.jpeg.JpegDecoding;
import io.pinshard.jpeg.OpenCvJpegDecoder;
import io.pinshard.jpeg.RegionDecoder;
import io.pinshard.jpeg.TurboJpeg;
import java.nio.ByteBuffer;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The one home of record decoding, for callers ({@link #decode}) and the loader's workers alike: a record's
 * payload to uint8 pixels (height x width x channels), with the CRC32C check its {@link CrcCheck} asks for,
 * the LZ4 length checks and the JPEG frame check; yuv420 planes to RGB ({@link Bt601}).
 *
 * <p>Compressed payloads are first copied out of the mapping with a JVM-guarded copy into scratch this
 * decoder owns ({@link #readPayload}); the CRC, LZ4 (JNI) and libjpeg then read only that copy. Native code
 * reading a mapping whose file was truncated would crash the JVM with SIGBUS; a guarded copy instead faults
 * into a {@link ShardFormatException} "shard changed or truncated while mapped". Raw payloads are copied
 * with guarded copies straight to the destination. Scratch grows to the largest record decoded (each record
 * re-checked against the dataset's sizes at open, so a rewritten index cannot inflate it), or is sized up front
 * by {@link #RecordDecoder(CrcCheck, long, long)}. One decoder per thread; raw and lz4 decoding allocate nothing
 * once the scratch has its size.
 */
public final class RecordDecoder implements AutoCloseable {
    private static final int MIN_SCRATCH = 1 << 16;
    /** Bytes copied and checksummed at a time: half a core's L1 data cache, so the checksum reads what the copy just wrote. */
    private static final int CRC_CHUNK = 16 * 1024;

    private final CrcCheck crcCheck;
    private final Crc32c crc = new Crc32c();
    /**
     * Made by the first lz4 record: lz4-java's native library (extracted from its jar and loaded) is start-up time a
     * decoder of raw or jpeg records never needs.
     */
    private LZ4SafeDecompressor lz4;
    private final UnsafeBuffer addressView = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer payloadView = new UnsafeBuffer(0, 0);
    private ByteBuffer payloadMemory;
    private ByteBuffer decodedMemory;
    private JpegDecoding jpeg;
    /** A yuv420 record's rows (luma, chroma, RGB) on their way to RGB; grown to the widest record decoded. */
    private byte[] yuvLuma;
    private byte[] yuvCb;
    private byte[] yuvCr;
    private byte[] yuvRow;

    /** @param checkCrc true for {@link CrcCheck#ALWAYS}, false for {@link CrcCheck#NEVER} */
    public RecordDecoder(boolean checkCrc) {
        this(checkCrc ? CrcCheck.ALWAYS : CrcCheck.NEVER);
    }

    public RecordDecoder(CrcCheck crcCheck) {
        this(crcCheck, 0, 0);
    }

    /**
     * A decoder with scratch made up front (nothing allocated later for records within these sizes).
     *
     * @param payloadCapacity largest compressed payload to copy (see {@link Dataset#maxPayloadBytes})
     * @param decodedCapacity largest lz4 record to decompress into scratch (see {@link Dataset#maxDecodedBytes})
     */
    public RecordDecoder(CrcCheck crcCheck, long payloadCapacity, long decodedCapacity) {
        this.crcCheck = crcCheck;
        if (payloadCapacity > 0) {
            payloadMemory = allocate(payloadCapacity);
        }
        if (decodedCapacity > 0) {
            decodedMemory = allocate(decodedCapacity);
        }
    }

    public CrcCheck crcCheck() {
        return crcCheck;
    }

    /**
     * Decodes {@code record} into {@code destination} at {@code offset}; the destination must be
     * backed by native memory (a direct buffer, a mapping, or an address).
     *
     * @return the number of bytes written, {@link RecordView#decodedBytes()}
     * @throws ShardFormatException  naming dataset, shard and record when the payload is corrupt
     * @throws IllegalStateException when the record's dataset is closed
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
        try {
            decodeChecked(record, address, decoded);
        } catch (InternalError fault) { // a guarded copy's fault, reported after the copy returned (JDK 17)
            MappedShard shard = record.shard();
            throw RecordView.changedWhileMapped(shard.dataset(), shard.name(), record.recordInShard(), fault);
        }
        return decoded;
    }

    private void decodeChecked(RecordView record, long address, int decoded) {
        switch (record.codec()) {
            case RAW -> {
                record.copyPayload(0, decoded, address);
                if (crcCheck.checks(Codec.RAW)) {
                    addressView.wrap(address, decoded);
                    checkCrc(record, addressView);
                }
            }
            case LZ4 -> {
                long source = readPayload(record);
                addressView.wrap(decompressLz4(record, source), decoded);
                addressView.getBytes(0, scratchView(address, decoded), 0, decoded);
            }
            case JPEG -> {
                long source = readPayload(record);
                String problem = jpegDecoding().decodeWhole(source, record.payloadLength(), record.height(),
                    record.width(), record.channels(), address);
                if (problem != null) {
                    throw record.corrupt(Kind.UNDECODABLE_PAYLOAD, problem);
                }
            }
            case YUV420 -> decodeYuv420(record, readPayload(record), address);
            default -> throw new IllegalStateException("unreachable: validated codec " + record.codec());
        }
    }

    /** The yuv420 payload {@link #readPayload} copied to {@code source}, row by row to RGB at {@code address}. */
    private void decodeYuv420(RecordView record, long source, long address) {
        int height = record.height();
        int width = record.width();
        int rowBytes = width * Yuv420Descriptor.CHANNELS;
        if (yuvRow == null || yuvRow.length < rowBytes) {
            yuvRow = new byte[rowBytes];
            yuvLuma = new byte[width];
            yuvCb = new byte[(int) Yuv420Descriptor.chromaWidth(width)];
            yuvCr = new byte[yuvCb.length];
        }
        int chromaWidth = (int) Yuv420Descriptor.chromaWidth(width);
        int cb = (int) Yuv420Descriptor.cbOffset(height, width);
        int cr = (int) Yuv420Descriptor.crOffset(height, width);
        addressView.wrap(source, record.payloadLength());
        UnsafeBuffer out = scratchView(address, record.decodedBytes());
        for (int y = 0; y < height; y++) {
            addressView.getBytes(y * width, yuvLuma, 0, width);
            addressView.getBytes(cb + (y >> 1) * chromaWidth, yuvCb, 0, chromaWidth);
            addressView.getBytes(cr + (y >> 1) * chromaWidth, yuvCr, 0, chromaWidth);
            Bt601.decodeRow(yuvLuma, 0, yuvCb, 0, yuvCr, 0, 0, width, yuvRow, 0);
            out.putBytes(y * rowBytes, yuvRow, 0, rowBytes);
        }
    }

    /**
     * This decoder's libjpeg-turbo region decoder, or null where {@link TurboJpeg} says this JVM decodes with
     * OpenCV (then it logged why, once).
     */
    public RegionDecoder turbo() {
        return jpegDecoding().turbo();
    }

    /** This decoder's JPEG decoding: libjpeg-turbo or OpenCV, each made on first use. */
    public JpegDecoding jpegDecoding() {
        if (jpeg == null) {
            jpeg = new JpegDecoding("the reader and its loader", payloadMemory == null ? 0 : payloadMemory.capacity());
        }
        return jpeg;
    }

    private UnsafeBuffer scratchView(long address, int length) {
        payloadView.wrap(address, length);
        return payloadView;
    }

    /**
     * Copies {@code record}'s payload into this decoder's scratch with a guarded copy and checks its CRC32C
     * when {@link #crcCheck()} asks for it for the record's codec; for jpeg also checks that the stream's
     * frame matches the index (before libjpeg allocates anything from it).
     *
     * @return the native address of the copy, valid until the next call
     * @throws ShardFormatException naming the record when the payload is corrupt or the mapping faulted
     */
    public long readPayload(RecordView record) {
        try {
            return readPayloadChecked(record);
        } catch (InternalError fault) { // a guarded copy's fault, reported after the copy returned (JDK 17)
            MappedShard shard = record.shard();
            throw RecordView.changedWhileMapped(shard.dataset(), shard.name(), record.recordInShard(), fault);
        }
    }

    private long readPayloadChecked(RecordView record) {
        int length = record.payloadLength();
        payloadMemory = ensure(payloadMemory, length);
        long address = BufferUtil.address(payloadMemory);
        payloadView.wrap(payloadMemory, 0, length);
        if (crcCheck.checks(record.codec())) {
            // Checksum each chunk right after copying it, while it is still in the core's cache: a second pass
            // over a whole lz4 payload (hundreds of KB) would read it from further away.
            crc.reset();
            for (int done = 0; done < length; done += CRC_CHUNK) {
                int chunk = Math.min(CRC_CHUNK, length - done);
                record.copyPayload(done, chunk, address + done);
                crc.update(payloadView, done, chunk);
            }
            if (crc.value() != record.storedCrc()) {
                throw record.corrupt(Kind.CHECKSUM_MISMATCH, "payload CRC32C does not match the index");
            }
        } else {
            record.copyPayload(0, length, address);
        }
        if (record.codec() == Codec.JPEG) {
            checkJpegFrame(record, payloadView);
        }
        return address;
    }

    private void checkCrc(RecordView record, UnsafeBuffer payload) {
        if (crc.compute(payload, 0, record.payloadLength()) != record.storedCrc()) {
            throw record.corrupt(Kind.CHECKSUM_MISMATCH, "payload CRC32C does not match the index");
        }
    }

    /**
     * Decompresses the lz4 payload {@link #readPayload} copied to {@code source} into this decoder's scratch.
     *
     * @return the native address of the {@link RecordView#decodedBytes()} pixels, valid until the next call
     */
    public long decompressLz4(RecordView record, long source) {
        int decoded = record.decodedBytes();
        decodedMemory = ensure(decodedMemory, decoded);
        if (source != BufferUtil.address(payloadMemory)) {
            throw new IllegalArgumentException("lz4 source must be the copy readPayload made");
        }
        int written;
        try {
            if (lz4 == null) {
                lz4 = LZ4Factory.fastestInstance().safeDecompressor();
            }
            written = lz4.decompress(payloadMemory, 0, record.payloadLength(), decodedMemory, 0, decoded);
        } catch (LZ4Exception e) {
            throw record.corrupt(Kind.UNDECODABLE_PAYLOAD, "lz4 block is malformed: " + e.getMessage());
        }
        if (written != decoded) {
            throw record.corrupt(Kind.UNDECODABLE_PAYLOAD,
                "lz4 block decompresses to " + written + " bytes, the index says " + decoded);
        }
        return BufferUtil.address(decodedMemory);
    }

    /** Scratch of at least {@code bytes} for the caller's own copies (the loader's raw rows); valid until the next call. */
    public long decodeScratch(int bytes) {
        decodedMemory = ensure(decodedMemory, bytes);
        return BufferUtil.address(decodedMemory);
    }

    /** This decoder's OpenCV JPEG decoder (OpenCV loads on first use). */
    public OpenCvJpegDecoder jpeg() {
        return jpegDecoding().opencv();
    }

    /** The stream's own frame must match the index before OpenCV allocates anything from it. */
    private static void checkJpegFrame(RecordView record, UnsafeBuffer payload) {
        long frame = JpegFrame.read(payload, 0, record.payloadLength());
        if (frame == JpegFrame.MALFORMED) {
            throw record.corrupt(Kind.UNDECODABLE_PAYLOAD, "jpeg payload has no frame header or does not end with EOI");
        }
        int components = JpegFrame.components(frame);
        if (JpegFrame.height(frame) != record.height() || JpegFrame.width(frame) != record.width()
            || (components != 1 && components != 3 && components != 4)) {
            throw record.corrupt(Kind.UNDECODABLE_PAYLOAD, "jpeg frame is " + JpegFrame.height(frame) + "x"
                + JpegFrame.width(frame) + " with " + components + " components, the index says "
                + record.height() + "x" + record.width() + "x" + record.channels());
        }
    }

    private static ByteBuffer ensure(ByteBuffer memory, long bytes) {
        if (memory != null && memory.capacity() >= bytes) {
            return memory;
        }
        long grown = MIN_SCRATCH;
        if (memory != null) {
            // At least doubling: a dataset's largest sizes are known only as shards are first used, so a decoder
            // made at open may meet ever larger records; this bounds the re-allocations to a logarithmic few.
            grown = 2L * memory.capacity();
            BufferUtil.free(memory);
        }
        return allocate(Math.max(bytes, grown));
    }

    private static ByteBuffer allocate(long bytes) {
        return ByteBuffer.allocateDirect(BitUtil.align((int) Math.min(bytes, Integer.MAX_VALUE - 64), 64));
    }

    /** Frees the scratch and the JPEG decoder. */
    @Override
    public void close() {
        if (jpeg != null) {
            jpeg.close();
            jpeg = null;
        }
        if (payloadMemory != null) {
            BufferUtil.free(payloadMemory);
            payloadMemory = null;
        }
        if (decodedMemory != null) {
            BufferUtil.free(decodedMemory);
            decodedMemory = null;
        }
    }
}
