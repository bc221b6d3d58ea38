// The vortex pipeline on the CPU backend.
#include "core/exec_cpu.hpp"
#include "solvers/vortex/vortex_pipeline.hpp"

namespace fs::vortex {

std::unique_ptr<Engine> make_cpu_engine() { return std::make_unique<Pipeline<CpuExec>>(); }

}  // namespace fs::vortex
