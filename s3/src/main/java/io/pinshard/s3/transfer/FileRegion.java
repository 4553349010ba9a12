package io.pinshard.s3.transfer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.zip.CRC32C;

/**
 * {@code length} bytes of a file from {@code offset}: what one PUT or one part of a multipart upload sends. Each
 * {@link #open} is a fresh stream from the start of the region, so the SDK can replay a body on retry.
 */
record FileRegion(Path file, long offset, long length) {
    private static final int CHUNK = 1 << 16;

    /** A new stream over the region, reading with positional reads (no shared channel position). */
    InputStream open() {
        try {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
            return new RegionStream(channel, offset, length);
        } catch (IOException e) {
            throw new TransferException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads the region once, feeding {@code crc} (a running whole-file CRC32C, may be null) and returning the
     * region's MD5: the Content-MD5 the store checks the received bytes against, and a part ETag on AWS.
     */
    byte[] digest(CRC32C crc) {
        MessageDigest md5 = md5();
        ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long at = offset;
            long end = offset + length;
            while (at < end) {
                chunk.clear().limit((int) Math.min(CHUNK, end - at));
                int n = channel.read(chunk, at);
                if (n < 0) {
                    throw new TransferException(file + " ended at " + at + " bytes while reading it: it changed under us");
                }
                chunk.flip();
                md5.update(chunk.array(), 0, n);
                if (crc != null) {
                    crc.update(chunk.array(), 0, n);
                }
                at += n;
            }
        } catch (IOException e) {
            throw new TransferException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return md5.digest();
    }

    static String base64(byte[] digest) {
        return Base64.getEncoder().encodeToString(digest);
    }

    static String hex(byte[] digest) {
        return HexFormat.of().formatHex(digest);
    }

    static MessageDigest md5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has MD5", e);
        }
    }

    private static final class RegionStream extends InputStream {
        private final FileChannel channel;
        private final long end;
        private long at;

        RegionStream(FileChannel channel, long offset, long length) {
            this.channel = channel;
            this.at = offset;
            this.end = offset + length;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (at >= end) {
                return -1;
            }
            int n = channel.read(ByteBuffer.wrap(b, off, (int) Math.min(len, end - at)), at);
            if (n < 0) {
                throw new IOException("file ended at " + at + " bytes, before the " + end + " being uploaded");
            }
            at += n;
            return n;
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
