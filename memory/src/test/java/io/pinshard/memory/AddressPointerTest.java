package io.pinshard.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import org.agrona.BufferUtil;
import org.bytedeco.javacpp.BytePointer;
import org.junit.jupiter.api.Test;

/** The pointer reads the very bytes at the address it is aimed at, and re-aiming it moves it with no copy. */
class AddressPointerTest {
    @Test
    void aimedAtABufferItSeesThatBuffersBytesAndReAimsInPlace() {
        ByteBuffer first = ByteBuffer.allocateDirect(16);
        ByteBuffer second = ByteBuffer.allocateDirect(64);
        for (int i = 0; i < 16; i++) {
            first.put(i, (byte) (i + 1));
        }
        second.put(63, (byte) 99);
        AddressPointer pointer = new AddressPointer();
        assertSame(pointer, pointer.at(BufferUtil.address(first), 16));
        assertEquals(BufferUtil.address(first), pointer.address());
        assertEquals(16, pointer.limit());
        assertEquals(16, pointer.capacity());
        assertEquals(0, pointer.position());
        assertEquals(7, new BytePointer(pointer).get(6), "the bytes at the address, not a copy");
        first.put(6, (byte) 42);
        assertEquals(42, new BytePointer(pointer).get(6), "a write to the buffer shows through the pointer");

        pointer.at(BufferUtil.address(second), 64);
        assertEquals(64, pointer.limit());
        assertEquals(99, new BytePointer(pointer).get(63));
    }
}
