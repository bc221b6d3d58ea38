// The device half of memory.hpp when the CUDA backend is built. Copies and fills run on the
// calling thread's own stream (nvcc's per-thread default stream, CMakeLists.txt), the stream its
// CudaExec launches on, so they are ordered with its kernels.
#include <cuda_runtime.h>

#include <string>

#include "core/cuda_check.cuh"
#include "core/cuda_fault.hpp"
#include "core/memory.hpp"

namespace fs::cuda_detail {

namespace {

[[noreturn]] void fail(const char* call, std::size_t bytes, cudaError_t err, bool injected = false) {
    throw CudaError(cuda_error_message(
        std::string(call) + " of " + std::to_string(bytes) + " bytes failed", err) +
                    (injected ? kInjected : ""));
}

// A context broken by an injected launch failure fails every call, as a real one would.
void check_context(const char* call, std::size_t bytes) {
    if (context_broken()) fail(call, bytes, cudaErrorLaunchFailure, true);
}

CudaStatus unusable(CudaStatus s, const std::string& why) {
    s.reason = "no usable CUDA GPU: " + why;
    return s;
}

}  // namespace

void* device_alloc(std::size_t bytes) {
    check_context("cudaMalloc", bytes);
    if (fault_now(CudaFaultSite::Alloc)) fail("cudaMalloc", bytes, cudaErrorMemoryAllocation, true);
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (err != cudaSuccess) fail("cudaMalloc", bytes, err);
    return p;
}

void device_free(void* p) noexcept {
    // Nothing to report to from here (destructors call this). Reading the error back clears it,
    // so that the next check_launch does not blame its kernel for a failed free; the failures
    // that matter (a broken context) are sticky and reported by the next checked call anyway.
    if (cudaFree(p) != cudaSuccess) cudaGetLastError();
}

void device_copy(void* dst, const void* src, std::size_t bytes, int kind) {
    static constexpr cudaMemcpyKind kinds[] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                                               cudaMemcpyDeviceToDevice};
    static constexpr const char* names[] = {"cudaMemcpy (host to device)",
                                            "cudaMemcpy (device to host)",
                                            "cudaMemcpy (device to device)"};
    check_context(names[kind], bytes);
    const cudaError_t err = cudaMemcpy(dst, src, bytes, kinds[kind]);
    if (err != cudaSuccess) fail(names[kind], bytes, err);
}

void device_zero(void* p, std::size_t bytes) {
    check_context("cudaMemset", bytes);
    const cudaError_t err = cudaMemset(p, 0, bytes);
    if (err != cudaSuccess) fail("cudaMemset", bytes, err);
}

// Events between the threads' streams (memory.hpp, StreamEvent). cudaStreamPerThread is the
// calling thread's own stream, the one its kernels and copies use.
void* event_create() {
    check_context("cudaEventCreate", 0);
    cudaEvent_t e = nullptr;
    const cudaError_t err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    if (err != cudaSuccess) fail("cudaEventCreate", 0, err);
    return e;
}

void event_destroy(void* event) noexcept {
    if (cudaEventDestroy(static_cast<cudaEvent_t>(event)) != cudaSuccess) cudaGetLastError();
}

void event_record(void* event) {
    check_context("cudaEventRecord", 0);
    const cudaError_t err = cudaEventRecord(static_cast<cudaEvent_t>(event), cudaStreamPerThread);
    if (err != cudaSuccess) fail("cudaEventRecord", 0, err);
}

void event_wait(void* event) {
    check_context("cudaStreamWaitEvent", 0);
    const cudaError_t err = cudaStreamWaitEvent(cudaStreamPerThread, static_cast<cudaEvent_t>(event), 0);
    if (err != cudaSuccess) fail("cudaStreamWaitEvent", 0, err);
}

// Without a driver or a GPU every call below fails with the same non-sticky error; each failure
// is read back so that it does not linger as the "last error" of later calls.
CudaStatus query_status() {
    CudaStatus s;
    s.built = true;
    if (fault_now(CudaFaultSite::Init))
        return unusable(s, cuda_error_message("cudaGetDeviceCount", cudaErrorInitializationError) +
                               kInjected);
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return unusable(s, cuda_error_message("cudaGetDeviceCount", err));
    }
    if (count <= 0) return unusable(s, "the CUDA runtime found no device");
    s.device_count = count;
    err = cudaFree(nullptr);  // creates the context on device 0: the first call that needs a GPU
    if (err != cudaSuccess) {
        cudaGetLastError();
        return unusable(s, cuda_error_message("creating a context on device 0", err));
    }
    cudaDeviceProp prop{};
    err = cudaGetDeviceProperties(&prop, 0);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return unusable(s, cuda_error_message("cudaGetDeviceProperties", err));
    }
    s.device_name = prop.name;
    s.usable = true;
    return s;
}

}  // namespace fs::cuda_detail
