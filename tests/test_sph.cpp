// The WCSPH solver (the WCSPH assignment): kernel properties, neighbour search against brute force, the
// hydrostatic tank, momentum conservation, the barrier, determinism, CUDA parity.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "solvers/sph/sph_solver.hpp"
#include "validation/compare.hpp"
#include "sph_barrier_runs.hpp"

namespace {

using fs::sph::CubicSpline;
using fs::sph::HostState;
using fs::sph::SphSolver;
using glm::dvec2;

using sph_runs::expect_cuda_parity;
using sph_runs::one_and_two_threads;
using sph_runs::set;
using sph_runs::Settings;


// ---- kernel (typed over float and double) ----

template <class T>
class SphKernel : public ::testing::Test {};
using Reals = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SphKernel, Reals);

TYPED_TEST(SphKernel, IntegratesToOneOverADenseLattice) {
    using T = TypeParam;
    const T h = T(0.1);
    const CubicSpline<T> k{h};
    const int n = 400;  // lattice spacing h/200
    const T dx = h / T(200);
    double sum = 0.0;
    for (int j = -n; j <= n; ++j)
        for (int i = -n; i <= n; ++i) sum += double(k.W(std::sqrt(T(i * i + j * j)) * dx)) * double(dx * dx);
    EXPECT_NEAR(sum, 1.0, 1e-3);
}

TYPED_TEST(SphKernel, GradientIsAntisymmetricAndMatchesTheDerivative) {
    using T = TypeParam;
    const CubicSpline<T> k{T(0.05)};
    for (T x : {T(0.001), T(0.013), T(0.024), T(0.031), T(0.049)})
        for (T y : {T(-0.01), T(0.0), T(0.007)}) {
            const glm::vec<2, T> r{x, y};
            const auto g = k.grad(r), g2 = k.grad(-r);
            EXPECT_EQ(g.x, -g2.x);
            EXPECT_EQ(g.y, -g2.y);
            const T len = std::sqrt(x * x + y * y);
            const T e = T(1e-3) * len;  // central difference along r
            const T fd = (k.W(len + e) - k.W(len - e)) / (T(2) * e);
            EXPECT_NEAR(double(k.dW(len)), double(fd), 2e-2 * std::abs(double(k.sigma() / k.h)) + 1e-6);
        }
}

TYPED_TEST(SphKernel, ZeroOutsideTheSupport) {
    using T = TypeParam;
    const CubicSpline<T> k{T(0.05)};
    EXPECT_EQ(k.W(T(0.05)), T(0));
    EXPECT_EQ(k.W(T(0.2)), T(0));
    EXPECT_EQ(k.dW(T(0.05)), T(0));
    EXPECT_GT(k.W(T(0.0499)), T(0));
    EXPECT_EQ(k.grad(glm::vec<2, T>{T(0.06), T(0)}).x, T(0));
}

// ---- neighbour search ----

TEST(SphNeighbors, GridFindsExactlyTheBruteForcePairs) {
    SphSolver s;
    set(s, "velocity_noise", "0.5");
    s.reset();
    for (int k = 0; k < 20; ++k) s.step();  // a disordered state
    const auto grid = s.neighbor_pairs(true);
    const auto brute = s.neighbor_pairs(false);
    EXPECT_GT(brute.size(), 10000u);
    EXPECT_EQ(grid, brute);
}

// ---- hydrostatic tank ----

// Mean pressure of fluid particles in the bottom two rows against rho0 g (surface - y).
struct Tank {
    double density_error_mean, density_error_max, bottom_ratio;
    double max_speed;  // of the fluid, m/s
    int outside;       // fluid particles outside the box
};

Tank settle(const std::string& model, const Settings& more = {}) {
    SphSolver s;
    set(s, "domain_size", "0.4,0.6");
    set(s, "fluid_box", "0,0,0.4,0.4");
    set(s, "spacing", "0.01");
    set(s, "speed_of_sound", "25");
    set(s, "boundary_model", model);
    for (const auto& [name, value] : more) set(s, name, value);
    s.reset();
    while (s.time() < 2.0) s.step();
    const HostState h = s.state();
    const double rho0 = 1000.0, g = 9.81, dx = 0.01;
    double top = 0.0, err_sum = 0.0, err_max = 0.0, max_speed = 0.0;
    int fluid = 0, outside = 0;
    for (std::size_t i = 0; i < h.pos.size(); ++i)
        if (h.kind[i] == fs::sph::kFluid) {
            max_speed = std::max(max_speed, glm::length(h.vel[i]));
            outside += h.pos[i].x < 0.0 || h.pos[i].x > 0.4 || h.pos[i].y < 0.0 || h.pos[i].y > 0.6;
            top = std::max(top, h.pos[i].y);
            err_sum += std::abs(h.density[i] - rho0) / rho0;
            err_max = std::max(err_max, std::abs(h.density[i] - rho0) / rho0);
            ++fluid;
        }
    const double surface = top + 0.5 * dx;
    double measured = 0.0, expected = 0.0;
    for (std::size_t i = 0; i < h.pos.size(); ++i)
        if (h.kind[i] == fs::sph::kFluid && h.pos[i].y < 2 * dx && h.pos[i].x > 0.1 && h.pos[i].x < 0.3) {
            measured += h.pressure[i];
            expected += rho0 * g * (surface - h.pos[i].y);
        }
    return {err_sum / fluid, err_max, measured / expected, max_speed, outside};
}

TEST(SphHydrostatic, TankAtRestWithPressureMirroring) {
    const Tank t = settle("pressure_mirroring");
    std::printf("pressure_mirroring: mean density error %.3g%%, max %.3g%%, bottom pressure %.4g of rho0 g H, "
                "max speed %.3g m/s\n",
                100 * t.density_error_mean, 100 * t.density_error_max, t.bottom_ratio, t.max_speed);
    EXPECT_LT(t.density_error_mean, 0.01);
    EXPECT_NEAR(t.bottom_ratio, 1.0, 0.05);
    EXPECT_EQ(t.outside, 0) << "the walls hold the water";
    EXPECT_LT(t.max_speed, 0.02) << "at rest: a hundredth of the speed sqrt(g H) a collapse reaches";
}

TEST(SphHydrostatic, TankAtRestWithTheAssignmentsBoundary) {
    // Reported, not required: boundary particles at pressure 0 push less than the fluid needs.
    const Tank t = settle("assignment");
    std::printf("assignment: mean density error %.3g%%, max %.3g%%, bottom pressure %.4g of rho0 g H, "
                "max speed %.3g m/s\n",
                100 * t.density_error_mean, 100 * t.density_error_max, t.bottom_ratio, t.max_speed);
    EXPECT_LT(t.density_error_mean, 0.02);
    EXPECT_EQ(t.outside, 0) << "the walls hold the water";
    // At rest: slower than a hundredth of the speed sqrt(g H) = 2 m/s a collapse would reach.
    EXPECT_LT(t.max_speed, 0.02);
    // The assignment's walls (density rho0, pressure 0) push back less than the water weighs, so
    // the water sinks in until the bottom fluid is compressed past hydrostatic: it reads about
    // 1.2 rho0 g H there, where pressure mirroring reads 1.0. Above 1, below 1.3.
    EXPECT_GT(t.bottom_ratio, 1.0);
    EXPECT_LT(t.bottom_ratio, 1.3);
}

// The tank of sph_hydrostatic (60 by 50 particles) with an implicit solver at the dam-break scenes'
// viscosity and steps (nu = 0.01 m^2/s: dt 1.25 ms, the viscosity's bound), run to t = 4.26 s as
// docs/validation.md's rows are: the layer pressures each solver reports and applies, p = rho^2 P,
// against rho0 g depth (compare.cpp's comparison, RMS over the layers, of the bottom pressure).
// With half the last step's pressure as the solves' start the tank's slowest mode gained energy
// after about 2 s: 8.2% at 4.26 s (0.32% at 1.87 s); WCSPH's tank holds 1.1%.
double implicit_tank_rms(const std::string& solver) {
    SphSolver s;
    for (const auto& [name, value] : Settings{{"spacing", "0.01"}, {"domain_size", "0.6,0.7"},
                                              {"fluid_box", "0,0,0.6,0.5"}, {"boundary_model", "pressure_mirroring"},
                                              {"speed_of_sound", "30"}, {"pressure_solver", solver},
                                              {"kinematic_viscosity", "0.01"}, {"max_dt", "0.005"}})
        set(s, name, value);
    s.reset();
    auto comparers = fs::comparers_for(s);
    for (int k = 0; k < 3410; ++k) s.step();
    for (auto& c : comparers) {
        c->sample(s);
        const fs::Comparison r = c->result();
        if (r.name == "hydrostatic") {
            std::printf("%s: %s\n", solver.c_str(), r.verdict.c_str());
            return r.deviation;
        }
    }
    ADD_FAILURE() << "no hydrostatic comparison";
    return 1.0;
}

TEST(SphHydrostatic, ImplicitSolversHoldTheTankWithinTwoPercentOfRho0GDepth) {
    EXPECT_LT(implicit_tank_rms("dfsph"), 0.02);
    EXPECT_LT(implicit_tank_rms("iisph"), 0.02);
}

// ---- conservation, barrier, determinism ----

// Monaghan 1992's force condition: where the acceleration, not the speed of sound, limits the
// step (a soft fluid under strong gravity), dt <= 0.25 sqrt(h / |a|max) with h half the support.
// The first step knows no acceleration yet and takes the CFL step (here max_dt).
TEST(SphTimeStep, TheForceConditionBoundsDtWhereTheCflDoesNot) {
    SphSolver s;
    set(s, "speed_of_sound", "5");
    set(s, "gravity", "1000");
    set(s, "max_dt", "0.001");
    s.reset();
    s.step();
    EXPECT_EQ(s.stats().get("dt"), 0.001) << "CFL step 0.8 * 0.01 m / 5 m/s, capped by max_dt";
    s.step();
    // The CFL step is now 0.8 * 0.01 / (5 + 1) = 1.3e-3 s; the force condition is smaller.
    const double bound = 0.25 * std::sqrt(0.5 * s.support_radius() / 1000.0);  // |a| >= g
    EXPECT_LE(s.stats().get("dt"), bound);
    EXPECT_GT(s.stats().get("dt"), 0.1 * bound) << "the bound, not a collapse of dt";
}

// The dam break against experiment: Martin & Moyce 1952 (Phil. Trans. R. Soc. A 244, 312), a
// column twice as high as wide, reach three column widths past the column (Z = x/a = 4) at
// T = t sqrt(2g/a) = 3.22 (between their marks Z = 3.89 at T = 3.11 and 4.11 at 3.33). With the
// scenes' kinematic viscosity the front gets there within 5% at 20 particles across the column,
// and closer at 40: the method converges toward the experiment. With the assignment's alpha =
// 0.8 it lags by more than 10% (docs/validation.md).
// The dam break's tank and column (sph_dam_break) at `spacing`, with `solver`.
void dam_break(SphSolver& s, double spacing, const std::string& solver) {
    set(s, "domain_size", "2,1");
    set(s, "fluid_box", "0,0,0.4,0.8");
    set(s, "spacing", std::to_string(spacing));
    set(s, "speed_of_sound", "40");
    set(s, "pressure_solver", solver);
    set(s, "max_dt", "0.005");
}

double time_to_three_widths(double spacing, const std::string& viscosity, const std::string& solver = "wcsph") {
    SphSolver s;
    dam_break(s, spacing, solver);
    set(s, viscosity.substr(0, viscosity.find('=')), viscosity.substr(viscosity.find('=') + 1));
    s.reset();
    const double a = 0.4, g = 9.81;
    while (s.time() < 1.0) {
        s.step();
        if (s.stats().get("front_x") >= 4.0 * a) return s.time() * std::sqrt(2.0 * g / a);
    }
    return 1e9;
}

TEST(SphDamBreak, SurgeFrontFollowsMartinAndMoyceAndConvergesTowardIt) {
    const double experiment = 3.22;
    const double coarse = time_to_three_widths(0.04, "kinematic_viscosity=0.01");
    const double fine = time_to_three_widths(0.02, "kinematic_viscosity=0.01");
    const double assignment = time_to_three_widths(0.02, "viscosity_alpha=0.8");
    std::printf("T at three widths: %.3f (10 across), %.3f (20 across), alpha 0.8: %.3f; experiment %.2f\n", coarse,
                fine, assignment, experiment);
    EXPECT_NEAR(fine, experiment, 0.05 * experiment);
    EXPECT_LE(std::abs(fine - experiment), std::abs(coarse - experiment)) << "the finer run is no farther off";
    EXPECT_GT(assignment, 1.08 * experiment) << "the assignment's viscosity slows the surge (why the scenes differ)";
}

// A free blob (no walls, no gravity) with random velocities, `steps` steps: how far the total
// momentum moved (equal masses: m factors out), against the sum of the speeds, and the pressure
// the particles reached (the last step's, and the largest of any).
struct Drift {
    double drift, scale, pressure_last, pressure_largest;
};
Drift momentum_drift(const Settings& more, int steps) {
    SphSolver s;
    set(s, "boundary_layers", "0");
    set(s, "gravity", "0");
    set(s, "domain_size", "1,1");
    set(s, "fluid_box", "0.3,0.3,0.7,0.7");
    set(s, "velocity_noise", "1.0");
    for (const auto& [name, value] : more) set(s, name, value);
    s.reset();
    dvec2 p0(0.0), p1(0.0);
    double scale = 0.0, largest = 0.0;
    for (const dvec2& v : s.state().vel) {
        p0 += v;
        scale += glm::length(v);
    }
    for (int k = 0; k < steps; ++k) {
        s.step();
        largest = std::max(largest, s.stats().get("pressure_max"));
    }
    for (const dvec2& v : s.state().vel) p1 += v;
    return {glm::length(p1 - p0), scale, s.stats().get("pressure_max"), largest};
}

TEST(SphMomentum, ConservedToRoundOffWithoutGravityAndBoundaries) {
    // clamp_density false: pressure of both signs, every force term at work.
    const Drift d = momentum_drift({{"clamp_density", "false"}}, 200);
    EXPECT_GT(d.pressure_last, 100.0) << "the particles must interact for this to test anything";
    EXPECT_LT(d.drift, 1e-12 * d.scale);
}

TEST(SphBox, FluidLeavingAWallessBoxIsAReportedFailure) {
    // boundary_layers 0 under gravity: the fluid falls out of the box. The step that loses it
    // fails, naming the count and the cure, instead of running on with particles off the view.
    SphSolver s;
    set(s, "boundary_layers", "0");
    set(s, "domain_size", "0.5,0.5");
    set(s, "fluid_box", "0.1,0.05,0.3,0.2");
    s.reset();
    std::string what;
    try {
        for (int k = 0; k < 20000; ++k) s.step();
    } catch (const fs::SimulationError& e) {
        what = e.what();
    }
    EXPECT_NE(what.find("fluid particle(s) left the box"), std::string::npos) << what;
    EXPECT_NE(what.find("boundary_layers is 0"), std::string::npos) << what;
    EXPECT_LT(s.time(), 0.5) << "free fall from 5 cm takes 0.1 s";
}

TEST(SphBarrier, FluidStaysInTheBoxAndOnItsSideOfTheTurningBarrier) {
    // The barrier scene, coarser, for 10 s while the barrier turns at 20 deg/s.
    SphSolver s;
    set(s, "spacing", "0.02");
    set(s, "fluid_box", "0,0,0.45,0.7");
    set(s, "barrier_length", "0.3");
    set(s, "barrier_center", "0.7,0.3");
    set(s, "speed_of_sound", "40");
    s.reset();
    const double dx = 0.02, half = 0.15, thickness = 1.0 * dx;
    int crossings = 0, escaped = 0;
    auto side = [&](const HostState& h, double angle) {
        std::map<int, int> out;
        const dvec2 c{0.7, 0.3}, t{std::cos(angle), std::sin(angle)}, n{-t.y, t.x};
        for (std::size_t i = 0; i < h.pos.size(); ++i) {
            if (h.kind[i] != fs::sph::kFluid) continue;
            const dvec2 d = h.pos[i] - c;
            const double along = glm::dot(d, t), across = glm::dot(d, n);
            if (std::abs(along) < half - dx && std::abs(across) > thickness) out[h.id[i]] = across > 0 ? 1 : -1;
        }
        return out;
    };
    double angle_deg = 0.0;
    auto before = side(s.state(), 0.0);
    while (s.time() < 10.0) {
        angle_deg = 20.0 * s.time();
        s.params().at("barrier_angle").set(angle_deg);
        for (int k = 0; k < 20; ++k) s.step();
        const HostState h = s.state();
        for (std::size_t i = 0; i < h.pos.size(); ++i)
            if (h.kind[i] == fs::sph::kFluid &&
                (h.pos[i].x < -0.5 * dx || h.pos[i].x > 1 + 0.5 * dx || h.pos[i].y < -0.5 * dx || h.pos[i].y > 1 + 0.5 * dx))
                ++escaped;
        const auto after = side(h, angle_deg * 3.14159265358979 / 180.0);
        for (const auto& [id, sgn] : after) {
            auto it = before.find(id);
            if (it != before.end() && it->second != sgn) ++crossings;
        }
        before = after;
    }
    EXPECT_EQ(escaped, 0) << "fluid left the box";
    EXPECT_EQ(crossings, 0) << "fluid passed through the barrier";
}

TEST(SphDeterminism, OneAndTwoThreadsGiveIdenticalStates) {
    const auto [a, b] = one_and_two_threads({}, 100);
    EXPECT_EQ(a.pos, b.pos);
    EXPECT_EQ(a.vel, b.vel);
    EXPECT_EQ(a.pressure, b.pressure);
}


// ---- DFSPH (Bender & Koschier 2017): the implicit pressure solver ----

// The resting tank: density within the solve's tolerance, the floor's pressure rho0 g depth, still
// water, with steps six times WCSPH's (dt 1.25 ms, set by the viscosity, against 0.2 ms).
TEST(SphDfsph, TankAtRestHoldsRho0GDepthWithLongSteps) {
    const Tank t = settle("pressure_mirroring", {{"pressure_solver", "dfsph"}, {"kinematic_viscosity", "0.01"},
                                                 {"max_dt", "0.005"}});
    std::printf("dfsph: mean density error %.3g%%, max %.3g%%, bottom pressure %.4g of rho0 g H, max speed %.3g m/s\n",
                100 * t.density_error_mean, 100 * t.density_error_max, t.bottom_ratio, t.max_speed);
    EXPECT_LT(t.density_error_mean, 0.005);
    EXPECT_NEAR(t.bottom_ratio, 1.0, 0.05) << "as WCSPH's with mirroring (measured 1.04; the scene's layers 0.3%)";
    EXPECT_EQ(t.outside, 0);
    EXPECT_LT(t.max_speed, 0.02) << "at rest: a hundredth of sqrt(g H)";
}

// Every step's density solve ends within its tolerance (or says it ran out of iterations), and the
// stats say which bound set dt.
TEST(SphDfsph, EachStepMeetsTheDensityTolerance) {
    SphSolver s;
    dam_break(s, 0.02, "dfsph");
    set(s, "kinematic_viscosity", "0.01");
    s.reset();
    ASSERT_EQ(s.stages().size(), 8u);
    EXPECT_EQ(s.stages()[2].name, "divergence_solve");
    EXPECT_EQ(s.stages()[4].name, "viscosity_solve");  // Weiler et al. 2018's, idle under explicit
    EXPECT_EQ(s.stages()[5].name, "pressure_solve");
    int iterations = 0, steps = 0;
    while (s.time() < 0.6) {
        s.step();
        ++steps;
        const double tolerance = 1e-3;
        if (s.stats().get("density_iterations") < 100) EXPECT_LE(s.stats().get("density_residual"), tolerance);
        EXPECT_LE(s.stats().get("divergence_residual"), tolerance);
        iterations += static_cast<int>(s.stats().get("density_iterations"));
    }
    EXPECT_GT(iterations, steps) << "the solve works: more than one iteration a step on average";
    EXPECT_LT(steps, 700) << "steps near 1 ms, not WCSPH's 0.4 ms";
    const std::string why = s.params().at("dt_limit").to_text();
    EXPECT_TRUE(why == "cfl" || why == "viscosity") << why;
}

// Momentum: the pressure and viscosity terms act in equal and opposite pairs (the symmetric form
// of the WCSPH assignment, 2.3, with the pressures P the solves find), so without gravity and walls the total
// stays put to round-off.
TEST(SphDfsph, MomentumConservedWithoutGravityAndBoundaries) {
    const Drift d = momentum_drift({{"pressure_solver", "dfsph"}}, 100);
    EXPECT_GT(d.pressure_largest, 100.0) << "the particles must interact for this to test anything";
    EXPECT_LT(d.drift, 1e-12 * d.scale);
}

// The dam break against experiment (as SphDamBreak above): with the scenes' viscosity the DFSPH
// front reaches three widths within 5% of Martin & Moyce at 20 particles across the column.
TEST(SphDfsph, SurgeFrontFollowsMartinAndMoyce) {
    const double experiment = 3.22;
    const double T = time_to_three_widths(0.02, "kinematic_viscosity=0.01", "dfsph");
    std::printf("DFSPH: T at three widths %.3f (20 across); experiment %.2f\n", T, experiment);
    EXPECT_NEAR(T, experiment, 0.05 * experiment);
}

TEST(SphDfsph, OneAndTwoThreadsGiveIdenticalStates) {
    const auto [a, b] = one_and_two_threads({{"pressure_solver", "dfsph"}, {"kinematic_viscosity", "0.01"}}, 100);
    EXPECT_EQ(a.pos, b.pos);
    EXPECT_EQ(a.vel, b.vel);
    EXPECT_EQ(a.kappa, b.kappa);
}

// The implicit solvers' neighbour rows are as long as the most neighbours of the last step, plus
// a margin; a particle with more is read through the grid, in the row's order and with the row's
// sums. So the row's length changes no bit: a fresh solver, whose rows are the rest lattice's
// (13 here, as its first step's from a reset), continues a disordered run exactly as the run does.
TEST(SphDfsph, ARowTooShortForAParticleChangesNoBit) {
    auto make = [](SphSolver& s) {
        set(s, "pressure_solver", "dfsph");
        set(s, "kinematic_viscosity", "0.01");
        set(s, "velocity_noise", "0.5");
        s.reset();
    };
    SphSolver a, b;
    make(a);
    for (int k = 0; k < 30; ++k) a.step();
    const auto saved = a.checkpoint();
    // Particles with more neighbours than the fresh solver's rows hold: its next step overflows.
    std::map<int, int> count;
    for (const auto& [i, j] : a.neighbor_pairs(true)) ++count[i], ++count[j];
    int most = 0;
    for (const auto& [i, n] : count) most = std::max(most, n);
    ASSERT_GT(most, 13) << "no row would overflow: the test proves nothing";
    for (int k = 0; k < 10; ++k) a.step();
    make(b);
    b.restore(saved);
    for (int k = 0; k < 10; ++k) b.step();
    EXPECT_EQ(a.state().pos, b.state().pos);
    EXPECT_EQ(a.state().vel, b.state().vel);
    EXPECT_EQ(a.state().kappa, b.state().kappa);
}

// The solver switches as a step starts, both ways, and the water goes on: the stage list follows.
TEST(SphDfsph, SwitchingSolversBetweenStepsKeepsTheWater) {
    SphSolver s;
    set(s, "kinematic_viscosity", "0.01");
    s.reset();
    for (int k = 0; k < 50; ++k) s.step();
    EXPECT_EQ(s.stages().size(), 6u);
    set(s, "pressure_solver", "dfsph");
    for (int k = 0; k < 50; ++k) s.step();
    EXPECT_EQ(s.stages().size(), 8u);
    EXPECT_GT(s.stats().get("density_iterations"), 0.0);
    set(s, "pressure_solver", "wcsph");
    for (int k = 0; k < 50; ++k) s.step();
    EXPECT_EQ(s.stages().size(), 6u);
    EXPECT_EQ(s.stats().find("density_iterations"), nullptr);
    EXPECT_LT(s.stats().get("max_speed"), 3.0);
}

// IISPH (Ihmsen et al. 2014) is the density solve alone: the resting tank and the dam break hold as
// DFSPH's do.
TEST(SphIisph, TankAtRestAndTheSurgeFront) {
    const Tank t = settle("pressure_mirroring", {{"pressure_solver", "iisph"}, {"kinematic_viscosity", "0.01"},
                                                 {"max_dt", "0.005"}});
    std::printf("iisph: mean density error %.3g%%, bottom pressure %.4g of rho0 g H, max speed %.3g m/s\n",
                100 * t.density_error_mean, t.bottom_ratio, t.max_speed);
    EXPECT_LT(t.density_error_mean, 0.005);
    EXPECT_NEAR(t.bottom_ratio, 1.0, 0.05);
    EXPECT_LT(t.max_speed, 0.02);
    const double T = time_to_three_widths(0.02, "kinematic_viscosity=0.01", "iisph");
    std::printf("IISPH: T at three widths %.3f (20 across); experiment 3.22\n", T);
    EXPECT_NEAR(T, 3.22, 0.05 * 3.22);
}

TEST(SphCuda, DfsphStepsAgreeWithTheCpu) {
    if (!fs::cuda_status().usable)
        GTEST_SKIP() << "no usable CUDA GPU (" << fs::cuda_status().reason << "); DFSPH's CUDA parity not checked";
    expect_cuda_parity({{"pressure_solver", "dfsph"}, {"kinematic_viscosity", "0.01"}});
}

TEST(SphCuda, OneStepAgreesWithTheCpu) {
    if (!fs::cuda_status().usable)
        GTEST_SKIP() << "no usable CUDA GPU (" << fs::cuda_status().reason << "); CUDA parity not checked";
    expect_cuda_parity({});
}

}  // namespace
