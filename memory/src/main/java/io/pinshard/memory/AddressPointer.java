package io.pinshard.memory;

import org.bytedeco.javacpp.Pointer;

/**
 * A JavaCPP pointer re-aimed at any native address (mapped payloads, host slots, caller buffers, device memory)
 * without copying or allocating: the one such pointer of the project, for OpenCV, CUDA and libtorch calls. Keep one
 * per call site and re-aim it with {@link #at}; it owns nothing, so closing or collecting it frees nothing.
 */
public final class AddressPointer extends Pointer {
    /** Aims this pointer at {@code length} bytes from {@code nativeAddress}; returns this. */
    public AddressPointer at(long nativeAddress, long length) {
        this.address = nativeAddress;
        this.position = 0;
        this.limit = length;
        this.capacity = length;
        return this;
    }
}
