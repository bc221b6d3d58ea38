// The FLIP solver's hands (core/hands.hpp): a dragged obstacle is a moving boundary of the
// liquid, checkpoints and Reset put it back, push and pull move the liquid around the cursor's
// ray, pouring adds exactly the particles it reports; all of it deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/hands.hpp"
#include "solvers/flip/flip_solver.hpp"

namespace {

using fs::Hand;
using fs::flip::FlipSolver;
using fs::flip::HostState;
using glm::dvec3;

void set(FlipSolver& s, const std::string& name, const std::string& value) { s.params().at(name).set_text(value); }

// A tank 1 x 0.6 x 0.4 m at 32 cells along x (dx = 1/32 m), water `depth` deep over the whole
// floor, and the sphere `sphere` (x, y, z, r; "0,0,0,0" for none).
void tank(FlipSolver& s, double depth, const std::string& sphere = "0,0,0,0", const std::string& box = "0,0,0,0,0,0") {
    set(s, "domain_size", "1,0.6,0.4");
    set(s, "resolution", "32");
    set(s, "fluid_box", "0,0,0,1," + std::to_string(depth) + ",0.4");
    set(s, "obstacle_sphere", sphere);
    set(s, "obstacle_box", box);
    s.reset();
}

int index_of(const FlipSolver& s, fs::Obstacle::Shape shape) {
    const auto obstacles = s.obstacles();
    for (std::size_t k = 0; k < obstacles.size(); ++k)
        if (obstacles[k].shape == shape) return static_cast<int>(k);
    return -1;
}

Hand drag(int body, dvec3 target) {
    Hand h;
    h.tool = Hand::Tool::Drag;
    h.body = body;
    for (int a = 0; a < 3; ++a) h.target[a] = target[a];
    return h;
}

// A push, pull or pour hand at `point`, looking down (the ray runs along -y).
Hand at(Hand::Tool tool, dvec3 point) {
    Hand h;
    h.tool = tool;
    for (int a = 0; a < 3; ++a) h.point[a] = point[a];
    h.axis[0] = 0.0;
    h.axis[1] = -1.0;
    h.axis[2] = 0.0;
    return h;
}

// Inside the solver's box (the grid's whole cells: 0.40625 m deep for 0.4 at dx = 1/32).
bool in_domain(const FlipSolver& s, dvec3 x) {
    double lo[3], hi[3];
    s.domain(lo, hi);
    return x.x >= lo[0] && x.y >= lo[1] && x.z >= lo[2] && x.x <= hi[0] && x.y <= hi[1] && x.z <= hi[2];
}

dvec3 sphere_centre(const FlipSolver& s) {
    const auto o = s.obstacles()[static_cast<std::size_t>(index_of(s, fs::Obstacle::Shape::Sphere))];
    return dvec3(o.center[0], o.center[1], o.center[2]);
}

TEST(FlipHands, OffersDragPushPullAndPourOnDraggableObstacles) {
    FlipSolver s;
    EXPECT_EQ(s.hand_tools(), fs::kHandDrag | fs::kHandPushPull | fs::kHandPour);
    for (const char* name : {"hand_radius", "hand_strength", "drag_speed", "pour_rate", "pour_speed", "max_particles",
                             "poured"})
        EXPECT_NE(s.params().find(name), nullptr) << name;
    tank(s, 0.3, "0.3,0.15,0.2,0.08", "0.7,0,0.1,0.8,0.1,0.3");
    const auto obstacles = s.obstacles();
    ASSERT_EQ(obstacles.size(), 2u);
    EXPECT_EQ(obstacles[0].shape, fs::Obstacle::Shape::Box);
    EXPECT_EQ(obstacles[1].shape, fs::Obstacle::Shape::Sphere);
    for (const auto& o : obstacles) EXPECT_TRUE(o.draggable) << o.name;
    EXPECT_DOUBLE_EQ(obstacles[0].anchor[0], 0.75);
    EXPECT_DOUBLE_EQ(obstacles[0].anchor[1], 0.05);
    EXPECT_DOUBLE_EQ(obstacles[0].anchor[2], 0.2);
    for (int a = 0; a < 3; ++a) EXPECT_EQ(obstacles[1].anchor[a], obstacles[1].center[a]);
    EXPECT_EQ(s.stages().front().name, "hands");
}

// The sphere (r = 0.08 m) in a tank half full of water, held still or dragged 0.4 m along x by a
// target that moves across in 20 steps (a cursor), for 40 steps.
struct DragRun {
    double div_after = 0.0;   // the largest div_max_after of the steps
    double div_before = 0.0;  // and div_max_before
    double momentum_x = 0.0;  // the liquid's largest along x
    double sphere_speed = 0.0, ahead_speed = 0.0;  // at step 10: the sphere's and the water's just ahead of it
    dvec3 centre{0.0};        // the sphere's, at the end
    double deepest = 0.0;     // how far the deepest particle is inside the sphere (0: none is)
};
DragRun drag_run(bool dragged) {
    FlipSolver s;
    tank(s, 0.3, "0.3,0.15,0.2,0.08");
    const int sphere = index_of(s, fs::Obstacle::Shape::Sphere);
    const dvec3 from(0.3, 0.15, 0.2), to(0.7, 0.15, 0.2);
    DragRun r;
    for (int k = 0; k < 40; ++k) {
        if (dragged) s.set_hand(drag(sphere, from + std::min(1.0, (k + 1) / 20.0) * (to - from)));
        const dvec3 was = sphere_centre(s);
        s.step();
        r.div_after = std::max(r.div_after, s.stats().get("div_max_after"));
        r.div_before = std::max(r.div_before, s.stats().get("div_max_before"));
        r.momentum_x = std::max(r.momentum_x, s.stats().get("momentum"));
        if (k == 10) {
            // The water within a radius of the sphere's path, up to a radius in front of it.
            const dvec3 c = sphere_centre(s);
            r.sphere_speed = (c.x - was.x) / s.stats().get("dt");
            double sum = 0.0;
            int n = 0;
            const HostState h = s.state();
            for (std::size_t i = 0; i < h.pos.size(); ++i) {
                const dvec3 d = h.pos[i] - c;
                if (d.x > 0.08 && d.x < 0.16 && d.y * d.y + d.z * d.z < 0.08 * 0.08) {
                    sum += h.vel[i].x;
                    ++n;
                }
            }
            r.ahead_speed = n > 0 ? sum / n : 0.0;
        }
    }
    r.centre = sphere_centre(s);
    for (const dvec3& x : s.state().pos) r.deepest = std::max(r.deepest, 0.08 - glm::length(x - r.centre));
    return r;
}

TEST(FlipHands, DraggedSphereIsAMovingBoundary) {
    const DragRun fixed = drag_run(false), dragged = drag_run(true);
    std::printf("sphere held: div after %.3g (before %.3g) 1/s, momentum x %.3g kg m/s\n", fixed.div_after,
                fixed.div_before, fixed.momentum_x);
    std::printf("sphere dragged: div after %.3g (before %.3g) 1/s, momentum x up to %.3g kg m/s, ends at %.6f %.6f "
                "%.6f; at step 10 it moves at %.3g m/s, the water ahead of it at %.3g m/s\n",
                dragged.div_after, dragged.div_before, dragged.momentum_x, dragged.centre.x, dragged.centre.y,
                dragged.centre.z, dragged.sphere_speed, dragged.ahead_speed);
    // The projection removes the solid's flux as well as gravity's: what is left is the solve's
    // tolerance of a larger right-hand side, the same order as the held sphere's.
    EXPECT_LT(dragged.div_after, 3.0 * fixed.div_after);
    EXPECT_LT(dragged.div_after, 1e-4 * dragged.div_before);
    // At drag_speed = 1 m/s (dt about 1/70 s, the CFL step with the drag's speed) the sphere
    // reaches the target 0.4 m away in about 29 steps, and stays there.
    EXPECT_NEAR(dragged.centre.x, 0.7, 1e-9);
    EXPECT_NEAR(dragged.centre.y, 0.15, 1e-12);
    EXPECT_NEAR(dragged.centre.z, 0.2, 1e-12);
    EXPECT_LE(dragged.deepest, 0.0);
    EXPECT_LE(fixed.deepest, 0.0);
    // The sphere pushes the water along: the water just ahead of it moves with it (a sphere in
    // potential flow drives the water on its axis at (R/r)^3 of its speed), and the liquid's
    // momentum points the drag's way, far above what the held sphere's stillness has. (It does
    // not stay so: in a closed tank the water displaced flows back around the sphere, so the
    // liquid's centre of mass moves against it, and the momentum turns as the sphere stops.)
    EXPECT_GT(dragged.sphere_speed, 0.5);
    EXPECT_GT(dragged.ahead_speed, 0.25 * dragged.sphere_speed);
    EXPECT_GT(dragged.momentum_x, 0.0);
    EXPECT_GT(dragged.momentum_x, 100.0 * std::abs(fixed.momentum_x));
}

TEST(FlipHands, DraggedPaddlePushesTheWaterAlong) {
    // A box across the whole tank and out of the water, dragged along x toward a point 0.3 m
    // away: the water it drives has momentum along x at every step, and its centre of mass
    // moves that way.
    FlipSolver s;
    tank(s, 0.3, "0,0,0,0", "0.3,0,0,0.35,0.5,0.41");
    auto mean_x = [&] {
        double sum = 0.0;
        const HostState h = s.state();
        for (const dvec3& x : h.pos) sum += x.x;
        return sum / static_cast<double>(h.pos.size());
    };
    const double x0 = mean_x();
    s.set_hand(drag(0, dvec3(0.625, 0.25, 0.2)));
    double least = 1e300;
    for (int k = 0; k < 20; ++k) {
        s.step();
        least = std::min(least, s.stats().get("momentum"));
        ASSERT_LT(s.stats().get("div_max_after"), 1e-4) << k;
    }
    const double x1 = mean_x();
    std::printf("paddle: least momentum x %.3g kg m/s over the drag; water's mean x %.4f -> %.4f m, paddle at %.4f\n",
                least, x0, x1, s.obstacles()[0].lo[0]);
    EXPECT_GT(least, 0.0);
    EXPECT_GT(x1, x0 + 0.01);
    for (const dvec3& x : s.state().pos) {
        const auto o = s.obstacles()[0];
        ASSERT_FALSE(x.x > o.lo[0] && x.x < o.hi[0] && x.y < o.hi[1]) << x.x << " " << x.y << " " << x.z;
        ASSERT_TRUE(in_domain(s, x)) << x.z;  // the paddle spans z: nothing is pushed out of the tank
    }
}

TEST(FlipHands, DragIsLimitedToTheDragSpeedAndStaysInTheDomain) {
    FlipSolver s;
    tank(s, 0.3, "0.3,0.15,0.2,0.08", "0.7,0,0.1,0.8,0.1,0.3");
    set(s, "drag_speed", "0.5");
    // The box (body 0) asked 1 m away along +x: one step moves it 0.5 dt.
    s.set_hand(drag(0, dvec3(1.75, 0.05, 0.2)));
    s.step();
    const double dt = s.stats().get("dt");
    const auto o = s.obstacles()[0];
    EXPECT_NEAR(o.lo[0], 0.7 + 0.5 * dt, 1e-12);
    EXPECT_NEAR(o.hi[0], 0.8 + 0.5 * dt, 1e-12);
    // Far beyond the wall: it stops flush with it.
    for (int k = 0; k < 60; ++k) s.step();
    EXPECT_NEAR(s.obstacles()[0].hi[0], 1.0, 1e-12);
    EXPECT_NEAR(s.obstacles()[0].lo[0], 0.9, 1e-12);
    // The sphere, asked through the floor, rests on it.
    s.set_hand(drag(1, dvec3(0.3, -1.0, 0.2)));
    for (int k = 0; k < 30; ++k) s.step();
    EXPECT_NEAR(sphere_centre(s).y, 0.08, 1e-12);
}

TEST(FlipHands, CheckpointUndoesADragResetReturnsToTheSceneKeepBodyPosesWritesIt) {
    FlipSolver s;
    tank(s, 0.3, "0.3,0.15,0.2,0.08");
    for (int k = 0; k < 3; ++k) s.step();
    const auto before = s.checkpoint();
    const HostState particles = s.state();
    s.set_hand(drag(0, dvec3(0.6, 0.2, 0.2)));
    for (int k = 0; k < 10; ++k) s.step();
    const dvec3 moved = sphere_centre(s);
    EXPECT_GT(moved.x, 0.4);
    s.restore(before);
    s.set_hand(Hand{});
    EXPECT_EQ(sphere_centre(s), dvec3(0.3, 0.15, 0.2));
    EXPECT_EQ(s.state().pos, particles.pos);
    // The restored run goes on as the undisturbed one would: the sphere stays.
    s.step();
    EXPECT_EQ(sphere_centre(s), dvec3(0.3, 0.15, 0.2));

    // Reset returns to the parameters (the scene); keep_body_poses writes the pose into them, so
    // the next Reset (and a saved scene) starts there.
    s.set_hand(drag(0, dvec3(0.6, 0.2, 0.2)));
    for (int k = 0; k < 10; ++k) s.step();
    s.reset();
    EXPECT_EQ(sphere_centre(s), dvec3(0.3, 0.15, 0.2));
    EXPECT_EQ(s.hand().tool, Hand::Tool::None);
    s.set_hand(drag(0, dvec3(0.6, 0.2, 0.2)));
    for (int k = 0; k < 10; ++k) s.step();
    const dvec3 dragged = sphere_centre(s);
    EXPECT_NE(dragged, dvec3(0.3, 0.15, 0.2));
    s.keep_body_poses();
    const auto param = std::get<std::vector<double>>(s.params().at("obstacle_sphere").get());
    EXPECT_EQ(dvec3(param[0], param[1], param[2]), dragged);
    EXPECT_EQ(param[3], 0.08);
    s.set_hand(Hand{});
    s.reset();
    EXPECT_EQ(sphere_centre(s), dragged);

    // Editing the parameter places the sphere there at once, as before there were hands.
    set(s, "obstacle_sphere", "0.5,0.2,0.2,0.08");
    EXPECT_EQ(sphere_centre(s), dvec3(0.5, 0.2, 0.2));
    s.step();
    EXPECT_EQ(sphere_centre(s), dvec3(0.5, 0.2, 0.2));
}

// Particles within `radius` of the vertical line through (x, z).
int in_cylinder(const HostState& h, double x, double z, double radius) {
    int n = 0;
    for (const dvec3& p : h.pos) n += (p.x - x) * (p.x - x) + (p.z - z) * (p.z - z) < radius * radius;
    return n;
}

TEST(FlipHands, PushClearsTheLiquidUnderTheCursorAndPullGathersIt) {
    // Looking down on water 0.1 m deep, 0.5 s. The push's field is a gradient across the ray,
    // which the pressure balances in the bulk; at the free surface it digs a dent of depth
    // S R / (2 g) at the ray (Lague's profile integrated over the radius), 0.41 m with S = 100 m/s^2
    // and R = 0.08 m: deeper than the water, so the cylinder's core clears to the floor.
    int counts[2][2];  // [push, pull][before, after]
    for (int pull = 0; pull < 2; ++pull) {
        FlipSolver s;
        set(s, "hand_strength", "100");
        tank(s, 0.1);
        const double radius = std::get<double>(s.params().at("hand_radius").get());
        counts[pull][0] = in_cylinder(s.state(), 0.5, 0.2, radius);
        s.set_hand(at(pull ? Hand::Tool::Pull : Hand::Tool::Push, dvec3(0.5, 0.5, 0.2)));
        while (s.time() < 0.5) s.step();
        counts[pull][1] = in_cylinder(s.state(), 0.5, 0.2, radius);
    }
    std::printf("particles within the hand's radius of its ray: push %d -> %d, pull %d -> %d\n", counts[0][0],
                counts[0][1], counts[1][0], counts[1][1]);
    EXPECT_LT(counts[0][1], counts[0][0] * 2 / 5);
    EXPECT_GT(counts[1][1], counts[1][0] * 13 / 10);
}

TEST(FlipHands, PourAddsExactlyTheParticlesItReports) {
    FlipSolver s;
    // The pour's ball (r = 0.08) overlaps the water's top, a box obstacle and the wall at z = 0.
    tank(s, 0.2, "0,0,0,0", "0.45,0.2,0,0.55,0.3,0.05");
    const int n0 = s.particle_count();
    const dvec3 point(0.5, 0.25, 0.04);
    s.set_hand(at(Hand::Tool::Pour, point));
    // The hands stage alone: the new particles where it put them, before anything moves them.
    const HostState before = s.state();
    s.advance_stage();
    const HostState poured = s.state();
    const int added = s.particle_count() - n0;
    std::printf("first pour: %d particles\n", added);
    ASSERT_GT(added, 0);
    const double dx = s.grid().dx;
    // Cells that held a particle before: none of the poured ones is in one.
    auto cell = [&](dvec3 x) { return glm::ivec3(glm::floor(x / dx)); };
    std::vector<glm::ivec3> held;
    for (const dvec3& x : before.pos) held.push_back(cell(x));
    std::sort(held.begin(), held.end(), [](glm::ivec3 a, glm::ivec3 b) {
        return a.z != b.z ? a.z < b.z : a.y != b.y ? a.y < b.y : a.x < b.x;
    });
    int max_id = -1;
    for (int id : before.id) max_id = std::max(max_id, id);
    for (std::size_t i = 0; i < poured.pos.size(); ++i) {
        if (poured.id[i] <= max_id) continue;
        const dvec3 x = poured.pos[i];
        EXPECT_TRUE(in_domain(s, x)) << i;
        EXPECT_FALSE(x.x > 0.45 && x.y > 0.2 && x.z > 0.0 && x.x < 0.55 && x.y < 0.3 && x.z < 0.05) << "in the box " << i;
        EXPECT_LT(glm::length(x - point), 0.08 + dx) << i;
        const glm::ivec3 c = cell(x);
        EXPECT_FALSE(std::binary_search(held.begin(), held.end(), c, [](glm::ivec3 a, glm::ivec3 b) {
            return a.z != b.z ? a.z < b.z : a.y != b.y ? a.y < b.y : a.x < b.x;
        })) << "in a cell that held liquid " << i;
        EXPECT_EQ(poured.vel[i], dvec3(0.0, -0.5, 0.0)) << i;  // pour_speed along gravity
    }
    // The ids continue from the largest, each once.
    std::vector<int> ids = poured.id;
    std::sort(ids.begin(), ids.end());
    for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], static_cast<int>(i));

    // Step by step: n_particles grows by exactly the growth of the "poured" stat.
    s.step();  // the rest of the first step
    for (int k = 0; k < 30; ++k) {
        const double n = s.stats().get("n_particles"), p = s.stats().get("poured");
        s.step();
        EXPECT_EQ(s.stats().get("n_particles") - n, s.stats().get("poured") - p) << k;
    }
    EXPECT_EQ(s.stats().get("n_particles"), n0 + s.stats().get("poured"));
    EXPECT_EQ(std::get<long long>(s.params().at("poured").get()), static_cast<long long>(s.stats().get("poured")));
    std::printf("after 31 steps (%.3f s): %.0f poured\n", s.time(), s.stats().get("poured"));
    for (const dvec3& x : s.state().pos)
        ASSERT_FALSE(x.x > 0.45 && x.y > 0.2 && x.z > 0.0 && x.x < 0.55 && x.y < 0.3 && x.z < 0.05);

    // The budget: pouring stops at max_particles exactly.
    const int budget = s.particle_count() + 50;
    set(s, "max_particles", std::to_string(budget));
    for (int k = 0; k < 20; ++k) s.step();
    EXPECT_EQ(s.particle_count(), budget);
    EXPECT_EQ(s.stats().get("n_particles"), n0 + s.stats().get("poured"));
    // Reset forgets what was poured.
    s.reset();
    EXPECT_EQ(s.particle_count(), n0);
    EXPECT_EQ(std::get<long long>(s.params().at("poured").get()), 0);
}

TEST(FlipHands, RefusesAParticleBudgetBeyondMemory) {
    FlipSolver s;
    set(s, "max_particles", "100000000");
    ::setenv("FLUID_SANDBOX_MEMORY_LIMIT", "64M", 1);
    try {
        s.reset();
        ADD_FAILURE() << "1e8 particles passed a 64 MiB limit";
    } catch (const fs::ParamError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("max_particles: 100000000 particles need", 0), 0u) << e.what();
    }
    ::unsetenv("FLUID_SANDBOX_MEMORY_LIMIT");
}

TEST(FlipHands, PourUnderApicStartsTheNewParticlesAtZeroGradient) {
    FlipSolver s;
    set(s, "transfer_scheme", "apic");
    tank(s, 0.2);
    s.step();  // the affine vectors exist from the first P2G on
    s.set_hand(at(Hand::Tool::Pour, dvec3(0.5, 0.4, 0.2)));
    s.step();
    const HostState h = s.state();
    for (int a = 0; a < 3; ++a) EXPECT_EQ(h.affine[a].size(), h.pos.size());
    EXPECT_GT(s.stats().get("poured"), 0.0);
}

// Each hand for a few steps, with one and with two threads.
HostState hands_run(int threads) {
    fs::set_cpu_threads(threads);
    FlipSolver s;
    set(s, "volume_correction", "0.5");
    tank(s, 0.25, "0.3,0.12,0.2,0.07");
    s.set_hand(drag(0, dvec3(0.6, 0.15, 0.2)));
    for (int k = 0; k < 5; ++k) s.step();
    s.set_hand(at(Hand::Tool::Push, dvec3(0.7, 0.5, 0.2)));
    for (int k = 0; k < 5; ++k) s.step();
    s.set_hand(at(Hand::Tool::Pull, dvec3(0.2, 0.5, 0.2)));
    for (int k = 0; k < 5; ++k) s.step();
    s.set_hand(at(Hand::Tool::Pour, dvec3(0.5, 0.45, 0.2)));
    for (int k = 0; k < 5; ++k) s.step();
    EXPECT_GT(s.stats().get("poured"), 0.0);
    return s.state();
}

TEST(FlipHandsDeterminism, OneAndTwoThreadsGiveIdenticalStates) {
    const int before = fs::cpu_threads();
    const HostState a = hands_run(1), b = hands_run(2);
    fs::set_cpu_threads(before);
    EXPECT_EQ(a.pos, b.pos);
    EXPECT_EQ(a.vel, b.vel);
    EXPECT_EQ(a.id, b.id);
}

TEST(FlipHandsCuda, DragPushAndPourAgreeWithTheCpu) {
    if (!fs::cuda_status().usable)
        GTEST_SKIP() << "no usable CUDA GPU (" << fs::cuda_status().reason << "); CUDA parity of the hands not checked";
    FlipSolver cpu(fs::Backend::Cpu), gpu(fs::Backend::Cuda);
    for (FlipSolver* s : {&cpu, &gpu}) {
        tank(*s, 0.25, "0.3,0.12,0.2,0.07");
        s->set_hand(drag(0, dvec3(0.6, 0.15, 0.2)));
        s->step();
        s->set_hand(at(Hand::Tool::Push, dvec3(0.7, 0.5, 0.2)));
        s->step();
        // Above the water, where no cell holds a particle: the pour picks the same sites.
        s->set_hand(at(Hand::Tool::Pour, dvec3(0.5, 0.5, 0.2)));
        s->step();
    }
    EXPECT_EQ(cpu.stats().get("poured"), gpu.stats().get("poured"));
    const HostState a = cpu.state(), b = gpu.state();
    ASSERT_EQ(a.pos.size(), b.pos.size());
    for (std::size_t i = 0; i < a.pos.size(); ++i) {
        ASSERT_EQ(a.id[i], b.id[i]);
        ASSERT_LT(glm::length(a.pos[i] - b.pos[i]), 1e-7) << i;
        ASSERT_LT(glm::length(a.vel[i] - b.vel[i]), 1e-6) << i;
    }
    EXPECT_EQ(sphere_centre(cpu), sphere_centre(gpu));
}

}  // namespace
