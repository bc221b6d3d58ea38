// The direct O(N^2) sum of the vortex-particle method (the exact reference the vortex-in-cell
// grid is checked against), in single-precision tiles over structure-of-arrays sources:
//
// - Once per velocity evaluation, prepare() copies the sources (vortons) into float arrays,
//   one per component, padded to whole tiles of kTile sources, relative to the first vorton's
//   position (so a cloud far from the origin keeps float's precision in x - x_j), with each
//   tile's bounding box and largest core (for the diffusion's cut-off).
// - Per target (one body per vorton or tracer, callable from exec.parallel_for on either
//   backend), each tile is summed in float and the tile's sum is added into double, tile after
//   tile in a fixed order: the result of target i is independent of the thread count. Up to
//   kExactUpTo vortons, their own sum stays all-double (see there).
// - The pair terms are written once, over a lane type: one float (the CUDA threads, and hosts
//   without AVX2), 8 floats (hosts with AVX2 and FMA) or 16 (AVX-512F), chosen at run time; the
//   project is compiled without -march, so the wide instantiations are compiled in functions
//   carrying target("avx2,fma") or target("avx512f") and flatten, which inline the lane
//   operations into them.
//
// No per-pair branch: padding sources have zero strength and volume; a vorton's own pair has
// r = 0, where alpha x r = 0, (r . w) = 0 and omega_j - omega_i = 0, so it adds nothing to the
// velocity, the stretching's gradient term or the diffusion (its potential 1/(4 pi sigma)
// stays in psi, as in the double sum); its K (alpha_i x w_i) vanishes to round-off.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "solvers/vortex/vortex_kernels.hpp"

#if !defined(__CUDACC__) && defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FS_DIRECT_AVX2 1
// GCC 12 sees its own AVX-512 intrinsics' _mm512_undefined_* operands as maybe uninitialised.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace fs::vortex {

namespace direct {

constexpr int kTile = 512;  // sources per tile: summed in float, tiles joined in double
// Up to this many vortons their own sum stays all-double (the pair loop of vortex_kernels.hpp):
// it costs little there (1e6 pairs), and small symmetric systems amplify float's round-off
// (two leapfrogging rings of 128 vortons each, which the double sum carries for 60 s, run
// away after 40 s from 1e-7 errors). Tracers are passive: they always take the float tiles.
constexpr int kExactUpTo = 1024;

// A strength or vorticity in float, below float's smallest normal number (1.2e-38) zero: the
// block scenes' still vortons take vorticity of 1e-40 and less as the bodies' flow first
// reaches them, and subnormal floats slowed the sums' arithmetic on the CPU about twofold (docs/solvers/vortex.md,
// Benchmarks). What is dropped is 1e-38 of a unit vorticity.
FS_HDI float to_float(double x) {
    const float f = static_cast<float>(x);
    return f > -1.17549435e-38f && f < 1.17549435e-38f ? 0.0f : f;
}

// Source components, each an array of `padded` floats.
enum Component : int { kX, kY, kZ, kS2, kAX, kAY, kAZ, kSigma, kWX, kWY, kWZ, kVol, kComponents };
// Per tile: the bounding box of its sources (lo, hi) and their largest core.
enum TileField : int { kLoX, kLoY, kLoZ, kHiX, kHiY, kHiZ, kSigmaMax, kTileFields = 8 };  // 8: one spare

// What a target reads: the prepared sources.
struct Sources {
    const float* d = nullptr;     // d[c * padded + j]: component c of source j
    const float* tile = nullptr;  // tile[t * kTileFields + f]
    const dvec3* origin = nullptr;  // the first vorton's position (sources are relative to it)
    int padded = 0;
    int tiles = 0;
    FS_HDI const float* comp(int c) const { return d + static_cast<std::size_t>(c) * padded; }
};

// ---- lanes -----------------------------------------------------------------------------------

// One float: the CUDA threads and the portable host path.
struct Lane1 {
    using F = float;
    static constexpr int W = 1;
    FS_HDI static F load(const float* p) { return *p; }
    FS_HDI static F bcast(float x) { return x; }
    FS_HDI static F fmadd(F a, F b, F c) { return a * b + c; }
    FS_HDI static F fmsub(F a, F b, F c) { return a * b - c; }
    FS_HDI static F rsqrt(F q) {
#if defined(__CUDA_ARCH__)
        return rsqrtf(q);
#else
        return 1.0f / std::sqrt(q);
#endif
    }
    // e^x for x in [-20, 0].
    FS_HDI static F exp(F x) { return std::exp(x); }
    // a where x <= bound, else 0.
    FS_HDI static F keep_within(F a, F x, F bound) { return x <= bound ? a : 0.0f; }
    FS_HDI static F max(F a, F b) { return a < b ? b : a; }
    FS_HDI static double sum(F a) { return a; }
};

#if defined(FS_DIRECT_AVX2)
#define FS_AVX2 __attribute__((target("avx2,fma"))) inline
// Eight floats (AVX2 + FMA).
struct F8 {
    __m256 v;
    FS_AVX2 friend F8 operator+(F8 a, F8 b) { return {_mm256_add_ps(a.v, b.v)}; }
    FS_AVX2 friend F8 operator-(F8 a, F8 b) { return {_mm256_sub_ps(a.v, b.v)}; }
    FS_AVX2 friend F8 operator*(F8 a, F8 b) { return {_mm256_mul_ps(a.v, b.v)}; }
};
struct Lane8 {
    using F = F8;
    static constexpr int W = 8;
    FS_AVX2 static F load(const float* p) { return {_mm256_loadu_ps(p)}; }
    FS_AVX2 static F bcast(float x) { return {_mm256_set1_ps(x)}; }
    FS_AVX2 static F fmadd(F a, F b, F c) { return {_mm256_fmadd_ps(a.v, b.v, c.v)}; }
    FS_AVX2 static F fmsub(F a, F b, F c) { return {_mm256_fmsub_ps(a.v, b.v, c.v)}; }
    // 1/sqrt(q): the 12-bit estimate and one Newton step, y (3 - q y^2) / 2 (relative error
    // about 1e-7, float's own).
    FS_AVX2 static F rsqrt(F q) {
        const __m256 y = _mm256_rsqrt_ps(q.v);
        const __m256 qy2 = _mm256_mul_ps(_mm256_mul_ps(q.v, y), y);
        return {_mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), y), _mm256_sub_ps(_mm256_set1_ps(3.0f), qy2))};
    }
    // e^x for x in [-20, 0]: x = n ln2 + f (Cody-Waite), e^f by Cephes' expf polynomial
    // (Moshier 1989; relative error ~1e-7), times 2^n built in the exponent bits.
    FS_AVX2 static F exp(F x) {
        const __m256 n = _mm256_round_ps(_mm256_mul_ps(x.v, _mm256_set1_ps(1.44269504088896341f)),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m256 f = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x.v);
        f = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), f);
        __m256 p = _mm256_set1_ps(1.9875691500e-4f);
        p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.3981999507e-3f));
        p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(8.3334519073e-3f));
        p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(4.1665795894e-2f));
        p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.6666665459e-1f));
        p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(5.0000001201e-1f));
        p = _mm256_fmadd_ps(_mm256_mul_ps(p, f), f, _mm256_add_ps(f, _mm256_set1_ps(1.0f)));
        const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
        return {_mm256_mul_ps(p, _mm256_castsi256_ps(e))};
    }
    FS_AVX2 static F keep_within(F a, F x, F bound) {
        return {_mm256_and_ps(a.v, _mm256_cmp_ps(x.v, bound.v, _CMP_LE_OQ))};
    }
    FS_AVX2 static F max(F a, F b) { return {_mm256_max_ps(a.v, b.v)}; }
    // The lanes' sum, in double, in a fixed order.
    FS_AVX2 static double sum(F a) {
        const __m256d s = _mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a.v)),
                                        _mm256_cvtps_pd(_mm256_extractf128_ps(a.v, 1)));
        const __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
        return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
    }
};

#define FS_AVX512 __attribute__((target("avx512f"))) inline
// Sixteen floats (AVX-512F: 32 registers, room for all the accumulators).
struct F16 {
    __m512 v;
    FS_AVX512 friend F16 operator+(F16 a, F16 b) { return {_mm512_add_ps(a.v, b.v)}; }
    FS_AVX512 friend F16 operator-(F16 a, F16 b) { return {_mm512_sub_ps(a.v, b.v)}; }
    FS_AVX512 friend F16 operator*(F16 a, F16 b) { return {_mm512_mul_ps(a.v, b.v)}; }
};
struct Lane16 {
    using F = F16;
    static constexpr int W = 16;
    FS_AVX512 static F load(const float* p) { return {_mm512_loadu_ps(p)}; }
    FS_AVX512 static F bcast(float x) { return {_mm512_set1_ps(x)}; }
    FS_AVX512 static F fmadd(F a, F b, F c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }
    FS_AVX512 static F fmsub(F a, F b, F c) { return {_mm512_fmsub_ps(a.v, b.v, c.v)}; }
    // 1/sqrt(q): the 14-bit estimate and one Newton step, as Lane8.
    FS_AVX512 static F rsqrt(F q) {
        const __m512 y = _mm512_rsqrt14_ps(q.v);
        const __m512 qy2 = _mm512_mul_ps(_mm512_mul_ps(q.v, y), y);
        return {_mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), y), _mm512_sub_ps(_mm512_set1_ps(3.0f), qy2))};
    }
    // e^x for x in [-20, 0], as Lane8 (Cody-Waite, Cephes' expf polynomial, 2^n in the exponent).
    FS_AVX512 static F exp(F x) {
        const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x.v, _mm512_set1_ps(1.44269504088896341f)),
                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m512 f = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x.v);
        f = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), f);
        __m512 p = _mm512_set1_ps(1.9875691500e-4f);
        p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.3981999507e-3f));
        p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(8.3334519073e-3f));
        p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(4.1665795894e-2f));
        p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.6666665459e-1f));
        p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(5.0000001201e-1f));
        p = _mm512_fmadd_ps(_mm512_mul_ps(p, f), f, _mm512_add_ps(f, _mm512_set1_ps(1.0f)));
        const __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
        return {_mm512_mul_ps(p, _mm512_castsi512_ps(e))};
    }
    FS_AVX512 static F keep_within(F a, F x, F bound) {
        return {_mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x.v, bound.v, _CMP_LE_OQ), a.v)};
    }
    FS_AVX512 static F max(F a, F b) { return {_mm512_max_ps(a.v, b.v)}; }
    // The lanes' sum, in double, in a fixed order.
    FS_AVX512 static double sum(F a) {
        const __m512d s = _mm512_add_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(a.v)),
                                        _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a.v), 1))));
        const __m256d h = _mm256_add_pd(_mm512_castpd512_pd256(s), _mm512_extractf64x4_pd(s, 1));
        const __m128d q = _mm_add_pd(_mm256_castpd256_pd128(h), _mm256_extractf128_pd(h, 1));
        return _mm_cvtsd_f64(_mm_add_sd(q, _mm_unpackhi_pd(q, q)));
    }
};
#endif

// ---- per target ------------------------------------------------------------------------------

// What a vorton receives from all sources (before the constant factors, applied in finish()).
struct VortonSums {
    double u[3] = {0, 0, 0};    // sum K' (alpha x r),  K' = 1 / q^(3/2), q = r^2 + sigma_j^2
    double psi[3] = {0, 0, 0};  // sum alpha / q^(1/2)
    double a[3] = {0, 0, 0};    // sum K' alpha  (the stretching's K (alpha x w) is a x w)
    double s[3] = {0, 0, 0};    // sum (r . w) / q^(5/2) (alpha x r)
    double d[3] = {0, 0, 0};    // sum V_j (omega_j - omega_i) exp(-r^2/eps^2) / eps^5
    double c[3] = {0, 0, 0};    // sum (s_j^2 alpha + (alpha . r) r) / q^(5/2)  (the field's curl, kCurl)
};

// Can the tile hold a source within the diffusion kernel's reach (r^2 <= 16 eps^2, eps = (si +
// sj) / 2) of x? Conservative by a relative 1e-4 over the pair's own float test, so that a
// skipped tile holds only pairs the kernel would zero anyway: the skip changes no bit.
FS_HDI bool tile_within_pse_reach(const float* tile, float x, float y, float z, float si) {
    const float dx = max_of(max_of(tile[kLoX] - x, x - tile[kHiX]), 0.0f);
    const float dy = max_of(max_of(tile[kLoY] - y, y - tile[kHiY]), 0.0f);
    const float dz = max_of(max_of(tile[kLoZ] - z, z - tile[kHiZ]), 0.0f);
    const float eps = 0.5f * (si + tile[kSigmaMax]);
    return dx * dx + dy * dy + dz * dz <= 16.0f * 1.0001f * eps * eps;
}

// All sources at the vorton (x, w, si) (x relative to the sources' origin, in float); the PSE
// terms when `pse`; the field's curl when kCurl.
template <class L, bool kCurl = false>
FS_HDI void vorton_sums(const Sources& s, float xf, float yf, float zf, float wxf, float wyf, float wzf, float sif,
                        bool pse, VortonSums& out) {
    using F = typename L::F;
    const F x = L::bcast(xf), y = L::bcast(yf), z = L::bcast(zf);
    const F wx = L::bcast(wxf), wy = L::bcast(wyf), wz = L::bcast(wzf);
    const F zero = L::bcast(0.0f);
    const float *sx = s.comp(kX), *sy = s.comp(kY), *sz = s.comp(kZ), *ss2 = s.comp(kS2);
    const float *sax = s.comp(kAX), *say = s.comp(kAY), *saz = s.comp(kAZ);
    for (int t = 0; t < s.tiles; ++t) {
        F ux = zero, uy = zero, uz = zero, px = zero, py = zero, pz = zero;
        F ax = zero, ay = zero, az = zero, tx = zero, ty = zero, tz = zero;
        F qx = zero, qy = zero, qz = zero;
        const int end = (t + 1) * kTile;
        for (int j = t * kTile; j < end; j += L::W) {
            // Rosenhead-Moore kernel (vortex_kernels.hpp, kernel_terms): with q = r^2 + s_j^2,
            // u += alpha x r / q^(3/2), psi += alpha / q^(1/2), and the stretching
            // (w . grad) u = K (alpha x w) + (alpha x r) dK (r . w), dK = -3 / q^(5/2)
            // (Winckelmans and Leonard 1993; the 1/(4 pi) and -3 come in finish()).
            const F dx = x - L::load(sx + j), dy = y - L::load(sy + j), dz = z - L::load(sz + j);
            const F r2 = L::fmadd(dx, dx, L::fmadd(dy, dy, dz * dz));
            const F g = L::rsqrt(r2 + L::load(ss2 + j));
            const F g2 = g * g;
            const F k = g2 * g;
            const F bx = L::load(sax + j), by = L::load(say + j), bz = L::load(saz + j);
            const F cx = L::fmsub(by, dz, bz * dy);  // alpha x r
            const F cy = L::fmsub(bz, dx, bx * dz);
            const F cz = L::fmsub(bx, dy, by * dx);
            ux = L::fmadd(k, cx, ux);
            uy = L::fmadd(k, cy, uy);
            uz = L::fmadd(k, cz, uz);
            px = L::fmadd(g, bx, px);
            py = L::fmadd(g, by, py);
            pz = L::fmadd(g, bz, pz);
            ax = L::fmadd(k, bx, ax);
            ay = L::fmadd(k, by, ay);
            az = L::fmadd(k, bz, az);
            const F k5 = k * g2;  // 1 / q^(5/2)
            const F rw = L::fmadd(dx, wx, L::fmadd(dy, wy, dz * wz));
            const F dk = k5 * rw;
            tx = L::fmadd(dk, cx, tx);
            ty = L::fmadd(dk, cy, ty);
            tz = L::fmadd(dk, cz, tz);
            if constexpr (kCurl) {
                // The field's curl (add_induced): (s_j^2 alpha + (alpha . r) r) / q^(5/2).
                const F s2 = L::load(ss2 + j);
                const F ar = L::fmadd(bx, dx, L::fmadd(by, dy, bz * dz));
                qx = L::fmadd(k5, L::fmadd(s2, bx, ar * dx), qx);
                qy = L::fmadd(k5, L::fmadd(s2, by, ar * dy), qy);
                qz = L::fmadd(k5, L::fmadd(s2, bz, ar * dz), qz);
            }
        }
        out.u[0] += L::sum(ux), out.u[1] += L::sum(uy), out.u[2] += L::sum(uz);
        out.psi[0] += L::sum(px), out.psi[1] += L::sum(py), out.psi[2] += L::sum(pz);
        out.a[0] += L::sum(ax), out.a[1] += L::sum(ay), out.a[2] += L::sum(az);
        out.s[0] += L::sum(tx), out.s[1] += L::sum(ty), out.s[2] += L::sum(tz);
        if constexpr (kCurl) out.c[0] += L::sum(qx), out.c[1] += L::sum(qy), out.c[2] += L::sum(qz);
        if (!pse || !tile_within_pse_reach(s.tile + t * kTileFields, xf, yf, zf, sif)) continue;
        // Particle strength exchange (Degond and Mas-Gallic 1989; vortex_kernels.hpp, pse_term):
        // V_j (omega_j - omega_i) exp(-r^2/eps^2) / eps^5, eps = (s_i + s_j) / 2, zero beyond
        // r^2 = 16 eps^2 (the constants 4 / pi^(3/2) and nu come in finish()).
        const float *ssig = s.comp(kSigma), *swx = s.comp(kWX), *swy = s.comp(kWY), *swz = s.comp(kWZ);
        const float* svol = s.comp(kVol);
        const F si = L::bcast(sif), two = L::bcast(2.0f), reach = L::bcast(16.0f), floor = L::bcast(-20.0f);
        F dx_ = zero, dy_ = zero, dz_ = zero;
        for (int j = t * kTile; j < end; j += L::W) {
            const F dx = x - L::load(sx + j), dy = y - L::load(sy + j), dz = z - L::load(sz + j);
            const F r2 = L::fmadd(dx, dx, L::fmadd(dy, dy, dz * dz));
            const F ie = two * L::rsqrt((si + L::load(ssig + j)) * (si + L::load(ssig + j)));  // 1 / eps
            const F ie2 = ie * ie;
            const F q = r2 * ie2;
            const F e = L::exp(L::max(zero - q, floor));
            const F c = L::keep_within(L::load(svol + j) * e * (ie2 * ie2 * ie), q, reach);
            dx_ = L::fmadd(c, L::load(swx + j) - wx, dx_);
            dy_ = L::fmadd(c, L::load(swy + j) - wy, dy_);
            dz_ = L::fmadd(c, L::load(swz + j) - wz, dz_);
        }
        out.d[0] += L::sum(dx_), out.d[1] += L::sum(dy_), out.d[2] += L::sum(dz_);
    }
}

// All sources at a tracer: the velocity's sum only.
template <class L>
FS_HDI void tracer_sum(const Sources& s, float xf, float yf, float zf, double u[3]) {
    using F = typename L::F;
    const F x = L::bcast(xf), y = L::bcast(yf), z = L::bcast(zf);
    const F zero = L::bcast(0.0f);
    const float *sx = s.comp(kX), *sy = s.comp(kY), *sz = s.comp(kZ), *ss2 = s.comp(kS2);
    const float *sax = s.comp(kAX), *say = s.comp(kAY), *saz = s.comp(kAZ);
    for (int t = 0; t < s.tiles; ++t) {
        F ux = zero, uy = zero, uz = zero;
        const int end = (t + 1) * kTile;
        for (int j = t * kTile; j < end; j += L::W) {
            // Rosenhead-Moore kernel: u += alpha x r / (r^2 + s_j^2)^(3/2) (1/(4 pi) in finish).
            const F dx = x - L::load(sx + j), dy = y - L::load(sy + j), dz = z - L::load(sz + j);
            const F r2 = L::fmadd(dx, dx, L::fmadd(dy, dy, dz * dz));
            const F g = L::rsqrt(r2 + L::load(ss2 + j));
            const F k = g * g * g;
            const F bx = L::load(sax + j), by = L::load(say + j), bz = L::load(saz + j);
            ux = L::fmadd(k, L::fmsub(by, dz, bz * dy), ux);
            uy = L::fmadd(k, L::fmsub(bz, dx, bx * dz), uy);
            uz = L::fmadd(k, L::fmsub(bx, dy, by * dx), uz);
        }
        u[0] += L::sum(ux), u[1] += L::sum(uy), u[2] += L::sum(uz);
    }
}

#if defined(FS_DIRECT_AVX2)
// Subnormal results flushed to zero and subnormal operands read as zero (the MXCSR's FTZ and DAZ
// bits) while a sum runs on the CPU, on the calling thread, restored after: products of small
// strengths and far kernels fall below float's normal range where to_float's inputs do not, and
// the CPU computes each such lane in microcode. The caller's own floating-point state is left as
// it was; every call sets it the same, so the sums stay the same bits on any thread count.
struct FlushSubnormals {
    unsigned saved = _mm_getcsr();
    FlushSubnormals() { _mm_setcsr(saved | 0x8040u); }  // FTZ (bit 15) and DAZ (bit 6)
    ~FlushSubnormals() { _mm_setcsr(saved); }
    FlushSubnormals(const FlushSubnormals&) = delete;
    FlushSubnormals& operator=(const FlushSubnormals&) = delete;
};

// One function per instantiation (kCurl): both flattened into one ran the sums without the curl
// 8% slower (46 656 vortons, two threads).
template <bool kCurl>
__attribute__((target("avx2,fma"), flatten)) inline void vorton_sums_avx2(const Sources& s, float x, float y, float z,
                                                                           float wx, float wy, float wz, float si,
                                                                           bool pse, VortonSums& out) {
    const FlushSubnormals flush;
    vorton_sums<Lane8, kCurl>(s, x, y, z, wx, wy, wz, si, pse, out);
}
__attribute__((target("avx2,fma"), flatten)) inline void tracer_sum_avx2(const Sources& s, float x, float y, float z,
                                                                          double u[3]) {
    const FlushSubnormals flush;
    tracer_sum<Lane8>(s, x, y, z, u);
}
template <bool kCurl>
__attribute__((target("avx512f"), flatten)) inline void vorton_sums_avx512(const Sources& s, float x, float y,
                                                                            float z, float wx, float wy, float wz,
                                                                            float si, bool pse, VortonSums& out) {
    const FlushSubnormals flush;
    vorton_sums<Lane16, kCurl>(s, x, y, z, wx, wy, wz, si, pse, out);
}
__attribute__((target("avx512f"), flatten)) inline void tracer_sum_avx512(const Sources& s, float x, float y, float z,
                                                                           double u[3]) {
    const FlushSubnormals flush;
    tracer_sum<Lane16>(s, x, y, z, u);
}
// The widest lanes this host has: 16, 8 or 1.
inline int host_lanes() {
    if (__builtin_cpu_supports("avx512f")) return 16;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 8;
    return 1;
}
#endif
#if !defined(FS_DIRECT_AVX2)
// No MXCSR to set: the GPU (whose float arithmetic takes subnormals at full speed) and hosts
// other than x86-64 with GCC.
struct FlushSubnormals {};
#endif
// The one-lane sums (the GPU, hosts without AVX2, the tests' comparisons), with FTZ/DAZ on the CPU
// as the wide ones.
template <bool kCurl>
FS_HDI void vorton_sums_lane1(const Sources& s, float x, float y, float z, float wx, float wy, float wz, float si,
                              bool pse, VortonSums& out) {
    [[maybe_unused]] const FlushSubnormals flush{};
    vorton_sums<Lane1, kCurl>(s, x, y, z, wx, wy, wz, si, pse, out);
}
FS_HDI void tracer_sum_lane1(const Sources& s, float x, float y, float z, double u[3]) {
    [[maybe_unused]] const FlushSubnormals flush{};
    tracer_sum<Lane1>(s, x, y, z, u);
}

// The vorton's velocity, potential, stretching and diffusion from its sums (the constants of
// kernel_terms and pse_term).
struct VortonResult {
    dvec3 u, psi, stretch, diffuse, curl;
};
FS_HDI VortonResult finish(const VortonSums& m, dvec3 w, double nu) {
    const double c = 1.0 / (4.0 * kPi);
    const dvec3 a(m.a[0], m.a[1], m.a[2]), t(m.s[0], m.s[1], m.s[2]);
    VortonResult r;
    r.u = c * dvec3(m.u[0], m.u[1], m.u[2]);
    r.psi = c * dvec3(m.psi[0], m.psi[1], m.psi[2]);
    r.stretch = c * glm::cross(a, w) - 3.0 * c * t;
    r.diffuse = (nu * 4.0 / (kPi * std::sqrt(kPi))) * dvec3(m.d[0], m.d[1], m.d[2]);
    r.curl = 3.0 * c * dvec3(m.c[0], m.c[1], m.c[2]) - c * a;  // add_induced's curl
    return r;
}

}  // namespace direct

// The prepared sources, kept between steps (buffers grow only), and the sums over them.
template <class Exec>
class DirectSum {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    // Float SoA copies of the vortons (pos, omega, radius), relative to pos[0]: one parallel
    // pass over the sources and one over the tiles. Call once per velocity evaluation.
    void prepare(Exec& exec, View<const dvec3> pos, View<const dvec3> omega, View<const double> radius,
                 double overlap = kDocumentOverlap) {
        overlap_ = overlap;
        const int n = pos.size;
        const int tiles = (n + direct::kTile - 1) / direct::kTile;
        const int padded = tiles * direct::kTile;
        data_.resize(static_cast<std::size_t>(padded) * direct::kComponents);
        tiles_.resize(static_cast<std::size_t>(tiles) * direct::kTileFields);
        origin_.resize(1);
        if (n == 0) mem_zero(origin_.data(), kSpace, sizeof(dvec3));
        src_.d = data_.data();
        src_.tile = tiles_.data();
        src_.origin = origin_.data();
        src_.padded = padded;
        src_.tiles = tiles;
        float* d = data_.data();
        dvec3* org = origin_.data();
        exec.parallel_for(padded, FS_LAMBDA(int j) {
            using namespace direct;
            const std::size_t m = static_cast<std::size_t>(padded);
            if (j == 0) org[0] = pos[0];
            if (j < n) {
                const dvec3 x = pos[j] - pos[0];
                const double s = radius[j], v = vorton_volume(s, overlap);
                const dvec3 a = v * omega[j];
                const float f[kComponents] = {float(x.x),         float(x.y),         float(x.z),
                                              float(s * s),        to_float(a.x),      to_float(a.y),
                                              to_float(a.z),       float(s),           to_float(omega[j].x),
                                              to_float(omega[j].y), to_float(omega[j].z), float(v)};
                for (int c = 0; c < kComponents; ++c) d[c * m + j] = f[c];
            } else {
                // Padding: no strength, no volume, a core of 1 (no 0/0).
                for (int c = 0; c < kComponents; ++c) d[c * m + j] = 0.0f;
                d[kS2 * m + j] = 1.0f;
                d[kSigma * m + j] = 1.0f;
            }
        });
        float* tb = tiles_.data();
        exec.parallel_for(tiles, FS_LAMBDA(int t) {
            using namespace direct;
            const std::size_t m = static_cast<std::size_t>(padded);
            float lo[3] = {3e38f, 3e38f, 3e38f}, hi[3] = {-3e38f, -3e38f, -3e38f}, smax = 0.0f;
            const int end = min_of(n, (t + 1) * kTile);
            for (int j = t * kTile; j < end; ++j) {
                for (int c = 0; c < 3; ++c) {
                    lo[c] = min_of(lo[c], d[c * m + j]);
                    hi[c] = max_of(hi[c], d[c * m + j]);
                }
                smax = max_of(smax, d[kSigma * m + j]);
            }
            float* o = tb + t * kTileFields;
            o[kLoX] = lo[0], o[kLoY] = lo[1], o[kLoZ] = lo[2];
            o[kHiX] = hi[0], o[kHiY] = hi[1], o[kHiZ] = hi[2];
            o[kSigmaMax] = smax;
            o[kSigmaMax + 1] = 0.0f;
        });
    }

    // Velocity, potential, stretching and (nu > 0) diffusion at every vorton, and with a
    // non-empty `curl` the field's curl u (add_induced): the same vortons prepare() was given.
    void vortons(Exec& exec, View<const dvec3> pos, View<const dvec3> omega, View<const double> radius, double nu,
                 View<dvec3> vel, View<dvec3> str, View<dvec3> dif, View<dvec3> psi, View<dvec3> curl = {}) const {
        if (pos.size <= exact_up_to_) {
            exact_vortons(exec, pos, omega, radius, nu, overlap_, vel, str, dif, psi, curl);
            return;
        }
        const direct::Sources s = src_;
        const bool pse = nu > 0.0, want_curl = curl.size > 0;
        const int lanes = this->lanes();
        exec.parallel_for(pos.size, FS_LAMBDA(int i) {
            using namespace direct;
            const dvec3 x = pos[i] - *s.origin, w = omega[i];
            const float xf = float(x.x), yf = float(x.y), zf = float(x.z), sf = float(radius[i]);
            const float wx = to_float(w.x), wy = to_float(w.y), wz = to_float(w.z);
            VortonSums m;
#if defined(FS_DIRECT_AVX2)
            if (lanes == 16 && want_curl)
                vorton_sums_avx512<true>(s, xf, yf, zf, wx, wy, wz, sf, pse, m);
            else if (lanes == 16)
                vorton_sums_avx512<false>(s, xf, yf, zf, wx, wy, wz, sf, pse, m);
            else if (lanes == 8 && want_curl)
                vorton_sums_avx2<true>(s, xf, yf, zf, wx, wy, wz, sf, pse, m);
            else if (lanes == 8)
                vorton_sums_avx2<false>(s, xf, yf, zf, wx, wy, wz, sf, pse, m);
            else
#endif
                if (want_curl)
                    vorton_sums_lane1<true>(s, xf, yf, zf, wx, wy, wz, sf, pse, m);
                else
                    vorton_sums_lane1<false>(s, xf, yf, zf, wx, wy, wz, sf, pse, m);
            (void)lanes;
            const VortonResult r = finish(m, w, nu);
            vel[i] = r.u;
            str[i] = r.stretch;
            psi[i] = r.psi;
            dif[i] = r.diffuse;
            if (want_curl) curl[i] = r.curl;
        });
    }

    // The same all in double, pair by pair (add_induced, pse_term).
    static void exact_vortons(Exec& exec, View<const dvec3> pos, View<const dvec3> omega, View<const double> radius,
                              double nu, double overlap, View<dvec3> vel, View<dvec3> str, View<dvec3> dif,
                              View<dvec3> psi, View<dvec3> curl = {}) {
        const int n = pos.size;
        const bool want_curl = curl.size > 0;
        exec.parallel_for(n, FS_LAMBDA(int i) {
            const dvec3 xi = pos[i], wi = omega[i];
            const double si = radius[i];
            Induced acc;
            dvec3 d(0.0);
            for (int j = 0; j < n; ++j) {
                const double sj = radius[j];
                const double vj = vorton_volume(sj, overlap);
                add_induced(acc, xi, wi, pos[j], vj * omega[j], sj, true, want_curl);
                if (nu > 0.0 && j != i) d += pse_term(xi - pos[j], 0.5 * (si + sj), wi, omega[j], vj);
            }
            vel[i] = acc.u;
            str[i] = acc.stretch;
            psi[i] = acc.psi;
            dif[i] = nu * d;
            if (want_curl) curl[i] = acc.curl;
        });
    }

    // Velocity at every tracer.
    void tracers(Exec& exec, View<const dvec3> tpos, View<dvec3> tvel) const {
        const direct::Sources s = src_;
        const int lanes = this->lanes();
        exec.parallel_for(tpos.size, FS_LAMBDA(int i) {
            using namespace direct;
            const dvec3 x = tpos[i] - *s.origin;
            double u[3] = {0, 0, 0};
#if defined(FS_DIRECT_AVX2)
            if (lanes == 16)
                tracer_sum_avx512(s, float(x.x), float(x.y), float(x.z), u);
            else if (lanes == 8)
                tracer_sum_avx2(s, float(x.x), float(x.y), float(x.z), u);
            else
#endif
                tracer_sum_lane1(s, float(x.x), float(x.y), float(x.z), u);
            (void)lanes;
            tvel[i] = (1.0 / (4.0 * kPi)) * dvec3(u[0], u[1], u[2]);
        });
    }

    // The lanes the sums take: the widest the host has (16 floats with AVX-512F, 8 with AVX2
    // and FMA, else 1; always 1 on the GPU), at most max_lanes (the tests compare the paths).
    int lanes() const {
#if defined(FS_DIRECT_AVX2)
        if (kSpace == MemorySpace::Host) return min_of(direct::host_lanes(), max_lanes_);
#endif
        return 1;
    }
    void limit_lanes(int max_lanes) { max_lanes_ = max_lanes; }
    // Vortons up to this many sum all in double (direct::kExactUpTo; the tests set 0).
    void exact_up_to(int n) { exact_up_to_ = n; }

private:
    Buffer<float> data_{kSpace}, tiles_{kSpace};
    Buffer<dvec3> origin_{kSpace};
    direct::Sources src_;
    int max_lanes_ = 16;
    int exact_up_to_ = direct::kExactUpTo;
    double overlap_ = kDocumentOverlap;  // prepare()'s: the vortons' volume (sigma / overlap)^3
};

}  // namespace fs::vortex

#if defined(FS_DIRECT_AVX2)
#pragma GCC diagnostic pop
#endif
