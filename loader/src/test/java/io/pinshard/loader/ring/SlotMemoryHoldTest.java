package io.pinshard.loader.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.TestDatasets;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.reader.Dataset;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Batch#holdMemory()}: a slot's memory outlives {@link io.pinshard.loader.Loader#close()} until its last hold closes (what a
 * libtorch deleter relies on), every other slot is freed at the close as before; {@link Batch#closeHandout} closes
 * only the batch it was taken for; {@link io.pinshard.loader.Epoch#nextSlot()} names the slot of the next batch.
 */
class SlotMemoryHoldTest {
    @TempDir
    static Path temp;
    private static Path dir;

    @BeforeAll
    static void write() throws Exception {
        dir = TestDatasets.write(temp.resolve("holds"), 24, Codec.RAW, 3, 1 << 20);
    }

    private static LoaderOptions options(HostMemoryAllocator slots) {
        return TestDatasets.small().batchSize(4).prefetch(3).allocator(slots).build();
    }

    @Test
    void aHeldSlotOutlivesTheLoaderUntilItsLastHoldCloses() {
        HostMemoryAllocator slots = new HostMemoryAllocator();
        SlotMemoryHold first;
        SlotMemoryHold second;
        long address;
        byte[] pixels;
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options(slots))) {
            Epoch epoch = loader.epoch(0);
            Batch batch = epoch.next();
            address = batch.address();
            pixels = new byte[(int) batch.tensorBytes()];
            new UnsafeBuffer(address, pixels.length).getBytes(0, pixels);
            first = batch.holdMemory();
            second = batch.holdMemory();
            Batch other = epoch.next();
            other.close(); // the workers may refill its slot: a hold is on memory, not on a batch
            assertThrows(IllegalStateException.class, other::holdMemory, "no hold on a released batch");
            assertEquals(3, slots.liveRegions());
        } // the loader closes with batch 0 still held (as a view's deleter holds it), then its hold keeps the slot
        assertEquals(1, slots.liveRegions(), "the loader freed the other slots, not the held one");
        byte[] after = new byte[pixels.length];
        new UnsafeBuffer(address, after.length).getBytes(0, after); // live memory: no fault, no change
        assertEquals(java.util.Arrays.toString(pixels), java.util.Arrays.toString(after));
        first.close();
        first.close(); // idempotent: one hold counts once
        assertEquals(1, slots.liveRegions(), "one hold still open");
        second.close();
        assertEquals(0, slots.liveRegions(), "the last hold freed the slot");
    }

    @Test
    void aHoldClosedBeforeTheLoaderLeavesTheFreeToTheLoader() {
        HostMemoryAllocator slots = new HostMemoryAllocator();
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options(slots))) {
            Epoch epoch = loader.epoch(0);
            Batch batch = epoch.next();
            batch.holdMemory().close();
            batch.close();
            assertEquals(3, slots.liveRegions(), "the ring still holds the slot");
            while (epoch.hasNext()) {
                epoch.next().close();
            }
            Batch held = loader.epoch(1).next();
            loader.close();
            assertThrows(IllegalStateException.class, held::holdMemory, "no hold once the loader closed");
        }
        assertEquals(0, slots.liveRegions());
    }

    @Test
    void closeHandoutClosesOnlyItsOwnBatch() {
        HostMemoryAllocator slots = new HostMemoryAllocator();
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options(slots))) {
            Epoch epoch = loader.epoch(0);
            assertEquals(0, epoch.nextSlot());
            Batch first = epoch.next();
            long handout = first.handout();
            assertNotEquals(0, handout);
            first.close();
            assertEquals(0, first.handout(), "0 once released");
            assertEquals(1, epoch.nextSlot());
            epoch.next().close();
            epoch.next().close();
            assertEquals(0, epoch.nextSlot(), "batch 3 goes to slot 0 again");
            Batch again = epoch.next();
            assertTrue(again == first, "the slot object is reused");
            first.closeHandout(handout); // a late close for batch 0: must not release batch 3
            again.label(0); // still held: the accessor answers
            again.closeHandout(again.handout());
            assertThrows(IllegalStateException.class, () -> again.label(0));
            while (epoch.hasNext()) {
                epoch.next().close();
            }
        }
        assertEquals(0, slots.liveRegions());
    }
}
