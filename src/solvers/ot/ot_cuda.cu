// The optimal-transport pipeline on the CUDA backend (the same Pipeline as ot_cpu.cpp, over CudaExec).
#include "core/exec_cuda.cuh"
#include "solvers/ot/ot_pipeline.hpp"

namespace fs::ot {

std::unique_ptr<Engine> make_cuda_engine() {
    const CudaStatus& status = cuda_status();
    if (!status.usable) throw CudaError(status.reason);
    return std::make_unique<Pipeline<CudaExec>>();
}

}  // namespace fs::ot
