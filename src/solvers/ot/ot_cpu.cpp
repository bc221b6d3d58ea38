// The optimal-transport pipeline on the CPU backend.
#include "core/exec_cpu.hpp"
#include "solvers/ot/ot_pipeline.hpp"

namespace fs::ot {

std::unique_ptr<Engine> make_cpu_engine() { return std::make_unique<Pipeline<CpuExec>>(); }

}  // namespace fs::ot
