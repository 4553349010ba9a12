// pinshard batched augmentation: NHWC uint8 -> NCHW float32 / fp16 / bf16 with per-sample colour jitter and
// mean/std normalisation. One block per image: the block first sums the image's luminance (exact 64-bit integer),
// then transforms every pixel. The arithmetic must stay operation-for-operation identical to
// io.pinshard.cuda.augment.ReferenceAugmenter (the test oracle); it is compiled with -fmad=false so no multiply-add is
// contracted, with IEEE division and denormals kept (NVRTC's defaults without --use_fast_math), so the float32 results
// match the Java reference bit for bit; the tests allow 1e-3.

#define PINSHARD_THREADS 512

__device__ __forceinline__ float pinshard_clamp01(float x) {
    return fminf(fmaxf(x, 0.0f), 1.0f);
}

// IEEE binary16 with round-to-nearest-even: the same bit arithmetic as io.pinshard.memory.HalfFloats.toFloat16.
__device__ __forceinline__ unsigned short pinshard_to_f16(float f) {
    unsigned int bits = __float_as_uint(f);
    unsigned int sign = (bits >> 16) & 0x8000u;
    int exponent = (int) ((bits >> 23) & 0xFFu);
    unsigned int mantissa = bits & 0x7FFFFFu;
    if (exponent == 0xFF) {
        return (unsigned short) (sign | 0x7C00u | (mantissa != 0u ? (0x200u | (mantissa >> 13)) : 0u));
    }
    int e = exponent - 127 + 15;
    if (e >= 0x1F) {
        return (unsigned short) (sign | 0x7C00u);
    }
    if (e <= 0) {
        if (e < -10) {
            return (unsigned short) sign;
        }
        unsigned int significand = mantissa | 0x800000u;
        int shift = 14 - e;
        unsigned int half = significand >> shift;
        unsigned int rest = significand & ((1u << shift) - 1u);
        unsigned int halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half & 1u) != 0u)) {
            half++;
        }
        return (unsigned short) (sign | half);
    }
    unsigned int half = sign | ((unsigned int) e << 10) | (mantissa >> 13);
    unsigned int rest = mantissa & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u) != 0u)) {
        half++;
    }
    return (unsigned short) half;
}

// bfloat16 with round-to-nearest-even: io.pinshard.memory.HalfFloats.toBfloat16.
__device__ __forceinline__ unsigned short pinshard_to_bf16(float f) {
    unsigned int bits = __float_as_uint(f);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u) {
        return (unsigned short) ((bits >> 16) | 0x40u);
    }
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    return (unsigned short) (bits >> 16);
}

__device__ __forceinline__ void pinshard_store(void* dst, size_t index, int outType, float value) {
    if (outType == 0) {
        ((float*) dst)[index] = value;
    } else if (outType == 1) {
        ((unsigned short*) dst)[index] = pinshard_to_f16(value);
    } else {
        ((unsigned short*) dst)[index] = pinshard_to_bf16(value);
    }
}

// grid = (batch), block = (PINSHARD_THREADS). params: 4 floats per sample (brightness, contrast, saturation, pad).
// outType: 0 float32, 1 fp16, 2 bf16.
extern "C" __global__ void __launch_bounds__(PINSHARD_THREADS)
pinshard_augment(const unsigned char* __restrict__ src, const float* __restrict__ params, void* dst,
                 int height, int width, int outType,
                 float mean0, float mean1, float mean2, float invStd0, float invStd1, float invStd2) {
    __shared__ unsigned long long warpSums[PINSHARD_THREADS / 32];
    __shared__ float meanLuma;

    const int n = blockIdx.x;
    const int plane = height * width;
    const unsigned char* in = src + (size_t) n * plane * 3;
    const float b = params[n * 4 + 0];
    const float c = params[n * 4 + 1];
    const float s = params[n * 4 + 2];

    unsigned long long sum = 0ull;
    for (int i = threadIdx.x; i < plane; i += blockDim.x) {
        const unsigned char* p = in + (size_t) i * 3;
        sum += 299ull * p[0] + 587ull * p[1] + 114ull * p[2];
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        sum += __shfl_down_sync(0xFFFFFFFFu, sum, offset);
    }
    if ((threadIdx.x & 31) == 0) {
        warpSums[threadIdx.x >> 5] = sum;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0ull;
        for (int w = 0; w < (int) ((blockDim.x + 31) / 32); w++) {
            total += warpSums[w];
        }
        meanLuma = (float) ((double) total / (255000.0 * (double) plane)) * b;
    }
    __syncthreads();

    const float m = meanLuma;
    const float oneMinusC = 1.0f - c;
    const float oneMinusS = 1.0f - s;
    const size_t out = (size_t) n * 3 * plane;
    for (int i = threadIdx.x; i < plane; i += blockDim.x) {
        const unsigned char* p = in + (size_t) i * 3;
        float r2 = pinshard_clamp01(c * pinshard_clamp01(((float) p[0] / 255.0f) * b) + oneMinusC * m);
        float g2 = pinshard_clamp01(c * pinshard_clamp01(((float) p[1] / 255.0f) * b) + oneMinusC * m);
        float b2 = pinshard_clamp01(c * pinshard_clamp01(((float) p[2] / 255.0f) * b) + oneMinusC * m);
        float grey = 0.299f * r2 + 0.587f * g2 + 0.114f * b2;
        float r3 = pinshard_clamp01(s * r2 + oneMinusS * grey);
        float g3 = pinshard_clamp01(s * g2 + oneMinusS * grey);
        float b3 = pinshard_clamp01(s * b2 + oneMinusS * grey);
        pinshard_store(dst, out + i, outType, (r3 - mean0) * invStd0);
        pinshard_store(dst, out + plane + i, outType, (g3 - mean1) * invStd1);
        pinshard_store(dst, out + 2 * (size_t) plane + i, outType, (b3 - mean2) * invStd2);
    }
}
