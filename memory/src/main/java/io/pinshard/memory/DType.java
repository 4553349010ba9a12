package io.pinshard.memory;

/**
 * Element types a device batch can hold, with their DLPack type codes ({@code kDLUInt = 1}, {@code kDLInt = 0},
 * {@code kDLFloat = 2}, {@code kDLBfloat = 4}) so a trainer can build a DLPack {@code DLDataType} directly.
 */
public enum DType {
    UINT8(1, 8),
    INT32(0, 32),
    FLOAT32(2, 32),
    FLOAT16(2, 16),
    BFLOAT16(4, 16);

    private final int dlpackCode;
    private final int bits;

    DType(int dlpackCode, int bits) {
        this.dlpackCode = dlpackCode;
        this.bits = bits;
    }

    /** DLPack {@code DLDataTypeCode}. */
    public int dlpackCode() {
        return dlpackCode;
    }

    /** Bits per element (DLPack {@code bits}; lanes is always 1). */
    public int bits() {
        return bits;
    }

    public int bytes() {
        return bits / 8;
    }
}
