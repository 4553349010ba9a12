package io.pinshard.cuda.nvjpeg;

import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.ShardStructure;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The JPEG payloads of a folder of shards, mapped read-only and found through each shard's validated index
 * ({@link ShardStructure#read}, index CRC included), as addresses and lengths for {@link NvJpegBatch#add}: nvJPEG
 * then reads them straight from the page cache, no copy on the host. For GpuCheck, which must run where the reader
 * (and its OpenCV) is not installed; the loader has its own dataset API. Records of other codecs are counted, not kept.
 */
public final class JpegShardPayloads implements AutoCloseable {
    private final List<MappedByteBuffer> mappings = new ArrayList<>();
    private long[] addresses = new long[1024];
    private int[] lengths = new int[1024];
    private int[] heights = new int[1024];
    private int[] widths = new int[1024];
    private int count;
    private long otherCodecs;
    private long bytes;

    private JpegShardPayloads() {
    }

    /** Maps every {@code *.pinshard} file of {@code folder}, in name order; a shard that fails its checks is an error naming it. */
    public static JpegShardPayloads map(Path folder) throws IOException {
        JpegShardPayloads payloads = new JpegShardPayloads();
        List<Path> shards;
        try (Stream<Path> files = Files.list(folder)) {
            shards = files.filter(p -> p.getFileName().toString().endsWith(".pinshard")).sorted().toList();
        }
        if (shards.isEmpty()) {
            throw new IOException(folder + " holds no *.pinshard files");
        }
        Crc32c crc = new Crc32c();
        try {
            for (Path shard : shards) {
                payloads.add(shard, crc);
            }
        } catch (IOException | RuntimeException e) {
            payloads.close();
            throw e;
        }
        return payloads;
    }

    private void add(Path shard, Crc32c crc) throws IOException {
        MappedByteBuffer mapping;
        try (FileChannel channel = FileChannel.open(shard, StandardOpenOption.READ)) {
            mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
        }
        mappings.add(mapping);
        long base = BufferUtil.address(mapping);
        try {
            ShardStructure.read(new UnsafeBuffer(mapping), crc, true, (record, entry) -> {
                if (entry.codecId() != Codec.JPEG.id()) {
                    otherCodecs++;
                    return;
                }
                if (count == addresses.length) {
                    int grown = count * 2;
                    addresses = Arrays.copyOf(addresses, grown);
                    lengths = Arrays.copyOf(lengths, grown);
                    heights = Arrays.copyOf(heights, grown);
                    widths = Arrays.copyOf(widths, grown);
                }
                addresses[count] = base + entry.payloadOffset();
                lengths[count] = Math.toIntExact(entry.payloadLength());
                heights[count] = (int) entry.height();
                widths[count] = (int) entry.width();
                bytes += entry.payloadLength();
                count++;
            });
        } catch (RuntimeException e) {
            throw new IOException(shard + ": " + e.getMessage(), e);
        }
    }

    public int count() {
        return count;
    }

    public long otherCodecs() {
        return otherCodecs;
    }

    /** Payload bytes of the JPEG records. */
    public long bytes() {
        return bytes;
    }

    public long address(int i) {
        return addresses[i];
    }

    public int length(int i) {
        return lengths[i];
    }

    public int height(int i) {
        return heights[i];
    }

    public int width(int i) {
        return widths[i];
    }

    public int maxHeight() {
        return Arrays.stream(heights, 0, count).max().orElse(0);
    }

    public int maxWidth() {
        return Arrays.stream(widths, 0, count).max().orElse(0);
    }

    @Override
    public void close() {
        for (MappedByteBuffer mapping : mappings) {
            IoUtil.unmap(mapping);
        }
        mappings.clear();
        count = 0;
    }
}
