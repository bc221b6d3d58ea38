#include "solvers/vortex/cufft_loader.hpp"

#include <dlfcn.h>

#include <string>

#include "core/memory.hpp"

namespace fs::vortex {

namespace {

// The soname of the cuFFT that the build's CUDA toolkit ships (CUFFT_VER_MAJOR from cufft.h's
// cufft_version; 12 for CUDA 13).
std::string cufft_soname() { return "libcufft.so." + std::to_string(CUFFT_VER_MAJOR); }

struct Loaded {
    CufftApi api{};
    std::string error;  // empty when every entry point was found
};

template <class F>
bool bind(void* lib, const char* name, F& f, std::string& error) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    if (!f && error.empty()) error = std::string("cuFFT lacks ") + name;
    return f != nullptr;
}

Loaded load() {
    Loaded out;
    const std::string soname = cufft_soname();
    void* lib = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen((std::string(FS_CUFFT_TOOLKIT_DIR) + "/" + soname).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        out.error = "the vortex grid on the cuda backend needs cuFFT (" + soname +
                    ", CUDA's libcufft) and it was not found on the library path nor in " FS_CUFFT_TOOLKIT_DIR
                    "; allowed: install CUDA's cuFFT, or --set velocity_method=direct, or --backend cpu";
        return out;
    }
    CufftApi& a = out.api;
    bind(lib, "cufftCreate", a.create, out.error);
    bind(lib, "cufftDestroy", a.destroy, out.error);
    bind(lib, "cufftSetAutoAllocation", a.set_auto_allocation, out.error);
    bind(lib, "cufftMakePlan3d", a.make_plan_3d, out.error);
    bind(lib, "cufftSetWorkArea", a.set_work_area, out.error);
    bind(lib, "cufftSetStream", a.set_stream, out.error);
    bind(lib, "cufftExecD2Z", a.exec_d2z, out.error);
    bind(lib, "cufftExecZ2D", a.exec_z2d, out.error);
    // Kept open for the process's life: plans made through it may outlive any one solver.
    return out;
}

}  // namespace

const CufftApi& cufft_api() {
    static const Loaded loaded = load();
    if (!loaded.error.empty()) throw CudaError(loaded.error);
    return loaded.api;
}

}  // namespace fs::vortex
