package io.pinshard.cuda.device;

/** Where a tensor lives, with the DLPack {@code DLDeviceType} code ({@code kDLCPU = 1}, {@code kDLCUDA = 2}). */
public enum DeviceType {
    CPU(1),
    CUDA(2);

    private final int dlpackCode;

    DeviceType(int dlpackCode) {
        this.dlpackCode = dlpackCode;
    }

    public int dlpackCode() {
        return dlpackCode;
    }
}
