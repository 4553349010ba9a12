package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ReadGuardTest {
    @Test
    void closeWaitsForTheReaderInsideThenRefusesNewOnes() throws Exception {
        ReadGuard guard = new ReadGuard("test resource");
        AtomicBoolean closedIt = new AtomicBoolean();
        assertTrue(guard.tryAcquire());
        AtomicBoolean readerLeft = new AtomicBoolean();
        AtomicBoolean leftBeforeClose = new AtomicBoolean();
        CountDownLatch closing = new CountDownLatch(1);
        Thread closer = new Thread(() -> {
            closing.countDown();
            closedIt.set(guard.close() == ReadGuard.Outcome.CLOSED);
            leftBeforeClose.set(readerLeft.get());
        });
        closer.start();
        closing.await();
        while (!guard.isClosed()) {
            Thread.onSpinWait(); // the closer has refused new readers and now waits for this one
        }
        assertFalse(guard.tryAcquire(), "no new reader once closing");
        readerLeft.set(true);
        guard.release();
        closer.join();
        assertTrue(leftBeforeClose.get(), "close returned while a reader was inside");
        assertTrue(closedIt.get(), "the closing call is told it closed it, so it may free the memory");
        assertEquals(ReadGuard.Outcome.ALREADY_CLOSED, guard.close(), "a second close does nothing");
        assertFalse(guard.tryAcquire());
        IllegalStateException refused = assertThrows(IllegalStateException.class, guard::acquire);
        assertEquals("test resource is closed", refused.getMessage());
    }
}
