// Error checks for CUDA translation units: every runtime call goes through FS_CUDA_CHECK and every
// kernel launch is followed by check_launch, so a failure surfaces as fs::CudaError at the call
// that caused it.
#pragma once

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/cuda_fault.hpp"
#include "core/memory.hpp"

namespace fs {

// "<what>: <error string> (<error name>)"
inline std::string cuda_error_message(const std::string& what, cudaError_t err) {
    return what + ": " + cudaGetErrorString(err) + " (" + cudaGetErrorName(err) + ")";
}

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file,
                                          int line) {
    throw CudaError(cuda_error_message(
        std::string(call) + " failed at " + file + ":" + std::to_string(line), err));
}

// Whether every launch waits for its kernel: debug builds, or FS_CUDA_SYNC set to anything but
// "" or "0" (read once).
inline bool sync_every_launch() {
#ifndef NDEBUG
    return true;
#else
    static const bool on = [] {
        const char* v = std::getenv("FS_CUDA_SYNC");
        return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
    }();
    return on;
#endif
}

// After a kernel launch made at file:line (the executor's caller). A launch error (bad
// configuration, no device) is always reported. Under sync_every_launch() it also waits for the
// kernel, so a fault inside it is blamed on this launch, by source line, rather than on whichever
// later call happens to notice it; otherwise launches stay asynchronous.
inline void check_launch(const char* what, const char* file = nullptr, int line = 0) {
    cudaError_t err = cudaGetLastError();
    const std::string where =
        std::string(what) + (file != nullptr ? std::string(" launched at ") + file + ":" + std::to_string(line) : "");
    if (cuda_detail::fault_now(CudaFaultSite::Launch) || cuda_detail::context_broken()) {
        throw CudaError(cuda_error_message(where + " failed", cudaErrorLaunchFailure) + cuda_detail::kInjected);
    }
    if (err == cudaSuccess && sync_every_launch()) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) throw CudaError(cuda_error_message(where + " failed", err));
}

}  // namespace fs

// Evaluates a call returning cudaError_t; on failure throws fs::CudaError naming the call, the
// place it was made and the error.
#define FS_CUDA_CHECK(call)                                                        \
    do {                                                                           \
        const cudaError_t fs_cuda_check_err_ = (call);                             \
        if (fs_cuda_check_err_ != cudaSuccess)                                     \
            ::fs::throw_cuda_error(fs_cuda_check_err_, #call, __FILE__, __LINE__); \
    } while (0)
