package io.pinshard.cuda;

import org.bytedeco.javacpp.Pointer;

/** A JavaCPP pointer re-aimed at any native address (host slots, mappings, device memory) without allocating. */
final class RawPointer extends Pointer {
    RawPointer at(long nativeAddress, long length) {
        this.address = nativeAddress;
        this.position = 0;
        this.limit = length;
        this.capacity = length;
        return this;
    }
}
