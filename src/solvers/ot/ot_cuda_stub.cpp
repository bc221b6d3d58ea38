// Builds without the CUDA backend: asking for the optimal-transport pipeline on CUDA fails with the reason.
#include "core/memory.hpp"
#include "solvers/ot/ot_engine.hpp"

namespace fs::ot {

std::unique_ptr<Engine> make_cuda_engine() { throw CudaError(cuda_status().reason); }

}  // namespace fs::ot
