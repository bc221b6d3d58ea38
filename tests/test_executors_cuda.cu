// CudaExec against CpuExec: the same FS_LAMBDA bodies run through both executors; integer
// results must match exactly, double sums to a relative 1e-12 (CUB groups the sums differently).
// Without a usable GPU the comparisons are skipped and only the no-GPU behaviour is checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <future>
#include <thread>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "random_inputs.hpp"
#include "core/exec_cpu.hpp"
#include "core/exec_cuda.cuh"
#include "core/memory.hpp"

namespace {

using fs::Buffer;
using fs::CpuExec;
using fs::CudaExec;
using fs::View;

const int kSizes[] = {0, 1, 1000, (1 << 20) + 17};

using fs_test::random_doubles;
using fs_test::random_ints;

// A copy of host data in the executor's memory space.
template <class Exec, class T>
Buffer<T> put(const std::vector<T>& v) {
    Buffer<T> b(Exec::space);
    b.copy_from_host(v);
    return b;
}

// The helpers below are written once over the executor, as the solvers are. They are free
// functions because nvcc rejects extended lambdas inside a test body (a private member function).

template <class Exec>
std::vector<int> affine(Exec& exec, int n) {
    Buffer<int> out(Exec::space, static_cast<std::size_t>(n));
    const View<int> o = out.view();
    exec.parallel_for(n, FS_LAMBDA(int i) { o[i] = 3 * i + 1; });
    return out.to_vector();
}

template <class Exec>
double sum_of(Exec& exec, const std::vector<double>& x) {
    const Buffer<double> buf = put<Exec>(x);
    const View<const double> v = buf.view();
    return exec.transform_reduce(
        v.size, 0.0, FS_LAMBDA(int i) { return v[i]; },
        FS_LAMBDA(double a, double b) { return a + b; });
}

template <class Exec>
int largest(Exec& exec, const std::vector<int>& x) {
    const Buffer<int> buf = put<Exec>(x);
    const View<const int> v = buf.view();
    return exec.transform_reduce(
        v.size, INT_MIN, FS_LAMBDA(int i) { return v[i]; },
        FS_LAMBDA(int a, int b) { return fs::max_of(a, b); });
}

// Several fields combined by one associative, commutative op.
struct Stats {
    double sum;
    double max;
    long long odd;  // how many odd keys
    int min_key;
};

constexpr Stats kStatsInit{0.0, -1.0, 0, INT_MAX};

struct StatsOp {
    FS_HDI Stats operator()(const Stats& a, const Stats& b) const {
        return {a.sum + b.sum, fs::max_of(a.max, b.max), a.odd + b.odd,
                fs::min_of(a.min_key, b.min_key)};
    }
};

template <class Exec>
Stats stats_of(Exec& exec, const std::vector<double>& x, const std::vector<int>& key) {
    const Buffer<double> xbuf = put<Exec>(x);
    const Buffer<int> kbuf = put<Exec>(key);
    const View<const double> xv = xbuf.view();
    const View<const int> kv = kbuf.view();
    return exec.transform_reduce(
        xv.size, kStatsInit, FS_LAMBDA(int i) { return Stats{xv[i], xv[i], kv[i] & 1, kv[i]}; },
        StatsOp{});
}

template <class Exec, class T>
std::vector<T> scan_of(Exec& exec, const std::vector<T>& in) {
    const Buffer<T> inbuf = put<Exec>(in);
    Buffer<T> out(Exec::space, in.size());
    exec.exclusive_scan(inbuf.cview(), out.view());
    return out.to_vector();
}

template <class Exec>
std::vector<int> scan_in_place(Exec& exec, const std::vector<int>& in) {
    Buffer<int> data = put<Exec>(in);
    exec.exclusive_scan(data.cview(), data.view());
    return data.to_vector();
}

template <class Exec>
std::pair<std::vector<std::uint32_t>, std::vector<int>> sorted_by_key(
    Exec& exec, const std::vector<std::uint32_t>& keys) {
    std::vector<int> index(keys.size());
    std::iota(index.begin(), index.end(), 0);
    Buffer<std::uint32_t> k = put<Exec>(keys);
    Buffer<int> v = put<Exec>(index);
    exec.sort_by_key(k.view(), v.view());
    return {k.to_vector(), v.to_vector()};
}

class CudaExecTest : public ::testing::Test {
protected:
    void SetUp() override {
        // The reason already reads "no usable CUDA GPU: ...".
        if (!fs::cuda_status().usable) GTEST_SKIP() << fs::cuda_status().reason;
    }

    CpuExec cpu_;
    CudaExec gpu_;
};

TEST_F(CudaExecTest, ParallelFor) {
    for (int n : kSizes) EXPECT_EQ(affine(gpu_, n), affine(cpu_, n)) << "n=" << n;
}

TEST_F(CudaExecTest, TransformReduceSum) {
    for (int n : kSizes) {
        const std::vector<double> x = random_doubles(n, 11 + n);
        const double expected = sum_of(cpu_, x);
        EXPECT_NEAR(sum_of(gpu_, x), expected, 1e-12 * expected) << "n=" << n;
    }
}

TEST_F(CudaExecTest, TransformReduceMax) {
    for (int n : kSizes) {
        const std::vector<int> x = random_ints<int>(n, -1'000'000'000, 1'000'000'000, 12 + n);
        EXPECT_EQ(largest(gpu_, x), largest(cpu_, x)) << "n=" << n;
    }
}

TEST_F(CudaExecTest, TransformReduceStruct) {
    for (int n : kSizes) {
        const std::vector<double> x = random_doubles(n, 13 + n);
        const std::vector<int> key = random_ints<int>(n, -50'000, 50'000, 14 + n);
        const Stats expected = stats_of(cpu_, x, key);
        const Stats got = stats_of(gpu_, x, key);
        EXPECT_NEAR(got.sum, expected.sum, 1e-12 * expected.sum) << "n=" << n;
        EXPECT_EQ(got.max, expected.max) << "n=" << n;
        EXPECT_EQ(got.odd, expected.odd) << "n=" << n;
        EXPECT_EQ(got.min_key, expected.min_key) << "n=" << n;
    }
}

TEST_F(CudaExecTest, ExclusiveScanInt) {
    for (int n : kSizes) {
        const std::vector<int> in = random_ints<int>(n, -1000, 1000, 21 + n);
        EXPECT_EQ(scan_of(gpu_, in), scan_of(cpu_, in)) << "n=" << n;
    }
}

TEST_F(CudaExecTest, ExclusiveScanLongLong) {
    for (int n : kSizes) {
        const std::vector<long long> in =
            random_ints<long long>(n, -1'000'000'000'000, 1'000'000'000'000, 22 + n);
        EXPECT_EQ(scan_of(gpu_, in), scan_of(cpu_, in)) << "n=" << n;
    }
}

TEST_F(CudaExecTest, ExclusiveScanInPlace) {
    for (int n : kSizes) {
        const std::vector<int> in = random_ints<int>(n, 0, 1000, 23 + n);
        EXPECT_EQ(scan_in_place(gpu_, in), scan_in_place(cpu_, in)) << "n=" << n;
    }
}

// Both sorts are stable, so with values = original index the outputs are identical: keys with
// many duplicates (few distinct values) and full-range keys (every radix digit in use).
TEST_F(CudaExecTest, SortByKeyIsStable) {
    for (std::uint32_t max_key : {999u, UINT32_MAX}) {
        for (int n : kSizes) {
            const auto keys = random_ints<std::uint32_t>(n, 0, max_key, 31 + n + max_key);
            EXPECT_EQ(sorted_by_key(gpu_, keys), sorted_by_key(cpu_, keys))
                << "n=" << n << " max_key=" << max_key;
        }
    }
}

// The same executor called again with sizes it has seen reuses its scratch (and stays correct
// when a smaller call follows a larger one).
TEST_F(CudaExecTest, RepeatedCallsReuseScratch) {
    const std::vector<int> big = random_ints<int>((1 << 20) + 17, -1000, 1000, 51);
    const std::vector<int> small = random_ints<int>(1000, -1000, 1000, 52);
    for (int round = 0; round < 3; ++round) {
        EXPECT_EQ(scan_of(gpu_, big), scan_of(cpu_, big)) << "round " << round;
        EXPECT_EQ(scan_of(gpu_, small), scan_of(cpu_, small)) << "round " << round;
    }
}

// Spins for about `cycles` clock cycles, then writes `value` everywhere: a kernel long enough
// to still be running while another thread's work comes and goes.
__global__ void spin_then_fill(long long cycles, float* out, int n, float value) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = value;
}

// Streams (docs/design.md, "Memory and threads"): two host threads queue on streams
// of their own, so one thread's copy does not wait for the other's kernel; a StreamEvent makes
// it wait where it must (a frame's copy after its packing).
TEST_F(CudaExecTest, EachThreadHasItsOwnStreamAndAnEventOrdersThem) {
    int rate_khz = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&rate_khz, cudaDevAttrClockRate, 0), cudaSuccess);
    const long long two_seconds = 2000LL * rate_khz;
    const int n = 1 << 20;
    Buffer<float> packed(fs::MemorySpace::Device, n), frame(fs::MemorySpace::Device, n);
    Buffer<float> small_a(fs::MemorySpace::Device, 16), small_b(fs::MemorySpace::Device, 16);
    packed.fill_zero();
    frame.fill_zero();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    fs::StreamEvent done;
    cudaEvent_t finished = nullptr;
    ASSERT_EQ(cudaEventCreate(&finished), cudaSuccess);
    // The "simulation" thread queues a long kernel, marks it, and stays (with its stream) until
    // this thread is through.
    std::promise<void> queued, through;
    std::thread simulation([&] {
        spin_then_fill<<<64, 256>>>(two_seconds, packed.data(), n, 7.0f);
        done.record();
        cudaEventRecord(finished, cudaStreamPerThread);
        queued.set_value();
        through.get_future().wait();
    });
    queued.get_future().wait();
    // This thread's own copy and wait return while that kernel still runs (on the legacy
    // default stream they would have waited for it).
    fs::mem_copy(small_b.data(), fs::MemorySpace::Device, small_a.data(), fs::MemorySpace::Device, 16 * sizeof(float));
    EXPECT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
    EXPECT_EQ(cudaEventQuery(finished), cudaErrorNotReady) << "this thread's stream waited for the other's kernel";
    // Ordered after the kernel by the event, the copy sees what it wrote.
    done.wait();
    fs::mem_copy(frame.data(), fs::MemorySpace::Device, packed.data(), fs::MemorySpace::Device, n * sizeof(float));
    const std::vector<float> out = frame.to_vector();
    EXPECT_EQ(std::count(out.begin(), out.end(), 7.0f), n);
    through.set_value();
    simulation.join();
    cudaEventDestroy(finished);
}

// Without a GPU the CUDA side reports errors as exceptions, and empty work needs no GPU.
TEST(CudaWithoutGpu, FailsWithCudaErrorNotACrash) {
    const fs::CudaStatus& status = fs::cuda_status();
    if (status.usable) GTEST_SKIP() << "a GPU is usable: " << status.device_name;
    EXPECT_TRUE(status.built);
    EXPECT_NE(status.reason.find("no usable CUDA GPU: "), std::string::npos) << status.reason;
    EXPECT_EQ(status.reason.find('\n'), std::string::npos) << status.reason;
    EXPECT_THROW(Buffer<int>(fs::MemorySpace::Device, 16), fs::CudaError);

    CudaExec gpu;
    EXPECT_TRUE(affine(gpu, 0).empty());
    EXPECT_EQ(sum_of(gpu, {}), 0.0);
    EXPECT_TRUE(scan_of(gpu, std::vector<long long>{}).empty());
    EXPECT_TRUE(sorted_by_key(gpu, {}).first.empty());
}

}  // namespace
