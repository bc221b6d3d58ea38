// The Euler particle solver (the particle tutorial): detectors agree, conservation laws hold, results do not
// depend on thread count or on how the step is driven.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/backend.hpp"
#include "solvers/euler/euler_solver.hpp"

namespace {

using fs::euler::EulerSolver;
using fs::euler::HostState;
using glm::dvec2;

void set(EulerSolver& s, const std::string& name, const std::string& value) {
    s.params().at(name).set_text(value);
}

dvec2 momentum(const HostState& h) {
    dvec2 p{0, 0};
    for (std::size_t i = 0; i < h.pos.size(); ++i) p += h.mass[i] * h.vel[i];
    return p;
}

double kinetic_energy(const HostState& h) {
    double e = 0;
    for (std::size_t i = 0; i < h.pos.size(); ++i) e += 0.5 * h.mass[i] * glm::dot(h.vel[i], h.vel[i]);
    return e;
}

// A gas with many close, approaching pairs: dense enough that every cell holds several particles.
void dense_gas(EulerSolver& s, int n, double distance, long long seed) {
    set(s, "n_particles", std::to_string(n));
    set(s, "seed", std::to_string(seed));
    set(s, "collision_distance", std::to_string(distance));
    set(s, "mass_variation", "0.5");
    s.reset();
}

TEST(EulerDetectors, GridAndBruteForceFindIdenticalPairs) {
    for (long long seed : {1, 2, 3, 4}) {
        EulerSolver s;
        dense_gas(s, 3000, 0.02 + 0.01 * static_cast<double>(seed), seed);
        set(s, "detector", "grid");
        const auto grid = s.candidate_pairs();
        set(s, "detector", "brute_force");
        const auto brute = s.candidate_pairs();
        EXPECT_GT(brute.size(), 1000u) << "seed " << seed << ": too few pairs to be a test";
        EXPECT_EQ(grid, brute) << "seed " << seed;
    }
}

TEST(EulerDetectors, AgreeOnCellBordersCornersAndOutsideTheBox) {
    // Particles exactly on cell borders, at the corners of the square, outside it (walls off),
    // and coincident pairs (never candidates: no line of centres).
    EulerSolver s;
    set(s, "collision_distance", "0.05");
    set(s, "boundary", "open");
    dense_gas(s, 10, 0.05, 1);
    const int side = s.settings().grid_side > 0 ? static_cast<int>(s.settings().grid_side) : 1;
    HostState h;
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<int> cell(-2, side + 2);
    std::uniform_real_distribution<double> jitter(-0.03, 0.03), speed(-1, 1);
    for (int k = 0; k < 4000; ++k) {
        dvec2 p{static_cast<double>(cell(rng)) / side, static_cast<double>(cell(rng)) / side};
        if (k % 3 == 0) p.x += jitter(rng);
        if (k % 5 == 0) p.y += jitter(rng);
        h.pos.push_back(p);
        h.vel.push_back({speed(rng), speed(rng)});
        h.mass.push_back(1.0);
        h.id.push_back(k);
    }
    h.pos[1] = h.pos[0];  // coincident
    s.set_state(h);
    set(s, "detector", "grid");
    const auto grid = s.candidate_pairs();
    set(s, "detector", "brute_force");
    const auto brute = s.candidate_pairs();
    EXPECT_GT(brute.size(), 500u);
    EXPECT_EQ(grid, brute);
    for (const auto& [i, j] : brute) EXPECT_FALSE(i == 0 && j == 1) << "coincident pair listed";
}

TEST(EulerDetectors, AgreeInAPeriodicBoxAcrossTheBorders) {
    // 0.2 and 0.4: grids of 2 cells and 1 cell a side, where wrapped neighbours are the same cells.
    for (const char* distance : {"0.03", "0.2", "0.4"}) {
        EulerSolver s;
        set(s, "boundary", "periodic");
        set(s, "spawn_min", "0,0");
        set(s, "spawn_max", "1,1");
        dense_gas(s, 2000, std::stod(distance), 3);
        set(s, "detector", "grid");
        const auto grid = s.candidate_pairs();
        set(s, "detector", "brute_force");
        const auto brute = s.candidate_pairs();
        EXPECT_GT(brute.size(), 300u) << distance;
        EXPECT_EQ(grid, brute) << distance;
        // Some pairs are only close through the border.
        const auto h = s.state();
        int across = 0;
        for (const auto& [i, j] : brute)
            across += glm::length(h.pos[static_cast<std::size_t>(i)] - h.pos[static_cast<std::size_t>(j)]) >
                      std::stod(distance);
        EXPECT_GT(across, 0) << distance;
    }
}

TEST(EulerDetectors, SameTrajectoriesBitForBit) {
    // Same pairs, same partners, same arithmetic: the two detectors give identical states.
    HostState result[2];
    for (int d = 0; d < 2; ++d) {
        EulerSolver s;
        dense_gas(s, 1500, 0.03, 9);
        set(s, "detector", d ? "brute_force" : "grid");
        for (int k = 0; k < 50; ++k) s.step();
        result[d] = s.state();
    }
    EXPECT_EQ(result[0].pos, result[1].pos);
    EXPECT_EQ(result[0].vel, result[1].vel);
}

TEST(EulerConservation, MomentumToRoundOffWithoutWallsAndGravity) {
    for (const char* restitution : {"1", "0.6"}) {
        EulerSolver s;
        set(s, "boundary", "open");
        set(s, "gravity", "0");
        set(s, "restitution", restitution);
        set(s, "tau", "0.001");
        dense_gas(s, 4000, 0.02, 11);
        const HostState h0 = s.state();
        const dvec2 p0 = momentum(h0);
        double scale = 0;  // sum of |m v|: the size of the terms that cancel
        for (std::size_t i = 0; i < h0.pos.size(); ++i) scale += h0.mass[i] * glm::length(h0.vel[i]);
        long long collisions = 0;
        for (int k = 0; k < 200; ++k) {
            s.step();
            collisions += static_cast<long long>(s.stats().get("collisions"));
        }
        const dvec2 p = momentum(s.state());
        EXPECT_GT(collisions, 1000) << "restitution " << restitution;
        EXPECT_LT(glm::length(p - p0), 1e-13 * scale) << "restitution " << restitution;
        // The stats report the same momentum.
        const fs::Stat* reported = s.stats().find("momentum");
        ASSERT_NE(reported, nullptr);
        EXPECT_NEAR(reported->value[0], p.x, 1e-13 * scale);
        EXPECT_NEAR(reported->value[1], p.y, 1e-13 * scale);
    }
}

TEST(EulerConservation, MomentumAndEnergyInAPeriodicBox) {
    EulerSolver s;
    set(s, "boundary", "periodic");
    set(s, "gravity", "0");
    set(s, "restitution", "1");
    set(s, "tau", "0.002");
    set(s, "spawn_min", "0,0");
    set(s, "spawn_max", "1,1");
    dense_gas(s, 3000, 0.012, 17);
    const HostState h0 = s.state();
    const dvec2 p0 = momentum(h0);
    const double e0 = kinetic_energy(h0);
    double scale = 0;
    for (std::size_t i = 0; i < h0.pos.size(); ++i) scale += h0.mass[i] * glm::length(h0.vel[i]);
    for (int k = 0; k < 500; ++k) s.step();
    const HostState h = s.state();
    EXPECT_LT(glm::length(momentum(h) - p0), 1e-13 * scale);
    EXPECT_NEAR(kinetic_energy(h), e0, 1e-11 * e0);
    for (const dvec2& p : h.pos) {
        EXPECT_GE(p.x, 0.0);
        EXPECT_LE(p.x, 1.0);
    }
}

TEST(EulerConservation, KineticEnergyForElasticCollisionsOver1000Steps) {
    EulerSolver s;
    set(s, "gravity", "0");
    set(s, "wall_damping", "1");
    set(s, "restitution", "1");
    set(s, "tau", "0.002");
    dense_gas(s, 2000, 0.015, 21);
    const double e0 = kinetic_energy(s.state());
    long long collisions = 0;
    for (int k = 0; k < 1000; ++k) {
        s.step();
        collisions += static_cast<long long>(s.stats().get("collisions"));
    }
    EXPECT_GT(collisions, 10000);
    EXPECT_NEAR(kinetic_energy(s.state()), e0, 1e-11 * e0);
    EXPECT_NEAR(s.stats().get("kinetic_energy"), e0, 1e-11 * e0);
}

TEST(EulerConservation, InelasticCollisionsLoseEnergy) {
    EulerSolver s;
    set(s, "gravity", "0");
    set(s, "wall_damping", "1");
    set(s, "restitution", "0.5");
    dense_gas(s, 2000, 0.015, 21);
    const double e0 = kinetic_energy(s.state());
    for (int k = 0; k < 200; ++k) s.step();
    EXPECT_LT(kinetic_energy(s.state()), 0.9 * e0);
}

TEST(EulerCollision, TwoBodyHeadOn) {
    // Equal masses, e = 1: velocities exchange. e = 0.5: relative speed halves, momentum kept.
    for (double e : {1.0, 0.5}) {
        EulerSolver s;
        set(s, "gravity", "0");
        set(s, "restitution", std::to_string(e));
        set(s, "collision_distance", "0.1");
        s.reset();
        HostState h;
        h.pos = {{0.45, 0.5}, {0.52, 0.5}};
        h.vel = {{1.0, 0.0}, {-0.5, 0.0}};
        h.mass = {1.0, 3.0};
        h.id = {0, 1};
        s.set_state(h);
        s.advance_stage();  // forces (none)
        s.advance_stage();  // grid_build
        s.advance_stage();  // collide
        const HostState a = s.state();
        EXPECT_EQ(s.partners(), (std::vector<int>{1, 0}));
        const double rel = a.vel[1].x - a.vel[0].x;
        EXPECT_NEAR(rel, e * 1.5, 1e-14);
        EXPECT_NEAR(a.mass[0] * a.vel[0].x + a.mass[1] * a.vel[1].x, 1.0 - 1.5, 1e-14);
        EXPECT_EQ(a.vel[0].y, 0.0);
    }
}

TEST(EulerIntegration, FreeFallIsSemiImplicitEulerExactly) {
    // One particle, no collisions or walls: v_n = v_0 + n tau g, x_n = x_0 + tau sum_{k=1..n} v_k.
    EulerSolver s;
    set(s, "n_particles", "1");
    set(s, "boundary", "open");
    set(s, "tau", "0.01");
    set(s, "gravity_direction", "1,-1");
    s.reset();
    const HostState h0 = s.state();
    const dvec2 g = 9.81 / std::sqrt(2.0) * dvec2{1, -1};
    const int n = 100;
    for (int k = 0; k < n; ++k) s.step();
    const HostState h = s.state();
    const dvec2 v = h0.vel[0] + (n * 0.01) * g;
    const dvec2 x = h0.pos[0] + (n * 0.01) * h0.vel[0] + (0.01 * 0.01 * n * (n + 1) / 2.0) * g;
    EXPECT_NEAR(h.vel[0].x, v.x, 1e-12);
    EXPECT_NEAR(h.vel[0].y, v.y, 1e-12);
    EXPECT_NEAR(h.pos[0].x, x.x, 1e-12);
    EXPECT_NEAR(h.pos[0].y, x.y, 1e-12);
    EXPECT_NEAR(s.time(), n * 0.01, 1e-12);
}

// the particle tutorial, bounce_on_borders: a particle that crossed a border is put back on it, its normal
// velocity reversed, and its velocity scaled by the damping (the tutorial's 0.9).
TEST(EulerWalls, ABounceReversesTheNormalVelocityAndDampsIt) {
    EulerSolver s;
    set(s, "gravity", "0");
    set(s, "collisions", "false");
    set(s, "tau", "0.005");
    set(s, "wall_damping", "0.9");
    HostState h;
    h.pos = {{0.99, 0.5}, {0.5, 0.005}, {0.5, 0.5}};
    h.vel = {{4.0, 1.0}, {0.5, -2.0}, {1.0, 1.0}};  // right wall, floor, no wall
    h.mass = {1.0, 1.0, 1.0};
    h.id = {0, 1, 2};
    s.set_state(h);
    s.step();
    const HostState a = s.state();
    EXPECT_EQ(a.pos[0].x, 1.0);
    EXPECT_DOUBLE_EQ(a.pos[0].y, 0.5 + 0.005 * 1.0);
    EXPECT_DOUBLE_EQ(a.vel[0].x, -0.9 * 4.0);
    EXPECT_DOUBLE_EQ(a.vel[0].y, 0.9 * 1.0);
    EXPECT_EQ(a.pos[1].y, 0.0);
    EXPECT_DOUBLE_EQ(a.vel[1].x, 0.9 * 0.5);
    EXPECT_DOUBLE_EQ(a.vel[1].y, 0.9 * 2.0);
    EXPECT_EQ(a.vel[2], dvec2(1.0, 1.0)) << "a particle that meets no wall keeps its velocity";
}

// With elastic walls and collisions a dense gas thrown at the walls keeps its kinetic energy:
// a wall that gained or lost energy (a wrong sign, a missed bounce that a clamp would hide)
// shows here, where clamped positions alone could not.
TEST(EulerWalls, ElasticWallsKeepTheGasEnergy) {
    EulerSolver s;
    set(s, "initial_speed", "40");
    set(s, "gravity", "0");
    set(s, "wall_damping", "1");
    set(s, "restitution", "1");
    dense_gas(s, 2000, 0.02, 4);
    const double e0 = kinetic_energy(s.state());
    for (int k = 0; k < 100; ++k) s.step();
    const HostState h = s.state();
    EXPECT_NEAR(kinetic_energy(h), e0, 1e-12 * e0);
    for (const dvec2& p : h.pos) {
        EXPECT_TRUE(p.x >= 0.0 && p.x <= 1.0 && p.y >= 0.0 && p.y <= 1.0) << p.x << ", " << p.y;
    }
}

TEST(EulerDeterminism, OneAndTwoThreadsGiveIdenticalStates) {
    const int before = fs::cpu_threads();
    HostState result[2];
    for (int t = 1; t <= 2; ++t) {
        fs::set_cpu_threads(t);
        EulerSolver s;
        dense_gas(s, 5000, 0.015, 8);
        for (int k = 0; k < 100; ++k) s.step();
        result[t - 1] = s.state();
    }
    fs::set_cpu_threads(before);
    EXPECT_EQ(result[0].pos, result[1].pos);
    EXPECT_EQ(result[0].vel, result[1].vel);
}

TEST(EulerStages, SteppingStageByStageEqualsWholeSteps) {
    EulerSolver a, b;
    dense_gas(a, 1000, 0.03, 6);
    dense_gas(b, 1000, 0.03, 6);
    for (int k = 0; k < 20; ++k) a.step();
    int completed = 0;
    while (completed < 20) {
        const int expected_next = b.next_stage();
        completed += b.advance_stage();
        EXPECT_EQ(b.next_stage(), (expected_next + 1) % static_cast<int>(b.stages().size()));
    }
    EXPECT_EQ(a.state().pos, b.state().pos);
    EXPECT_EQ(a.state().vel, b.state().vel);
    EXPECT_EQ(a.step_count(), b.step_count());
    EXPECT_EQ(a.stats().get("collisions"), b.stats().get("collisions"));
}

TEST(EulerCheckpoint, RestoreContinuesBitForBit) {
    EulerSolver a;
    dense_gas(a, 2000, 0.02, 13);
    for (int k = 0; k < 10; ++k) a.step();
    const auto saved = a.checkpoint();
    for (int k = 0; k < 10; ++k) a.step();
    const HostState first = a.state();
    a.restore(saved);
    EXPECT_EQ(a.step_count(), 10);
    for (int k = 0; k < 10; ++k) a.step();
    EXPECT_EQ(a.state().pos, first.pos);
    EXPECT_EQ(a.state().vel, first.vel);
}

TEST(EulerStats, CommonKeysAndCounters) {
    EulerSolver s;
    dense_gas(s, 500, 0.04, 2);
    s.step();
    for (const char* key : {"step", "t", "dt", "n_particles", "kinetic_energy", "momentum",
                            "max_speed", "collisions", "contacts", "pair_tests", "step_ms"})
        EXPECT_NE(s.stats().find(key), nullptr) << key;
    EXPECT_EQ(s.stats().get("n_particles"), 500);
    EXPECT_GE(s.stats().get("contacts"), s.stats().get("collisions"));
    set(s, "detector", "brute_force");
    s.step();
    EXPECT_EQ(s.stats().get("pair_tests"), 500.0 * 499.0);
}

}  // namespace

// ---- Soft contact (spring-dashpot sub-steps, the discrete element method) ----------------------

namespace {

// Every overlap between particles of diameter d, as fractions of d (brute force over the state).
std::vector<double> overlaps(const HostState& h, double d) {
    std::vector<double> out;
    for (std::size_t i = 0; i < h.pos.size(); ++i)
        for (std::size_t j = i + 1; j < h.pos.size(); ++j) {
            const double r = glm::length(h.pos[i] - h.pos[j]);
            if (r < d) out.push_back((d - r) / d);
        }
    return out;
}

double pile_height(const HostState& h) {
    double top = 0;
    for (const dvec2& p : h.pos) top = std::max(top, p.y);
    return top;
}

// 800 disks of diameter 0.02 dropped into the unit box: about 16 rows when they have settled.
void pile(EulerSolver& s, const std::string& contact) {
    set(s, "n_particles", "800");
    set(s, "seed", "3");
    set(s, "spawn_min", "0.05,0.3");
    set(s, "spawn_max", "0.95,0.95");
    set(s, "initial_speed", "1");
    set(s, "tau", "0.002");
    set(s, "collision_distance", "0.02");
    set(s, "restitution", "0.5");
    set(s, "wall_damping", "0.8");
    set(s, "contact", contact);
    s.reset();
}

}  // namespace

TEST(EulerSoftContact, APileComesToRestAsAHeapOnSmallOverlaps) {
    // The figure docs/solvers/euler.md states: at rest, overlaps average under 0.5% of the diameter and
    // none reaches 3% (measured 0.2% and 1.8%: the stiffness 1e6 N/m against a 16-row pile of
    // 1 kg disks, m g H / (k d) about 0.8% at the bottom).
    EulerSolver s;
    pile(s, "soft");
    const double ke0 = kinetic_energy(s.state());
    for (int k = 0; k < 1500; ++k) s.step();  // 3 s
    const HostState settled = s.state();
    const double height = pile_height(settled);
    for (int k = 0; k < 250; ++k) s.step();  // 0.5 s more
    const HostState h = s.state();
    EXPECT_LT(kinetic_energy(h), 1e-5 * ke0) << "still moving";
    // The heap keeps its height (it does not sink into itself) ...
    EXPECT_NEAR(pile_height(h), height, 0.05 * 0.02);
    // ... which is that of about 16 rows of close-packed disks: N (sqrt(3)/2) d^2 over the box
    // width, plus a radius. Frictionless disks pack nearly hexagonally; a loose packing would be
    // higher, a sinking one lower.
    const double close_packed = 800 * 0.8660254 * 0.02 * 0.02 + 0.01;
    EXPECT_GT(pile_height(h), 0.97 * close_packed);
    EXPECT_LT(pile_height(h), 1.1 * close_packed);
    const std::vector<double> ov = overlaps(h, 0.02);
    ASSERT_GT(ov.size(), 1500u) << "a heap has contacts";
    double mean = 0, deepest = 0;
    for (double o : ov) {
        mean += o / static_cast<double>(ov.size());
        deepest = std::max(deepest, o);
    }
    EXPECT_LT(mean, 0.005);
    EXPECT_LT(deepest, 0.03);
    // The stats report the deepest overlap, walls included, as the last sub-step saw it.
    EXPECT_GE(s.stats().get("max_overlap"), deepest - 1e-3);
    EXPECT_LT(s.stats().get("max_overlap"), 0.03);
}

TEST(EulerSoftContact, TheTutorialsImpulsesCannotHoldAPile) {
    // The same drop with contact = impulse: nothing holds resting particles apart, the pile
    // sinks to the floor and particles end up on top of one another.
    EulerSolver s;
    pile(s, "impulse");
    for (int k = 0; k < 1500; ++k) s.step();
    EXPECT_LT(pile_height(s.state()), 0.3 * (800 * 0.8660254 * 0.02 * 0.02));
    EXPECT_GT(s.stats().get("max_overlap"), 0.9);
}

TEST(EulerSoftContact, TwoBodyCollisionKeepsMomentumAndEndsWithTheRestitution) {
    // Head-on, unequal masses, no gravity or walls: momentum exactly (the pair forces cancel in
    // fixed point), and the relative speed after the contact is e times the one before it. The
    // dashpot's force is clamped at zero as the pair separates, which lets light damping give
    // back a little more than e (Poeschel & Schwager 2005, 3.1); 3% covers it.
    for (double e : {1.0, 0.9, 0.5}) {
        EulerSolver s;
        set(s, "gravity", "0");
        set(s, "boundary", "open");
        set(s, "contact", "soft");
        set(s, "restitution", std::to_string(e));
        set(s, "collision_distance", "0.1");
        set(s, "tau", "0.001");
        s.reset();
        HostState h;
        h.pos = {{0.40, 0.5}, {0.52, 0.5}};
        h.vel = {{1.0, 0.0}, {-0.5, 0.0}};
        h.mass = {1.0, 3.0};
        h.id = {0, 1};
        s.set_state(h);
        for (int k = 0; k < 40; ++k) s.step();
        const HostState a = s.state();
        EXPECT_GT(glm::length(a.pos[1] - a.pos[0]), 0.1) << "the contact is over";
        EXPECT_DOUBLE_EQ(a.mass[0] * a.vel[0].x + a.mass[1] * a.vel[1].x, 1.0 - 1.5);
        EXPECT_EQ(a.vel[0].y, 0.0);
        const double rel = a.vel[1].x - a.vel[0].x;
        EXPECT_NEAR(rel / 1.5, e, 0.03) << "e = " << e;
    }
}

TEST(EulerSoftContact, PeriodicGasKeepsMomentumExactlyAndEnergyWhenElastic) {
    // 1600 disks on a lattice (none overlapping at the start: an overlap would be stored spring
    // energy), random velocities and masses, in a periodic box without gravity.
    EulerSolver s;
    set(s, "gravity", "0");
    set(s, "boundary", "periodic");
    set(s, "contact", "soft");
    set(s, "restitution", "1");
    set(s, "collision_distance", "0.02");
    s.reset();
    HostState h0;
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int i = 0; i < 1600; ++i) {
        h0.pos.push_back({(i % 40 + 0.5) / 40.0, (i / 40 + 0.5) / 40.0});
        h0.vel.push_back({u(rng), u(rng)});
        h0.mass.push_back(1.0 + 0.5 * u(rng));
        h0.id.push_back(i);
    }
    s.set_state(h0);
    const dvec2 p0 = momentum(h0);
    const double e0 = kinetic_energy(h0);
    double scale = 0;
    for (std::size_t i = 0; i < h0.pos.size(); ++i) scale += h0.mass[i] * glm::length(h0.vel[i]);
    long long touching = 0;
    for (int k = 0; k < 200; ++k) {
        s.step();
        touching += static_cast<long long>(s.stats().get("contacts"));
    }
    EXPECT_GT(touching, 1000) << "too few contacts to be a test";
    const HostState h = s.state();
    // Every contact force cancels exactly; what remains is the rounding of v += h F/m.
    EXPECT_NEAR(momentum(h).x, p0.x, 1e-13 * scale);
    EXPECT_NEAR(momentum(h).y, p0.y, 1e-13 * scale);
    // Elastic springs store energy during a contact and give it back: kinetic plus spring
    // energy k delta^2 / 2 is kept, by semi-implicit Euler at h omega_0 <= 0.2 to a few tenths
    // of a percent (periodic pairs across the border are rare enough to leave out).
    double spring = 0;
    for (double o : overlaps(h, 0.02)) spring += 0.5 * 1e6 * (o * 0.02) * (o * 0.02);
    EXPECT_NEAR(kinetic_energy(h) + spring, e0, 0.005 * e0);
}

TEST(EulerSoftContact, DetectorsThreadsAndCheckpointsGiveTheSameBits) {
    // The pair forces are summed in fixed point, so the order neighbours are visited in (grid
    // or brute force, one thread or two) does not change a bit.
    const int before = fs::cpu_threads();
    HostState result[3];
    for (int run = 0; run < 3; ++run) {
        fs::set_cpu_threads(run == 2 ? 1 : 2);
        EulerSolver s;
        pile(s, "soft");
        set(s, "detector", run == 1 ? "brute_force" : "grid");
        for (int k = 0; k < 150; ++k) s.step();
        result[run] = s.state();
    }
    fs::set_cpu_threads(before);
    for (int run = 1; run < 3; ++run) {
        EXPECT_EQ(result[0].pos, result[run].pos) << run;
        EXPECT_EQ(result[0].vel, result[run].vel) << run;
    }
    EulerSolver a;
    pile(a, "soft");
    for (int k = 0; k < 100; ++k) a.step();
    const auto saved = a.checkpoint();
    for (int k = 0; k < 50; ++k) a.step();
    const HostState first = a.state();
    a.restore(saved);
    for (int k = 0; k < 50; ++k) a.step();
    EXPECT_EQ(a.state().pos, first.pos);
    EXPECT_EQ(a.state().vel, first.vel);
}
