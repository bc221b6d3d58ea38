// The SPH pipeline on the CUDA backend (the same Pipeline as sph_cpu.cpp, over CudaExec).
#include "core/exec_cuda.cuh"
#include "solvers/sph/sph_pipeline.hpp"

namespace fs::sph {

std::unique_ptr<Engine> make_cuda_engine() {
    const CudaStatus& status = cuda_status();
    if (!status.usable) throw CudaError(status.reason);
    return std::make_unique<Pipeline<CudaExec>>();
}

}  // namespace fs::sph
