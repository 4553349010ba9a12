package io.pinshard.torch;

import org.bytedeco.javacpp.Pointer;
import org.bytedeco.pytorch.Tensor;

/**
 * A Java handle on an {@code at::Tensor} the adapter owns, handed to the trainer for one batch. It has no
 * deallocator (closing it frees nothing, and it holds no libtorch reference), and {@link #revoke()} nulls it when the
 * batch is released: every later call on it, or passing it to any libtorch function, throws JavaCPP's
 * {@link NullPointerException} ("This pointer address is NULL" / "Pointer address of argument 0 is NULL").
 */
final class TensorPeer extends Tensor {
    TensorPeer(Tensor of) {
        super((Pointer) null);
        this.address = of.address();
    }

    void revoke() {
        this.address = 0;
    }
}
