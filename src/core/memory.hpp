// Raw allocation and copies in either memory space. Buffer<T> (buffer.hpp) is the typed owner
// that solvers use; these functions are the only place that talks to an allocator.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "core/backend.hpp"

namespace fs {

// A CUDA call failed: the message names the call and the CUDA error.
struct CudaError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void* mem_alloc(MemorySpace space, std::size_t bytes);
void mem_free(MemorySpace space, void* p) noexcept;
void mem_copy(void* dst, MemorySpace dst_space, const void* src, MemorySpace src_space,
              std::size_t bytes);
void mem_zero(void* p, MemorySpace space, std::size_t bytes);

// Device-side halves, implemented in cuda_memory.cu (or cuda_stub.cpp when CUDA is not built).
namespace cuda_detail {
void* device_alloc(std::size_t bytes);
void device_free(void* p) noexcept;
// kind: 0 host->device, 1 device->host, 2 device->device
void device_copy(void* dst, const void* src, std::size_t bytes, int kind);
void device_zero(void* p, std::size_t bytes);
CudaStatus query_status();
}  // namespace cuda_detail

}  // namespace fs
