// Builds without the CUDA backend: asking for the CUDA Poisson solver fails, saying so.
#include "core/memory.hpp"
#include "solvers/vortex/poisson.hpp"

namespace fs::vortex {

std::unique_ptr<FreeSpacePoisson> make_poisson_cuda() {
    throw CudaError("the CUDA backend is not built");
}

}  // namespace fs::vortex
