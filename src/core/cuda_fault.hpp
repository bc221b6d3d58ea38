// Faults injected into the CUDA backend on purpose (the --cuda-fault debug option), so that the
// code that meets a failing GPU can be tested on a machine whose GPU works:
//   init        the runtime fails to initialise: the CUDA backend reports itself unusable
//   alloc[:N]   the N-th device allocation (default: the first) fails with "out of memory";
//               later ones succeed again, as after a real out-of-memory
//   launch[:N]  the N-th kernel launch fails and, as a real fault inside a kernel does, leaves
//               the context broken: every later allocation, copy and launch fails too
// Each injected failure carries the CUDA error a real one would and says it was injected.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fs {

enum class CudaFaultSite { None, Init, Alloc, Launch };

struct CudaFault {
    CudaFaultSite site = CudaFaultSite::None;
    long long at = 1;  // the how-manieth event at the site fails (from 1)
};

// "init", "alloc", "alloc:3", "launch:100"; nullopt when the text is none of these.
std::optional<CudaFault> parse_cuda_fault(std::string_view spec);
constexpr const char* kCudaFaultAllowed = "init, alloc[:N] or launch[:N] with N >= 1";

// Arms the fault for the rest of the process (counting from now). An init fault takes effect
// only when set before the first cuda_status(), which caches what it finds.
void set_cuda_fault(const CudaFault& fault);

namespace cuda_detail {
// Called by the CUDA backend at each site: whether this event is the one that fails.
bool fault_now(CudaFaultSite site);
// Whether an injected launch failure has broken the context (every later call fails).
bool context_broken();
// Appended to the message of an injected failure.
constexpr const char* kInjected = " [injected by --cuda-fault]";
}  // namespace cuda_detail

}  // namespace fs
