// Runs the real augment.cu kernel source on the CPU so its arithmetic, indexing and block reduction can be checked
// against the Java reference on machines without a GPU (KernelSourceOnCpuTest). Each block runs as THREADS real
// threads: __syncthreads is a barrier, __shared__ variables are shared statics, and __shfl_down_sync exchanges
// values through a shared array between two barriers, as a warp would.
// Usage: kernel-on-cpu THREADS N H W OUT_TYPE MEAN0 MEAN1 MEAN2 INV0 INV1 INV2 PIXELS PARAMS OUTPUT  (floats as %a)
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

struct PinshardDim3 { unsigned int x, y, z; };
static thread_local PinshardDim3 threadIdx;
static thread_local PinshardDim3 blockIdx;
static PinshardDim3 blockDim;
static std::unique_ptr<std::barrier<>> pinshardBarrier;
static unsigned long long pinshardLanes[1024];

#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(x)
#define __shared__ static

static inline void __syncthreads() { pinshardBarrier->arrive_and_wait(); }

static inline unsigned long long __shfl_down_sync(unsigned int, unsigned long long value, int offset) {
    unsigned int t = threadIdx.x;
    pinshardLanes[t] = value;
    pinshardBarrier->arrive_and_wait();
    unsigned long long result = ((t & 31u) + (unsigned int) offset < 32u) ? pinshardLanes[t + offset] : value;
    pinshardBarrier->arrive_and_wait();
    return result;
}

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
    if (argc != 15) { std::fprintf(stderr, "expected 14 arguments\n"); return 2; }
    int threads = std::atoi(argv[1]);
    int n = std::atoi(argv[2]), h = std::atoi(argv[3]), w = std::atoi(argv[4]), outType = std::atoi(argv[5]);
    if (threads < 1 || threads > 1024 || (threads > 1 && threads % 32 != 0)) {
        std::fprintf(stderr, "THREADS must be 1 or a multiple of 32 up to 1024\n");
        return 2;
    }
    float f[6];
    for (int i = 0; i < 6; i++) f[i] = std::strtof(argv[6 + i], nullptr);
    std::vector<char> pixels = readAll(argv[12]);
    std::vector<char> params = readAll(argv[13]);
    std::vector<char> out((size_t) n * 3 * h * w * (outType == 0 ? 4 : 2));
    blockDim.x = (unsigned int) threads;
    pinshardBarrier = std::make_unique<std::barrier<>>(threads);
    for (int b = 0; b < n; b++) {
        std::vector<std::thread> block;
        for (int t = 0; t < threads; t++) {
            block.emplace_back([&, t, b] {
                threadIdx.x = (unsigned int) t;
                blockIdx.x = (unsigned int) b;
                pinshard_augment((const unsigned char*) pixels.data(), (const float*) params.data(), out.data(), h, w,
                                 outType, f[0], f[1], f[2], f[3], f[4], f[5]);
            });
        }
        for (std::thread& t : block) t.join();
    }
    FILE* o = std::fopen(argv[14], "wb");
    if (!o || std::fwrite(out.data(), 1, out.size(), o) != out.size()) { std::perror(argv[14]); return 3; }
    std::fclose(o);
    return 0;
}
