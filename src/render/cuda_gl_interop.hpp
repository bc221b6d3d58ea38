// CUDA-OpenGL interop for the particle buffers: the renderer's two vertex buffers are registered
// with CUDA once (again after they grow) and mapped each frame, so that the simulation's packed
// particles are copied into them on the GPU, never through host memory.
#pragma once

#include <functional>

namespace fs::render {

class CudaGlBuffers {
public:
    CudaGlBuffers() = default;
    ~CudaGlBuffers();
    CudaGlBuffers(const CudaGlBuffers&) = delete;
    CudaGlBuffers& operator=(const CudaGlBuffers&) = delete;

    // Registers the GL buffers (names from ParticleRenderer) for CUDA writes; needs the GL context
    // current. Throws fs::CudaError naming the CUDA error (the GL context is not on the CUDA
    // device, or the backend is not built).
    void attach(unsigned position_buffer, unsigned scalar_buffer);
    // Unregisters them: before the buffers are reallocated or deleted.
    void detach() noexcept;
    bool attached() const { return attached_; }
    // Maps both buffers, calls fill(xyz, scalar) with their device addresses, unmaps them (which
    // orders OpenGL's draw after the copies). Throws fs::CudaError.
    void with_mapped(const std::function<void(float* xyz, float* scalar)>& fill);

private:
    void* resources_[2] = {nullptr, nullptr};  // cudaGraphicsResource_t
    bool attached_ = false;
};

}  // namespace fs::render
