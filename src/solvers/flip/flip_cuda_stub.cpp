// Builds without the CUDA backend: asking for the FLIP pipeline on CUDA fails with the reason.
#include "core/memory.hpp"
#include "solvers/flip/flip_engine.hpp"

namespace fs::flip {

std::unique_ptr<Engine> make_cuda_engine() { throw CudaError(cuda_status().reason); }

}  // namespace fs::flip
