// cuFFT opened at run time rather than linked: the program then starts, and runs every solver on
// the CPU and all but the vortex grid's transforms on CUDA, on a machine without CUDA's libraries
// (the Debian package's users). cuFFT is looked for on the system's library path, then in the
// CUDA toolkit the build used.
#pragma once

#include <cufft.h>

namespace fs::vortex {

// The cuFFT entry points the free-space Poisson solve uses (poisson_cufft.cu).
struct CufftApi {
    decltype(&cufftCreate) create;
    decltype(&cufftDestroy) destroy;
    decltype(&cufftSetAutoAllocation) set_auto_allocation;
    decltype(&cufftMakePlan3d) make_plan_3d;
    decltype(&cufftSetWorkArea) set_work_area;
    decltype(&cufftSetStream) set_stream;
    decltype(&cufftExecD2Z) exec_d2z;
    decltype(&cufftExecZ2D) exec_z2d;
};

// Opens cuFFT once (thread-safe) and returns its entry points. Throws fs::CudaError with one line
// saying what was looked for and what to do when it cannot be opened.
const CufftApi& cufft_api();

}  // namespace fs::vortex
