// Builds without the CUDA backend: asking for the vortex pipeline on CUDA fails with the reason.
#include "core/memory.hpp"
#include "solvers/vortex/vortex_engine.hpp"

namespace fs::vortex {

std::unique_ptr<Engine> make_cuda_engine() { throw CudaError(cuda_status().reason); }

}  // namespace fs::vortex
