package io.pinshard.cuda;

import io.pinshard.memory.BatchMemoryAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * A host backend whose copy events are reached only when the test says so ({@link #completeCopies(int)}), or when
 * someone synchronizes on them; it logs every operation, so tests can check the ring protocol's order of events.
 */
final class ManualCopyBackend implements DeviceBackend {
    final HostBackend host = new HostBackend();
    final List<String> log;
    final List<ManualEvent> pendingCopyEvents = new ArrayList<>();
    int synchronizations;

    ManualCopyBackend(List<String> log) {
        this.log = log;
    }

    /** Marks the oldest {@code n} recorded copy events as reached. */
    void completeCopies(int n) {
        for (int i = 0; i < n && !pendingCopyEvents.isEmpty(); i++) {
            pendingCopyEvents.remove(0).complete = true;
        }
    }

    final class ManualEvent implements DeviceEvent {
        final String name;
        boolean complete = true;

        ManualEvent(String name) {
            this.name = name;
        }

        @Override
        public boolean isComplete() {
            return complete;
        }

        @Override
        public void synchronize() {
            if (!complete) {
                synchronizations++;
                log.add("sync " + name);
                // Like a stream: reaching this event means every earlier copy is done too.
                while (!complete) {
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

    private int events;

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
        return new ManualEvent("e" + events++);
    }

    @Override
    public void copyToDevice(long deviceTarget, long hostSource, long bytes) {
        log.add("copy 0x" + Long.toHexString(deviceTarget) + " " + bytes);
        host.copyToDevice(deviceTarget, hostSource, bytes);
    }

    @Override
    public void recordOnCopyStream(DeviceEvent event) {
        ManualEvent e = (ManualEvent) event;
        e.complete = false;
        pendingCopyEvents.add(e);
        log.add("record copy " + e.name);
    }

    @Override
    public void copyStreamWaitFor(DeviceEvent event) {
        host.copyStreamWaitFor(event);
    }

    @Override
    public void computeStreamWaitFor(DeviceEvent event) {
        host.computeStreamWaitFor(event);
    }

    @Override
    public void augment(long deviceSource, long deviceParams, long deviceTarget, int batch, int height, int width,
                        AugmentSpec spec) {
        host.augment(deviceSource, deviceParams, deviceTarget, batch, height, width, spec);
    }

    @Override
    public void recordOnComputeStream(DeviceEvent event) {
        host.recordOnComputeStream(event);
    }

    @Override
    public void recordOnStream(DeviceEvent event, long streamHandle) {
        log.add("record trainer stream " + ((ManualEvent) event).name);
    }

    @Override
    public long computeStreamHandle() {
        return 0;
    }

    @Override
    public void close() {
        host.close();
    }
}
