// particle_surface.hpp on the CUDA backend: the same kernel bodies as the CPU's, run by CudaExec.
#include "core/exec_cuda.cuh"
#include "surface/particle_surface_kernels.hpp"

namespace fs::surface_detail {

SurfaceMesh particle_surface_cuda(const FieldView& positions, const double lo[3], const double hi[3],
                                  const SurfaceSettings& settings, const std::vector<CarriedField>& carried) {
    // One executor and one set of buffers per thread that meshes, kept for the program's life
    // (as frame_pack.cu's: building them a frame would allocate and free every time, and
    // cudaFree waits for the whole device). Deliberately never destroyed.
    thread_local CudaExec* exec = new CudaExec;
    thread_local ParticleSurface<CudaExec>* surface = new ParticleSurface<CudaExec>;
    return surface->build(*exec, positions, lo, hi, settings, carried);
}

}  // namespace fs::surface_detail
