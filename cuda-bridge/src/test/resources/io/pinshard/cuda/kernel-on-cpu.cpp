// Runs the real augment.cu kernel source on the CPU, one "thread" per block, so its arithmetic and indexing can be
// checked against the Java reference on machines without a GPU (KernelSourceOnCpuTest). With one thread per block
// the warp shuffle only ever adds nothing, and __syncthreads has nothing to wait for.
// Usage: kernel-on-cpu N H W OUT_TYPE MEAN0 MEAN1 MEAN2 INV0 INV1 INV2 PIXELS PARAMS OUTPUT   (floats in %a hex form)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct PinshardDim3 { unsigned int x, y, z; };
static PinshardDim3 blockIdx, threadIdx, blockDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(x)
#define __shared__ static
static inline void __syncthreads() {}
static inline unsigned long long __shfl_down_sync(unsigned int, unsigned long long, int) { return 0ull; }
static inline unsigned int __float_as_uint(float f) { unsigned int u; std::memcpy(&u, &f, sizeof u); return u; }

#include "augment.cu"

static std::vector<char> readAll(const char* path) {
    FILE* f = std::fopen(path, "rb");
    if (!f) { std::perror(path); std::exit(3); }
    std::vector<char> data;
    char buffer[65536];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) data.insert(data.end(), buffer, buffer + n);
    std::fclose(f);
    return data;
}

int main(int argc, char** argv) {
    if (argc != 14) { std::fprintf(stderr, "expected 13 arguments\n"); return 2; }
    int n = std::atoi(argv[1]), h = std::atoi(argv[2]), w = std::atoi(argv[3]), outType = std::atoi(argv[4]);
    float f[6];
    for (int i = 0; i < 6; i++) f[i] = std::strtof(argv[5 + i], nullptr);
    std::vector<char> pixels = readAll(argv[11]);
    std::vector<char> params = readAll(argv[12]);
    size_t outBytes = (size_t) n * 3 * h * w * (outType == 0 ? 4 : 2);
    std::vector<char> out(outBytes);
    blockDim.x = 1;
    threadIdx.x = 0;
    for (int b = 0; b < n; b++) {
        blockIdx.x = b;
        pinshard_augment((const unsigned char*) pixels.data(), (const float*) params.data(), out.data(), h, w, outType,
                         f[0], f[1], f[2], f[3], f[4], f[5]);
    }
    FILE* o = std::fopen(argv[13], "wb");
    if (!o || std::fwrite(out.data(), 1, out.size(), o) != out.size()) { std::perror(argv[13]); return 3; }
    std::fclose(o);
    return 0;
}
