package io.pinshard.memory;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The one heap counter sees a thread's allocation whichever way it is asked: this thread, a set, all threads. */
class HeapCounterTest {
    static volatile byte[] sink;

    @Test
    void aMegabyteShowsInEveryView() throws Exception {
        assumeTrue(HeapCounter.currentThreadAllocatedBytes() >= 0, "no thread allocation counter in this JVM");
        long[] seen = new long[3];
        Thread worker = new Thread(() -> {
            long current = HeapCounter.currentThreadAllocatedBytes();
            long set = HeapCounter.allocatedBytes(List.of(Thread.currentThread()));
            long all = HeapCounter.allThreadsAllocatedBytes();
            sink = new byte[1 << 20];
            seen[0] = HeapCounter.currentThreadAllocatedBytes() - current;
            seen[1] = HeapCounter.allocatedBytes(List.of(Thread.currentThread())) - set;
            seen[2] = HeapCounter.allThreadsAllocatedBytes() - all;
        });
        worker.start();
        worker.join();
        for (long bytes : seen) {
            assertTrue(bytes >= 1 << 20, "a 1 MiB array counted as " + bytes + " bytes");
        }
    }
}
