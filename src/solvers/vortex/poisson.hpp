// The free-space vector Poisson solve behind the vortex-in-cell velocity: psi = G * f with
// G(r) = 1/(4 pi r), which solves lap(psi) = -f with psi -> 0 far away (no periodic images).
// Method: Hockney and Eastwood's domain doubling (R. W. Hockney and J. W. Eastwood, "Computer
// Simulation Using Particles", 1988, ch. 6): f is zero-padded to a grid twice as long in each
// direction, on which the circular convolution with G (sampled at the periodic image distances)
// equals the free-space one on the original block. The backends differ only in their FFTs:
// FFTW on the CPU (poisson_fftw.cpp), cuFFT on CUDA (poisson_cufft.cu).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>

#include "core/buffer.hpp"
#include "core/hd.hpp"

namespace fs::vortex {

// Free-space solution of the vector Poisson equation lap(psi) = -f (three components),
// Hockney-Eastwood.
class FreeSpacePoisson {
public:
    virtual ~FreeSpacePoisson() = default;
    // f and psi: 3 * nx*ny*nz doubles, component after component, each x-fastest
    // (i + nx*(j + ny*k)), node (i, j, k) at origin + h*(i, j, k), in the backend's memory (host
    // for the CPU one, device for the CUDA one). psi may not alias f. The transform of G is kept
    // from call to call and rebuilt only when the grid's size changes (h only scales it).
    // Throws std::invalid_argument for a grid size below 1, a spacing that is not positive and
    // finite, or overlapping f and psi; std::length_error for a grid too large to index.
    //
    // sigma > 0 smooths the kernel to the vortons' Rosenhead-Moore one, G(r) = 1/(4 pi sqrt(r^2 +
    // sigma^2)), so that the grid reproduces the direct sum's regularised field (then the
    // transform of G depends on sigma / h and is rebuilt when that changes).
    //
    // sharpen divides the transform of G by the trilinear ("cloud in cell") assignment's twice,
    // W(k)^2 with W(k) = prod_a sinc^2(k_a h / 2) (Hockney and Eastwood 1988, sec. 7-5: the
    // charge assignment and the force interpolation each filter the field by W), so that a field
    // spread to the nodes and interpolated back trilinearly keeps its short waves: without it the
    // two blur the cores by a variance h^2/3 along each axis.
    virtual void solve(int nx, int ny, int nz, double h, const double* f, double* psi, double sigma = 0.0,
                       bool sharpen = false) = 0;
    // Bytes of work memory for a grid (the solver checks it against the limit before allocating):
    // the padded spectrum, the transform of G, and as much again as the spectrum for the FFT
    // library's own scratch (cuFFT's work area; FFTW needs far less).
    static std::size_t work_bytes(int nx, int ny, int nz);
};

std::unique_ptr<FreeSpacePoisson> make_poisson_cpu();
// Throws fs::CudaError (a std::runtime_error) saying why when the CUDA backend is not built or no
// GPU is usable.
std::unique_ptr<FreeSpacePoisson> make_poisson_cuda();

// ---- The method, shared by the two backends --------------------------------------------------
namespace poisson_detail {

// Integral of 1/|x| over the unit cube centred at 0: 3 ln(2 + sqrt 3) - pi/2 = 2.3800773640.
// G at r = 0 is singular; the node's value is G averaged over its cell (a cube of side h),
// G(0) = 2.3800773640 / (4 pi h), the usual regularisation of the doubled-domain method
// (Hockney and Eastwood 1988, ch. 6).
inline double unit_cube_inverse_distance() {
    return 3.0 * std::log(2.0 + std::numbers::sqrt3) - 0.5 * std::numbers::pi;
}

// The doubled grid, 2nx x 2ny x 2nz, x fastest, stored as FFTW and cuFFT lay out an in-place
// real-to-complex transform: each x row of 2nx reals is padded to 2(nx + 1), the room for its
// nx + 1 complex coefficients.
struct DoubledGrid {
    int nx = 0, ny = 0, nz = 0;  // the original grid

    FS_HDI int row() const { return 2 * (nx + 1); }           // reals per padded x row
    FS_HDI int nodes() const { return nx * ny * nz; }         // of one component
    FS_HDI int reals() const { return row() * 4 * ny * nz; }  // padded real array
    FS_HDI int spectrum() const { return reals() / 2; }       // complex coefficients
    FS_HDI int points() const { return 8 * nx * ny * nz; }    // the FFT's length

    bool operator==(const DoubledGrid&) const = default;

    // Whether every count above fits an int (the executors' loop index; cuFFT's sizes).
    static bool indexable(int nx, int ny, int nz) {
        const double reals = 2.0 * (nx + 1.0) * 4.0 * ny * nz;
        return reals <= static_cast<double>(std::numeric_limits<int>::max());
    }
};

// G on the doubled grid in units of h: h^3 G(h d) = h^2 g(d) with g(d) = 1/(4 pi |d|) and d the
// periodic image offset (index i -> min(i, 2nx - i)); the cell average at d = 0. With a core
// s (in cells) > 0, the Rosenhead-Moore g(d) = 1/(4 pi sqrt(|d|^2 + s^2)) instead.
FS_HDI double green(const DoubledGrid& g, int i, int j, int k, double g0, double s) {
    const int di = min_of(i, 2 * g.nx - i), dj = min_of(j, 2 * g.ny - j),
              dk = min_of(k, 2 * g.nz - k);
    const double r2 = double(di) * di + double(dj) * dj + double(dk) * dk;
    constexpr double inv_4pi = 0.25 / std::numbers::pi;
    if (s > 0.0) return inv_4pi / std::sqrt(r2 + s * s);
    return r2 == 0.0 ? g0 * inv_4pi : inv_4pi / std::sqrt(r2);
}

// The stages of a solve, over an executor (CpuExec or CudaExec): elementwise loops only, so the
// result depends neither on the thread count nor on the launch shape. `data` is the padded real
// array of the doubled grid (g.reals() doubles), transformed in place into g.spectrum() complex
// coefficients (re, im interleaved).

// g on the doubled grid (zero in the padding of the rows).
template <class Exec>
void fill_green(const Exec& exec, DoubledGrid g, double s, double* data) {
    const double g0 = unit_cube_inverse_distance();
    const int row = g.row(), nx2 = 2 * g.nx, ny2 = 2 * g.ny;
    exec.parallel_for(g.reals(), FS_LAMBDA(int p) {
        const int i = p % row, jk = p / row;
        data[p] = i < nx2 ? green(g, i, jk % ny2, jk / ny2, g0, s) : 0.0;
    });
}

// g is even in each index on the doubled grid, so its transform is real: keep the real parts
// (the imaginary ones are round-off).
template <class Exec>
void keep_real_parts(const Exec& exec, DoubledGrid g, const double* spectrum, double* real) {
    exec.parallel_for(g.spectrum(), FS_LAMBDA(int m) { real[m] = spectrum[2 * m]; });
}

// One component of f into the first octant of the doubled grid (the rest was zeroed): a loop
// over the original nodes only, an eighth of the doubled grid.
template <class Exec>
void pad(const Exec& exec, DoubledGrid g, const double* f, double* data) {
    const int row = g.row(), ny2 = 2 * g.ny;
    exec.parallel_for(g.nodes(), FS_LAMBDA(int q) {
        const int i = q % g.nx, jk = q / g.nx, j = jk % g.ny, k = jk / g.ny;
        data[i + row * (j + ny2 * k)] = f[q];
    });
}

// The convolution theorem: the spectrum times that of g (real), with `scale` folded in.
template <class Exec>
void multiply(const Exec& exec, DoubledGrid g, const double* green_hat, double scale,
              double* data) {
    exec.parallel_for(g.spectrum(), FS_LAMBDA(int m) {
        const double w = green_hat[m] * scale;
        data[2 * m] *= w;
        data[2 * m + 1] *= w;
    });
}

// The transform of g divided by W(k)^2, W the trilinear assignment's transform, prod_a
// sinc^2(pi m_a / (2 n_a)) for the doubled grid's wave number m_a (m -> min(m, 2n - m)) along
// axis a (Hockney and Eastwood 1988, eq. 7-55 with the CIC assignment function of sec. 5-3).
template <class Exec>
void sharpen_kernel(const Exec& exec, DoubledGrid g, double* green_hat) {
    const int kx = g.nx + 1, ny2 = 2 * g.ny, nz2 = 2 * g.nz;
    exec.parallel_for(g.spectrum(), FS_LAMBDA(int m) {
        const int a = m % kx, jk = m / kx, b = jk % ny2, c = jk / ny2;
        const int ma[3] = {a, min_of(b, ny2 - b), min_of(c, nz2 - c)};
        const int n2[3] = {2 * g.nx, ny2, nz2};
        double w = 1.0;
        for (int d = 0; d < 3; ++d) {
            const double x = std::numbers::pi * ma[d] / n2[d];
            const double sinc = x == 0.0 ? 1.0 : std::sin(x) / x;
            w *= sinc * sinc;
        }
        green_hat[m] /= w * w;
    });
}

// The first octant is the free-space answer; the rest holds the images' wrap-around.
template <class Exec>
void gather(const Exec& exec, DoubledGrid g, const double* data, double* psi) {
    const int row = g.row();
    exec.parallel_for(g.nodes(), FS_LAMBDA(int q) {
        const int i = q % g.nx, jk = q / g.nx, j = jk % g.ny, k = jk / g.ny;
        psi[q] = data[i + row * (j + 2 * g.ny * k)];
    });
}

// The solver over an executor and the FFTs of a backend. Fft has plan(grid, data) for in-place
// transforms of `data`, forward() (real to complex) and backward() (complex to real,
// unnormalised, so the pair multiplies by g.points()).
template <class Exec, class Fft>
class Hockney final : public FreeSpacePoisson {
public:
    void solve(int nx, int ny, int nz, double h, const double* f, double* psi, double sigma = 0.0,
               bool sharpen = false) override {
        if (nx < 1 || ny < 1 || nz < 1)
            throw std::invalid_argument("free-space Poisson: grid " + std::to_string(nx) + "x" +
                                        std::to_string(ny) + "x" + std::to_string(nz) +
                                        " (each size must be at least 1)");
        if (!(h > 0.0) || !std::isfinite(h))
            throw std::invalid_argument("free-space Poisson: spacing h = " + std::to_string(h) +
                                        " (must be positive and finite)");
        if (!DoubledGrid::indexable(nx, ny, nz))
            throw std::length_error("free-space Poisson: grid too large for 32-bit indices");
        const DoubledGrid g{nx, ny, nz};
        const std::size_t bytes = 3 * std::size_t(g.nodes()) * sizeof(double);
        const auto fa = reinterpret_cast<std::uintptr_t>(f);
        const auto pa = reinterpret_cast<std::uintptr_t>(psi);
        if (fa < pa + bytes && pa < fa + bytes)
            throw std::invalid_argument("free-space Poisson: psi overlaps f");

        if (!(sigma >= 0.0) || !std::isfinite(sigma))
            throw std::invalid_argument("free-space Poisson: core sigma = " + std::to_string(sigma) +
                                        " (must be zero or positive and finite)");
        const double s = sigma / h;
        // New plans and buffers only for a new grid shape; a new core only re-transforms g (one
        // FFT, against six a solve), and a core within 1e-9 of the last (the mean core radius
        // of vortons that emission keeps adding drifts in its last bits) keeps it: g's transform
        // then differs by that relative amount in its core term alone.
        if (!(g == grid_))
            prepare(g, s, sharpen);
        else if (std::fabs(s - core_) > 1e-9 * std::max(s, core_) || sharpen != sharpened_)
            transform_kernel(g, s, sharpen);
        // h^3 G(h d) = h^2 g(d), over the FFT pair's factor.
        const double scale = h * h / g.points();
        if constexpr (requires(const Fft& t) { t.convolve(f, psi, green_hat_.data(), scale, data_.data()); }) {
            // A backend whose transforms prune the zero padding and the unwanted octants does
            // the five stages below in one (FFTW).
            for (int c = 0; c < 3; ++c)
                fft_.convolve(f + std::size_t(c) * g.nodes(), psi + std::size_t(c) * g.nodes(), green_hat_.data(),
                              scale, data_.data());
            return;
        }
        for (int c = 0; c < 3; ++c) {
            data_.fill_zero();
            pad(exec_, g, f + std::size_t(c) * g.nodes(), data_.data());
            fft_.forward();
            multiply(exec_, g, green_hat_.data(), scale, data_.data());
            fft_.backward();
            gather(exec_, g, data_.data(), psi + std::size_t(c) * g.nodes());
        }
    }

private:
    // Buffers, plans and the transform of g for a new grid size.
    void prepare(const DoubledGrid& g, double s, bool sharpen) {
        grid_ = {};
        data_.resize(std::size_t(g.reals()));
        green_hat_.resize(std::size_t(g.spectrum()));
        fft_.plan(g, data_.data());
        grid_ = g;
        transform_kernel(g, s, sharpen);
    }

    // The transform of g for a core of s cells, on the planned grid.
    void transform_kernel(const DoubledGrid& g, double s, bool sharpen) {
        fill_green(exec_, g, s, data_.data());
        fft_.forward();
        keep_real_parts(exec_, g, data_.data(), green_hat_.data());
        if (sharpen) sharpen_kernel(exec_, g, green_hat_.data());
        core_ = s;
        sharpened_ = sharpen;
    }

    Exec exec_;
    Fft fft_;
    DoubledGrid grid_;  // what the buffers, the plans and green_hat_ are for; {} when none
    double core_ = 0.0;  // and the core (in cells) green_hat_ is for
    bool sharpened_ = false;  // and whether it is divided by the assignment's W^2
    Buffer<double> data_{Exec::space};       // the padded real array / its spectrum, in place
    Buffer<double> green_hat_{Exec::space};  // transform of g (real), one per coefficient
};

}  // namespace poisson_detail

inline std::size_t FreeSpacePoisson::work_bytes(int nx, int ny, int nz) {
    const double spectrum = 2.0 * (nx + 1.0) * 2.0 * ny * nz;  // complex coefficients
    return static_cast<std::size_t>(spectrum * (16 + 8 + 16));
}

}  // namespace fs::vortex
