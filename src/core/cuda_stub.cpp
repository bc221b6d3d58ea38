// The device half of memory.hpp for builds without the CUDA backend: every device request fails
// with a message saying why, and cuda_status() reports the backend as not built.
#include "core/memory.hpp"

namespace fs::cuda_detail {

namespace {
[[noreturn]] void not_built() {
    throw CudaError("the CUDA backend is not built (nvcc was not found when the build was configured)");
}
}  // namespace

void* device_alloc(std::size_t) { not_built(); }
void device_free(void*) noexcept {}
void device_copy(void*, const void*, std::size_t, int) { not_built(); }
void device_zero(void*, std::size_t) { not_built(); }

void* event_create() { not_built(); }
void event_destroy(void*) noexcept {}
void event_record(void*) { not_built(); }
void event_wait(void*) { not_built(); }

CudaStatus query_status() {
    CudaStatus s;
    s.reason = "this build has no CUDA backend (nvcc was not found when it was configured)";
    return s;
}

}  // namespace fs::cuda_detail
