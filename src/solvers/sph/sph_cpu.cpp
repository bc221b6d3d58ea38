// The SPH pipeline on the CPU backend.
#include "core/exec_cpu.hpp"
#include "solvers/sph/sph_pipeline.hpp"

namespace fs::sph {

std::unique_ptr<Engine> make_cpu_engine() { return std::make_unique<Pipeline<CpuExec>>(); }

}  // namespace fs::sph
