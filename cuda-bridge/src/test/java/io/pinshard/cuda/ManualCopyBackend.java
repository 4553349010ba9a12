package io.pinshard.cuda;

import io.pinshard.cuda.augment.AugmentSpec;
import io.pinshard.cuda.device.DeviceBackend;
import io.pinshard.cuda.device.DeviceBuffer;
import io.pinshard.cuda.device.DeviceEvent;
import io.pinshard.cuda.device.DeviceType;
import io.pinshard.cuda.device.HostBackend;
import io.pinshard.memory.BatchMemoryAllocator;
import java.util.ArrayDeque;
import java.util.List;

/**
 * A host backend that behaves like a GPU's two streams, run by the test's hand: copies are queued and happen only
 * when a copy event after them is reached ({@link #completeCopies(int)}, or someone synchronizes on an event), and
 * compute work that waits for a copy event runs only once that event is reached. So a host batch released, or a
 * slot refilled, before its copy completed shows up as wrong bytes on the "device". It logs every operation, so
 * tests can check the ring protocol's order of events.
 */
public final class ManualCopyBackend implements DeviceBackend {
    public final HostBackend host = new HostBackend();
    public final List<String> log;
    public int synchronizations;
    /** The copy stream: {@link Runnable} copies, {@link Record}s and {@link Wait}s, in submission order. */
    private final ArrayDeque<Object> copyStream = new ArrayDeque<>();
    /** The compute stream, likewise. */
    private final ArrayDeque<Object> computeStream = new ArrayDeque<>();
    private int events;

    public ManualCopyBackend(List<String> log) {
        this.log = log;
    }

    private record Record(ManualEvent event) {
    }

    /** Waits for the event's recording that was the latest when the wait was enqueued, as cudaStreamWaitEvent does. */
    private record Wait(ManualEvent event, int recording) {
        Wait(ManualEvent event) {
            this(event, event.recorded);
        }

        boolean satisfied() {
            return event.reached >= recording;
        }
    }

    /** Runs the copy stream until {@code n} more copy events are reached (or it is empty). */
    public void completeCopies(int n) {
        int reached = 0;
        while (reached < n && !copyStream.isEmpty()) {
            Object op = copyStream.peekFirst();
            if (op instanceof Wait wait && !wait.satisfied()) {
                runCompute();
                if (!wait.satisfied()) {
                    throw new AssertionError("copy stream waits for " + wait.event.name + ", which nothing can reach");
                }
            }
            copyStream.removeFirst();
            if (op instanceof Runnable copy) {
                copy.run();
            } else if (op instanceof Record record) {
                record.event.reached++;
                reached++;
                runCompute();
            }
        }
        runCompute();
    }

    /** Runs compute work up to the first wait for an event not yet reached. */
    private void runCompute() {
        while (!computeStream.isEmpty()) {
            Object op = computeStream.peekFirst();
            if (op instanceof Wait wait && !wait.satisfied()) {
                return;
            }
            computeStream.removeFirst();
            if (op instanceof Runnable work) {
                work.run();
            } else if (op instanceof Record record) {
                record.event.reached++;
            }
        }
    }

    public final class ManualEvent implements DeviceEvent {
        final String name;
        /** Recordings enqueued and recordings reached: complete when every recording was reached. */
        int recorded;
        int reached;

        ManualEvent(String name) {
            this.name = name;
        }

        @Override
        public boolean isComplete() {
            return reached == recorded;
        }

        @Override
        public void synchronize() {
            if (!isComplete()) {
                synchronizations++;
                log.add("sync " + name);
                // Like a stream: reaching this event means every earlier copy is done too.
                while (!isComplete()) {
                    if (copyStream.isEmpty()) {
                        throw new AssertionError(name + " can never be reached");
                    }
                    completeCopies(1);
                }
            }
        }

        @Override
        public long handle() {
            return 0;
        }

        @Override
        public void close() {
        }
    }

    @Override
    public String name() {
        return "manual";
    }

    @Override
    public DeviceType deviceType() {
        return DeviceType.CPU;
    }

    @Override
    public int deviceId() {
        return 0;
    }

    @Override
    public BatchMemoryAllocator hostAllocator() {
        return host.hostAllocator();
    }

    @Override
    public DeviceBuffer allocateDevice(long bytes) {
        return host.allocateDevice(bytes);
    }

    @Override
    public DeviceEvent createEvent() {
        host.createEvent(); // refuses once closed, like every backend
        return new ManualEvent("e" + events++);
    }

    @Override
    public void copyToDevice(long deviceTarget, long hostSource, long bytes) {
        host.copyToDevice(deviceTarget, hostSource, 0); // checks the backend is open; the copy itself is queued
        log.add("copy 0x" + Long.toHexString(deviceTarget) + " " + bytes);
        copyStream.addLast((Runnable) () -> host.copyToDevice(deviceTarget, hostSource, bytes));
    }

    @Override
    public void recordOnCopyStream(DeviceEvent event) {
        host.recordOnCopyStream(event);
        ManualEvent e = (ManualEvent) event;
        e.recorded++;
        copyStream.addLast(new Record(e));
        log.add("record copy " + e.name);
    }

    @Override
    public void copyStreamWaitFor(DeviceEvent event) {
        host.copyStreamWaitFor(event);
        copyStream.addLast(new Wait((ManualEvent) event));
    }

    @Override
    public void computeStreamWaitFor(DeviceEvent event) {
        host.computeStreamWaitFor(event);
        computeStream.addLast(new Wait((ManualEvent) event));
    }

    @Override
    public void augment(long deviceSource, long deviceParams, long deviceTarget, int batch, int height, int width,
                        AugmentSpec spec) {
        host.recordOnComputeStream(null); // open check
        computeStream.addLast((Runnable) () -> host.augment(deviceSource, deviceParams, deviceTarget, batch, height,
            width, spec));
        runCompute();
    }

    @Override
    public void recordOnComputeStream(DeviceEvent event) {
        host.recordOnComputeStream(event);
        ManualEvent e = (ManualEvent) event;
        e.recorded++;
        computeStream.addLast(new Record(e));
        runCompute();
    }

    @Override
    public void recordOnStream(DeviceEvent event, long streamHandle) {
        host.recordOnStream(event, streamHandle);
        ManualEvent e = (ManualEvent) event;
        e.recorded++;
        e.reached++; // the trainer's work is done at once
        log.add("record trainer stream " + e.name);
    }

    @Override
    public long computeStreamHandle() {
        return 0;
    }

    @Override
    public void close() {
        completeCopies(Integer.MAX_VALUE);
        host.close();
    }
}
