// The free-space Poisson solve on the CPU backend: the stages of poisson.hpp over CpuExec, the
// transforms by FFTW (double precision, real-to-complex, in place).
//
// Determinism: FFTW runs single-threaded (only libfftw3 is linked, never its threads library),
// and FFTW_ESTIMATE chooses the algorithm from the sizes alone, without timing trial runs; the
// other stages are elementwise. So the result is the same bit for bit whatever the OpenMP thread
// count, from run to run.
#include <fftw3.h>

#include <mutex>
#include <stdexcept>
#include <string>

#include "core/exec_cpu.hpp"
#include "solvers/vortex/poisson.hpp"

namespace fs::vortex {

namespace {

// FFTW's planner keeps global state: only fftw_execute is thread-safe. Two solvers on two threads
// plan and destroy plans under this lock.
std::mutex& planner_mutex() {
    static std::mutex m;
    return m;
}

// The forward and backward plans for one doubled grid, in place on one array.
class FftwTransforms {
public:
    FftwTransforms() = default;
    FftwTransforms(const FftwTransforms&) = delete;
    FftwTransforms& operator=(const FftwTransforms&) = delete;
    ~FftwTransforms() { release(); }

    void plan(const poisson_detail::DoubledGrid& g, double* data) {
        std::lock_guard lock(planner_mutex());
        release_locked();
        auto* spectrum = reinterpret_cast<fftw_complex*>(data);
        // Row-major sizes, the last varying fastest: (z, y, x).
        forward_ =
            fftw_plan_dft_r2c_3d(2 * g.nz, 2 * g.ny, 2 * g.nx, data, spectrum, FFTW_ESTIMATE);
        backward_ =
            fftw_plan_dft_c2r_3d(2 * g.nz, 2 * g.ny, 2 * g.nx, spectrum, data, FFTW_ESTIMATE);
        if (!forward_ || !backward_) {
            release_locked();
            throw std::runtime_error("FFTW could not plan a " + std::to_string(2 * g.nx) + "x" +
                                     std::to_string(2 * g.ny) + "x" + std::to_string(2 * g.nz) +
                                     " real transform");
        }
    }
    void forward() const { fftw_execute(forward_); }
    void backward() const { fftw_execute(backward_); }

private:
    void release() {
        if (!forward_ && !backward_) return;
        std::lock_guard lock(planner_mutex());
        release_locked();
    }
    void release_locked() {
        if (forward_) fftw_destroy_plan(forward_);
        if (backward_) fftw_destroy_plan(backward_);
        forward_ = backward_ = nullptr;
    }

    fftw_plan forward_ = nullptr;
    fftw_plan backward_ = nullptr;
};

}  // namespace

std::unique_ptr<FreeSpacePoisson> make_poisson_cpu() {
    return std::make_unique<poisson_detail::Hockney<CpuExec, FftwTransforms>>();
}

}  // namespace fs::vortex
