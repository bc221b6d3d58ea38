#include <GL/gl.h>  // cuda_gl_interop.h wants the GL types first
#include <cuda_gl_interop.h>

#include "core/cuda_check.cuh"
#include "render/cuda_gl_interop.hpp"

namespace fs::render {

namespace {
cudaGraphicsResource_t* as_resources(void** r) { return reinterpret_cast<cudaGraphicsResource_t*>(r); }
}  // namespace

CudaGlBuffers::~CudaGlBuffers() { detach(); }

void CudaGlBuffers::attach(unsigned position_buffer, unsigned scalar_buffer) {
    detach();
    cudaGraphicsResource_t* r = as_resources(resources_);
    // Write-discard: CUDA overwrites the contents, OpenGL only reads them.
    FS_CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&r[0], position_buffer, cudaGraphicsRegisterFlagsWriteDiscard));
    const cudaError_t err = cudaGraphicsGLRegisterBuffer(&r[1], scalar_buffer, cudaGraphicsRegisterFlagsWriteDiscard);
    if (err != cudaSuccess) {
        cudaGraphicsUnregisterResource(r[0]);
        r[0] = nullptr;
        throw CudaError(cuda_error_message("cudaGraphicsGLRegisterBuffer (colour values)", err));
    }
    attached_ = true;
}

void CudaGlBuffers::detach() noexcept {
    if (!attached_) return;
    cudaGraphicsResource_t* r = as_resources(resources_);
    for (int k = 0; k < 2; ++k) {
        if (r[k] && cudaGraphicsUnregisterResource(r[k]) != cudaSuccess) cudaGetLastError();
        r[k] = nullptr;
    }
    attached_ = false;
}

void CudaGlBuffers::with_mapped(const std::function<void(float*, float*)>& fill) {
    cudaGraphicsResource_t* r = as_resources(resources_);
    // The window thread's own stream, not the simulation's: the map, the copies (fill) and the
    // unmap are ordered among themselves and wait for no simulation kernel; the copies wait for
    // the frame's packing through its StreamEvent (FramePublisher::copy_device_frame).
    FS_CUDA_CHECK(cudaGraphicsMapResources(2, r, cudaStreamPerThread));
    void* ptr[2] = {nullptr, nullptr};
    std::size_t bytes = 0;
    cudaError_t err = cudaGraphicsResourceGetMappedPointer(&ptr[0], &bytes, r[0]);
    if (err == cudaSuccess) err = cudaGraphicsResourceGetMappedPointer(&ptr[1], &bytes, r[1]);
    if (err != cudaSuccess) {
        cudaGraphicsUnmapResources(2, r, cudaStreamPerThread);
        throw CudaError(cuda_error_message("cudaGraphicsResourceGetMappedPointer", err));
    }
    try {
        fill(static_cast<float*>(ptr[0]), static_cast<float*>(ptr[1]));
    } catch (...) {
        cudaGraphicsUnmapResources(2, r, cudaStreamPerThread);
        throw;
    }
    FS_CUDA_CHECK(cudaGraphicsUnmapResources(2, r, cudaStreamPerThread));
}

}  // namespace fs::render
