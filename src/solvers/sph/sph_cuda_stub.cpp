// Builds without the CUDA backend: asking for the SPH pipeline on CUDA fails with the reason.
#include "core/memory.hpp"
#include "solvers/sph/sph_engine.hpp"

namespace fs::sph {

std::unique_ptr<Engine> make_cuda_engine() { throw CudaError(cuda_status().reason); }

}  // namespace fs::sph
