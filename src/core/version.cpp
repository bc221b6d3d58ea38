#include "core/version.hpp"

#include "core/backend.hpp"
#include "core/platform.hpp"

// The CUDA architectures the build compiled for (CMAKE_CUDA_ARCHITECTURES), given by CMake.
#ifndef FS_CUDA_ARCHS
#define FS_CUDA_ARCHS "none"
#endif

namespace fs {

std::string version_text(bool window_built_in) {
    std::string s = std::string("fluid-sandbox ") + build_version() + "\n";
    s += std::string("commit ") + build_commit() + " (" + build_commit_date() + ")\n";
    s += "backends: cpu (" +
         (kInBrowser ? std::string("one thread") : "OpenMP, " + std::to_string(cpu_threads()) + " threads here") + ")";
    const CudaStatus& cuda = cuda_status();
    if (cuda.built) {
        s += ", cuda (built for architectures " FS_CUDA_ARCHS ", the CUDA runtime linked in; here: ";
        s += cuda.usable ? cuda.device_name : cuda.reason;
        s += ")";
    }
    s += "\n";
    s += window_built_in ? "window: built in (SDL2, OpenGL 3.3, Dear ImGui)\n" : "window: not built (headless only)\n";
    return s;
}

}  // namespace fs
