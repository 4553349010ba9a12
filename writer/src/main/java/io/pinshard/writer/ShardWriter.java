package io.pinshard.writer;

import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.IndexEntryEncoder;
import io.pinshard.format.IndexEntryFlyweight;
import io.pinshard.format.ShardFooterDescriptor;
import io.pinshard.format.ShardFooterFlyweight;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardHeaderDescriptor;
import io.pinshard.format.ShardHeaderFlyweight;
import io.pinshard.format.ShardLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes one shard: payloads are streamed to {@code <name>.tmp} as they arrive, index, key table,
 * metadata and footer are written by {@link #finish()}, which then fsyncs and renames the file to its
 * final name. Until then no file with a shard's name exists, and the temporary file has no footer,
 * so a crash never leaves anything a reader would take for a shard. {@link #close()} without
 * {@link #finish()} deletes the temporary file.
 */
public final class ShardWriter implements AutoCloseable {
    private static final int STAGING_BYTES = 1 << 20;

    private final Path target;
    private final Path temporary;
    private final int alignment;
    private final byte[] metadata;
    private final FileChannel channel;
    private final ByteBuffer staging = BufferUtil.allocateDirectAligned(STAGING_BYTES, 64);
    private final UnsafeBuffer stagingView = new UnsafeBuffer(staging);
    private final ExpandableDirectByteBuffer index = new ExpandableDirectByteBuffer(64 * IndexEntryDescriptor.LENGTH);
    private final ExpandableDirectByteBuffer keys = new ExpandableDirectByteBuffer(4096);
    private final Crc32c fileCrc = new Crc32c();
    private final Crc32c work = new Crc32c();
    private final IndexEntryEncoder entryEncoder = new IndexEntryEncoder();
    private final IndexEntryFlyweight entryCheck = new IndexEntryFlyweight();
    private long position;
    private long records;
    private long keyBytes;
    private boolean finished;
    private boolean closed;

    /**
     * Starts a shard that will be published at {@code target}.
     *
     * @param metadataJson the metadata section (UTF-8 JSON), identical for every record of the shard
     */
    public ShardWriter(Path target, int shardNumber, int alignment, byte[] metadataJson) throws IOException {
        if (!ShardLayout.isValidAlignment(alignment)) {
            throw new IllegalArgumentException("alignment must be a power of two between "
                + ShardHeaderDescriptor.MIN_ALIGNMENT + " and " + ShardHeaderDescriptor.MAX_ALIGNMENT + ": " + alignment);
        }
        this.target = target;
        this.temporary = target.resolveSibling(target.getFileName() + ".tmp");
        this.alignment = alignment;
        this.metadata = metadataJson.clone();
        this.channel = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE);
        fileCrc.reset();
        ShardHeaderFlyweight.write(stagingView, 0, alignment, shardNumber, work);
        staging.position(ShardHeaderDescriptor.LENGTH);
        position = ShardHeaderDescriptor.LENGTH;
    }

    /** Size the finished shard would have if one more record with this payload and key were appended. */
    public long projectedLength(long payloadLength, int keyLength) {
        long end = BitUtil.align(Math.max(position, ShardLayout.recordsStart(alignment)), alignment) + payloadLength;
        return finishedLength(end, records + 1, keyBytes + keyLength);
    }

    /** Size the shard would have if finished now. */
    public long length() {
        return finishedLength(position, records, keyBytes);
    }

    private long finishedLength(long recordsEnd, long count, long keyTableLength) {
        long keyTable = ShardLayout.keyTableOffset(ShardLayout.indexOffset(recordsEnd), count);
        return ShardLayout.footerOffset(ShardLayout.metadataOffset(keyTable, keyTableLength), metadata.length)
            + ShardFooterDescriptor.LENGTH;
    }

    public long records() {
        return records;
    }

    public Path target() {
        return target;
    }

    /**
     * Appends one record whose payload is already in its stored form (raw pixels, an LZ4 block of
     * them, or JPEG bytes). The entry is checked by the same rules the reader applies, so a record
     * the reader would refuse is refused here.
     *
     * @return the record's number within this shard
     */
    public long append(Codec codec, DirectBuffer payload, int offset, int length, int height, int width,
                       int channels, int label, String key) throws IOException {
        return append(codec, payload, offset, length, height, width, channels, label, key.getBytes(StandardCharsets.UTF_8));
    }

    /** As {@link #append(Codec, DirectBuffer, int, int, int, int, int, int, String)} with the key in UTF-8. */
    public long append(Codec codec, DirectBuffer payload, int offset, int length, int height, int width,
                       int channels, int label, byte[] keyUtf8) throws IOException {
        ensureOpen();
        if (keyUtf8.length > IndexEntryDescriptor.MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("key is longer than " + IndexEntryDescriptor.MAX_KEY_LENGTH + " bytes: " + keyText(keyUtf8));
        }
        long projected = projectedLength(length, keyUtf8.length);
        if (projected > ShardLayout.MAX_SHARD_BYTES) {
            throw new IllegalArgumentException("record " + keyText(keyUtf8) + " would grow shard " + target.getFileName() + " to "
                + projected + " bytes, past the format's limit of " + ShardLayout.MAX_SHARD_BYTES);
        }
        long payloadOffset = BitUtil.align(Math.max(position, ShardLayout.recordsStart(alignment)), alignment);
        int entry = (int) (records * IndexEntryDescriptor.LENGTH);
        index.checkLimit(entry + IndexEntryDescriptor.LENGTH);
        entryEncoder.wrap(index, entry).clear().payload(payloadOffset, length, work.compute(payload, offset, length))
            .shape(height, width, channels).codec(codec).label(label).key(keyBytes, keyUtf8.length);
        try {
            IndexEntryDescriptor.checkEntry(entryCheck.wrap(index, entry), payloadOffset, payloadOffset + length,
                alignment, payloadOffset, keyBytes + keyUtf8.length);
        } catch (ShardFormatException e) {
            throw new IllegalArgumentException("record " + keyText(keyUtf8) + " cannot be stored: " + e.detail(), e);
        }
        writeZeros(payloadOffset - position);
        writeBytes(payload, offset, length);
        keys.putBytes((int) keyBytes, keyUtf8);
        keyBytes += keyUtf8.length;
        return records++;
    }

    /** Writes index, key table, metadata and footer, fsyncs and renames the shard into place. */
    public ShardSummary finish() throws IOException {
        ensureOpen();
        long indexOffset = ShardLayout.indexOffset(position);
        writeZeros(indexOffset - position);
        int indexLength = (int) (records * IndexEntryDescriptor.LENGTH);
        writeBytes(index, 0, indexLength);
        writeBytes(keys, 0, (int) keyBytes);
        UnsafeBuffer metadataView = new UnsafeBuffer(metadata);
        writeBytes(metadataView, 0, metadata.length);
        writeZeros(ShardLayout.footerOffset(position, 0) - position);
        long fileLength = position + ShardFooterDescriptor.LENGTH;
        UnsafeBuffer footer = new UnsafeBuffer(new byte[ShardFooterDescriptor.LENGTH]);
        ShardFooterFlyweight.write(footer, 0, records, indexOffset, keyBytes, metadata.length, fileLength,
            work.compute(index, 0, indexLength), work.compute(keys, 0, (int) keyBytes),
            work.compute(metadataView, 0, metadata.length), work);
        writeBytes(footer, 0, ShardFooterDescriptor.LENGTH);
        flush();
        channel.force(true);
        channel.close();
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Durability.syncDirectory(target.toAbsolutePath().getParent());
        finished = true;
        closed = true;
        return new ShardSummary(target, records, fileLength, fileCrc.value());
    }

    /** Abandons an unfinished shard: closes and deletes the temporary file. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            channel.close();
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    // Keys are only decoded for error messages, not on every append.
    private static String keyText(byte[] keyUtf8) {
        return new String(keyUtf8, StandardCharsets.UTF_8);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("shard writer for " + target + " is " + (finished ? "finished" : "closed"));
        }
    }

    private void writeZeros(long count) throws IOException {
        while (count > 0) {
            if (!staging.hasRemaining()) {
                flush();
            }
            int n = (int) Math.min(count, staging.remaining());
            stagingView.setMemory(staging.position(), n, (byte) 0);
            staging.position(staging.position() + n);
            position += n;
            count -= n;
        }
    }

    private void writeBytes(DirectBuffer source, int offset, int length) throws IOException {
        while (length > 0) {
            if (!staging.hasRemaining()) {
                flush();
            }
            int n = Math.min(length, staging.remaining());
            stagingView.putBytes(staging.position(), source, offset, n);
            staging.position(staging.position() + n);
            position += n;
            offset += n;
            length -= n;
        }
    }

    private void flush() throws IOException {
        staging.flip();
        fileCrc.update(staging.duplicate());
        while (staging.hasRemaining()) {
            channel.write(staging);
        }
        staging.clear();
    }
}
