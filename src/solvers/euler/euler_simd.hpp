// The collide stage's partner search eight candidates at a time, for hosts with AVX-512F (chosen
// at run time: solvers/common/lanes.hpp; the GPU and other hosts run the scalar loop). The
// results are the scalar loop's to the bit: the lanes only filter, and every candidate nearer
// than the collision distance goes through the same scalar body (PartnerSearch, the particle tutorial
// "collisions"), whose outcome does not depend on the order of its visits.
//
// Why: the gas at N = 1e6 has about one particle a cell, so a particle's 2x2 block holds about
// three candidates in two runs of a few slots each, and one in ten of those is within reach. The
// scalar loop's time went to branches it could not predict: each run's length and each
// distance test. Here a run is one masked load of up to eight candidates and one compare, and
// the rare candidate within reach is visited alone.
#pragma once

#include "solvers/common/grid2d.hpp"
#include "solvers/common/lanes.hpp"
#include "solvers/euler/euler_kernels.hpp"

#if defined(FS_LANES_AVX512)
#define FS_EULER_AVX512 1
// GCC 12 sees its own AVX-512 intrinsics' _mm512_undefined_* operands as uninitialised.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace fs::euler::simd {

using lanes::available;

#if defined(FS_EULER_AVX512)

// The lanes of `valid` whose point (x, y) may lie within the collision distance of (x0, y0):
// nearer than `limit`, a little over it. A periodic box takes the nearest image where `wrap`
// (nearest_image(); elsewhere it changes nothing and is skipped).
FS_LANES_TARGET unsigned within(__m512d x, __m512d y, __m512d x0, __m512d y0, __m512d limit, bool wrap,
                                __mmask8 valid) {
    __m512d dx = _mm512_sub_pd(x, x0), dy = _mm512_sub_pd(y, y0);  // separation(): b - a
    if (wrap) {
        const __m512d half = _mm512_set1_pd(0.5), mhalf = _mm512_set1_pd(-0.5), one = _mm512_set1_pd(1.0);
        dx = _mm512_mask_sub_pd(dx, _mm512_cmp_pd_mask(dx, half, _CMP_GT_OQ), dx, one);
        dx = _mm512_mask_add_pd(dx, _mm512_cmp_pd_mask(dx, mhalf, _CMP_LT_OQ), dx, one);
        dy = _mm512_mask_sub_pd(dy, _mm512_cmp_pd_mask(dy, half, _CMP_GT_OQ), dy, one);
        dy = _mm512_mask_add_pd(dy, _mm512_cmp_pd_mask(dy, mhalf, _CMP_LT_OQ), dy, one);
    }
    const __m512d r2 = _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy));
    return _mm512_mask_cmp_pd_mask(valid, r2, limit, _CMP_LT_OQ);
}

// Whether cell (cx, cy) is off the border cells of a grid at least 8 cells a side: its particles'
// 2x2 block lies inside the grid, and they search cells within 2/8 of the box, so every
// separation is under a half and the nearest image is itself.
FS_LANES_TARGET bool interior(const grid::Grid2& g, int cx, int cy) {
    return g.block == 2 && g.nx >= 8 && g.ny >= 8 && cx >= 1 && cx <= g.nx - 2 && cy >= 1 && cy <= g.ny - 2;
}

// What the searches below share: the arrays, the grid and the filter's limit.
struct Search {
    const grid::Neighbors2& nb;
    const dvec2* pos;
    const dvec2* vel;
    const int* id;
    double distance2;
    bool periodic;
    int* partner;
    int* tests;
    int* contacts;
    double* overlap;

    FS_LANES_TARGET void store(int i, const PartnerSearch& s, int t) const {
        partner[i] = s.best.j;
        tests[i] = t;
        contacts[i] = s.near;
        overlap[i] = s.overlap();
    }
};

// The filter lets through a little more than the collision distance: its distances may round
// differently from the scalar body's (a fused multiply-add), which then decides exactly.
FS_LANES_TARGET __m512d filter_limit(double distance2) { return _mm512_set1_pd(distance2 * (1.0 + 1e-12)); }

// Particle i alone: its candidates eight at a time.
FS_LANES_TARGET void choose_one(const Search& q, int i) {
    const grid::Neighbors2& nb = q.nb;
    const dvec2* pos = q.pos;
    const double* p = &pos[0].x;
    const grid::Grid2& g = nb.grid;
    const __m512d limit = filter_limit(q.distance2);
    const dvec2 xi = pos[i], vi = q.vel[i];
    const __m512d x0 = _mm512_set1_pd(xi.x), y0 = _mm512_set1_pd(xi.y);
    const int cx = g.cx(xi.x), cy = g.cy(xi.y);
    const bool wrap = q.periodic && !interior(g, cx, cy);
    PartnerSearch search(q.distance2);
    auto visit = [&](unsigned in, int slot0, int slot4) {  // the lanes of `in`: slot0 + lane, slot4 + lane - 4
        while (in) {
            const int lane = __builtin_ctz(in);
            search.visit(i, (lane < 4 ? slot0 : slot4 - 4) + lane, xi, vi, pos, q.vel, q.id, q.periodic);
            in &= in - 1;
        }
    };
    // The runs: off the border cells, the 2x2 block's two rows directly (Neighbors2's block 2
    // without its border cases); elsewhere Neighbors2's list (a lambda here would not carry the
    // target attribute).
    grid::Neighbors2::Runs runs;
    if (interior(g, cx, cy)) {
        const int x0c = cx - (g.ux(xi.x) - cx < 0.5 ? 1 : 0), y0c = cy - (g.uy(xi.y) - cy < 0.5 ? 1 : 0);
        const int* start = nb.cell_start.data + y0c * g.nx + x0c;
        runs.begin[0] = start[0];
        runs.end[0] = start[2];
        runs.begin[1] = start[g.nx];
        runs.end[1] = start[g.nx + 2];
        runs.count = 2;
    } else {
        runs = nb.runs(i);
    }
    int t = -1;  // particle i is in one of the runs
    for (int r = 0; r < runs.count; ++r) t += runs.end[r] - runs.begin[r];
    const int n0 = runs.end[0] - runs.begin[0], n1 = runs.count > 1 ? runs.end[1] - runs.begin[1] : 0;
    if (runs.count <= 2 && n0 <= 4 && n1 <= 4) {
        // The usual case (about one particle a cell): both rows in one set of lanes.
        const int b0 = runs.begin[0], b1 = runs.count > 1 ? runs.begin[1] : 0;
        __m512d x, y;
        lanes::load_points(p, b0, n0, b1, n1, x, y);
        const auto valid = static_cast<__mmask8>(lanes::first_lanes(n0) | (lanes::first_lanes(n1) << 4));
        unsigned in = within(x, y, x0, y0, limit, wrap, valid);
        in &= ~(static_cast<unsigned>(i - b0) < static_cast<unsigned>(n0) ? 1u << (i - b0) : 16u << (i - b1));
        visit(in, b0, b1);
    } else {
        for (int r = 0; r < runs.count; ++r) {
            const int end = runs.end[r];
            for (int j = runs.begin[r]; j < end; j += 8) {
                __m512d x, y;
                lanes::load_points(p, j, end - j, x, y);
                unsigned in = within(x, y, x0, y0, limit, wrap, lanes::first_lanes(end - j));
                const unsigned self = static_cast<unsigned>(i - j);
                if (self < 8u) in &= ~(1u << self);
                visit(in, j, j + 4);
            }
        }
    }
    q.store(i, search, t);
}

// Particles i .. i+7 together, when all eight sit off the border cells (returns false, having
// done nothing, otherwise): their cells and blocks eight lanes at a time, then each one's rows
// as choose_one filters them. (Tried: the k-th candidate of all eight rows at once by gathers,
// for k up to the longest row: the gathers took a third of the search; collide 29.5 ms at
// N = 1e6 on 1 thread, against 27 so.)
FS_LANES_TARGET bool choose_eight(const Search& q, int i) {
    const grid::Grid2& g = q.nb.grid;
    if (g.block != 2 || g.nx < 8 || g.ny < 8) return false;
    const double* p = &q.pos[0].x;
    __m512d x, y;
    lanes::load_points(p, i, 8, x, y);
    // Cell coordinates (Grid2::ux, uy); off the border means 1 <= u < n - 1 (no clamping, and
    // truncation is the floor), which NaN fails.
    const __m512d ux = _mm512_mul_pd(_mm512_sub_pd(x, _mm512_set1_pd(g.origin.x)), _mm512_set1_pd(g.inv_cell.x));
    const __m512d uy = _mm512_mul_pd(_mm512_sub_pd(y, _mm512_set1_pd(g.origin.y)), _mm512_set1_pd(g.inv_cell.y));
    const __m512d one = _mm512_set1_pd(1.0);
    const __mmask8 inside =
        _mm512_cmp_pd_mask(ux, one, _CMP_GE_OQ) & _mm512_cmp_pd_mask(ux, _mm512_set1_pd(g.nx - 1), _CMP_LT_OQ) &
        _mm512_cmp_pd_mask(uy, one, _CMP_GE_OQ) & _mm512_cmp_pd_mask(uy, _mm512_set1_pd(g.ny - 1), _CMP_LT_OQ);
    if (inside != 0xFF) return false;
    const __m256i cx = _mm512_cvttpd_epi32(ux), cy = _mm512_cvttpd_epi32(uy);
    // The block's first column and row: the particle's half of its cell (Neighbors2::each_run).
    const __m512d half = _mm512_set1_pd(0.5);
    const __mmask8 left = _mm512_cmp_pd_mask(_mm512_sub_pd(ux, _mm512_cvtepi32_pd(cx)), half, _CMP_LT_OQ);
    const __mmask8 low = _mm512_cmp_pd_mask(_mm512_sub_pd(uy, _mm512_cvtepi32_pd(cy)), half, _CMP_LT_OQ);
    alignas(32) int ix0[8], iy0[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(ix0), cx);
    _mm256_store_si256(reinterpret_cast<__m256i*>(iy0), cy);
    const int* start = q.nb.cell_start.data;
    alignas(32) int b[2][8], e[2][8];
    int t[8];
    for (int l = 0; l < 8; ++l) {
        const int cell = (iy0[l] - ((low >> l) & 1)) * g.nx + ix0[l] - ((left >> l) & 1);
        b[0][l] = start[cell];
        e[0][l] = start[cell + 2];
        b[1][l] = start[cell + g.nx];
        e[1][l] = start[cell + g.nx + 2];
        t[l] = e[0][l] - b[0][l] + e[1][l] - b[1][l] - 1;  // particle i + l is in one of its runs
    }
    // Then each particle's two rows in one set of lanes, as choose_one does, without its cell
    // arithmetic; a row over four long sends the particle to choose_one.
    const __m512d limit = filter_limit(q.distance2);
    for (int l = 0; l < 8; ++l) {
        const int a = i + l;
        const int n0 = e[0][l] - b[0][l], n1 = e[1][l] - b[1][l];
        if (n0 > 8 || n1 > 8) {
            choose_one(q, a);
            continue;
        }
        const dvec2 xa = q.pos[a], va = q.vel[a];
        const __m512d xs = _mm512_set1_pd(xa.x), ys = _mm512_set1_pd(xa.y);
        PartnerSearch search(q.distance2);
        auto visit = [&](unsigned in, int slot0, int slot4) {  // the lanes of `in`: slot0 + lane, slot4 + lane - 4
            while (in) {
                const int lane = __builtin_ctz(in);
                search.visit(a, (lane < 4 ? slot0 : slot4 - 4) + lane, xa, va, q.pos, q.vel, q.id, q.periodic);
                in &= in - 1;
            }
        };
        __m512d cxs, cys;
        if (n0 <= 4 && n1 <= 4) {  // both rows in one set of lanes
            lanes::load_points(p, b[0][l], n0, b[1][l], n1, cxs, cys);
            const auto valid = static_cast<__mmask8>(lanes::first_lanes(n0) | (lanes::first_lanes(n1) << 4));
            unsigned in = within(cxs, cys, xs, ys, limit, false, valid);
            in &= ~(static_cast<unsigned>(a - b[0][l]) < static_cast<unsigned>(n0) ? 1u << (a - b[0][l]) : 16u << (a - b[1][l]));
            visit(in, b[0][l], b[1][l]);
        } else {  // a row over four long (one particle in ten): a set of lanes a row
            for (int r = 0; r < 2; ++r) {
                const int j = b[r][l], nr = e[r][l] - j;
                lanes::load_points(p, j, nr, cxs, cys);
                unsigned in = within(cxs, cys, xs, ys, limit, false, lanes::first_lanes(nr));
                const unsigned self = static_cast<unsigned>(a - j);
                if (self < 8u) in &= ~(1u << self);
                visit(in, j, j + 4);
            }
        }
        q.store(a, search, t[l]);
    }
    return true;
}

// Partners, pair tests, contacts and overlaps of particles first .. last-1 (euler_pipeline.hpp's
// choose_partners, Neighbors2's runs): eight at a time where they sit off the border cells, one
// at a time elsewhere.
FS_LANES_TARGET void choose_partners(const grid::Neighbors2& nb, int first, int last, double distance2,
                                     bool periodic, const dvec2* vel, const int* id, int* partner, int* tests,
                                     int* contacts, double* overlap) {
    const Search q{nb, nb.pos.data, vel, id, distance2, periodic, partner, tests, contacts, overlap};
    int i = first;
    while (i < last) {
        if (i + 8 <= last && choose_eight(q, i)) {
            i += 8;
        } else {
            choose_one(q, i);
            ++i;
        }
    }
}

// Soft contact: the listed pairs' forces in quanta (Pipeline::pair_forces, walls or an open box:
// no periodic image), eight pairs at a time, pairs [first, last). The same operations in the same
// order as the scalar body (pair_force, then to_quanta), so the same bits: IEEE square root and
// division are exact in the lanes too, the blends take the scalar's comparisons, and the quanta
// are converted one at a time as the scalar's cast does.
// No fused multiply-adds: the target has them, and the scalar body, built for any x86-64, does
// not. (GCC would fuse the intrinsics' products and sums; clang fuses only within one expression.)
#if defined(__clang__)
#define FS_EULER_NO_FMA
#else
#define FS_EULER_NO_FMA __attribute__((optimize("fp-contract=off")))
#endif

// Lanes m of base[idx] (0 elsewhere).
FS_EULER_NO_FMA FS_LANES_TARGET __m512d gather_lanes(const double* base, __m256i idx, __mmask8 m) {
    return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, idx, base, 8);
}

// to_quanta before its cast: f scale, clamped to +-2^52, plus copysign(0.5, .).
FS_EULER_NO_FMA FS_LANES_TARGET __m512d quanta_lanes(__m512d f, double scale) {
    const __m512d limit = _mm512_set1_pd(4503599627370496.0), neg_limit = _mm512_set1_pd(-4503599627370496.0);
    __m512d v = _mm512_mul_pd(f, _mm512_set1_pd(scale));
    v = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(v, limit, _CMP_GT_OQ),
                             _mm512_mask_blend_pd(_mm512_cmp_pd_mask(v, neg_limit, _CMP_LT_OQ), v, neg_limit), limit);
    const __m512i sign = _mm512_set1_epi64(static_cast<long long>(0x8000000000000000ULL));
    const __m512d away = _mm512_castsi512_pd(
        _mm512_or_si512(_mm512_and_si512(_mm512_castpd_si512(v), sign), _mm512_castpd_si512(_mm512_set1_pd(0.5))));
    return _mm512_add_pd(v, away);
}

FS_EULER_NO_FMA FS_LANES_TARGET void pair_forces(int first, int last, const int* pa, const int* pb, const dvec2* pos,
                                                 const dvec2* vel, const double* gamma, const Config& c, double scale,
                                                 PairQuanta* q) {
    const double* px = &pos[0].x;
    const double* vx = &vel[0].x;
    const __m512d zero = _mm512_setzero_pd(), d = _mm512_set1_pd(c.diameter);
    const __m512d reach2 = _mm512_set1_pd(c.diameter * c.diameter), k = _mm512_set1_pd(c.stiffness);
    alignas(64) double fx[8], fy[8], ov[8];
    for (int p = first; p < last; p += 8) {
        const int n = last - p < 8 ? last - p : 8;
        const __mmask8 m = lanes::first_lanes(n);
        alignas(32) int ia[8] = {0, 0, 0, 0, 0, 0, 0, 0}, ib[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int l = 0; l < n; ++l) {
            ia[l] = pa[p + l];
            ib[l] = pb[p + l];
        }
        const __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(ia));
        const __m256i b = _mm256_load_si256(reinterpret_cast<const __m256i*>(ib));
        const __m256i ax = _mm256_slli_epi32(a, 1), bx = _mm256_slli_epi32(b, 1);
        const __m256i ay = _mm256_add_epi32(ax, _mm256_set1_epi32(1)), by = _mm256_add_epi32(bx, _mm256_set1_epi32(1));
        const __m512d rx = _mm512_sub_pd(gather_lanes(px, bx, m), gather_lanes(px, ax, m));  // separation(): b - a
        const __m512d ry = _mm512_sub_pd(gather_lanes(px, by, m), gather_lanes(px, ay, m));
        const __m512d dvx = _mm512_sub_pd(gather_lanes(vx, bx, m), gather_lanes(vx, ax, m));
        const __m512d dvy = _mm512_sub_pd(gather_lanes(vx, by, m), gather_lanes(vx, ay, m));
        const __m512d g = _mm512_maskz_loadu_pd(m, gamma + p);
        // pair_force
        const __m512d d2 = _mm512_add_pd(_mm512_mul_pd(rx, rx), _mm512_mul_pd(ry, ry));
        const __mmask8 touching = _mm512_mask_cmp_pd_mask(_mm512_cmp_pd_mask(d2, zero, _CMP_GT_OQ), d2, reach2, _CMP_LT_OQ);
        const __m512d dist = _mm512_sqrt_pd(_mm512_mask_blend_pd(touching, reach2, d2));
        const __m512d inv = _mm512_div_pd(_mm512_set1_pd(1.0), dist);
        const __m512d nx = _mm512_mul_pd(rx, inv), ny = _mm512_mul_pd(ry, inv);
        const __m512d delta = _mm512_sub_pd(d, dist);
        const __m512d vn = _mm512_add_pd(_mm512_mul_pd(dvx, nx), _mm512_mul_pd(dvy, ny));
        const __m512d fn = _mm512_sub_pd(_mm512_mul_pd(k, delta), _mm512_mul_pd(g, vn));
        const __m512d overlap = _mm512_maskz_div_pd(touching, delta, d);
        const __m512d s = _mm512_maskz_mov_pd(_mm512_mask_cmp_pd_mask(touching, fn, zero, _CMP_GT_OQ), fn);
        _mm512_store_pd(fx, quanta_lanes(_mm512_mul_pd(s, nx), scale));
        _mm512_store_pd(fy, quanta_lanes(_mm512_mul_pd(s, ny), scale));
        _mm512_store_pd(ov, overlap);
        for (int l = 0; l < n; ++l)
            q[p + l] = PairQuanta{static_cast<long long>(fx[l]), static_cast<long long>(fy[l]), ov[l]};
    }
}

#endif

}  // namespace fs::euler::simd

#if defined(FS_EULER_AVX512)
#pragma GCC diagnostic pop
#endif
