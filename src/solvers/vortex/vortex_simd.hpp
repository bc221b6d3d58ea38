// The tracers' trilinear interpolation (interpolate_vec) eight tracers at a time, for hosts with
// AVX-512F (chosen at run time: solvers/common/lanes.hpp). The same operations as the scalar body,
// in the same order, each lane one tracer: VicGrid::locate's division, truncation and clamps, the
// corners' weights ((wx wy) wz, cic_weight) and the sum over the corners in the scalar loops'
// order. The project is built without -march, so the scalar code has no fused multiply-adds, and
// these functions forbid them too (fp-contract=off): the results are the same bits
// (tests/test_vortex_grid.cpp compares them, with points outside the grid and without a number).
//
// Why: perf put 16% of a one-thread plate-over-flames step (49 000 tracers, two velocity
// evaluations a step) in this interpolation, about 60 cycles a tracer spent on scalar index
// arithmetic, clamps and 24 loads.
#pragma once

#include "solvers/common/lanes.hpp"
#include "solvers/vortex/vortex_kernels.hpp"

#if defined(FS_LANES_AVX512)
#define FS_VORTEX_AVX512 1
// GCC 12 warns of the intrinsics' own undefined pass-through operands (avx512fintrin.h).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace fs::vortex::simd {

#if defined(FS_VORTEX_AVX512)

using lanes::available;

#define FS_VORTEX_TARGET __attribute__((target("avx512f"), optimize("fp-contract=off"))) inline

// clamp_to(v, lo, hi) lane by lane: v < lo ? lo : (hi < v ? hi : v) (a NaN stays NaN).
FS_VORTEX_TARGET __m512d clamp_lanes(__m512d v, double lo, double hi) {
    const __m512d l = _mm512_set1_pd(lo), h = _mm512_set1_pd(hi);
    __m512d r = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(h, v, _CMP_LT_OQ), v, h);
    return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(v, l, _CMP_LT_OQ), r, l);
}

// One axis of VicGrid::locate for eight coordinates: the cell (truncated, clamped to [0, n - 2])
// and the fraction inside it (clamped to [0, 1]). Truncation of a NaN or of a value beyond int's
// range gives INT_MIN in both forms (cvttsd2si, cvttpd2dq), which the clamp takes to 0.
FS_VORTEX_TARGET void locate_axis(__m512d x, double origin, double h, int n, __m256i& cell, __m512d& frac) {
    const __m512d g = _mm512_div_pd(_mm512_sub_pd(x, _mm512_set1_pd(origin)), _mm512_set1_pd(h));
    const __m256i t = _mm512_cvttpd_epi32(g);
    cell = _mm256_min_epi32(_mm256_max_epi32(t, _mm256_setzero_si256()), _mm256_set1_epi32(n - 2));
    frac = clamp_lanes(_mm512_sub_pd(g, _mm512_cvtepi32_pd(cell)), 0.0, 1.0);
}

// out[first .. first + count - 1] = interpolate_vec(g, field, pos[...]) for count <= 8.
FS_VORTEX_TARGET void interpolate_vec8(const VicGrid& g, const dvec3* field, const dvec3* pos, dvec3* out, int first,
                                       int count) {
    const __mmask8 live = lanes::first_lanes(count);
    const double* p = &pos[first].x;
    const __m256i three = _mm256_set1_epi32(3);
    const __m256i lane3 = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), three);
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0);
    __m512d x[3];
    for (int a = 0; a < 3; ++a)
        x[a] = _mm512_mask_i32gather_pd(zero, live, _mm256_add_epi32(lane3, _mm256_set1_epi32(a)), p, 8);
    __m256i i, j, k;
    __m512d fx, fy, fz;
    locate_axis(x[0], g.origin.x, g.h, g.nx, i, fx);
    locate_axis(x[1], g.origin.y, g.h, g.ny, j, fy);
    locate_axis(x[2], g.origin.z, g.h, g.nz, k, fz);
    const __m512d wx[2] = {_mm512_sub_pd(one, fx), fx}, wy[2] = {_mm512_sub_pd(one, fy), fy},
                  wz[2] = {_mm512_sub_pd(one, fz), fz};
    const __m256i nx = _mm256_set1_epi32(g.nx), ny = _mm256_set1_epi32(g.ny);
    __m512d sum[3] = {zero, zero, zero};
    const double* f = &field[0].x;
    for (int c = 0; c < 2; ++c)
        for (int b = 0; b < 2; ++b) {
            // node(i, j + b, k + c) = i + nx ((j + b) + ny (k + c)), as three doubles each
            const __m256i kc = _mm256_add_epi32(k, _mm256_set1_epi32(c)), jb = _mm256_add_epi32(j, _mm256_set1_epi32(b));
            const __m256i row = _mm256_add_epi32(i, _mm256_mullo_epi32(nx, _mm256_add_epi32(jb, _mm256_mullo_epi32(ny, kc))));
            for (int a = 0; a < 2; ++a) {
                // cic_weight: ((a ? fx : 1 - fx) (b ? fy : 1 - fy)) (c ? fz : 1 - fz)
                const __m512d w = _mm512_mul_pd(_mm512_mul_pd(wx[a], wy[b]), wz[c]);
                const __m256i at = _mm256_mullo_epi32(_mm256_add_epi32(row, _mm256_set1_epi32(a)), three);
                for (int m = 0; m < 3; ++m) {
                    const __m512d v =
                        _mm512_mask_i32gather_pd(zero, live, _mm256_add_epi32(at, _mm256_set1_epi32(m)), f, 8);
                    sum[m] = _mm512_add_pd(sum[m], _mm512_mul_pd(w, v));
                }
            }
        }
    double o[3][8];
    for (int m = 0; m < 3; ++m) _mm512_storeu_pd(o[m], sum[m]);
    for (int l = 0; l < count; ++l) out[first + l] = dvec3(o[0][l], o[1][l], o[2][l]);
}

#else

inline bool available() { return false; }

#endif

}  // namespace fs::vortex::simd

#if defined(FS_VORTEX_AVX512)
#pragma GCC diagnostic pop
#endif
