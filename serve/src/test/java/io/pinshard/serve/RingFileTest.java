package io.pinshard.serve;

import static io.pinshard.serve.RingDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import io.pinshard.loader.options.PixelFormat;
import io.pinshard.memory.NativeRegion;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ring file as an allocator and as a file: what the loader may ask, what a client finds. */
@org.junit.jupiter.api.Tag("process")
class RingFileTest {
    @TempDir
    Path temp;

    @Test
    void slotsAreCarvedFromTheMappingAndTheHeaderPassesItsOwnCheck() throws Exception {
        Path path = temp.resolve("a.ring");
        try (RingFile ring = RingFile.prepare(path, 3)) {
            NativeRegion[] slots = new NativeRegion[3];
            for (int s = 0; s < 3; s++) {
                slots[s] = ring.allocate(10_000, 4096);
                assertEquals(0, slots[s].address() % 4096);
                assertEquals(s, ring.slotOf(slots[s].address()));
            }
            assertEquals(3, ring.liveRegions());
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> ring.allocate(10_000, 4096));
            assertTrue(full.getMessage().contains("all given to the loader"), full.getMessage());
            IllegalStateException foreign = assertThrows(IllegalStateException.class,
                () -> ring.slotOf(slots[0].address() + 64));
            assertTrue(foreign.getMessage().contains("not a slot"), foreign.getMessage());
            slots[1].close();
            slots[1] = ring.allocate(10_000, 64);
            assertEquals(1, ring.slotOf(slots[1].address()), "a freed slot is handed out again");
            IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
                () -> ring.allocate(10_001, 64));
            assertTrue(size.getMessage().contains("10000") && size.getMessage().contains("10001"), size.getMessage());
            slots[2].close();
            slots[2] = ring.allocate(9_999, 64);
            assertEquals(2, ring.slotOf(slots[2].address()), "a shorter region is a slot's first bytes");
            assertEquals(9_999, slots[2].length());
            IllegalArgumentException alignment = assertThrows(IllegalArgumentException.class,
                () -> ring.allocate(10_000, 8192));
            assertTrue(alignment.getMessage().contains("8192"), alignment.getMessage());

            assertFalse(Files.exists(path), "not under its name before publish");
            ring.publish(new RingFile.RingGeometry(8, 16, false, 7, 50, 50, 3, 0, 1, 5, java.util.List.of(),
                PixelFormat.UINT8_NHWC));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(path)));
            UnsafeBuffer header = ring.buffer();
            checkHeader(header, Files.size(path), path.toString());
            assertEquals(slotsOffset(3) + 3 * 12_288, Files.size(path), "3 slots of 10,000 bytes in whole pages");
            assertEquals(STATUS_READY, header.getInt(STATUS_OFFSET));
            for (NativeRegion slot : slots) {
                slot.close();
            }
            assertEquals(0, ring.liveRegions());
        }
        assertFalse(Files.exists(path));
    }

    @Test
    void damagedSaysWhenAnotherProcessOverwroteOrTruncatedTheFileAndCloseThenLeavesItAlone() throws Exception {
        Path path = temp.resolve("damaged.ring");
        RingFile ring = RingFile.prepare(path, 2);
        NativeRegion[] slots = {ring.allocate(10_000, 4096), ring.allocate(10_000, 4096)};
        ring.publish(new RingFile.RingGeometry(8, 16, false, 7, 50, 50, 3, 0, 1, 5, java.util.List.of(),
                PixelFormat.UINT8_NHWC));
        assertTrue(ring.sharedWithOtherProcesses(), "the loader must write the ring through guarded copies only");
        assertNull(ring.damaged());
        long length = Files.size(path);
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.WRITE)) {
            file.write(ByteBuffer.wrap(new byte[] {'X'}), 3); // one byte of the magic
            RuntimeException overwritten = ring.damaged();
            assertNotNull(overwritten);
            assertTrue(overwritten.getMessage().contains("ring file " + path + " overwritten by another process")
                && overwritten.getMessage().contains("byte 3"), overwritten.getMessage());
            file.truncate(length / 2);
        }
        RuntimeException truncated = ring.damaged();
        assertNotNull(truncated);
        assertTrue(truncated.getMessage().contains("ring file " + path + " truncated or replaced by another process: "
            + length / 2 + " of its " + length + " bytes are left"), truncated.getMessage());
        ring.message("not written: the message block could be in the lost half"); // skipped, no fault
        for (NativeRegion slot : slots) {
            slot.close();
        }
        ring.close(STATUS_FAILED); // neither writes STATUS into a truncated file nor unmaps it (see RingFile)
        assertFalse(Files.exists(path), "still unlinked: it is this server's file");
    }

    @Test
    void aDeadServersTemporaryFileIsRemovedByTheNextServer() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path leftover = Files.writeString(temp.resolve("b.ring.tmp-" + gone.pid()), "half a ring");
        Path mine = Files.writeString(temp.resolve("b.ring.tmp-" + ProcessHandle.current().pid()), "live");
        try (RingFile ring = RingFile.prepare(temp.resolve("b.ring"), 1)) {
            assertFalse(Files.exists(leftover), "the dead pid's temporary file is gone");
            assertTrue(Files.exists(mine), "a live pid's is not touched");
        }
    }

    @Test
    void headerCheckNamesWhatIsWrong() {
        UnsafeBuffer text = new UnsafeBuffer("this is not a ring file at all, but it is long enough to have a header ....."
            .repeat(4).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        RingFormatException notARing = assertThrows(RingFormatException.class,
            () -> checkHeader(text, text.capacity(), "x"));
        assertTrue(notARing.getMessage().contains("not a pinshard ring"), notARing.getMessage());
        UnsafeBuffer future = new UnsafeBuffer(new byte[8192]);
        future.putBytes(MAGIC_OFFSET, MAGIC);
        future.putInt(VERSION_OFFSET, VERSION + 1);
        RingFormatException newer = assertThrows(RingFormatException.class,
            () -> checkHeader(future, future.capacity(), "y"));
        assertTrue(newer.getMessage().contains("reads version " + VERSION) && newer.getMessage().contains("upgrade pinshard"),
            newer.getMessage());
        future.putInt(VERSION_OFFSET, VERSION);
        RingFormatException length = assertThrows(RingFormatException.class,
            () -> checkHeader(future, future.capacity(), "z"));
        assertTrue(length.getMessage().contains("bytes long"), length.getMessage());
    }
}
