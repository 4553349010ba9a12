package io.pinshard.loader.augment;

final class StreamCopy {
    static final boolean ON = Boolean.getBoolean("pinshard.nt");
    static {
        if (ON) {
            System.load("/tmp/nt/libstreamcopy.so");
        }
    }
    private StreamCopy() {
    }
    static native void copy(long source, long destination, long bytes);
}
