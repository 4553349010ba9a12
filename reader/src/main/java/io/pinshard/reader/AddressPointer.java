package io.pinshard.reader;

import org.bytedeco.javacpp.Pointer;

/** A JavaCPP pointer re-aimed at any native address (mapped payloads, caller buffers) without copying. */
public final class AddressPointer extends Pointer {
    public AddressPointer at(long nativeAddress, long length) {
        this.address = nativeAddress;
        this.position = 0;
        this.limit = length;
        this.capacity = length;
        return this;
    }
}
