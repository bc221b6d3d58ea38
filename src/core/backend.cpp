#include "core/backend.hpp"

#include <omp.h>

namespace fs {

std::string_view to_string(Backend b) { return b == Backend::Cuda ? "cuda" : "cpu"; }

std::optional<Backend> backend_from_string(std::string_view s) {
    if (s == "cpu") return Backend::Cpu;
    if (s == "cuda") return Backend::Cuda;
    return std::nullopt;
}

std::string cuda_setup_message(std::string_view what) {
    return "CUDA, setting up the scene: " + std::string(what) + "; allowed: --backend cpu";
}

int cpu_threads() { return omp_get_max_threads(); }
void set_cpu_threads(int n) { omp_set_num_threads(n); }

}  // namespace fs
