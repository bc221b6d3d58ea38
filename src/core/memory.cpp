#include "core/memory.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

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

namespace {
// HostMemoryHold's shared state: the holds alive and the memory parked meanwhile.
struct Parked {
    std::mutex mutex;
    int holds = 0;
    std::vector<void*> blocks;
};
Parked& parked() {
    static Parked* p = new Parked;  // never destroyed: buffers may be freed during exit
    return *p;
}
}  // namespace

HostMemoryHold::HostMemoryHold() {
    std::lock_guard lock(parked().mutex);
    ++parked().holds;
}

HostMemoryHold::~HostMemoryHold() {
    std::vector<void*> blocks;
    {
        std::lock_guard lock(parked().mutex);
        if (--parked().holds == 0) blocks.swap(parked().blocks);
    }
    for (void* p : blocks) std::free(p);
}

void mem_free(MemorySpace space, void* p) noexcept {
    if (!p) return;
    if (space == MemorySpace::Device) {
        cuda_detail::device_free(p);
        return;
    }
    {
        std::lock_guard lock(parked().mutex);
        if (parked().holds > 0) {
            try {
                parked().blocks.push_back(p);
                return;
            } catch (...) {
                // no room to park it: freed below (a view of it would read freed memory)
            }
        }
    }
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
