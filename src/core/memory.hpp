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

// While a hold lives, host memory that buffers give back is parked instead of freed, and freed
// when the last hold ends: the Python module's NumPy views of a solver's arrays each hold one,
// so a view kept past a step that grew or replaced an array reads stale numbers, never freed
// memory (docs/python.md). Device memory is freed as always.
class HostMemoryHold {
public:
    HostMemoryHold();
    ~HostMemoryHold();
    HostMemoryHold(const HostMemoryHold&) = delete;
    HostMemoryHold& operator=(const HostMemoryHold&) = delete;
};

// Streams (docs/design.md, "Memory and threads"): with CUDA every host thread queues
// its GPU work on a stream of its own (nvcc's per-thread default stream), so the window's copies
// never wait behind the simulation's kernels. Where one thread's work must follow another's, a
// StreamEvent orders them: record() marks what the calling thread has queued so far, and wait()
// makes what the calling thread queues next start after the last mark. Neither blocks the host.
// Created on first use; without a GPU nothing is ever recorded and wait() does nothing.
class StreamEvent {
public:
    StreamEvent() = default;
    ~StreamEvent();
    StreamEvent(const StreamEvent&) = delete;
    StreamEvent& operator=(const StreamEvent&) = delete;
    void record();
    void wait() const;

private:
    void* event_ = nullptr;
    bool recorded_ = false;
};

// Device-side halves, implemented in cuda_memory.cu (or cuda_stub.cpp when CUDA is not built).
namespace cuda_detail {
void* device_alloc(std::size_t bytes);
void device_free(void* p) noexcept;
// kind: 0 host->device, 1 device->host, 2 device->device
void device_copy(void* dst, const void* src, std::size_t bytes, int kind);
void device_zero(void* p, std::size_t bytes);
CudaStatus query_status();
void* event_create();
void event_destroy(void* event) noexcept;
void event_record(void* event);  // on the calling thread's stream
void event_wait(void* event);    // the calling thread's stream waits for it
}  // namespace cuda_detail

}  // namespace fs
