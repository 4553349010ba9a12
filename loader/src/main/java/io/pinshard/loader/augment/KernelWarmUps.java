package io.pinshard.loader.augment;

import java.util.concurrent.atomic.AtomicInteger;

/** How many {@link VectorWarmUp}s are running; plain Java, so asking loads nothing of the Vector API. */
final class KernelWarmUps {
    private static final AtomicInteger RUNNING = new AtomicInteger();

    private KernelWarmUps() {
    }

    static void started() {
        RUNNING.incrementAndGet();
    }

    static void ended() {
        RUNNING.decrementAndGet();
    }

    static boolean running() {
        return RUNNING.get() > 0;
    }
}
