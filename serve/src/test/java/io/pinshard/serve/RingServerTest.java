package io.pinshard.serve;

import static io.pinshard.serve.RingDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import io.pinshard.fixtures.ServeTestData;
import io.pinshard.memory.HeapCounter;
import io.pinshard.reader.Dataset;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ring protocol end to end, with a Java client in this process standing in for the Python one. */
@org.junit.jupiter.api.Tag("process")
class RingServerTest {
    static final int RECORDS = 50;
    @TempDir
    static Path temp;
    static Dataset dataset;

    @BeforeAll
    static void writeDataset() throws Exception {
        dataset = Dataset.open(ServeTestData.write(temp.resolve("data"), RECORDS));
    }

    @AfterAll
    static void closeDataset() {
        dataset.close();
    }

    static LoaderOptions options() {
        return LoaderOptions.builder().batchSize(8).crop(16).workers(2).prefetch(3).order(SampleOrder.RANDOM).seed(3)
            .dataWaitWarning(1e9, 50) // the Java client here never trains: its data wait is ~100 % by design
            .build();
    }

    final List<Map<String, Object>> events = Collections.synchronizedList(new ArrayList<>());

    RingServer start(Path ring, RingServer.Settings settings) {
        return RingServer.start(dataset, options(), ring, settings, events::add);
    }

    @Test
    void anEpochArrivesWholeInOrderAndEachSlotIsReusedOnlyAfterItsRelease() throws Exception {
        Path ring = temp.resolve("epoch.ring");
        RingFile file;
        try (RingServer server = start(ring, RingServer.Settings.defaults());
             RingTestClient client = new RingTestClient(ring, ProcessHandle.current().pid(), 7)) {
            file = server.ringFile();
            assertEquals(3, file.liveRegions(), "the loader's three slots come from the ring");
            assertEquals(RESULT_OK, client.command(COMMAND_EPOCH, 0, 0));
            assertEquals(7, client.streamBatches, "50 records in batches of 8");
            Set<Long> records = new HashSet<>();
            int held = -1;
            long heldSequence = 0;
            byte firstPixel = 0;
            long firstRecord = -1;
            for (long k = 0; k < client.streamBatches; k++) {
                long sequence = client.firstSequence + k;
                int slot = client.take(sequence);
                assertEquals(k, client.index(slot));
                for (int i = 0; i < client.size(slot); i++) {
                    records.add(client.sampleId(slot, i));
                    assertEquals(client.sampleId(slot, i) % 5, client.label(slot, i));
                }
                // Hold batch 0 while the next two arrive (batch 3 shares its slot): its slot keeps its batch.
                if (k == 0) {
                    held = slot;
                    heldSequence = sequence;
                    firstPixel = client.buffer.getByte((int) client.imagesOffset(slot));
                    firstRecord = client.sampleId(slot, 0);
                } else {
                    client.release(slot, sequence);
                }
                if (k == 2) {
                    Thread.sleep(200); // time for a worker that wrongly took the slot to overwrite it
                    assertEquals(heldSequence, client.sequenceOf(held), "the held slot keeps its batch");
                    assertEquals(firstRecord, client.sampleId(held, 0));
                    assertEquals((byte) (firstRecord % 251), firstPixel, "pixels of record " + firstRecord);
                    assertEquals(firstPixel, client.buffer.getByte((int) client.imagesOffset(held)));
                    client.release(held, heldSequence);
                }
            }
            assertEquals(RECORDS, records.size(), "every record once");
            assertEquals(RESULT_OK, client.command(COMMAND_EPOCH, 1, 0), "the next epoch starts");
            int slot = client.take(client.firstSequence);
            assertEquals(0, client.index(slot));
        }
        assertFalse(Files.exists(ring), "close unlinks the ring");
        assertEquals(0, file.liveRegions(), "the loader gave every slot back");
        assertTrue(events.stream().anyMatch(e -> "attached".equals(e.get("event"))), events.toString());
    }

    @Test
    void theNextEpochIsNeverRefusedRightAfterTheLastReleaseOfTheEpochBefore() throws Exception {
        // The control thread closes released batches; a command racing that close once found the loader still
        // counting the last batch as held ("1 batches of the previous epoch are still held", seen in bench-serve).
        Path ring = temp.resolve("back-to-back.ring");
        try (RingServer server = start(ring, RingServer.Settings.defaults());
             RingTestClient client = new RingTestClient(ring, ProcessHandle.current().pid(), 11)) {
            for (int e = 0; e < 300; e++) {
                assertEquals(RESULT_OK, client.command(COMMAND_EPOCH, e, 0), () -> "epoch: " + client.message());
                for (long k = 0; k < client.streamBatches; k++) {
                    long sequence = client.firstSequence + k;
                    client.release(client.take(sequence), sequence);
                }
            }
        }
    }

    @Test
    void resumeContinuesWithTheBatchAfterTheSavedState() throws Exception {
        Path ring = temp.resolve("resume.ring");
        try (RingServer server = start(ring, RingServer.Settings.defaults());
             RingTestClient client = new RingTestClient(ring, ProcessHandle.current().pid(), 9)) {
            client.command(COMMAND_EPOCH, 2, 0);
            List<Long> full = new ArrayList<>();
            for (long k = 0; k < client.streamBatches; k++) {
                int slot = client.take(client.firstSequence + k);
                full.add(client.sampleId(slot, 0));
                client.release(slot, client.firstSequence + k);
            }
            assertEquals(RESULT_OK, client.command(COMMAND_RESUME, 2, 4));
            assertEquals(3, client.streamBatches);
            assertEquals(4, client.streamStartBatch);
            for (long k = 0; k < client.streamBatches; k++) {
                int slot = client.take(client.firstSequence + k);
                assertEquals(4 + k, client.index(slot));
                assertEquals(full.get((int) (4 + k)), client.sampleId(slot, 0), "the same batches as before");
                client.release(slot, client.firstSequence + k);
            }
            assertEquals(RESULT_REFUSED, client.command(COMMAND_RESUME, 2, 99));
            assertTrue(client.message().contains("past the end"), client.message());
        }
    }

    @Test
    void aDeadClientsSlotsAreReclaimedAndTheNextClientIsServed() throws Exception {
        Path ring = temp.resolve("dead.ring");
        Process doomed = new ProcessBuilder("sleep", "60").start();
        try (RingServer server = start(ring, RingServer.Settings.defaults())) {
            try (RingTestClient first = new RingTestClient(ring, doomed.pid(), 11)) {
                first.command(COMMAND_EPOCH, 0, 0);
                for (int k = 0; k < 3; k++) {
                    first.take(first.firstSequence + k); // all three slots held, none released
                }
                doomed.destroyForcibly().waitFor();
                first.await(() -> first.buffer.getLongVolatile(ATTACHED_SESSION_OFFSET) == 0, "the server to notice");
                assertEquals(3, first.buffer.getLongVolatile(RECLAIMED_OFFSET));
            }
            try (RingTestClient second = new RingTestClient(ring, ProcessHandle.current().pid(), 12)) {
                assertEquals(RESULT_OK, second.command(COMMAND_RESUME, 0, 3));
                for (long k = 0; k < second.streamBatches; k++) {
                    int slot = second.take(second.firstSequence + k);
                    assertEquals(3 + k, second.index(slot));
                    second.release(slot, second.firstSequence + k);
                }
            }
        }
        assertTrue(events.stream().anyMatch(e -> "detached".equals(e.get("event"))
            && String.valueOf(e.get("reason")).contains("exited")), events.toString());
    }

    @Test
    void aStaleRingIsReplacedButALiveOneOrAForeignFileIsNot() throws Exception {
        Path ring = temp.resolve("stale.ring");
        try (RingServer server = start(ring, RingServer.Settings.defaults())) {
            IllegalStateException live = assertThrows(IllegalStateException.class,
                () -> start(ring, RingServer.Settings.defaults()));
            assertTrue(live.getMessage().contains("in use"), live.getMessage());
            // What kill -9 leaves: a copy of a ring whose server pid is gone.
            Path crashed = temp.resolve("crashed.ring");
            Files.copy(ring, crashed);
            try (RingTestClient forge = new RingTestClient(ring, ProcessHandle.current().pid(), 13)) {
                // no-op: proves the copy source was a valid ring
            }
            Process gone = new ProcessBuilder("true").start();
            gone.waitFor();
            try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(crashed,
                java.nio.file.StandardOpenOption.WRITE)) {
                java.nio.ByteBuffer pid = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                pid.putLong(0, gone.pid());
                channel.write(pid, SERVER_PID_OFFSET);
            }
            try (RingServer restarted = start(crashed, RingServer.Settings.defaults())) {
                assertTrue(Files.exists(crashed));
            }
        }
        Path foreign = Files.writeString(temp.resolve("notes.txt"), "not a ring");
        IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> start(foreign, RingServer.Settings.defaults()));
        assertTrue(refused.getMessage().contains("mode 0644, not a regular file of uid"), refused.getMessage());
        assertEquals("not a ring", Files.readString(foreign), "left as it was");
        Files.setPosixFilePermissions(foreign, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        refused = assertThrows(IllegalStateException.class, () -> start(foreign, RingServer.Settings.defaults()));
        assertTrue(refused.getMessage().contains("not a pinshard ring"), refused.getMessage());
        assertEquals("not a ring", Files.readString(foreign), "left as it was");
    }

    @Test
    void garbageInEveryFieldTheClientWritesIsRefusedOrIgnoredNeverFollowed() throws Exception {
        Path ring = temp.resolve("garbage.ring");
        java.util.Random random = new java.util.Random(23);
        try (RingServer server = start(ring, RingServer.Settings.defaults());
             RingTestClient client = new RingTestClient(ring, ProcessHandle.current().pid(), 31)) {
            int slots = client.buffer.getInt(SLOT_COUNT_OFFSET);
            for (int round = 0; round < 100; round++) {
                // What another process overwriting the client's part of the file could leave: any values, and
                // now and then a known command kind with an arbitrary epoch or start.
                client.buffer.putLong(CLIENT_PID_OFFSET, random.nextLong());
                client.buffer.putInt(CLIENT_VERSION_OFFSET, random.nextInt());
                for (int s = 0; s < slots; s++) {
                    client.buffer.putLongRelease(slotHeaderOffset(s) + SLOT_RELEASED_OFFSET, random.nextLong());
                }
                int kind = round % 3 == 0 ? random.nextInt() : 1 + random.nextInt(2);
                int epoch = round % 2 == 0 ? random.nextInt() : random.nextInt(3);
                long start = round % 4 == 0 ? random.nextLong() : random.nextInt(10);
                int result = client.command(kind, epoch, start);
                assertTrue(result == RESULT_OK || result == RESULT_REFUSED, "result " + result);
                assertNull(server.failure(), "round " + round + ": " + server.failure());
            }
            assertEquals(STATUS_READY, client.buffer.getInt(STATUS_OFFSET));
            assertEquals(RESULT_OK, client.command(COMMAND_EPOCH, 1, 0));
            for (long k = 0; k < client.streamBatches; k++) { // and it still serves a client that plays by the rules
                int slot = client.take(client.firstSequence + k);
                assertEquals(k, client.index(slot));
                client.release(slot, client.firstSequence + k);
            }
        }
        assertTrue(events.stream().anyMatch(e -> "refused".equals(e.get("event"))), events.toString());
    }

    @Test
    void publishingAndReleasingAllocateNoHeapPerBatch() throws Exception {
        Path ring = temp.resolve("heap.ring");
        LoaderOptions oneImageBatches = options().toBuilder().batchSize(1).build();
        try (RingServer server = RingServer.start(dataset, oneImageBatches, ring, RingServer.Settings.defaults(),
            events::add); RingTestClient client = new RingTestClient(ring, ProcessHandle.current().pid(), 21)) {
            long before = 0;
            long batches = 0;
            for (int epoch = 0; epoch < 4; epoch++) {
                if (epoch == 1) { // epoch 0 warms the JIT up
                    before = HeapCounter.allocatedBytes(server.threads());
                }
                client.command(COMMAND_EPOCH, epoch, 0);
                for (long k = 0; k < client.streamBatches; k++) {
                    int slot = client.take(client.firstSequence + k);
                    client.release(slot, client.firstSequence + k);
                }
                batches += epoch > 0 ? client.streamBatches : 0;
            }
            long perBatch = (HeapCounter.allocatedBytes(server.threads()) - before) / batches;
            // What remains is per epoch (the loader's new run and threads, the events), spread over 50 batches.
            assertTrue(perBatch < 1024, perBatch + " heap bytes per batch");
        }
    }

    @Test
    void theServerStopsWhenItsOwnerExits() throws Exception {
        Path ring = temp.resolve("owner.ring");
        Process owner = new ProcessBuilder("sleep", "60").start();
        try (RingServer server = start(ring, new RingServer.Settings(TimeUnit.SECONDS.toNanos(30), owner.pid(), false))) {
            owner.destroyForcibly().waitFor();
            assertTrue(server.awaitStop(5, TimeUnit.SECONDS), "stops within the heartbeat period");
        }
        assertFalse(Files.exists(ring));
    }
}
