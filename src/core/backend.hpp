// The two places a solver's state can live and its kernels can run.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fs {

enum class Backend { Cpu, Cuda };

// Where a buffer's memory lives: host memory for the CPU backend, device memory for CUDA.
enum class MemorySpace { Host, Device };

constexpr MemorySpace memory_space_of(Backend b) {
    return b == Backend::Cuda ? MemorySpace::Device : MemorySpace::Host;
}

std::string_view to_string(Backend b);
std::optional<Backend> backend_from_string(std::string_view s);

// Whether the CUDA backend can be used in this process, and why not when it cannot.
struct CudaStatus {
    bool built = false;    // the program was compiled with the CUDA backend
    bool usable = false;   // built, and at least one GPU answered
    int device_count = 0;
    std::string device_name;  // of device 0, when usable
    std::string reason;       // why it is not usable (one line), empty when usable
};

// Queried once and cached; never throws.
const CudaStatus& cuda_status();

// The one line for a GPU that failed while the first scene was being set up (exit status 2, like
// other set-up problems): what failed, and the backend allowed instead.
std::string cuda_setup_message(std::string_view what);

// OpenMP threads used by the CPU backend (the whole process): the most any loop uses.
int cpu_threads();
void set_cpu_threads(int n);

// The threads the CPU backend's loops started from the calling thread use: cpu_threads(), or
// fewer while a step's ThreadGovernor (core/thread_governor.hpp) found fewer faster. Per thread,
// so two simulations on two threads govern their own steps; 0 restores cpu_threads().
int loop_threads();
void set_loop_threads(int n);
// Whether solvers' CPU steps are governed (on by default; --pin-threads turns it off, so that a
// benchmark measures exactly cpu_threads()).
bool governed_threads();
void set_governed_threads(bool on);

}  // namespace fs
