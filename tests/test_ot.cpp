// The optimal-transport liquid (the particle tutorial's last chapter): Laguerre cells partition the
// box and agree with a brute-force power diagram (degenerate clouds included), damped Newton brings
// every cell to its area, the scheme keeps its energy, and thread count does not matter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/backend.hpp"
#include "solvers/ot/ot_solver.hpp"

namespace {

using fs::ot::HostState;
using fs::ot::OtSolver;
using glm::dvec2;

void set(OtSolver& s, const std::string& name, const std::string& value) { s.params().at(name).set_text(value); }

// Whether p lies inside the convex polygon v[begin, end) (counter-clockwise), at least `margin`
// from its edges (inside > 0), on its edges (0) or outside (< 0).
int inside(const std::vector<dvec2>& v, int begin, int end, dvec2 p, double margin) {
    if (end - begin < 3) return -1;
    int sign = 1;
    for (int k = begin; k < end; ++k) {
        const dvec2 a = v[static_cast<std::size_t>(k)], b = v[static_cast<std::size_t>(k + 1 < end ? k + 1 : begin)];
        const dvec2 e = b - a;
        const double cross = (e.x * (p.y - a.y) - e.y * (p.x - a.x)) / std::max(glm::length(e), 1e-300);
        if (cross < -margin) return -1;
        if (cross < margin) sign = 0;
    }
    return sign;
}

// A cloud with random weights and the degenerate cases: collinear particles, a coincident pair,
// particles on the box's walls and corners.
HostState cloud(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    HostState h;
    auto add = [&](dvec2 x) {
        h.pos.push_back(x);
        h.vel.push_back(dvec2(0.0));
        h.weight.push_back(0.004 * (u(rng) - 0.5));
        h.target.push_back(1.0);
        h.density.push_back(1.0);
        h.id.push_back(static_cast<int>(h.id.size()));
    };
    for (int k = 0; k < 250; ++k) add({u(rng), 2.0 * u(rng)});
    for (int k = 0; k < 12; ++k) add({0.05 + 0.075 * k, 1.3});  // collinear
    add({0.41, 0.77});
    add({0.41, 0.77});  // coincident: the lower index keeps the cell
    for (dvec2 x : {dvec2(0, 0), dvec2(1, 2), dvec2(0, 1.1), dvec2(1, 0.4), dvec2(0.6, 0), dvec2(0.3, 2)}) add(x);
    return h;
}

TEST(OtCells, PartitionTheBoxAndMatchABruteForcePowerDiagram) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        OtSolver s;
        set(s, "box_size", "1,2");
        set(s, "resolution", "16");
        s.reset();
        const HostState h = cloud(seed);
        s.set_state(h);
        std::vector<dvec2> v;
        std::vector<int> start;
        std::vector<double> radius;
        s.cells(v, start, radius);
        ASSERT_EQ(start.size(), h.pos.size() + 1);
        double total = 0.0;
        for (std::size_t i = 0; i < h.pos.size(); ++i) {
            double a = 0.0;
            for (int k = start[i]; k < start[i + 1]; ++k) {
                const dvec2 p = v[static_cast<std::size_t>(k)], q = v[static_cast<std::size_t>(k + 1 < start[i + 1] ? k + 1 : start[i])];
                a += p.x * q.y - q.x * p.y;
            }
            total += 0.5 * a;
        }
        EXPECT_NEAR(total, 2.0, 1e-12) << "seed " << seed;
        // Random points: the cell that holds each is the particle of least power distance.
        std::mt19937_64 rng(seed + 100);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        int checked = 0;
        for (int k = 0; k < 3000; ++k) {
            const dvec2 y(u(rng), 2.0 * u(rng));
            std::size_t best = 0;
            double best_d = 1e300, second = 1e300;
            for (std::size_t j = 0; j < h.pos.size(); ++j) {
                const double d = glm::dot(y - h.pos[j], y - h.pos[j]) - h.weight[j];
                if (d < best_d) {
                    second = best_d;
                    best_d = d;
                    best = j;
                } else if (d < second) {
                    second = d;
                }
            }
            if (second - best_d < 1e-9) continue;  // on a bisector: either cell may hold it
            ++checked;
            EXPECT_EQ(inside(v, start[best], start[best + 1], y, -1e-12), 1)
                << "seed " << seed << ": (" << y.x << ", " << y.y << ") is not in the cell of " << best;
            for (std::size_t j = 0; j < h.pos.size(); ++j)
                if (j != best) {
                    ASSERT_LT(inside(v, start[j], start[j + 1], y, 1e-9), 1) << "also in cell " << j;
                }
        }
        EXPECT_GT(checked, 2900);
        // The coincident pair: the larger weight has the cell, the other none.
        const std::size_t pair = 262;
        const std::size_t winner = h.weight[pair] >= h.weight[pair + 1] ? pair : pair + 1;
        const std::size_t loser = winner == pair ? pair + 1 : pair;
        EXPECT_GT(start[winner + 1] - start[winner], 2);
        EXPECT_EQ(start[loser + 1] - start[loser], 0);
    }
}

TEST(OtTransport, NewtonBringsEveryCellToItsAreaInAFewIterations) {
    OtSolver s;
    s.reset();  // the Rayleigh-Taylor set-up: 32 x 64 cells, settled at rest
    EXPECT_LE(s.stats().get("area_error"), s.settings().newton_tolerance);
    // Every particle moved by up to a fifth of the spacing: the cells at the old weights are far
    // from their areas.
    HostState h = s.state();
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-0.2 / 32, 0.2 / 32);
    for (dvec2& x : h.pos) x += dvec2(u(rng), u(rng));
    s.set_state(h);
    std::vector<dvec2> v;
    std::vector<int> start;
    std::vector<double> radius;
    s.cells(v, start, radius);
    double worst = 0.0;
    for (std::size_t i = 0; i < h.pos.size(); ++i) {
        double a = 0.0;
        for (int k = start[i]; k < start[i + 1]; ++k) {
            const dvec2 p = v[static_cast<std::size_t>(k)], q = v[static_cast<std::size_t>(k + 1 < start[i + 1] ? k + 1 : start[i])];
            a += 0.5 * (p.x * q.y - q.x * p.y);
        }
        worst = std::max(worst, std::fabs(a - h.target[i]) / h.target[i]);
    }
    EXPECT_GT(worst, 0.1);
    for (int k = 0; k < 5; ++k) {
        s.step();
        EXPECT_LE(s.stats().get("area_error"), s.settings().newton_tolerance);
        EXPECT_NEAR(s.stats().get("total_area"), 2.0, 1e-12);
        EXPECT_LE(s.stats().get("newton_iterations"), 8);
        EXPECT_GE(s.stats().get("cg_iterations"), s.stats().get("newton_iterations"));
    }
}

TEST(OtScheme, RayleighTaylorKeepsItsEnergyAndItsAreas) {
    // Kinetic + potential + the scheme's epsilon term, without dissipation: within 0.5% over
    // 150 steps (measured 0.02% over 500); every step at the Newton tolerance.
    OtSolver s;
    set(s, "resolution", "16");
    set(s, "epsilon", "0.01");
    set(s, "dt", "0.002");
    s.reset();
    s.step();
    const double e0 = s.stats().get("total_energy");
    double worst = 0.0;
    for (int k = 0; k < 150; ++k) {
        s.step();
        worst = std::max(worst, s.stats().get("area_error"));
    }
    EXPECT_NEAR(s.stats().get("total_energy"), e0, 0.005 * std::fabs(e0));
    EXPECT_LE(worst, s.settings().newton_tolerance);
    EXPECT_GT(s.stats().get("kinetic_energy"), 0.0) << "the heavy liquid starts to fall";
}

TEST(OtDeterminism, OneAndTwoThreadsGiveIdenticalStates) {
    const int before = fs::cpu_threads();
    HostState result[2];
    for (int t = 1; t <= 2; ++t) {
        fs::set_cpu_threads(t);
        OtSolver s;
        set(s, "resolution", "24");
        set(s, "epsilon", "0.01");
        set(s, "dt", "0.002");
        s.reset();
        for (int k = 0; k < 20; ++k) s.step();
        result[t - 1] = s.state();
    }
    fs::set_cpu_threads(before);
    EXPECT_EQ(result[0].pos, result[1].pos);
    EXPECT_EQ(result[0].vel, result[1].vel);
    EXPECT_EQ(result[0].weight, result[1].weight);
}

TEST(OtParams, AStepLongerThanEpsilonIsRefused) {
    OtSolver s;
    set(s, "epsilon", "0.01");
    set(s, "dt", "0.02");
    EXPECT_THROW(s.reset(), fs::ParamError);
}

}  // namespace
