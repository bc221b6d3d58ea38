// The free-space Poisson solve on the CUDA backend: the stages of poisson.hpp over CudaExec, the
// transforms by cuFFT (cufftExecD2Z / cufftExecZ2D, in place). Everything runs on the calling
// thread's own stream, like CudaExec and Buffer's copies, so no step needs an explicit wait. cuFFT
// is a library built without nvcc's per-thread flag: left alone it would use the legacy default
// stream, which waits for every other stream (the window's copies) and makes them wait for it.
//
// cuFFT is opened at run time (cufft_loader.hpp): the Debian package does not depend on it.
//
// The forward and backward plans never run at the same time, so they share one work area that
// this class allocates (cuFFT would otherwise give each plan its own).

#include <string>

#include "core/buffer.hpp"
#include "core/exec_cuda.cuh"
#include "solvers/vortex/cufft_loader.hpp"
#include "solvers/vortex/poisson.hpp"

namespace fs::vortex {

namespace cufft_detail {

const char* result_name(cufftResult r) {
    switch (r) {
        case CUFFT_SUCCESS:
            return "CUFFT_SUCCESS";
        case CUFFT_INVALID_PLAN:
            return "CUFFT_INVALID_PLAN";
        case CUFFT_ALLOC_FAILED:
            return "CUFFT_ALLOC_FAILED";
        case CUFFT_INVALID_TYPE:
            return "CUFFT_INVALID_TYPE";
        case CUFFT_INVALID_VALUE:
            return "CUFFT_INVALID_VALUE";
        case CUFFT_INTERNAL_ERROR:
            return "CUFFT_INTERNAL_ERROR";
        case CUFFT_EXEC_FAILED:
            return "CUFFT_EXEC_FAILED";
        case CUFFT_SETUP_FAILED:
            return "CUFFT_SETUP_FAILED";
        case CUFFT_INVALID_SIZE:
            return "CUFFT_INVALID_SIZE";
        case CUFFT_UNALIGNED_DATA:
            return "CUFFT_UNALIGNED_DATA";
        case CUFFT_INVALID_DEVICE:
            return "CUFFT_INVALID_DEVICE";
        case CUFFT_NO_WORKSPACE:
            return "CUFFT_NO_WORKSPACE";
        case CUFFT_NOT_IMPLEMENTED:
            return "CUFFT_NOT_IMPLEMENTED";
        case CUFFT_NOT_SUPPORTED:
            return "CUFFT_NOT_SUPPORTED";
        default:
            return "unknown cufftResult";
    }
}

// "<call> failed at <file>:<line>: <name> (code <n>)"
void check(cufftResult r, const char* call, const char* file, int line) {
    if (r == CUFFT_SUCCESS) return;
    throw CudaError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    result_name(r) + " (code " + std::to_string(static_cast<int>(r)) + ")");
}

}  // namespace cufft_detail

#define FS_CUFFT_CHECK(call) ::fs::vortex::cufft_detail::check((call), #call, __FILE__, __LINE__)

namespace cufft_detail {

// The forward and backward plans for one doubled grid, in place on one device array.
class CufftTransforms {
public:
    CufftTransforms() = default;
    CufftTransforms(const CufftTransforms&) = delete;
    CufftTransforms& operator=(const CufftTransforms&) = delete;
    ~CufftTransforms() { release(); }

    void plan(const poisson_detail::DoubledGrid& g, double* data) {
        release();
        data_ = data;
        const CufftApi& cufft = cufft_api();
        FS_CUFFT_CHECK(cufft.create(&forward_));
        planned_forward_ = true;
        FS_CUFFT_CHECK(cufft.create(&backward_));
        planned_backward_ = true;
        FS_CUFFT_CHECK(cufft.set_auto_allocation(forward_, 0));
        FS_CUFFT_CHECK(cufft.set_auto_allocation(backward_, 0));
        // Row-major sizes, the last varying fastest: (z, y, x); in place, the real rows are padded
        // to 2(nx + 1) as in FFTW.
        std::size_t forward_bytes = 0, backward_bytes = 0;
        FS_CUFFT_CHECK(
            cufft.make_plan_3d(forward_, 2 * g.nz, 2 * g.ny, 2 * g.nx, CUFFT_D2Z, &forward_bytes));
        FS_CUFFT_CHECK(
            cufft.make_plan_3d(backward_, 2 * g.nz, 2 * g.ny, 2 * g.nx, CUFFT_Z2D, &backward_bytes));
        work_.resize(std::max(forward_bytes, backward_bytes));
        FS_CUFFT_CHECK(cufft.set_work_area(forward_, work_.data()));
        FS_CUFFT_CHECK(cufft.set_work_area(backward_, work_.data()));
        // The transforms run from the thread that steps the solver, on its stream.
        FS_CUFFT_CHECK(cufft.set_stream(forward_, cudaStreamPerThread));
        FS_CUFFT_CHECK(cufft.set_stream(backward_, cudaStreamPerThread));
    }
    void forward() const {
        FS_CUFFT_CHECK(cufft_api().exec_d2z(forward_, data_, reinterpret_cast<cufftDoubleComplex*>(data_)));
    }
    void backward() const {
        FS_CUFFT_CHECK(
            cufft_api().exec_z2d(backward_, reinterpret_cast<cufftDoubleComplex*>(data_), data_));
    }

private:
    void release() noexcept {
        if (planned_forward_) cufft_api().destroy(forward_);
        if (planned_backward_) cufft_api().destroy(backward_);
        planned_forward_ = planned_backward_ = false;
    }

    cufftHandle forward_{}, backward_{};
    bool planned_forward_ = false, planned_backward_ = false;
    double* data_ = nullptr;
    Buffer<std::byte> work_{MemorySpace::Device};
};

}  // namespace cufft_detail

std::unique_ptr<FreeSpacePoisson> make_poisson_cuda() {
    const CudaStatus& status = cuda_status();
    if (!status.usable) throw CudaError(status.reason);
    cufft_api();  // cuFFT missing is said when the solver is set up, not at its first transform
    return std::make_unique<poisson_detail::Hockney<CudaExec, cufft_detail::CufftTransforms>>();
}

}  // namespace fs::vortex
