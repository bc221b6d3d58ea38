// The density and force stages' pair loops eight candidates at a time, for hosts with AVX-512F
// (chosen at run time: solvers/common/lanes.hpp). The same terms as sph_kernels.hpp's scalar
// bodies, which the GPU and other hosts run: the cubic spline and its gradient (the WCSPH assignment, 2.1), and the pressure and
// Monaghan viscosity pair force (the WCSPH assignment, 2.3 and 2.5). What differs is the order of the sums
// (eight lanes, joined by a fixed tree at the end), so the results agree with the scalar bodies
// to round-off, not to the bit; they are still the same for any thread count, since each
// particle's sums are its own. tests/test_sph.cpp compares the two.
//
// Why: each particle has about 64 candidates in its 2x2 block of cells and 13 neighbours among
// them. The scalar loop spends its time on the candidates (a distance, a compare and a branch
// each) and on a square root and a kernel per neighbour, one at a time. Here the candidates of
// a run of consecutive slots are loaded eight at a time, the neighbours among them compressed
// into the particle's row, and the kernel evaluated for all eight lanes under the mask.
#pragma once

#include "solvers/common/grid2d.hpp"
#include "solvers/common/lanes.hpp"
#include "solvers/sph/sph_kernels.hpp"

#if defined(FS_LANES_AVX512)
#define FS_SPH_AVX512 1
// GCC 12 sees its own AVX-512 intrinsics' _mm512_undefined_* operands as uninitialised.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace fs::sph::simd {

#if defined(FS_SPH_AVX512)

using lanes::available;
using lanes::first_lanes;

#define FS_SPH_TARGET FS_LANES_TARGET

// The spline's piece, 6(q^3 - q^2) + 1 for q < 1/2 and 2(1 - q)^3 beyond (the WCSPH assignment, 2.1;
// sigma is the caller's), of eight distances squared, added to acc in the lanes of `use`.
FS_SPH_TARGET __m512d add_pieces(__m512d acc, __mmask8 use, __m512d r2, double inv_h) {
    const __m512d one = _mm512_set1_pd(1.0);
    const __m512d q = _mm512_mul_pd(_mm512_sqrt_pd(r2), _mm512_set1_pd(inv_h));
    const __m512d a = _mm512_sub_pd(one, q);
    const __m512d q2 = _mm512_mul_pd(q, q);
    const __m512d inner = _mm512_add_pd(_mm512_mul_pd(_mm512_set1_pd(6.0), _mm512_sub_pd(_mm512_mul_pd(q2, q), q2)), one);
    const __m512d outer = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(2.0), a), _mm512_mul_pd(a, a));
    const __mmask8 inside = _mm512_cmp_pd_mask(q, _mm512_set1_pd(0.5), _CMP_LT_OQ);
    return _mm512_mask_add_pd(acc, use, acc, _mm512_mask_blend_pd(inside, outer, inner));
}

// Density (the WCSPH assignment, 2.1): the sum over particle i's neighbours j != i within h of the spline's
// piece (times sigma: the caller's). The candidates are tested eight at a time; the neighbours'
// slots go to `row` in slot order (the first `room` of them; `near` counts them all), and their
// distances queue in a register until eight are there, whose pieces are then evaluated
// together: about two square roots of eight lanes a particle instead of one per candidate group.
// (Compressing to memory and reading back stalls: a masked store does not forward to a load.)
FS_SPH_TARGET double density_sum(const grid::Neighbors2& nb, int i, const grid::Neighbors2::Runs& runs,
                                 const CubicSpline<double>& k, double reach2, int* row, int room, int& near) {
    const double* p = &nb.pos.data[0].x;
    const __m512d xi = _mm512_set1_pd(p[2 * i]), yi = _mm512_set1_pd(p[2 * i + 1]);
    const __m512i lane64 = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    const __m512d r2max = _mm512_set1_pd(reach2);
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i self = _mm512_set1_epi32(i);
    __m512d acc = _mm512_setzero_pd();
    __m512d queue = _mm512_setzero_pd();  // distances squared waiting, in its first `held` lanes
    int held = 0, found = 0;
    for (int r = 0; r < runs.count; ++r) {
        const int end = runs.end[r];
        for (int j = runs.begin[r]; j < end; j += 8) {
            const int left = end - j;
            const __mmask8 valid = first_lanes(left);
            __m512d x, y;
            lanes::load_points(p, j, left, x, y);
            const __m512d dx = _mm512_sub_pd(xi, x);
            const __m512d dy = _mm512_sub_pd(yi, y);
            const __m512d r2 = _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy));
            const __m512i slot = _mm512_add_epi32(_mm512_set1_epi32(j), lane);
            const __mmask8 in = _mm512_mask_cmp_pd_mask(valid, r2, r2max, _CMP_LT_OQ) &
                                static_cast<__mmask8>(_mm512_cmpneq_epi32_mask(slot, self));
            if (!in) continue;
            const int n = __builtin_popcount(in);
            // The slots compressed in a register and stored under a mask (a compressing store to
            // memory is microcoded and slow on some cores).
            if (found + 8 <= room) {
                _mm512_mask_storeu_epi32(row + found, first_lanes(n), _mm512_maskz_compress_epi32(in, slot));
            } else {
                alignas(64) int spill[16];
                _mm512_store_si512(spill, _mm512_maskz_compress_epi32(in, slot));
                for (int t = 0; t < n; ++t)
                    if (found + t < room) row[found + t] = spill[t];
            }
            found += n;
            // The new distances join the queue at lane `held`; eight make a batch.
            const __m512d fresh = _mm512_maskz_compress_pd(in, r2);
            const __m512i from = _mm512_sub_epi64(lane64, _mm512_set1_epi64(held));  // lane L takes fresh[L - held]
            queue = _mm512_mask_blend_pd(static_cast<__mmask8>(0xFFu << held), queue, _mm512_permutexvar_pd(from, fresh));
            held += n;
            if (held >= 8) {
                acc = add_pieces(acc, 0xFF, queue, k.inv_h);
                held -= 8;  // fresh's last `held` lanes wait: lane L takes fresh[L + n - held]
                queue = _mm512_permutexvar_pd(_mm512_add_epi64(lane64, _mm512_set1_epi64(n - held)), fresh);
            }
        }
    }
    if (held > 0) acc = add_pieces(acc, first_lanes(held), queue, k.inv_h);
    near = found;
    return _mm512_reduce_add_pd(acc);
}

// The pairs base[2 q[k]], base[2 q[k] + 1] for k = 0..3, side by side.
FS_SPH_TARGET __m512d four_pairs(const double* base, const int* q) {
    const __m256d lo = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(base + 2 * q[0])),
                                            _mm_loadu_pd(base + 2 * q[1]), 1);
    const __m256d hi = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(base + 2 * q[2])),
                                            _mm_loadu_pd(base + 2 * q[3]), 1);
    return _mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1);
}

// The density stage (the WCSPH assignment, 2.1: rho_i = m sum_j W_ij, the particle itself included) for
// particles first .. last-1, recording their neighbours' rows. Particles in one cell search the
// same runs (the 3x3 block), found once for them; the loop's constants are set up once.
FS_SPH_TARGET void density_block(const grid::Neighbors2& nb, int first, int last, const CubicSpline<double>& k,
                                 double reach2, double m, int* list, int cap, const int* kind, double* rho,
                                 int* count) {
    grid::Neighbors2::Runs runs;
    int runs_cell = -1;
    const double self = k.W(0.0);
    for (int i = first; i < last; ++i) {
        const int cell = nb.grid.cell_of(nb.pos[i]);
        if (cell != runs_cell || nb.grid.block != 3) {
            runs = nb.runs(i);
            runs_cell = cell;
        }
        int near = 0;
        const double sum = self + k.s * density_sum(nb, i, runs, k, reach2, list + static_cast<long long>(i) * cap, cap, near);
        if (kind[i] == kFluid) rho[i] = m * sum;
        count[i] = near;
    }
}

// The force stage's sum over the n neighbours in `row` of sph_kernels.hpp's pair_acceleration
// (pressure and Monaghan viscosity, the WCSPH assignment, 2.3 and 2.5), eight neighbours at a time.
FS_SPH_TARGET dvec2 acceleration_sum(const Config& c, const CubicSpline<double>& k, const dvec2* pos,
                                     const dvec2* vel, const dvec2* rho_P, const int* row, int n, dvec2 xi, dvec2 vi,
                                     double rho_i, double P_i) {
    const double* px = &pos[0].x;
    const double* vx = &vel[0].x;
    const double* rx = &rho_P[0].x;
    const __m512d xi_x = _mm512_set1_pd(xi.x), xi_y = _mm512_set1_pd(xi.y);
    const __m512d vi_x = _mm512_set1_pd(vi.x), vi_y = _mm512_set1_pd(vi.y);
    const __m512d rhoi = _mm512_set1_pd(rho_i), Pi = _mm512_set1_pd(P_i);
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0), half = _mm512_set1_pd(0.5);
    const __m512d inv_h = _mm512_set1_pd(k.inv_h);
    const __m512d s_h2 = _mm512_set1_pd(k.s_h2), neg_6s_h = _mm512_set1_pd(-k.s_h * 6.0);
    const __m512d c18 = _mm512_set1_pd(18.0), c12 = _mm512_set1_pd(12.0);
    const __m512d visc = _mm512_set1_pd(-(2.0 * c.alpha * c.h * c.c_s));
    const __m512d eps_h2 = _mm512_set1_pd(c.epsilon * c.h * c.h);
    const __m512d neg_m = _mm512_set1_pd(-c.mass);
    const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
    const __m512i odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
    __m512d ax = zero, ay = zero;
    for (int t = 0; t < n; t += 8) {
        const __mmask8 valid = first_lanes(n - t);
        // Neighbours t .. t+7 (the last repeated past n): their (x, y), (vx, vy) and (rho, P)
        // pairs loaded side by side, then split in x and y (faster than eight-way gathers).
        int js[8];
        for (int l = 0; l < 8; ++l) js[l] = row[t + l < n ? t + l : n - 1];
        const __m512d pa = four_pairs(px, js), pb = four_pairs(px, js + 4);
        const __m512d va = four_pairs(vx, js), vb = four_pairs(vx, js + 4);
        const __m512d ra = four_pairs(rx, js), rb = four_pairs(rx, js + 4);
        const __m512d dx = _mm512_sub_pd(xi_x, _mm512_permutex2var_pd(pa, even, pb));
        const __m512d dy = _mm512_sub_pd(xi_y, _mm512_permutex2var_pd(pa, odd, pb));
        const __m512d dvx = _mm512_sub_pd(vi_x, _mm512_permutex2var_pd(va, even, vb));
        const __m512d dvy = _mm512_sub_pd(vi_y, _mm512_permutex2var_pd(va, odd, vb));
        const __m512d rhoj = _mm512_permutex2var_pd(ra, even, rb);
        const __m512d Pj = _mm512_permutex2var_pd(ra, odd, rb);
        // grad_i W = f x_ij, f = (dW/dr) / r: sigma/h^2 (18q - 12) inside q < 1/2, -6 sigma/h
        // (1 - q)^2 / r out to q < 1, 0 beyond and at r = 0.
        const __m512d r2 = _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy));
        const __m512d r = _mm512_sqrt_pd(r2);
        const __m512d q = _mm512_mul_pd(r, inv_h);
        const __m512d a = _mm512_sub_pd(one, q);
        const __m512d f_in = _mm512_mul_pd(s_h2, _mm512_sub_pd(_mm512_mul_pd(c18, q), c12));
        const __mmask8 live = _mm512_mask_cmp_pd_mask(valid, r, zero, _CMP_GT_OQ) &
                              _mm512_cmp_pd_mask(q, one, _CMP_LT_OQ);
        const __mmask8 inside = _mm512_cmp_pd_mask(q, half, _CMP_LT_OQ);
        const __m512d f_out = _mm512_maskz_div_pd(live & ~inside, _mm512_mul_pd(neg_6s_h, _mm512_mul_pd(a, a)), r);
        const __m512d f = _mm512_mask_blend_pd(inside & live, f_out, f_in);
        // P_i + P_j, plus Monaghan's Pi_ij where the pair approaches (v_ij . x_ij < 0).
        const __m512d vdotx = _mm512_add_pd(_mm512_mul_pd(dvx, dx), _mm512_mul_pd(dvy, dy));
        const __mmask8 closing = _mm512_mask_cmp_pd_mask(live, vdotx, zero, _CMP_LT_OQ);
        const __m512d den = _mm512_mul_pd(_mm512_add_pd(rhoi, rhoj), _mm512_add_pd(r2, eps_h2));
        const __m512d pi = _mm512_maskz_div_pd(closing, _mm512_mul_pd(visc, vdotx), den);
        const __m512d coeff = _mm512_mul_pd(neg_m, _mm512_add_pd(_mm512_add_pd(Pi, Pj), pi));
        const __m512d g = _mm512_maskz_mul_pd(live, coeff, f);
        ax = _mm512_add_pd(ax, _mm512_mul_pd(g, dx));
        ay = _mm512_add_pd(ay, _mm512_mul_pd(g, dy));
    }
    return {_mm512_reduce_add_pd(ax), _mm512_reduce_add_pd(ay)};
}

// The force stage (the WCSPH assignment, 2.3 and 2.5: a_i = g + sum_j pair_acceleration) for particles
// first .. last-1; a particle whose row overflowed is searched through the grid, as the scalar
// body does.
FS_SPH_TARGET void acceleration_block(const Config& c, const CubicSpline<double>& k, const NeighborList& nb,
                                      int first, int last, const dvec2* pos, const dvec2* vel, const dvec2* rho_P,
                                      const int* kind, dvec2* acc) {
    for (int i = first; i < last; ++i) {
        if (kind[i] != kFluid) {
            acc[i] = dvec2(0.0);
        } else if (nb.count[i] > nb.cap) {
            acc[i] = fluid_acceleration(c, k, nb, i, pos, vel, rho_P);
        } else {
            acc[i] = c.gravity + acceleration_sum(c, k, pos, vel, rho_P, nb.list.data + static_cast<long long>(i) * nb.cap,
                                                  nb.count[i], pos[i], vel[i], rho_P[i].x, rho_P[i].y);
        }
    }
}

#undef FS_SPH_TARGET

#else

using lanes::available;

#endif

}  // namespace fs::sph::simd

#if defined(FS_SPH_AVX512)
#pragma GCC diagnostic pop
#endif
