// The optimal-transport liquid (the particle tutorial's last chapter): Laguerre cells partition the
// box and agree with a brute-force power diagram (degenerate clouds included), damped Newton brings
// every cell to its area, the scheme keeps its energy, and thread count does not matter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>
#include <random>

#include "core/backend.hpp"
#include "solvers/ot/ot_solver.hpp"
#include "validation/compare.hpp"

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

// The brute force: the particle of least power distance |y - x_j|^2 - w_j from y, that power,
// and the next least.
struct LeastPower {
    std::size_t index = 0;
    double power = 1e300, second = 1e300;
};
LeastPower least_power(const HostState& h, dvec2 y) {
    LeastPower r;
    for (std::size_t j = 0; j < h.pos.size(); ++j) {
        const double d = glm::dot(y - h.pos[j], y - h.pos[j]) - h.weight[j];
        if (d < r.power) {
            r.second = r.power;
            r.power = d;
            r.index = j;
        } else if (d < r.second) {
            r.second = d;
        }
    }
    return r;
}

// The shoelace area of the polygon v[begin, end).
double polygon_area(const std::vector<dvec2>& v, int begin, int end) {
    double a = 0.0;
    for (int k = begin; k < end; ++k) {
        const dvec2 p = v[static_cast<std::size_t>(k)], q = v[static_cast<std::size_t>(k + 1 < end ? k + 1 : begin)];
        a += p.x * q.y - q.x * p.y;
    }
    return 0.5 * a;
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
        for (std::size_t i = 0; i < h.pos.size(); ++i) total += polygon_area(v, start[i], start[i + 1]);
        EXPECT_NEAR(total, 2.0, 1e-12) << "seed " << seed;
        // Random points: the cell that holds each is the particle of least power distance.
        std::mt19937_64 rng(seed + 100);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        int checked = 0;
        for (int k = 0; k < 3000; ++k) {
            const dvec2 y(u(rng), 2.0 * u(rng));
            const LeastPower lp = least_power(h, y);
            const std::size_t best = lp.index;
            const double best_d = lp.power, second = lp.second;
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

TEST(OtCells, WithAFreeSurfaceEachCellIsItsLaguerreCellCutByItsDisk) {
    // Partial transport (Levy 2022): a point y is liquid when some particle's power
    // |y - x_i|^2 - w_i is <= 0 (the air's is 0), and then it belongs to the particle of least
    // power. Random clouds with random positive weights, some cells whole disks, some cut.
    for (std::uint64_t seed : {4u, 5u}) {
        OtSolver s;
        set(s, "scenario", "dam_break");
        set(s, "box_size", "1,2");
        set(s, "resolution", "16");
        s.reset();
        HostState h = cloud(seed);
        std::mt19937_64 rng(seed + 50);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        for (double& w : h.weight) w = 0.004 * u(rng);
        s.set_state(h);
        std::vector<dvec2> v;
        std::vector<int> start;
        std::vector<double> radius;
        s.cells(v, start, radius);
        ASSERT_EQ(radius.size(), h.pos.size());
        // The cells' exact areas (the solver's own moments) against the liquid's area sampled.
        double total = 0.0;
        for (std::size_t i = 0; i < h.pos.size(); ++i) {
            EXPECT_NEAR(radius[i], std::sqrt(h.weight[i]), 1e-15);
            fs::ot::Poly p;
            p.n = start[i + 1] - start[i];
            for (int k = 0; k < p.n; ++k) p.v[k] = v[static_cast<std::size_t>(start[i] + k)];
            total += fs::ot::moments(p, h.pos[i], true, radius[i]).area;
        }
        std::mt19937_64 pts(seed + 100);
        int liquid = 0, checked = 0;
        const int samples = 200000;
        for (int k = 0; k < samples; ++k) {
            const dvec2 y(u(pts), 2.0 * u(pts));
            const LeastPower lp = least_power(h, y);
            const std::size_t best = lp.index;
            const double best_d = lp.power, second = lp.second;
            if (best_d <= 0.0) ++liquid;
            if (k % 50 != 0 || second - best_d < 1e-9 || std::fabs(best_d) < 1e-9) continue;
            ++checked;
            for (std::size_t j = 0; j < h.pos.size(); ++j) {
                const bool in_disk = glm::length(y - h.pos[j]) <= radius[j];
                const bool in = in_disk && inside(v, start[j], start[j + 1], y, -1e-12) == 1;
                ASSERT_EQ(in, best_d <= 0.0 && j == best) << "seed " << seed << ": (" << y.x << ", " << y.y << "), particle " << j;
            }
        }
        EXPECT_GT(checked, 3900);
        // Sampling error: sqrt(p (1 - p) / samples) of the box's 2 m^2, about 0.002 m^2.
        EXPECT_NEAR(total, 2.0 * liquid / samples, 0.01) << "seed " << seed;
    }
}

// The dam break's tank and column (ot_dam_break) at `resolution`, reset; returns the liquid's area:
// the sum of the cells' targets (the reset only builds the lattice; the first step projects it).
double dam_break(OtSolver& s, int resolution, const std::vector<std::pair<std::string, std::string>>& more = {}) {
    set(s, "scenario", "dam_break");
    set(s, "box_size", "2,1");
    set(s, "liquid_size", "0.4,0.8");
    set(s, "resolution", std::to_string(resolution));
    for (const auto& [name, value] : more) set(s, name, value);
    s.reset();
    double area = 0.0;
    for (double t : s.state().target) area += t;
    return area;
}

TEST(OtFreeSurface, ADamBreakKeepsItsAreaAndItsEnergy) {
    OtSolver s;
    const double area0 = dam_break(s, 64);
    s.step();
    const double e0 = s.stats().get("total_energy");
    double worst = 0.0;
    for (int k = 0; k < 150; ++k) {
        s.step();
        worst = std::max(worst, std::fabs(s.stats().get("total_area") - area0) / area0);
    }
    // Each cell at its area to the Newton tolerance, so the liquid's area to it too.
    EXPECT_LE(worst, s.settings().newton_tolerance);
    // The surge is under way: the front has left the column.
    double front = 0.0;
    for (const dvec2& x : s.state().pos) front = std::max(front, x.x);
    EXPECT_GT(front, 0.6);
    // Kinetic + potential + the scheme's epsilon term: measured 0.2% over 0.4 s.
    EXPECT_NEAR(s.stats().get("total_energy"), e0, 0.01 * std::fabs(e0));
}

// The bundled dam break (its own settings) through its splash: at t = 0.9 s a splash's cell shrinks
// to a sliver and the damped Newton's line search finds no step from the last weights (the step
// now starts over from equal weights; it failed, at step 448 with dt 2 ms), and at t = 1.24 s two
// particles crossed the box's corner together (now mirrored back inside; clamped onto the wall
// they coincided, and no weights give both a cell).
TEST(OtFreeSurface, TheBundledDamBreakRunsThroughItsSplash) {
    OtSolver s;
    const double area0 = dam_break(s, 128, {{"jitter", "0"}, {"dt", "0.004"}, {"epsilon", "0.01"}});
    int restarts = 0, steps = 0;
    double halvings = 0.0;
    while (s.time() < 1.3 - 1e-9) {
        ASSERT_NO_THROW(s.step()) << "t = " << s.time();
        restarts += static_cast<int>(s.stats().get("newton_restarts"));
        EXPECT_LE(s.stats().get("area_error"), s.settings().newton_tolerance) << "t = " << s.time();
        EXPECT_LE(std::fabs(s.stats().get("total_area") - area0) / area0, s.settings().newton_tolerance);
        if (s.time() > 0.4) {  // the surge along the floor and the splash
            halvings += s.stats().get("step_halvings");
            ++steps;
        }
    }
    EXPECT_GT(restarts, 0) << "the splash makes the solver start over at least once";
    // The line search's sufficient decrease (damped_newton) halves less often than Kitagawa,
    // Merigot & Thibert's 1 - t/2, each halving a pass over the cells: measured here 1.47 a step
    // after t = 0.4 s against 1.88 with theirs (the bundled scene's steps 101-200: 0.74 against
    // 2.12), the area error held at the same tolerance (above).
    EXPECT_LT(halvings / steps, 1.65);
    std::printf("step halvings a step after t = 0.4 s: %.2f\n", halvings / steps);
}

// A cell that the weights leave empty (a splash: one particle overtaken by another) gets its
// particle back by its own weight alone, raised past what its neighbours' weights claim of its
// place: Newton goes on from the other cells' weights instead of starting over from equal ones.
TEST(OtTransport, AnEmptiedCellIsRepairedWithoutStartingOver) {
    OtSolver s;
    const double area0 = dam_break(s, 32);
    for (int k = 0; k < 3; ++k) s.step();
    HostState h = s.state();
    // The particle nearest the column's middle, its disk taken away (w <= 0: the air has it all).
    std::size_t mid = 0;
    for (std::size_t i = 0; i < h.pos.size(); ++i)
        if (glm::length(h.pos[i] - dvec2(0.2, 0.4)) < glm::length(h.pos[mid] - dvec2(0.2, 0.4))) mid = i;
    h.weight[mid] = -h.weight[mid];
    s.set_state(h);
    std::vector<dvec2> v;
    std::vector<int> start;
    std::vector<double> radius;
    s.cells(v, start, radius);
    ASSERT_EQ(start[mid + 1] - start[mid], 0) << "the cell is empty before the step";
    s.step();
    EXPECT_EQ(s.stats().get("newton_restarts"), 0.0);
    EXPECT_LE(std::fabs(s.stats().get("total_area") - area0) / area0, s.settings().newton_tolerance);
    EXPECT_LE(s.stats().get("area_error"), s.settings().newton_tolerance);
}

// Step back and forward again: the same steps bit for bit (the window's promise), the weights
// Newton extrapolates from travelling with the state.
TEST(OtTransport, ARestoredRunRepeatsItsStepsBitForBit) {
    OtSolver s;
    dam_break(s, 32);
    for (int k = 0; k < 10; ++k) s.step();
    const auto saved = s.checkpoint();
    for (int k = 0; k < 10; ++k) s.step();
    const HostState first = s.state();
    ASSERT_FALSE(first.weight_prev.empty()) << "the next step extrapolates";
    s.restore(saved);
    for (int k = 0; k < 10; ++k) s.step();
    EXPECT_EQ(s.state().pos, first.pos);
    EXPECT_EQ(s.state().vel, first.vel);
    EXPECT_EQ(s.state().weight, first.weight);
}

// A particle past a wall is mirrored back inside: distinct particles stay distinct (the clamp
// put every particle past a corner on the corner itself).
TEST(OtAdvect, TheOvershootIsMirroredAtTheWall) {
    EXPECT_EQ(fs::ot::mirror_into(0.5, 0.0, 1.0), 0.5);
    EXPECT_EQ(fs::ot::mirror_into(-0.25, 0.0, 1.0), 0.25);
    EXPECT_EQ(fs::ot::mirror_into(1.125, 0.0, 1.0), 0.875);
    EXPECT_NE(fs::ot::mirror_into(-0.1, 0.0, 1.0), fs::ot::mirror_into(-0.2, 0.0, 1.0));
    EXPECT_EQ(fs::ot::mirror_into(-5.0, 0.0, 1.0), 1.0) << "past both walls: clamped";
}

TEST(OtParams, LiquidThatDoesNotFitAndCoincidentParticlesAreRefused) {
    {
        OtSolver s;
        set(s, "scenario", "dam_break");
        set(s, "box_size", "1,1");
        set(s, "liquid_size", "1.5,0.5");
        EXPECT_THROW(s.reset(), fs::ParamError);
    }
    {
        OtSolver s;
        set(s, "scenario", "drop");
        set(s, "box_size", "1,1");
        set(s, "pool_depth", "0.5");
        set(s, "drop_height", "0.55");
        set(s, "drop_radius", "0.1");
        EXPECT_THROW(s.reset(), fs::ParamError);  // the drop would start inside the pool
    }
    {
        OtSolver s;
        set(s, "resolution", "8");
        s.reset();
        HostState h = s.state();
        h.pos[5] = h.pos[6];
        s.set_state(h);
        try {
            s.step();
            ADD_FAILURE() << "two particles at one place were not reported";
        } catch (const fs::SimulationError& e) {
            EXPECT_NE(std::string(e.what()).find("coincide"), std::string::npos) << e.what();
        }
    }
}

TEST(OtTransport, NewtonBringsEveryCellToItsAreaInAFewIterations) {
    OtSolver s;
    s.reset();  // the Rayleigh-Taylor set-up, 32 across
    s.step();   // the first step settles the start at rest and projects it
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
    for (std::size_t i = 0; i < h.pos.size(); ++i)
        worst = std::max(worst, std::fabs(polygon_area(v, start[i], start[i + 1]) - h.target[i]) / h.target[i]);
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

// The Rayleigh-Taylor comparison (src/validation/compare.cpp) over 90 steps of 4 ms from a bend
// of 5 mm, one wavelength across the 1 m box, without viscosity: the docs' runs.
fs::Comparison rayleigh_taylor(const char* resolution, const char* epsilon, const char* atwood) {
    OtSolver s;
    set(s, "resolution", resolution);
    set(s, "jitter", "0");  // a jittered lattice seeds every mode, not the one
    set(s, "epsilon", epsilon);
    set(s, "atwood", atwood);
    set(s, "dt", "0.004");
    set(s, "viscosity", "0");
    set(s, "perturbation", "0.005");
    s.reset();
    auto comparers = fs::comparers_for(s);
    EXPECT_EQ(comparers.size(), 1u);
    if (comparers.size() != 1) return {};
    comparers[0]->sample(s);
    for (int k = 0; k < 90; ++k) {
        s.step();
        comparers[0]->sample(s);
    }
    fs::Comparison c = comparers[0]->result();
    EXPECT_EQ(c.name, "rt_growth");
    // The verdict says when the rate is outside the bound the solver is held to.
    EXPECT_EQ(c.verdict.find("OUTSIDE the 15% bound") != std::string::npos, std::fabs(c.deviation) > 0.15)
        << c.verdict;
    return c;
}

TEST(OtScheme, RayleighTaylorGrowsAtTheLinearTheorysRateAtTwoResolutions) {
    // A = 0.5, one wavelength across the 1 m box: sigma = sqrt(A g k tanh(k H/2)) = 5.55 /s.
    // eps follows the spacing h as eps^2 g / h = 0.09 (docs/validation.md): measured -3.2% at
    // 32 across (2 336 cells), -7.4% at 64, -3.5% at 96, -4.1% at 128: within 8% everywhere but
    // not closer with every refinement, so the test holds both resolutions to the 15%
    // and to being below the theory (the cells' stiffness slows the growth; a rate above it
    // would mean the cell-sized modes outran the pull).
    const char* resolution[2] = {"32", "64"};
    const char* epsilon[2] = {"0.0168", "0.012"};
    for (int r = 0; r < 2; ++r) {
        const fs::Comparison c = rayleigh_taylor(resolution[r], epsilon[r], "0.5");
        ASSERT_TRUE(std::isfinite(c.deviation)) << c.verdict;
        EXPECT_LT(std::fabs(c.deviation), 0.15) << resolution[r] << " across: " << c.verdict;
        EXPECT_LT(c.deviation, 0.0) << resolution[r] << " across: " << c.verdict;
    }
}

// The pull referenced to the lightest density made the cells' stiffness against the buoyancy go
// as (1 - A) / A: at 32 across the rate was -61.5% at A = 0.2 and +283% at A = 0.8. Referenced to
// the buoyancy's density (OtSolver::on_upload) both come within the 15% (measured -6.6% and
// +10.6%).
TEST(OtScheme, RayleighTaylorAtALowAtwoodNumberGrowsAtTheLinearTheorysRate) {
    const fs::Comparison c = rayleigh_taylor("32", "0.0168", "0.2");
    ASSERT_TRUE(std::isfinite(c.deviation)) << c.verdict;
    EXPECT_LT(std::fabs(c.deviation), 0.15) << c.verdict;
}

TEST(OtScheme, RayleighTaylorAtAHighAtwoodNumberGrowsAtTheLinearTheorysRate) {
    const fs::Comparison c = rayleigh_taylor("32", "0.0168", "0.8");
    ASSERT_TRUE(std::isfinite(c.deviation)) << c.verdict;
    EXPECT_LT(std::fabs(c.deviation), 0.15) << c.verdict;
}

TEST(OtScheme, ARayleighTaylorRateOutsideTheBoundIsSaidSo) {
    // eps below the spacing's rule (0.012 s at 32 across, where the rule gives 0.0168): the cells
    // are too stiff and the bend grows slower (measured -26.9%); the verdict says so.
    const fs::Comparison c = rayleigh_taylor("32", "0.012", "0.5");
    ASSERT_TRUE(std::isfinite(c.deviation)) << c.verdict;
    EXPECT_LT(c.deviation, -0.15) << c.verdict;
    EXPECT_NE(c.verdict.find("slower than theory"), std::string::npos) << c.verdict;
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

TEST(OtParams, AStepTheLightLiquidsPullCannotFollowIsRefused) {
    // At A = 0.9 the light cells are pulled at A / ((1 - A) eps^2) = 9 / eps^2: dt = 0.007 s is
    // below eps = 0.01 s but above 2 eps / 3, where semi-implicit Euler loses the oscillation.
    OtSolver s;
    set(s, "epsilon", "0.01");
    set(s, "atwood", "0.9");
    set(s, "dt", "0.007");
    EXPECT_THROW(s.reset(), fs::ParamError);
    set(s, "dt", "0.006");
    EXPECT_NO_THROW(s.reset());
}

}  // namespace

namespace {

// Parity with the CPU: a few steps agree to what rounding explains (nvcc fuses multiply-adds, g++
// here does not: positions to 1e-9 m after 5 steps, where Newton's tolerance alone allows about
// 1e-10 a step), and a longer run keeps the quantities the scheme conserves (each cell's area, the
// energy), which chaotic divergence of the two runs does not change.
TEST(OtCuda, StepsAgreeWithTheCpuAndALongerRunKeepsTheSameInvariants) {
    if (!fs::cuda_status().usable)
        GTEST_SKIP() << "no usable CUDA GPU (" << fs::cuda_status().reason << "); CUDA parity not checked";
    for (const char* scenario : {"rayleigh_taylor", "dam_break"}) {
        OtSolver cpu(fs::Backend::Cpu), gpu(fs::Backend::Cuda);
        for (OtSolver* s : {&cpu, &gpu}) {
            set(*s, "scenario", scenario);
            set(*s, "resolution", "24");
            if (std::string(scenario) == "dam_break") set(*s, "box_size", "2,1");
            s->reset();
            for (int k = 0; k < 5; ++k) s->step();
        }
        const HostState a = cpu.state(), b = gpu.state();
        ASSERT_EQ(a.pos.size(), b.pos.size());
        for (std::size_t i = 0; i < a.pos.size(); ++i) {
            ASSERT_NEAR(a.pos[i].x, b.pos[i].x, 1e-9) << scenario << " " << i;
            ASSERT_NEAR(a.pos[i].y, b.pos[i].y, 1e-9) << scenario << " " << i;
            ASSERT_NEAR(a.vel[i].x, b.vel[i].x, 1e-7) << scenario << " " << i;
            ASSERT_NEAR(a.vel[i].y, b.vel[i].y, 1e-7) << scenario << " " << i;
        }
        EXPECT_EQ(cpu.stats().get("newton_iterations"), gpu.stats().get("newton_iterations")) << scenario;
        const double e0 = gpu.stats().get("total_energy"), area0 = gpu.stats().get("total_area");
        for (int k = 0; k < 100; ++k) {
            gpu.step();
            ASSERT_LE(gpu.stats().get("area_error"), gpu.settings().newton_tolerance) << scenario << " step " << k;
        }
        EXPECT_NEAR(gpu.stats().get("total_area"), area0, 1e-6 * area0) << scenario;
        EXPECT_NEAR(gpu.stats().get("total_energy"), e0, 0.01 * std::fabs(e0)) << scenario;
    }
}

}  // namespace
