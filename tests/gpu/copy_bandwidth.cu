// The GPU benchmarks' yardstick: a device-to-device copy's bandwidth, counting bytes read plus
// bytes written (the convention of the benchmark figures in the README). Each figure of
// tests/gpu/run.sh is also given as a fraction of this one, measured in the same run.
//   fs_copy_bandwidth [MiB]      prints {"copy_gbs": ..., "bytes": ..., "median_ms": ...}
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        const cudaError_t e_ = (x);                                                                \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "fs_copy_bandwidth: %s: %s\n", #x, cudaGetErrorString(e_));       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char** argv) {
    const size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1024;
    const size_t bytes = mib << 20;
    // Two pairs of buffers, alternated, so no copy finds its source in the L2 cache.
    char* buf[4];
    for (auto& b : buf) CHECK(cudaMalloc(&b, bytes));
    for (auto& b : buf) CHECK(cudaMemset(b, 0x5a, bytes));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    for (int i = 0; i < 3; ++i) CHECK(cudaMemcpy(buf[1], buf[0], bytes, cudaMemcpyDeviceToDevice));
    std::vector<float> ms;
    for (int i = 0; i < 20; ++i) {
        const int k = 2 * (i % 2);
        CHECK(cudaEventRecord(t0));
        CHECK(cudaMemcpyAsync(buf[k + 1], buf[k], bytes, cudaMemcpyDeviceToDevice));
        CHECK(cudaEventRecord(t1));
        CHECK(cudaEventSynchronize(t1));
        float m = 0;
        CHECK(cudaEventElapsedTime(&m, t0, t1));
        ms.push_back(m);
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2];
    std::printf("{\"copy_gbs\": %.1f, \"bytes\": %zu, \"median_ms\": %.4f}\n",
                2.0 * bytes / (median * 1e-3) / 1e9, bytes, median);
    for (auto& b : buf) CHECK(cudaFree(b));
    return 0;
}
