package io.pinshard.cuda.pipeline;

import io.pinshard.cuda.device.DeviceType;
import io.pinshard.memory.DType;

/**
 * A DLPack-like description of one tensor in device memory: enough for a trainer to wrap it without copying
 * (PyTorch {@code from_blob(data, shape, strides, options)}, DJL, or a real {@code DLManagedTensor}).
 *
 * <p>Field for field it is DLPack's {@code DLTensor}: {@code data} = {@link #data()}, {@code device} =
 * {@code {deviceType().dlpackCode(), deviceId()}}, {@code ndim}, {@code dtype} = {@code {dtype().dlpackCode(),
 * dtype().bits(), 1}}, {@code shape}, {@code strides} (in elements, not bytes, as in DLPack), {@code byte_offset} =
 * 0. The layout name ({@code "NCHW"}, {@code "NHWC"}, {@code "N"}) says what the dimensions mean. Instances belong to a
 * pipeline slot and are rewritten when the slot is reused, so read them while the batch is held.
 */
public final class TensorDescriptor {
    private static final int MAX_DIMS = 4;

    private final long[] shape = new long[MAX_DIMS];
    private final long[] strides = new long[MAX_DIMS];
    private long data;
    private DeviceType deviceType = DeviceType.CPU;
    private int deviceId;
    private DType dtype = DType.UINT8;
    private int ndim;
    private String layout = "";

    /** Device address of element 0. */
    public long data() {
        return data;
    }

    public DeviceType deviceType() {
        return deviceType;
    }

    public int deviceId() {
        return deviceId;
    }

    public DType dtype() {
        return dtype;
    }

    public int ndim() {
        return ndim;
    }

    public long shape(int dim) {
        checkDim(dim);
        return shape[dim];
    }

    /** Stride of {@code dim} in elements. */
    public long stride(int dim) {
        checkDim(dim);
        return strides[dim];
    }

    /** A copy of the shape (allocates; for setup code, not per step). */
    public long[] shapeArray() {
        return java.util.Arrays.copyOf(shape, ndim);
    }

    /** A copy of the strides in elements (allocates). */
    public long[] stridesArray() {
        return java.util.Arrays.copyOf(strides, ndim);
    }

    public String layout() {
        return layout;
    }

    /** Bytes spanned by the dense tensor. */
    public long byteSize() {
        long elements = 1;
        for (int i = 0; i < ndim; i++) {
            elements *= shape[i];
        }
        return elements * dtype.bytes();
    }

    private void checkDim(int dim) {
        if (dim < 0 || dim >= ndim) {
            throw new IndexOutOfBoundsException("dimension " + dim + " of a " + ndim + "-d tensor");
        }
    }

    /** Sets a dense, row-major tensor of the given dimensions. */
    void set(long address, DeviceType type, int id, DType elementType, String layoutName, long d0, long d1, long d2,
             long d3) {
        data = address;
        deviceType = type;
        deviceId = id;
        dtype = elementType;
        layout = layoutName;
        ndim = layoutName.length();
        shape[0] = d0;
        shape[1] = d1;
        shape[2] = d2;
        shape[3] = d3;
        long stride = 1;
        for (int i = ndim - 1; i >= 0; i--) {
            strides[i] = stride;
            stride *= shape[i];
        }
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("Tensor[").append(layout).append(' ').append(dtype).append(" shape=");
        s.append(java.util.Arrays.toString(shapeArray())).append(" strides=").append(java.util.Arrays.toString(stridesArray()));
        return s.append(' ').append(deviceType).append(':').append(deviceId).append(" @0x")
            .append(Long.toHexString(data)).append(']').toString();
    }
}
