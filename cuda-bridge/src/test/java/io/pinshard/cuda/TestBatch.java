package io.pinshard.cuda;

import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.HostBatch;
import io.pinshard.memory.NativeRegion;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;

/** A host batch in native memory for tests: random pixels, labels = sample id * 7, records its releases. */
public final class TestBatch implements HostBatch {
    public final NativeRegion images;
    public final NativeRegion labels;
    public final long[] sampleIds;
    public final int height;
    public final int width;
    private int size;
    public final List<String> log;
    public final String name;
    public int releases;

    public TestBatch(BatchMemoryAllocator allocator, String name, long firstSample, int size, int height, int width,
                     long seed, List<String> log) {
        this.name = name;
        this.height = height;
        this.width = width;
        this.log = log;
        this.images = allocator.allocate((long) size * height * width * 3, 64);
        this.labels = allocator.allocate(size * 4L, 64);
        this.sampleIds = new long[size];
        refill(firstSample, size, seed);
    }

    /**
     * New random pixels and labels for {@code size} samples (at most the capacity) from {@code firstSample}: the slot
     * reused, as a loader does, perhaps for a short last batch.
     */
    public void refill(long firstSample, int size, long seed) {
        if (size < 1 || size > sampleIds.length) {
            throw new IllegalArgumentException("size " + size + " outside 1.." + sampleIds.length);
        }
        this.size = size;
        UnsafeBuffer pixels = new UnsafeBuffer(images.address(), size * height * width * 3);
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < pixels.capacity(); i++) {
            pixels.putByte(i, (byte) random.nextInt(256));
        }
        UnsafeBuffer labelView = new UnsafeBuffer(labels.address(), (int) labels.length());
        for (int i = 0; i < size; i++) {
            sampleIds[i] = firstSample + i;
            labelView.putInt(i * 4, (int) (sampleIds[i] * 7));
        }
    }

    @Override
    public int epoch() {
        return 0;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public int height() {
        return height;
    }

    @Override
    public int width() {
        return width;
    }

    @Override
    public int channels() {
        return 3;
    }

    @Override
    public long imagesAddress() {
        return images.address();
    }

    @Override
    public long labelsAddress() {
        return labels.address();
    }

    @Override
    public long sampleId(int index) {
        return sampleIds[index];
    }

    @Override
    public void release() {
        releases++;
        if (log != null) {
            log.add("release " + name);
        }
    }

    /** The pixels of the current {@link #size()} images. */
    public byte[] pixelBytes() {
        byte[] copy = new byte[size * height * width * 3];
        new UnsafeBuffer(images.address(), copy.length).getBytes(0, copy);
        return copy;
    }

    public void free() {
        images.close();
        labels.close();
    }
}
