// Builds without the CUDA backend: asking for the Euler pipeline on CUDA fails with the reason.
#include "core/memory.hpp"
#include "solvers/euler/euler_engine.hpp"

namespace fs::euler {

std::unique_ptr<Engine> make_cuda_engine() { throw CudaError(cuda_status().reason); }

}  // namespace fs::euler
