// CudaGlBuffers in builds without the CUDA backend: there is nothing to attach to.
#include "core/memory.hpp"
#include "render/cuda_gl_interop.hpp"

namespace fs::render {

CudaGlBuffers::~CudaGlBuffers() = default;

void CudaGlBuffers::attach(unsigned, unsigned) {
    throw CudaError("CUDA-OpenGL interop: this build has no CUDA backend");
}

void CudaGlBuffers::detach() noexcept {}

void CudaGlBuffers::with_mapped(const std::function<void(float*, float*)>&) {
    throw CudaError("CUDA-OpenGL interop: this build has no CUDA backend");
}

}  // namespace fs::render
