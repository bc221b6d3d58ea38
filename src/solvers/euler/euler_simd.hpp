// The collide stage's partner search eight candidates at a time, for hosts with AVX-512F (chosen
// at run time: solvers/common/lanes.hpp; the GPU and other hosts run the scalar loop). The
// results are the scalar loop's to the bit: the lanes only filter, and every candidate nearer
// than the collision distance goes through the same scalar body (PartnerSearch, seed 000
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

// Partners, pair tests, contacts and overlaps of particles first .. last-1 (euler_pipeline.hpp's
// choose_partners, Neighbors2's runs).
FS_LANES_TARGET void choose_partners(const grid::Neighbors2& nb, int first, int last, double distance2,
                                     bool periodic, const dvec2* vel, const int* id, int* partner, int* tests,
                                     int* contacts, double* overlap) {
    const dvec2* pos = nb.pos.data;
    const double* p = &pos[0].x;
    const grid::Grid2& g = nb.grid;
    // The filter lets through a little more than the collision distance: its distances may round
    // differently from the scalar body's (a fused multiply-add), which then decides exactly.
    const __m512d limit = _mm512_set1_pd(distance2 * (1.0 + 1e-12));
    for (int i = first; i < last; ++i) {
        const dvec2 xi = pos[i], vi = vel[i];
        const __m512d x0 = _mm512_set1_pd(xi.x), y0 = _mm512_set1_pd(xi.y);
        const int cx = g.cx(xi.x), cy = g.cy(xi.y);
        const bool wrap = periodic && !interior(g, cx, cy);
        PartnerSearch search(distance2);
        auto visit = [&](unsigned in, int slot0, int slot4) {  // the lanes of `in`: slot0 + lane, slot4 + lane - 4
            while (in) {
                const int lane = __builtin_ctz(in);
                search.visit(i, (lane < 4 ? slot0 : slot4 - 4) + lane, xi, vi, pos, vel, id, periodic);
                in &= in - 1;
            }
        };
        // The runs: off the border cells, the 2x2 block's two rows directly (Neighbors2's block 2
        // without its border cases); elsewhere Neighbors2's list (a lambda here would not carry
        // the target attribute).
        grid::Neighbors2::Runs runs;
        if (interior(g, cx, cy)) {
            const int x0 = cx - (g.ux(xi.x) - cx < 0.5 ? 1 : 0), y0 = cy - (g.uy(xi.y) - cy < 0.5 ? 1 : 0);
            const int* start = nb.cell_start.data + y0 * g.nx + x0;
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
        partner[i] = search.best.j;
        tests[i] = t;
        contacts[i] = search.near;
        overlap[i] = search.overlap();
    }
}

#endif

}  // namespace fs::euler::simd
