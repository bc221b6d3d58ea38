// G2P (PIC/FLIP, the linear kernel) eight particles at a time, for hosts with AVX-512F (chosen at
// run time: solvers/common/lanes.hpp). The same terms as interpolate_faces and g2p_pic_flip's
// scalar body, in the same order, each lane one particle: the results are the same bits
// (tests/test_flip_scatter.cpp compares them), since the scalar code has no fused multiply-adds
// (the project is built without -march) and these functions forbid them too (fp-contract=off).
//
// Why: perf put a fifth of a FLIP step (64^3, one thread) in G2P, about 150 cycles a particle
// spent one scalar load, multiply and add at a time on each of its 24 faces (three components,
// eight faces each, two fields with the volume correction's shift). Here each of those is one
// gather of eight particles' faces, and the weights are eight lanes wide. A particle whose
// stencil leaves the grid on any axis (at the walls), or has no number for a position, takes the
// scalar body.
#pragma once

#include "solvers/common/lanes.hpp"
#include "solvers/flip/flip_kernels.hpp"

#if defined(FS_LANES_AVX512)
#define FS_FLIP_AVX512 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace fs::flip::simd {

#if defined(FS_FLIP_AVX512)

using lanes::available;

// AVX-512F, and no contraction of a multiply and an add into one rounding: the scalar code has
// none, and the lanes must give its bits.
#define FS_FLIP_TARGET __attribute__((target("avx512f"), optimize("fp-contract=off"))) inline

// The lanes whose stencil base lies in the grid along one axis: 0 <= base and base + 1 <= size - 1
// (NaN compares false).
FS_FLIP_TARGET __mmask8 within(__m512d base, int size) {
    return static_cast<__mmask8>(_mm512_cmp_pd_mask(base, _mm512_setzero_pd(), _CMP_GE_OQ) &
                                 _mm512_cmp_pd_mask(base, _mm512_set1_pd(size - 2), _CMP_LE_OQ));
}

// One component's eight particles: the weighted sums over the faces that carry a value, as
// interpolate_faces<kLinear, N> (N = 2 with the shift d, else 1). u: positions in cell units;
// vm: 1.0 where a face carries a value, 0.0 where not (valid as a double, so it gathers).
// `inside` gets the lanes whose eight faces all lie in the grid; the others' sums are not used.
template <bool Shift>
FS_FLIP_TARGET void interpolate8(const Faces& f, const double* b, const double* d, const double* vm, __m512d ux,
                                 __m512d uy, __m512d uz, __mmask8& inside, __m512d& out_b, __m512d& out_d) {
    // r = u - the faces' node offset (Faces::position(0)); stencil_1d's linear weights.
    const __m512d half = _mm512_set1_pd(0.5), one = _mm512_set1_pd(1.0);
    const __m512d rx = f.axis == 0 ? ux : _mm512_sub_pd(ux, half);
    const __m512d ry = f.axis == 1 ? uy : _mm512_sub_pd(uy, half);
    const __m512d rz = f.axis == 2 ? uz : _mm512_sub_pd(uz, half);
    constexpr int kFloor = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
    const __m512d bx = _mm512_roundscale_pd(rx, kFloor), by = _mm512_roundscale_pd(ry, kFloor),
                  bz = _mm512_roundscale_pd(rz, kFloor);
    const __m512d fx = _mm512_sub_pd(rx, bx), fy = _mm512_sub_pd(ry, by), fz = _mm512_sub_pd(rz, bz);
    const __m512d wx[2] = {_mm512_sub_pd(one, fx), fx}, wy[2] = {_mm512_sub_pd(one, fy), fy},
                  wz[2] = {_mm512_sub_pd(one, fz), fz};
    inside = static_cast<__mmask8>(inside & within(bx, f.fx) & within(by, f.fy) & within(bz, f.fz));
    // Lanes outside read face 0 (their sums are dropped).
    const __m512d zero = _mm512_setzero_pd();
    const __m256i ix = _mm512_cvtpd_epi32(_mm512_mask_blend_pd(inside, zero, bx));
    const __m256i iy = _mm512_cvtpd_epi32(_mm512_mask_blend_pd(inside, zero, by));
    const __m256i iz = _mm512_cvtpd_epi32(_mm512_mask_blend_pd(inside, zero, bz));
    const __m256i fxv = _mm256_set1_epi32(f.fx), fyv = _mm256_set1_epi32(f.fy);
    __m512d t0 = zero, t1 = zero, wsum = zero;
    for (int zc = 0; zc < 2; ++zc) {
        const __m256i k = _mm256_add_epi32(iz, _mm256_set1_epi32(zc));
        for (int yc = 0; yc < 2; ++yc) {
            const __m256i j = _mm256_add_epi32(iy, _mm256_set1_epi32(yc));
            const __m512d wyz = _mm512_mul_pd(wy[yc], wz[zc]);
            // Faces::index: i + fx (j + fy k).
            const __m256i row = _mm256_mullo_epi32(fxv, _mm256_add_epi32(j, _mm256_mullo_epi32(fyv, k)));
            for (int xc = 0; xc < 2; ++xc) {
                const __m256i at = _mm256_add_epi32(row, _mm256_add_epi32(ix, _mm256_set1_epi32(xc)));
                // valid ? w : 0, as w * 1 or w * 0 (w >= 0, so +0 as the scalar's).
                const __m512d w = _mm512_mul_pd(_mm512_mul_pd(wx[xc], wyz), _mm512_i32gather_pd(at, vm, 8));
                t0 = _mm512_add_pd(t0, _mm512_mul_pd(w, _mm512_i32gather_pd(at, b, 8)));
                if (Shift) t1 = _mm512_add_pd(t1, _mm512_mul_pd(w, _mm512_i32gather_pd(at, d, 8)));
                wsum = _mm512_add_pd(wsum, w);
            }
        }
    }
    // One division, then the products, where any face carried a value; 0 elsewhere.
    const __mmask8 some = _mm512_cmp_pd_mask(wsum, zero, _CMP_GT_OQ);
    const __m512d inv = _mm512_mask_div_pd(zero, some, one, wsum);
    out_b = _mm512_maskz_mul_pd(some, t0, inv);
    out_d = Shift ? _mm512_maskz_mul_pd(some, t1, inv) : zero;
}

// The lanes at positions q (x, y, z) where keep_out_of_solids has anything to do: outside the
// domain less its margin (or not a number), inside the box obstacle, or inside the sphere, by
// the same tests; it leaves every other particle as it is.
FS_FLIP_TARGET __mmask8 outside_or_in_solids(const Config& c, const __m512d q[3]) {
    const MacGrid& g = c.grid;
    const double eps = 1e-6 * g.dx;
    const dvec3 lo = g.origin + dvec3(eps), hi = g.origin + g.dx * dvec3(g.nx, g.ny, g.nz) - dvec3(eps);
    __mmask8 in_domain = 0xFF, in_box = 0xFF;
    for (int a = 0; a < 3; ++a) {
        in_domain &= static_cast<__mmask8>(_mm512_cmp_pd_mask(q[a], _mm512_set1_pd(lo[a]), _CMP_GE_OQ) &
                                           _mm512_cmp_pd_mask(q[a], _mm512_set1_pd(hi[a]), _CMP_LE_OQ));
        in_box &= static_cast<__mmask8>(_mm512_cmp_pd_mask(q[a], _mm512_set1_pd(c.box_lo[a]), _CMP_GT_OQ) &
                                        _mm512_cmp_pd_mask(q[a], _mm512_set1_pd(c.box_hi[a]), _CMP_LT_OQ));
    }
    __mmask8 in_sphere = 0;
    if (c.sphere_radius > 0.0) {
        __m512d d2 = _mm512_setzero_pd();
        for (int a = 0; a < 3; ++a) {
            const __m512d d = _mm512_sub_pd(q[a], _mm512_set1_pd(c.sphere_center[a]));
            d2 = _mm512_add_pd(d2, _mm512_mul_pd(d, d));
        }
        in_sphere = _mm512_cmp_pd_mask(d2, _mm512_set1_pd(c.sphere_radius * c.sphere_radius), _CMP_LT_OQ);
    }
    return static_cast<__mmask8>(~in_domain | in_box | in_sphere);
}

// Particles first .. first + 7 (those below n): each lane's new velocity flip v + interp(b) and,
// with Shift, its position moved by interp(d), for the lanes whose stencils lie in the grid;
// `done` says which (the caller runs the scalar body for the rest). Positions and velocities are
// written back after keep_out_of_solids, lane by lane.
template <bool Shift>
FS_FLIP_TARGET unsigned g2p8(const Config& cfg, dvec3* pos, dvec3* vel, int first, int n, double flip,
                             const Faces* faces, const double* const* b, const double* const* d,
                             const double* const* vm) {
    const int count = n - first < 8 ? n - first : 8;
    const __mmask8 live = lanes::first_lanes(count);
    const __m256i stride = _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21);
    const double* p = &pos[first].x;
    const double* v = &vel[first].x;
    const __m512d zero = _mm512_setzero_pd();
    __m512d px = _mm512_mask_i32gather_pd(zero, live, stride, p, 8);
    __m512d py = _mm512_mask_i32gather_pd(zero, live, stride, p + 1, 8);
    __m512d pz = _mm512_mask_i32gather_pd(zero, live, stride, p + 2, 8);
    // to_cells: (x - origin) / dx.
    const MacGrid& g = cfg.grid;
    const __m512d dx = _mm512_set1_pd(g.dx);
    const __m512d ux = _mm512_div_pd(_mm512_sub_pd(px, _mm512_set1_pd(g.origin.x)), dx);
    const __m512d uy = _mm512_div_pd(_mm512_sub_pd(py, _mm512_set1_pd(g.origin.y)), dx);
    const __m512d uz = _mm512_div_pd(_mm512_sub_pd(pz, _mm512_set1_pd(g.origin.z)), dx);
    __mmask8 inside = live;
    __m512d ib[3], id[3];
    for (int a = 0; a < 3; ++a) interpolate8<Shift>(faces[a], b[a], d[a], vm[a], ux, uy, uz, inside, ib[a], id[a]);
    if (!inside) return 0u;
    const __m512d fl = _mm512_set1_pd(flip);
    alignas(64) double nv[3][8], np[3][8];
    for (int a = 0; a < 3; ++a) {
        const __m512d va = _mm512_mask_i32gather_pd(zero, inside, stride, v + a, 8);
        _mm512_store_pd(nv[a], _mm512_add_pd(_mm512_mul_pd(fl, va), ib[a]));
    }
    __mmask8 solid = 0;  // the lanes keep_out_of_solids may change
    if (Shift) {
        const __m512d q[3] = {_mm512_add_pd(px, id[0]), _mm512_add_pd(py, id[1]), _mm512_add_pd(pz, id[2])};
        for (int a = 0; a < 3; ++a) _mm512_store_pd(np[a], q[a]);
        solid = outside_or_in_solids(cfg, q);
    }
    for (int l = 0; l < count; ++l) {
        if (!((inside >> l) & 1u)) continue;
        dvec3 nvl(nv[0][l], nv[1][l], nv[2][l]);
        if (Shift) {
            dvec3 npl(np[0][l], np[1][l], np[2][l]);
            if ((solid >> l) & 1u) keep_out_of_solids(cfg, npl, nvl);
            pos[first + l] = npl;
        }
        vel[first + l] = nvl;
    }
    return inside;
}

#endif

}  // namespace fs::flip::simd

#if defined(FS_FLIP_AVX512)
#pragma GCC diagnostic pop
#endif
