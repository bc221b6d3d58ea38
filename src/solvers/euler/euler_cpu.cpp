// The Euler pipeline on the CPU backend.
#include "core/exec_cpu.hpp"
#include "solvers/euler/euler_pipeline.hpp"

namespace fs::euler {

std::unique_ptr<Engine> make_cpu_engine() { return std::make_unique<Pipeline<CpuExec>>(); }

}  // namespace fs::euler
