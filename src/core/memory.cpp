#include "core/memory.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace fs {

namespace {
constexpr std::size_t kHostAlignment = 64;  // a cache line; keeps SoA arrays vector-friendly
}

void* mem_alloc(MemorySpace space, std::size_t bytes) {
    if (bytes == 0) return nullptr;
    if (space == MemorySpace::Device) return cuda_detail::device_alloc(bytes);
    const std::size_t rounded = (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
    void* p = std::aligned_alloc(kHostAlignment, rounded);
    if (!p) throw std::bad_alloc();
    return p;
}

void mem_free(MemorySpace space, void* p) noexcept {
    if (!p) return;
    if (space == MemorySpace::Device)
        cuda_detail::device_free(p);
    else
        std::free(p);
}

void mem_copy(void* dst, MemorySpace dst_space, const void* src, MemorySpace src_space,
              std::size_t bytes) {
    if (bytes == 0) return;
    if (dst_space == MemorySpace::Host && src_space == MemorySpace::Host) {
        std::memcpy(dst, src, bytes);
        return;
    }
    const int kind = dst_space == MemorySpace::Device ? (src_space == MemorySpace::Host ? 0 : 2) : 1;
    cuda_detail::device_copy(dst, src, bytes, kind);
}

void mem_zero(void* p, MemorySpace space, std::size_t bytes) {
    if (bytes == 0) return;
    if (space == MemorySpace::Device)
        cuda_detail::device_zero(p, bytes);
    else
        std::memset(p, 0, bytes);
}

const CudaStatus& cuda_status() {
    static const CudaStatus status = cuda_detail::query_status();
    return status;
}

StreamEvent::~StreamEvent() {
    if (event_) cuda_detail::event_destroy(event_);
}

void StreamEvent::record() {
    if (!event_) event_ = cuda_detail::event_create();
    cuda_detail::event_record(event_);
    recorded_ = true;
}

void StreamEvent::wait() const {
    if (recorded_) cuda_detail::event_wait(event_);
}

}  // namespace fs
