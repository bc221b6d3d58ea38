// The GPU benchmarks' yardstick: a device-to-device copy's bandwidth, counting bytes read plus
// bytes written (the convention of the benchmark figures in docs/gpu.md). Each figure of
// tests/gpu/run.sh is also given as a fraction of this one, measured in the same run.
// It also times a round trip: a fill on the device, then 8 bytes copied back to the host.
//   fs_copy_bandwidth [MiB]      prints {"copy_gbs": ..., "bytes": ..., "median_ms": ..., "round_trip_us": ...}
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
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
    // The price of a round trip inside a step: a small kernel, then its 8-byte result copied
    // back to the host (what a reduction the host must read costs beyond its kernels).
    double* value = nullptr;
    CHECK(cudaMalloc(&value, sizeof(double)));
    std::vector<double> us;
    for (int i = 0; i < 200; ++i) {
        double host = 0;
        const auto t = std::chrono::steady_clock::now();
        CHECK(cudaMemsetAsync(value, 0, sizeof(double)));
        CHECK(cudaMemcpy(&host, value, sizeof(double), cudaMemcpyDeviceToHost));
        us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count());
    }
    std::sort(us.begin(), us.end());
    CHECK(cudaFree(value));
    std::printf("{\"copy_gbs\": %.1f, \"bytes\": %zu, \"median_ms\": %.4f, \"round_trip_us\": %.2f}\n",
                2.0 * bytes / (median * 1e-3) / 1e9, bytes, median, us[us.size() / 2]);
    for (auto& b : buf) CHECK(cudaFree(b));
    return 0;
}
