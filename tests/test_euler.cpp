// The Euler particle solver (seed 000): detectors agree, conservation laws hold, results do not
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

// seed 000, bounce_on_borders: a particle that crossed a border is put back on it, its normal
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
