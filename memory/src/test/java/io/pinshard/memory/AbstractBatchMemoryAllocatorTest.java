package io.pinshard.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link BatchMemoryAllocator} contract, in the manner of Netty's {@code AbstractByteBufTest}: every allocator
 * (host, cuda-pinned, cuda-registered) runs these tests through a subclass. After each test the allocator's live
 * count ({@link BatchMemoryAllocator#liveRegions()}, {@link BatchMemoryAllocator#liveBytes()}) must be back where it
 * was: a region the test (or the allocator) forgot to release fails the test. Subclasses may add native checks of
 * their own (the host suite watches the JVM's direct buffer pool).
 *
 * <p>An allocator over a fixed arena (the serve ring's {@code RingFile}: a file of a few slots of one size) states its
 * bounds through {@link #maxAlignment()}, {@link #maxLiveRegions()} and {@link #maxRegionLength()}; the tests stay
 * inside them and check that a request past them is refused without allocating.
 */
public abstract class AbstractBatchMemoryAllocatorTest {
    private static final int[] ALIGNMENTS = {1, 2, 8, 64, 4096, 8192, 65536};

    protected BatchMemoryAllocator allocator;
    private long regionsBefore;
    private long bytesBefore;

    /** The allocator under test; may skip the test through an assumption (no CUDA driver, say). */
    protected abstract BatchMemoryAllocator createAllocator();

    /** Whether this allocator's memory is page-locked. */
    protected abstract boolean pageLocked();

    /** The largest alignment the allocator grants; larger ones must be refused (IllegalArgumentException). */
    protected int maxAlignment() {
        return Integer.MAX_VALUE;
    }

    /** How many regions may be live at once; one more must be refused (IllegalStateException). */
    protected int maxLiveRegions() {
        return Integer.MAX_VALUE;
    }

    /** The longest region the allocator grants; a longer one must be refused (IllegalArgumentException). */
    protected long maxRegionLength() {
        return Long.MAX_VALUE;
    }

    private int[] alignments() {
        return Arrays.stream(ALIGNMENTS).filter(a -> a <= maxAlignment()).toArray();
    }

    private int regionsAtOnce(int wanted) {
        return (int) Math.min(wanted, maxLiveRegions() - regionsBefore);
    }

    /** Whether this allocator promises zero-filled memory (the host allocator does). */
    protected boolean promisesZeroedMemory() {
        return false;
    }

    @BeforeEach
    final void openAllocator() {
        allocator = createAllocator();
        regionsBefore = allocator.liveRegions();
        bytesBefore = allocator.liveBytes();
        assertTrue(regionsBefore >= 0 && bytesBefore >= 0, allocator.name() + " counts its live regions");
    }

    @AfterEach
    final void nothingLeaked() {
        if (allocator != null) {
            assertEquals(regionsBefore, allocator.liveRegions(), "regions left open on " + allocator.name());
            assertEquals(bytesBefore, allocator.liveBytes(), "bytes left open on " + allocator.name());
        }
    }

    @Test
    void regionHoldsTheRequestedLengthAtTheRequestedAlignment() {
        for (int alignment : alignments()) {
            for (long length : new long[] {1, 100, 4096, 10_000}) {
                try (NativeRegion region = allocator.allocate(length, alignment)) {
                    assertNotEquals(0, region.address());
                    assertEquals(0, region.address() % alignment, "aligned to " + alignment + ": " + region);
                    assertEquals(length, region.length());
                    UnsafeBuffer bytes = new UnsafeBuffer(region.address(), (int) length);
                    bytes.putByte(0, (byte) 0x5A);
                    assertEquals((byte) 0x5A, bytes.getByte(0));
                    bytes.putByte((int) length - 1, (byte) 0xA5);
                    assertEquals((byte) 0xA5, bytes.getByte((int) length - 1));
                }
            }
        }
    }

    @Test
    void wholeRegionKeepsWhatIsWritten() {
        int length = 1 << 20;
        try (NativeRegion region = allocator.allocate(length, 64)) {
            UnsafeBuffer bytes = new UnsafeBuffer(region.address(), length);
            for (int i = 0; i < length; i += 8) {
                bytes.putLong(i, i * 0x9E3779B97F4A7C15L);
            }
            for (int i = 0; i < length; i += 8) {
                assertEquals(i * 0x9E3779B97F4A7C15L, bytes.getLong(i), "at " + i);
            }
        }
    }

    @Test
    void memoryIsZeroedWhereTheAllocatorPromisesIt() {
        assumeTrue(promisesZeroedMemory(), () -> allocator.name() + " does not promise zeroed memory");
        int length = 64 * 1024;
        for (int round = 0; round < 2; round++) { // the second round may reuse the first round's dirtied memory
            try (NativeRegion region = allocator.allocate(length, 4096)) {
                UnsafeBuffer bytes = new UnsafeBuffer(region.address(), length);
                for (int i = 0; i < length; i += 8) {
                    assertEquals(0, bytes.getLong(i), "round " + round + ", at " + i);
                }
                bytes.setMemory(0, length, (byte) 0xFF);
            }
        }
    }

    @Test
    void pageLockedFlagSaysWhatTheMemoryIs() {
        try (NativeRegion region = allocator.allocate(4096, 4096)) {
            assertEquals(pageLocked(), region.pageLocked(), region.toString());
        }
    }

    @Test
    void invalidArgumentsAreRefusedAndAllocateNothing() {
        for (long length : new long[] {0, -1, Long.MIN_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> allocator.allocate(length, 64), "length " + length);
            assertTrue(e.getMessage().contains(Long.toString(length)), e.getMessage());
        }
        for (int alignment : new int[] {0, 3, 48, -8, Integer.MIN_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> allocator.allocate(100, alignment), "alignment " + alignment);
            assertTrue(e.getMessage().contains(Integer.toString(alignment)), e.getMessage());
        }
        assertEquals(regionsBefore, allocator.liveRegions());
    }

    @Test
    void closingTwiceReleasesOnce() {
        NativeRegion region = allocator.allocate(1000, 64);
        assertEquals(regionsBefore + 1, allocator.liveRegions());
        assertEquals(bytesBefore + 1000, allocator.liveBytes());
        region.close();
        region.close();
        assertEquals(regionsBefore, allocator.liveRegions(), "released once, not twice");
        assertEquals(bytesBefore, allocator.liveBytes());
    }

    @Test
    void useAfterCloseThrowsNamingTheRegion() {
        NativeRegion region = allocator.allocate(1000, 64);
        String described = region.toString();
        assertTrue(described.contains(allocator.name()), described);
        region.close();
        for (Runnable use : new Runnable[] {region::address, region::length}) {
            IllegalStateException e = assertThrows(IllegalStateException.class, use::run);
            assertTrue(e.getMessage().contains(allocator.name()) && e.getMessage().contains("closed")
                && e.getMessage().contains("1000 bytes"), e.getMessage());
        }
        assertEquals(pageLocked(), region.pageLocked(), "the flag is a fact about the region, still answerable");
    }

    @Test
    void racingClosesReleaseEachRegionOnce() throws Exception {
        int threads = 4;
        int regions = regionsAtOnce(200);
        NativeRegion[] open = new NativeRegion[regions];
        for (int i = 0; i < regions; i++) {
            open[i] = allocator.allocate(64 + i, 64);
        }
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (NativeRegion region : open) {
                        region.close();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(regionsBefore, allocator.liveRegions(), "each region released exactly once");
        assertEquals(bytesBefore, allocator.liveBytes());
    }

    @Test
    void manyRegionsAreDistinctAndKeepTheirOwnBytes() {
        SplittableRandom random = new SplittableRandom(7);
        int count = regionsAtOnce(256);
        int[] alignments = alignments();
        NativeRegion[] regions = new NativeRegion[count];
        long total = 0;
        try {
            for (int i = 0; i < count; i++) {
                int alignment = alignments[random.nextInt(alignments.length)];
                regions[i] = allocator.allocate(1 + random.nextInt(5000), alignment);
                total += regions[i].length();
                new UnsafeBuffer(regions[i].address(), (int) regions[i].length()).setMemory(0,
                    (int) regions[i].length(), (byte) i);
            }
            assertEquals(regionsBefore + count, allocator.liveRegions());
            assertEquals(bytesBefore + total, allocator.liveBytes());
            long[][] ranges = new long[count][];
            for (int i = 0; i < count; i++) {
                UnsafeBuffer bytes = new UnsafeBuffer(regions[i].address(), (int) regions[i].length());
                for (int b = 0; b < bytes.capacity(); b++) {
                    assertEquals((byte) i, bytes.getByte(b), "region " + i + " was overwritten at " + b);
                }
                ranges[i] = new long[] {regions[i].address(), regions[i].address() + regions[i].length()};
            }
            Arrays.sort(ranges, (a, b) -> Long.compare(a[0], b[0]));
            for (int i = 1; i < count; i++) {
                assertTrue(ranges[i - 1][1] <= ranges[i][0], "regions overlap");
            }
        } finally {
            for (NativeRegion region : regions) {
                if (region != null) {
                    region.close();
                }
            }
        }
    }

    @Test
    void allocatesAndClosesFromSeveralThreads() throws Exception {
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int seed = t;
                done.add(pool.submit(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    for (int i = 0; i < 100; i++) {
                        try (NativeRegion region = allocator.allocate(1 + random.nextInt(20_000), 64)) {
                            new UnsafeBuffer(region.address(), (int) region.length()).putByte(0, (byte) i);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void requestsPastTheAllocatorsBoundsAreRefusedAndAllocateNothing() {
        if (maxAlignment() < Integer.MAX_VALUE / 2) {
            int tooAligned = maxAlignment() * 2;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> allocator.allocate(100, tooAligned));
            assertTrue(e.getMessage().contains(Integer.toString(tooAligned)), e.getMessage());
        }
        if (maxRegionLength() < Long.MAX_VALUE) {
            NativeRegion first = allocator.allocate(maxRegionLength(), 64); // a fixed arena sizes itself now
            first.close();
            long tooLong = maxRegionLength() + 1;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> allocator.allocate(tooLong, 64));
            assertTrue(e.getMessage().contains(Long.toString(tooLong)), e.getMessage());
        }
        assertEquals(regionsBefore, allocator.liveRegions());
        if (maxLiveRegions() < 100_000) {
            List<NativeRegion> all = new ArrayList<>();
            try {
                while (allocator.liveRegions() < maxLiveRegions()) {
                    all.add(allocator.allocate(64, 64));
                }
                assertThrows(IllegalStateException.class, () -> allocator.allocate(64, 64));
                assertEquals(maxLiveRegions(), allocator.liveRegions(), "the refused request allocated nothing");
                all.remove(0).close();
                all.add(allocator.allocate(64, 64)); // a freed region can be had again
            } finally {
                all.forEach(NativeRegion::close);
            }
        }
    }

    @Test
    void hasAName() {
        assertFalse(allocator.name().isBlank());
    }
}
