// The search grid's two blocks against brute force, and SPH's eight-lane density and force
// loops (sph_simd.hpp) against the scalar bodies the GPU and other hosts run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <map>
#include <random>
#include <vector>
#include <utility>

#include "core/exec_cpu.hpp"
#include "core/random.hpp"
#include "solvers/common/cell_sort.hpp"
#include "solvers/sph/sph_pipeline.hpp"

namespace {

using fs::CpuExec;
using glm::dvec2;

// ---- the grid's blocks ----

// Every pair closer than `reach` (the nearest image in a periodic unit box) found through the
// grid, each visit counted: a pair visited twice from one side would be counted twice by the
// solvers.
std::map<std::pair<int, int>, int> grid_pairs(const std::vector<dvec2>& pts, double reach, bool periodic, int block,
                                              long long cells_cap) {
    CpuExec exec;
    fs::Buffer<dvec2> pos;
    pos.copy_from_host(pts);
    const fs::grid::Grid2 g = fs::grid::make_grid({0.0, 0.0}, {1.0, 1.0}, reach, cells_cap, block);
    EXPECT_EQ(g.block, block);
    fs::grid::CellSort<CpuExec> sort;
    sort.build(exec, g, pos.cview());
    std::vector<dvec2> sorted(pts.size());
    std::vector<int> order(pts.size());
    auto ord = sort.order();
    for (std::size_t s = 0; s < pts.size(); ++s) {
        order[s] = ord[static_cast<int>(s)];
        sorted[s] = pts[static_cast<std::size_t>(order[s])];
    }
    fs::Buffer<dvec2> sorted_buf;
    sorted_buf.copy_from_host(sorted);
    const fs::grid::Neighbors2 nb{g, periodic, sort.cell_start(), sorted_buf.cview()};
    std::map<std::pair<int, int>, int> found;
    for (int s = 0; s < static_cast<int>(pts.size()); ++s)
        nb.for_each(s, [&](int t) {
            dvec2 d = sorted[static_cast<std::size_t>(s)] - sorted[static_cast<std::size_t>(t)];
            if (periodic) d -= glm::round(d);
            if (d.x * d.x + d.y * d.y < reach * reach) ++found[{order[static_cast<std::size_t>(s)], order[static_cast<std::size_t>(t)]}];
        });
    return found;
}

TEST(GridBlocks, TwoByTwoAndThreeByThreeFindEachBruteForcePairOnceOnAnyGrid) {
    std::mt19937_64 rng(11);
    std::vector<dvec2> pts(600);
    for (auto& p : pts) p = {fs::uniform01(rng), fs::uniform01(rng)};
    // Reaches from a third of the box (one to three cells a side: every wrap and clamp branch)
    // down to a fine grid; a cap of few cells a particle makes cells wider than the block needs.
    for (const double reach : {0.34, 0.26, 0.2, 0.12, 0.05})
        for (const bool periodic : {false, true})
            for (const int block : {2, 3})
                for (const long long cap : {600LL, 8LL}) {
                    std::map<std::pair<int, int>, int> brute;
                    for (int i = 0; i < static_cast<int>(pts.size()); ++i)
                        for (int j = 0; j < static_cast<int>(pts.size()); ++j) {
                            if (i == j) continue;
                            dvec2 d = pts[static_cast<std::size_t>(i)] - pts[static_cast<std::size_t>(j)];
                            if (periodic) d -= glm::round(d);
                            if (d.x * d.x + d.y * d.y < reach * reach) brute[{i, j}] = 1;
                        }
                    EXPECT_EQ(grid_pairs(pts, reach, periodic, block, cap), brute)
                        << "reach " << reach << (periodic ? " periodic" : "") << " block " << block << " cap " << cap;
                }
}

// ---- the eight-lane loops ----

// A jittered block of fluid with random velocities and a patch pressed to half the spacing
// (about fifty neighbours a particle there, past the neighbour rows' room), walls below.
fs::sph::HostState disordered_state(const fs::sph::Config& c) {
    std::mt19937_64 rng(5);
    fs::sph::HostState s;
    auto add = [&](dvec2 p, int kind) {
        s.pos.push_back(p);
        s.vel.push_back(kind == fs::sph::kFluid ? dvec2(fs::uniform01(rng) - 0.5, fs::uniform01(rng) - 0.5) : dvec2(0.0));
        s.offset.push_back(dvec2(0.0));
        s.density.push_back(c.rho0);
        s.pressure.push_back(0.0);
        s.kappa.push_back(dvec2(0.0));
        s.kind.push_back(kind);
        s.id.push_back(static_cast<int>(s.id.size()));
    };
    const double dx = c.spacing;
    for (int y = 0; y < 60; ++y)
        for (int x = 0; x < 60; ++x) {
            const dvec2 jitter(fs::uniform01(rng) - 0.5, fs::uniform01(rng) - 0.5);
            add(dvec2(x + 0.5, y + 0.5) * dx + 0.3 * dx * jitter, fs::sph::kFluid);
        }
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 20; ++x) add(dvec2(0.02 + 0.5 * dx * x, 0.02 + 0.5 * dx * y), fs::sph::kFluid);
    for (int y = 1; y <= 3; ++y)
        for (int x = -3; x < 63; ++x) add(dvec2((x + 0.5) * dx, -y * dx + 0.5 * dx), fs::sph::kWall);
    return s;
}

TEST(SphLanes, EightLaneDensityAndForcesAgreeWithTheScalarBodiesToRoundOff) {
    if (!fs::sph::simd::available()) GTEST_SKIP() << "this host has no AVX-512F: only the scalar loops run here";
    fs::sph::Config c;
    c.spacing = 0.01;
    c.h = 2.0 * c.spacing;
    c.mass = c.rho0 * c.spacing * c.spacing;
    c.B = c.rho0 * c.c_s * c.c_s / c.gamma;
    c.grid = fs::grid::make_grid({-0.05, -0.05}, {0.65, 0.65}, c.h, 5000, 3);
    const fs::sph::HostState start = disordered_state(c);
    fs::sph::Pipeline<CpuExec> p[2];
    for (int wide = 0; wide < 2; ++wide) {
        p[wide].set_simd(wide == 1);
        ASSERT_EQ(p[wide].simd(), wide == 1);
        p[wide].upload(start);
        for (int stage : {fs::sph::kNeighborSearch, fs::sph::kDensity, fs::sph::kPressure, fs::sph::kAccelerations})
            p[wide].run_stage(stage, c);
    }
    fs::sph::HostState h[2];
    p[0].download(h[0]);
    p[1].download(h[1]);
    ASSERT_EQ(h[0].id, h[1].id);  // the same order: the sort does not depend on the loops
    const auto list0 = p[0].neighbor_list(c), list1 = p[1].neighbor_list(c);
    const auto acc0 = p[0].accelerations_view(), acc1 = p[1].accelerations_view();
    const fs::sph::CubicSpline<double> k{c.h};
    int overfull = 0;
    for (int i = 0; i < static_cast<int>(h[0].pos.size()); ++i) {
        // The same neighbours in the same order, as many as the row holds.
        ASSERT_EQ(list0.count[i], list1.count[i]) << "particle " << i;
        overfull += list0.count[i] > list0.cap;
        for (int n = 0; n < std::min(list0.count[i], list0.cap); ++n)
            ASSERT_EQ(list0.list[i * list0.cap + n], list1.list[i * list1.cap + n]) << "particle " << i;
        // Sums of positive terms in another order: within a few ulp a term of the sum.
        const double rho_bound = 4.0 * (list0.count[i] + 1) * DBL_EPSILON * h[0].density[i];
        EXPECT_NEAR(h[1].density[i], h[0].density[i], rho_bound) << "particle " << i;
        if (h[0].kind[i] != fs::sph::kFluid) continue;
        // The forces: a few ulp of the sum of the pair terms' magnitudes.
        double scale = 0.0;
        const double P_i = fs::sph::pressure_over_rho2(h[0].pressure[i], h[0].density[i]);
        list0.for_each(i, [&](int j) {
            const dvec2 a = fs::sph::pair_acceleration(c, k, h[0].pos[i] - h[0].pos[j], h[0].vel[i] - h[0].vel[j],
                                                       h[0].density[i], h[0].density[j], P_i,
                                                       fs::sph::pressure_over_rho2(h[0].pressure[j], h[0].density[j]));
            scale += std::abs(a.x) + std::abs(a.y);
        });
        const double bound = 16.0 * (list0.count[i] + 1) * DBL_EPSILON * scale;
        EXPECT_NEAR(acc1[i].x, acc0[i].x, bound) << "particle " << i;
        EXPECT_NEAR(acc1[i].y, acc0[i].y, bound) << "particle " << i;
    }
    EXPECT_GT(overfull, 50);  // the pressed patch took the rows' overflow path
}

}  // namespace
