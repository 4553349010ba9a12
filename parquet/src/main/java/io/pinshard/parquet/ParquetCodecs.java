package io.pinshard.parquet;

import io.airlift.compress.Decompressor;
import io.airlift.compress.snappy.SnappyDecompressor;
import io.airlift.compress.zstd.ZstdDecompressor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Page decompression without Hadoop: parquet-java's own codec factory builds a Hadoop {@code Configuration}
 * (and with it Hadoop's XML parser) for every compressed column, so pages are decompressed here with pure Java
 * decoders instead: snappy and zstd (aircompressor, which parquet-java brings), gzip (the JDK). Those are what
 * pyarrow and the Hugging Face datasets library write; other codecs are refused by name. A page's declared
 * uncompressed size is untrusted: above {@link #MAX_PAGE_BYTES} it is refused before anything is allocated.
 */
final class ParquetCodecs implements CompressionCodecFactory {
    /** Largest uncompressed page: an image column's page holds some images, not gigabytes. */
    static final int MAX_PAGE_BYTES = 1 << 30;

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        throw new UnsupportedOperationException("pinshard reads Parquet, it does not write it");
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        return switch (codec) {
            case UNCOMPRESSED -> new Plain(null, codec);
            case SNAPPY -> new Plain(new SnappyDecompressor(), codec);
            case ZSTD -> new Plain(new ZstdDecompressor(), codec);
            case GZIP -> new Plain(null, codec);
            default -> throw new UnsupportedOperationException("Parquet pages compressed with " + codec
                + " are not supported (snappy, zstd, gzip or uncompressed); rewrite the file with one of those");
        };
    }

    @Override
    public void release() {
    }

    /** One codec's decompressor; {@code decoder} null for uncompressed and gzip pages. */
    private record Plain(Decompressor decoder, CompressionCodecName codec) implements BytesInputDecompressor {
        @Override
        public BytesInput decompress(BytesInput input, int uncompressedSize) throws IOException {
            if (codec == CompressionCodecName.UNCOMPRESSED) {
                return input;
            }
            checkSize(uncompressedSize);
            byte[] compressed = input.toByteArray();
            byte[] out = new byte[uncompressedSize];
            int n;
            if (codec == CompressionCodecName.GZIP) {
                n = gunzip(compressed, out);
            } else {
                try {
                    n = decoder.decompress(compressed, 0, compressed.length, out, 0, out.length);
                } catch (RuntimeException e) {
                    throw new IOException(codec + " page does not decompress: " + e.getMessage(), e);
                }
            }
            if (n != uncompressedSize) {
                throw new IOException(codec + " page decompresses to " + n + " bytes, its header says " + uncompressedSize);
            }
            return BytesInput.from(out);
        }

        @Override
        public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
            throws IOException {
            byte[] compressed = new byte[compressedSize];
            input.get(compressed);
            output.put(decompress(BytesInput.from(compressed), uncompressedSize).toByteBuffer());
        }

        @Override
        public void release() {
        }

        private static void checkSize(int uncompressedSize) throws IOException {
            if (uncompressedSize < 0 || uncompressedSize > MAX_PAGE_BYTES) {
                throw new IOException("page claims " + uncompressedSize + " uncompressed bytes (at most "
                    + MAX_PAGE_BYTES + ")");
            }
        }

        private static int gunzip(byte[] compressed, byte[] out) throws IOException {
            try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(compressed))) {
                int n = in.readNBytes(out, 0, out.length);
                if (in.read() >= 0) {
                    throw new IOException("gzip page holds more than its header's " + out.length + " bytes");
                }
                return n;
            }
        }
    }
}
