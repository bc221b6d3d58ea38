// The CUDA executor: the twin of CpuExec (exec_cpu.hpp), with the same members and semantics.
// Loops are grid-stride kernels running the same FS_LAMBDA bodies; the collective operations are
// CUB's device-wide algorithms.
//
// Everything runs on the calling thread's own stream (nvcc's per-thread default stream, set for
// every .cu file in CMakeLists.txt), the stream Buffer's copies use too (memory.hpp), so a
// thread's kernels, collectives and copies are ordered without explicit synchronisation, and two
// threads' work (the simulation and the window) is not ordered at all unless a StreamEvent says
// so. cuFFT is told the same stream (poisson_cufft.cu). CUB's
// temporary storage comes from one device scratch buffer that only grows: once warm, no call
// allocates.
//
// Determinism: integer results are exact. CUB's float reductions are run-to-run deterministic on
// one GPU model, but not equal bit for bit to the CPU executor's (another grouping of the sums).
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "core/cuda_check.cuh"

namespace fs {

namespace cuda_exec_detail {

// f(i) for every i in [0, n), whatever the grid size. The index is unsigned: i < n <= 2^31 - 1
// and the stride is below 2^31, so i + stride never wraps where an int would overflow.
template <class F>
__global__ void for_each_index(int n, F f) {
    const unsigned stride = blockDim.x * gridDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < static_cast<unsigned>(n);
         i += stride)
        f(static_cast<int>(i));
}

// The grid-stride loops launch at most this many blocks per multiprocessor (several waves of
// resident blocks; more would only add block scheduling, the loop covers the rest of n).
constexpr int kBlocksPerSm = 32;

// Most blocks per launch on the current device, queried on first use. Only called by launches,
// so merely creating a CudaExec touches no GPU.
inline int max_blocks() {
    static const int cap = [] {
        int device = 0, sms = 0;
        FS_CUDA_CHECK(cudaGetDevice(&device));
        FS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        return sms * kBlocksPerSm;
    }();
    return cap;
}

// cudaMalloc aligns to 256 bytes; regions carved out of the scratch buffer keep that alignment.
constexpr std::size_t kAlign = 256;
constexpr std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

}  // namespace cuda_exec_detail

class CudaExec {
public:
    static constexpr Backend backend = Backend::Cuda;
    static constexpr MemorySpace space = MemorySpace::Device;
    static constexpr int kThreads = 256;  // per block

    // f(i) for i in [0, n); the iterations are independent.
    // (file and line default to the caller's: a failed launch names the kernel body's place.)
    template <class F>
    void parallel_for(int n, const F& f, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        if (n <= 0) return;
        const int blocks =
            std::min(n / kThreads + (n % kThreads != 0), cuda_exec_detail::max_blocks());
        cuda_exec_detail::for_each_index<<<blocks, kThreads>>>(n, f);
        check_launch("parallel_for", file, line);
    }

    // parallel_for for items that are each a large piece of work (CpuExec runs few of them in
    // parallel, where its parallel_for would run them serially); on the GPU, the same launch.
    template <class F>
    void parallel_tasks(int n, const F& f, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        parallel_for(n, f, file, line);
    }

    // CpuExec's parallel_slices (contiguous slices a thread): on the GPU, a thread an item.
    template <class F>
    void parallel_slices(int n, int /*least*/, const F& f, const char* file = __builtin_FILE(),
                         int line = __builtin_LINE()) const {
        parallel_for(n, f, file, line);
    }

    // CpuExec's parallel_chunks (costly items in chunks, so that a few still share the CPU's
    // threads): on the GPU, a thread an item.
    template <class F>
    void parallel_chunks(int n, int /*chunk*/, const F& f, const char* file = __builtin_FILE(),
                         int line = __builtin_LINE()) const {
        parallel_for(n, f, file, line);
    }

    // op(init, op(map(0), ..., map(n-1))) in CUB's grouping; op must be associative and
    // commutative. The result is copied back to the host (this waits for the stream).
    template <class T, class Map, class Op>
    T transform_reduce(int n, T init, const Map& map, const Op& op, const char* file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
        static_assert(std::is_trivially_copyable_v<T>, "the result is copied back with memcpy");
        if (n <= 0) return init;
        const thrust::counting_iterator<int> first(0);
        std::size_t temp_bytes = 0;
        FS_CUDA_CHECK(cub::DeviceReduce::TransformReduce(
            nullptr, temp_bytes, first, static_cast<T*>(nullptr), n, op, map, init));
        // Layout: [result | CUB temporaries].
        const std::size_t result_bytes = cuda_exec_detail::aligned(sizeof(T));
        std::byte* scratch = reserve_scratch(result_bytes + temp_bytes);
        T* result = reinterpret_cast<T*>(scratch);
        FS_CUDA_CHECK(cub::DeviceReduce::TransformReduce(scratch + result_bytes, temp_bytes, first,
                                                         result, n, op, map, init));
        check_launch("transform_reduce", file, line);
        T host = init;
        mem_copy(&host, MemorySpace::Host, result, MemorySpace::Device, sizeof(T));
        return host;
    }

    // The same reduction, its result left on the GPU at `out` (device memory): no round trip,
    // and the stream goes on; a later kernel reads it.
    template <class T, class Map, class Op>
    void transform_reduce_into(int n, T init, const Map& map, const Op& op, T* out,
                               const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        if (n <= 0) {
            mem_copy(out, space, &init, MemorySpace::Host, sizeof(T));
            return;
        }
        const thrust::counting_iterator<int> first(0);
        std::size_t temp_bytes = 0;
        FS_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, first, out, n, op, map, init));
        FS_CUDA_CHECK(cub::DeviceReduce::TransformReduce(reserve_scratch(temp_bytes), temp_bytes, first, out, n,
                                                         op, map, init));
        check_launch("transform_reduce_into", file, line);
    }

    // out[i] = in[0] + ... + in[i-1]; out may alias in (CUB scans in place when they are equal).
    template <class T>
    void exclusive_scan(View<const T> in, View<T> out) {
        const int n = in.size;
        if (n <= 0) return;
        std::size_t temp_bytes = 0;
        FS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in.data, out.data, n));
        FS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(reserve_scratch(temp_bytes), temp_bytes,
                                                    in.data, out.data, n));
        check_launch("exclusive_scan");
    }

    // Stable sort of (keys, values) by key: CUB's LSD radix sort for unsigned integer keys.
    template <class K, class V>
    void sort_by_key(View<K> keys, View<V> values) {
        static_assert(std::is_unsigned_v<K>, "sort_by_key sorts unsigned integer keys");
        const int n = keys.size;
        if (n <= 0) return;
        // The double-buffer form needs no separate output arrays: the alternates come from the
        // scratch buffer and CUB ping-pongs between the two. Layout: [keys' | values' | temp].
        const std::size_t keys_bytes = cuda_exec_detail::aligned(n * sizeof(K));
        const std::size_t values_bytes = cuda_exec_detail::aligned(n * sizeof(V));
        cub::DoubleBuffer<K> k(keys.data, nullptr);
        cub::DoubleBuffer<V> v(values.data, nullptr);
        std::size_t temp_bytes = 0;
        FS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k, v, n));
        std::byte* scratch = reserve_scratch(keys_bytes + values_bytes + temp_bytes);
        k = cub::DoubleBuffer<K>(keys.data, reinterpret_cast<K*>(scratch));
        v = cub::DoubleBuffer<V>(values.data, reinterpret_cast<V*>(scratch + keys_bytes));
        FS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch + keys_bytes + values_bytes,
                                                      temp_bytes, k, v, n));
        check_launch("sort_by_key");
        // CUB leaves the result in whichever buffer the last pass wrote.
        if (k.Current() != keys.data) {
            mem_copy(keys.data, space, k.Current(), space, n * sizeof(K));
            mem_copy(values.data, space, v.Current(), space, n * sizeof(V));
        }
    }

    // A fixed sequence of launches, recorded once and replayed as one CUDA graph: for loops of
    // many small kernels whose launch overhead outweighs their work. The multigrid V-cycle is
    // about 90 launches, and at 128^3 on an H100 a CG iteration took 0.44 ms, mostly launching.
    class Graph {
    public:
        Graph() = default;
        Graph(const Graph&) = delete;
        Graph& operator=(const Graph&) = delete;
        ~Graph() {
            if (exec_ && cudaGraphExecDestroy(exec_) != cudaSuccess) cudaGetLastError();
        }

    private:
        friend class CudaExec;
        cudaGraphExec_t exec_ = nullptr;
    };

    // Runs body()'s launches: recorded into `graph` first when `record` is set (or nothing is
    // recorded yet), else replayed from it. body() may only launch kernels through this
    // executor (no read-back, copy or allocation), and whatever its kernels capture (views,
    // counts, scalars) must be what it was at the recording. Debugging with every launch
    // synchronised (sync_every_launch) records nothing: body() runs, each launch checked.
    template <class F>
    void replay(Graph& graph, bool record, F&& body) {
        if (sync_every_launch()) {
            body();
            return;
        }
        if (record || !graph.exec_) {
            FS_CUDA_CHECK(cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeThreadLocal));
            try {
                body();
            } catch (...) {
                cudaGraph_t dropped = nullptr;
                if (cudaStreamEndCapture(cudaStreamPerThread, &dropped) == cudaSuccess && dropped)
                    cudaGraphDestroy(dropped);
                cudaGetLastError();
                throw;
            }
            cudaGraph_t recorded = nullptr;
            FS_CUDA_CHECK(cudaStreamEndCapture(cudaStreamPerThread, &recorded));
            // The same launches with other arguments (the next solve's cell lists) update the
            // executable graph in place, cheaper than instantiating a new one.
            bool updated = false;
            if (graph.exec_) {
                cudaGraphExecUpdateResultInfo info;
                updated = cudaGraphExecUpdate(graph.exec_, recorded, &info) == cudaSuccess;
                if (!updated) {
                    cudaGetLastError();
                    cudaGraphExecDestroy(graph.exec_);
                    graph.exec_ = nullptr;
                }
            }
            const cudaError_t err = updated ? cudaSuccess : cudaGraphInstantiate(&graph.exec_, recorded, 0);
            cudaGraphDestroy(recorded);
            if (err != cudaSuccess) graph.exec_ = nullptr;
            FS_CUDA_CHECK(err);
        }
        FS_CUDA_CHECK(cudaGraphLaunch(graph.exec_, cudaStreamPerThread));
    }

    void synchronize() const { FS_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread)); }

private:
    // At least `bytes` of device scratch. Never null: CUB reads a null temporary pointer as a size
    // query. Shrinking to 0 first means a growth copies nothing stale.
    std::byte* reserve_scratch(std::size_t bytes) {
        scratch_.resize(0);
        scratch_.resize(std::max<std::size_t>(bytes, 1));
        return scratch_.data();
    }

    Buffer<std::byte> scratch_{MemorySpace::Device};
};

}  // namespace fs
