// The FLIP pipeline on the CPU backend.
#include "core/exec_cpu.hpp"
#include "solvers/flip/flip_pipeline.hpp"

namespace fs::flip {

std::unique_ptr<Engine> make_cpu_engine() { return std::make_unique<Pipeline<CpuExec>>(); }

}  // namespace fs::flip
