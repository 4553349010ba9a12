package io.pinshard.reader.loader;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ResourceGuardTest {
    @Test
    void closeWaitsForTheReaderInsideThenRefusesNewOnes() throws Exception {
        ResourceGuard guard = new ResourceGuard();
        assertTrue(guard.tryAcquire());
        AtomicBoolean readerLeft = new AtomicBoolean();
        AtomicBoolean leftBeforeClose = new AtomicBoolean();
        CountDownLatch closing = new CountDownLatch(1);
        Thread closer = new Thread(() -> {
            closing.countDown();
            guard.close();
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
        assertFalse(guard.close(), "a second close does nothing");
        assertFalse(guard.tryAcquire());
    }
}
