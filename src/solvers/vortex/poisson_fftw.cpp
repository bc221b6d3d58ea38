// The free-space Poisson solve on the CPU backend: the stages of poisson.hpp over CpuExec, the
// transforms by FFTW (double precision, real-to-complex, in place).
//
// The solve's transforms are pruned (convolve below): f is zero outside the doubled grid's first
// octant and only that octant of the answer is kept, so the 3D transform runs as three passes of
// 1D ones, each only where its input is not all zero or its output is wanted (x rows: a quarter
// of them, y columns: half, z columns: all; the backward in reverse), with the multiplication by
// the kernel's transform between the forward and backward z passes of one y plane, while that
// plane is in cache (the row-column decomposition of a multidimensional DFT, Cooley-Tukey; the
// pruning of zero-padded inputs as in J. D. Markel, "FFT pruning", IEEE Trans. Audio
// Electroacoust. 19, 1971). It costs 7/12 of the full transforms' 1D work and never clears the
// whole doubled array.
//
// Determinism: each 1D batch runs whole on one OpenMP thread (FFTW itself is single-threaded:
// only libfftw3 is linked, never its threads library), plans are made with FFTW_ESTIMATE (the
// algorithm from the sizes alone, without timing trial runs), every batch starts at the same
// SIMD alignment as the array the plans were made on (so each runs the same code; see plan()),
// and the other stages are elementwise. So the result is the same bit for bit whatever the
// OpenMP thread count, from run to run.
#include <fftw3.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

#include "core/backend.hpp"
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
        // Row-major sizes, the last varying fastest: (z, y, x). The full 3D transforms serve the
        // kernel (not zero-padded) and the backend's interface.
        forward_ =
            fftw_plan_dft_r2c_3d(2 * g.nz, 2 * g.ny, 2 * g.nx, data, spectrum, FFTW_ESTIMATE);
        backward_ =
            fftw_plan_dft_c2r_3d(2 * g.nz, 2 * g.ny, 2 * g.nx, spectrum, data, FFTW_ESTIMATE);
        // The pruned passes' batches (in place, on the padded layout: x rows of row() reals or
        // nx + 1 complex; complex (kx, ky, kz) at kx + (nx + 1) (ky + 2 ny kz)). They run on
        // other slabs and planes of the array through the new-array interface, which needs each
        // to have the planned array's SIMD alignment (FFTW manual, "New-array Execute
        // Functions"). Slabs start 2 (nx + 1) 2 ny k doubles in and planes (nx + 1) j complex
        // in, whole multiples of 16 bytes, so all share data's alignment (fftw_alignment_of
        // compares addresses modulo 16); checked below. Planning them FFTW_UNALIGNED instead, as
        // this file did until 2026-11-25, forbids FFTW its SIMD codelets: the transforms took
        // twice as long.
        // Without buffering where FFTW can plan that (every size but those with a large prime
        // factor): its buffered plans allocate and free their scratch on every execution, a
        // thousand times a step, and the allocator's bookkeeping (malloc_consolidate, _int_free)
        // took a sixth of vortex_moving_plate's step (23.1 -> 19.2 ms a step without).
        // FFTW_NO_BUFFERING is one of fftw3.h's planner flags beyond the manual's list; still
        // FFTW_ESTIMATE, so the plans depend on the sizes alone.
        for (const unsigned flags : {FFTW_ESTIMATE | FFTW_NO_BUFFERING, unsigned(FFTW_ESTIMATE)}) {
            if (plan_passes(g, data, flags)) break;
        }
        if (!forward_ || !backward_ || !x_forward_ || !x_backward_ || !y_forward_ || !y_backward_ || !z_forward_ ||
            !z_backward_) {
            release_locked();
            throw std::runtime_error("FFTW could not plan a " + std::to_string(2 * g.nx) + "x" +
                                     std::to_string(2 * g.ny) + "x" + std::to_string(2 * g.nz) +
                                     " real transform");
        }
        grid_ = g;
    }

    // The pruned passes' plans with `flags`; false (none kept) if FFTW cannot make one of them.
    bool plan_passes(const poisson_detail::DoubledGrid& g, double* data, unsigned flags) {
        auto* spectrum = reinterpret_cast<fftw_complex*>(data);
        const int cx = g.nx + 1, nx2 = 2 * g.nx, ny2 = 2 * g.ny, nz2 = 2 * g.nz;
        const int planned = fftw_alignment_of(data);
        if (fftw_alignment_of(data + std::size_t(g.row()) * ny2) != planned ||
            fftw_alignment_of(reinterpret_cast<double*>(spectrum + cx)) != planned)
            throw std::logic_error("FFTW: the Poisson solve's slabs or planes are not aligned like its array");
        // ny rows of one z slab along x.
        x_forward_ = fftw_plan_many_dft_r2c(1, &nx2, g.ny, data, nullptr, 1, g.row(), spectrum, nullptr, 1, cx, flags);
        x_backward_ = fftw_plan_many_dft_c2r(1, &nx2, g.ny, spectrum, nullptr, 1, cx, data, nullptr, 1, g.row(), flags);
        // The nx + 1 columns of one z slab along y.
        y_forward_ = fftw_plan_many_dft(1, &ny2, cx, spectrum, nullptr, cx, 1, spectrum, nullptr, cx, 1, FFTW_FORWARD,
                                        flags);
        y_backward_ = fftw_plan_many_dft(1, &ny2, cx, spectrum, nullptr, cx, 1, spectrum, nullptr, cx, 1,
                                         FFTW_BACKWARD, flags);
        // The nx + 1 columns of one y plane along z.
        z_forward_ = fftw_plan_many_dft(1, &nz2, cx, spectrum, nullptr, cx * ny2, 1, spectrum, nullptr, cx * ny2, 1,
                                        FFTW_FORWARD, flags);
        z_backward_ = fftw_plan_many_dft(1, &nz2, cx, spectrum, nullptr, cx * ny2, 1, spectrum, nullptr, cx * ny2, 1,
                                         FFTW_BACKWARD, flags);
        if (x_forward_ && x_backward_ && y_forward_ && y_backward_ && z_forward_ && z_backward_) return true;
        for (fftw_plan* p : {&x_forward_, &x_backward_, &y_forward_, &y_backward_, &z_forward_, &z_backward_}) {
            if (*p) fftw_destroy_plan(*p);
            *p = nullptr;
        }
        return false;
    }

    void forward() const { fftw_execute(forward_); }
    void backward() const { fftw_execute(backward_); }

    // One component's free-space convolution on the planned grid, what pad, forward, multiply,
    // backward and gather give (up to rounding), pruned: psi = the first octant of
    // backward(forward(f padded with zeros) * green_hat * scale). `data` is the planned array.
    void convolve(const double* f, double* psi, const double* green_hat, double scale, double* data) const {
        const poisson_detail::DoubledGrid g = grid_;
        const int nx = g.nx, ny = g.ny, nz = g.nz, cx = nx + 1, row = g.row(), ny2 = 2 * ny, nz2 = 2 * nz;
        auto* spectrum = reinterpret_cast<fftw_complex*>(data);
        [[maybe_unused]] const int threads = loop_threads();  // unused without OpenMP (the browser's)
        // Forward, x and y, slab by slab (k < nz; the slabs above are zero).
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int k = 0; k < nz; ++k) {
            double* slab = data + std::size_t(row) * ny2 * k;
            for (int j = 0; j < ny; ++j) {
                double* r = slab + std::size_t(row) * j;
                std::memcpy(r, f + std::size_t(nx) * (j + std::size_t(ny) * k), sizeof(double) * nx);
                std::memset(r + nx, 0, sizeof(double) * (row - nx));
            }
            fftw_execute_dft_r2c(x_forward_, slab, reinterpret_cast<fftw_complex*>(slab));
            std::memset(slab + std::size_t(row) * ny, 0, sizeof(double) * row * ny);
            auto* c = reinterpret_cast<fftw_complex*>(slab);
            fftw_execute_dft(y_forward_, c, c);
        }
        // z forward, the kernel, z backward, plane by plane (every ky).
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int j = 0; j < ny2; ++j) {
            fftw_complex* plane = spectrum + std::size_t(cx) * j;
            for (int k = nz; k < nz2; ++k) std::memset(plane + std::size_t(cx) * ny2 * k, 0, sizeof(fftw_complex) * cx);
            fftw_execute_dft(z_forward_, plane, plane);
            for (int k = 0; k < nz2; ++k) {
                const std::size_t m = std::size_t(cx) * (j + std::size_t(ny2) * k);
                for (int i = 0; i < cx; ++i) {
                    const double w = green_hat[m + i] * scale;
                    spectrum[m + i][0] *= w;
                    spectrum[m + i][1] *= w;
                }
            }
            fftw_execute_dft(z_backward_, plane, plane);
        }
        // Backward y and x on the kept slabs, and the kept rows out.
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int k = 0; k < nz; ++k) {
            double* slab = data + std::size_t(row) * ny2 * k;
            auto* c = reinterpret_cast<fftw_complex*>(slab);
            fftw_execute_dft(y_backward_, c, c);
            fftw_execute_dft_c2r(x_backward_, c, slab);
            for (int j = 0; j < ny; ++j)
                std::memcpy(psi + std::size_t(nx) * (j + std::size_t(ny) * k), slab + std::size_t(row) * j,
                            sizeof(double) * nx);
        }
    }

private:
    void release() {
        if (!forward_ && !backward_ && !x_forward_) return;
        std::lock_guard lock(planner_mutex());
        release_locked();
    }
    void release_locked() {
        for (fftw_plan* p : {&forward_, &backward_, &x_forward_, &x_backward_, &y_forward_, &y_backward_, &z_forward_,
                             &z_backward_}) {
            if (*p) fftw_destroy_plan(*p);
            *p = nullptr;
        }
        grid_ = {};
    }

    fftw_plan forward_ = nullptr;
    fftw_plan backward_ = nullptr;
    fftw_plan x_forward_ = nullptr, x_backward_ = nullptr;
    fftw_plan y_forward_ = nullptr, y_backward_ = nullptr;
    fftw_plan z_forward_ = nullptr, z_backward_ = nullptr;
    poisson_detail::DoubledGrid grid_;
};

}  // namespace

std::unique_ptr<FreeSpacePoisson> make_poisson_cpu() {
    return std::make_unique<poisson_detail::Hockney<CpuExec, FftwTransforms>>();
}

}  // namespace fs::vortex
