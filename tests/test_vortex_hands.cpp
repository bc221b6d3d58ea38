// Hands in the vortex solver (core/hands.hpp): a student drags a body through the fluid. The body
// follows the hand no faster than drag_speed, the fluid feels it as any moving body (it sheds
// vorticity, series part 4), a drag is state (Step back undoes it, Reset returns to the scene,
// keep_body_poses keeps it), and a body let go goes on as a body does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/hands.hpp"
#include "solvers/vortex/vortex_solver.hpp"
#include "vortex_helpers.hpp"

namespace {

using fs::vortex::VortexSolver;
using glm::dvec3;
using vortex_test::set;

// Still fluid: a block of vortons with no vorticity (direct Biot-Savart, 14 x 8 x 8 of them less
// those inside the bodies), no gravity, buoyancy or viscosity, and the bodies `sets` place.
void still_fluid(VortexSolver& s, const std::vector<std::pair<std::string, std::string>>& sets) {
    for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
             {"velocity_method", "direct"},
             {"tracer_velocity", "direct"},
             {"core_radius", "0.05"},
             {"vorton_box", "-0.6,-0.4,-0.4,0.8,0.4,0.4"},
             {"vorton_spacing", "0.1"},
             {"vorton_noise", "0"},
             {"buoyancy", "false"},
             {"gravity", "0"},
             {"viscosity", "0"}})
        set(s, name, value);
    for (const auto& [name, value] : sets) set(s, name, value);
    s.reset();
}

fs::Hand drag(int body, dvec3 target) {
    fs::Hand h;
    h.tool = fs::Hand::Tool::Drag;
    h.body = body;
    for (int c = 0; c < 3; ++c) h.target[c] = target[c];
    return h;
}

dvec3 stat3(const VortexSolver& s, const std::string& name) {
    const auto& v = s.stats().find(name)->value;
    return dvec3(v[0], v[1], v[2]);
}

double largest_difference(const glm::dmat3& a, const glm::dmat3& b) {
    double d = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) d = std::max(d, std::fabs(a[i][j] - b[i][j]));
    return d;
}

const std::vector<std::pair<std::string, std::string>> kSphere = {
    {"body1_shape", "sphere"}, {"body1_position", "-0.2,0,0"}, {"body1_size", "0.2,0.2,0.2"}};

TEST(VortexHands, ADraggedBodyReachesTheTargetNoFasterThanTheDragSpeedAndShedsVorticity) {
    const dvec3 start(-0.2, 0.0, 0.0), target(0.3, 0.0, 0.0), along = glm::normalize(target - start);
    const int steps = 40;  // 0.5 m at 1 m/s: 30 steps of 1/60 s, more where the CFL bound shortens dt

    // Left alone, a still sphere in still fluid changes nothing: the impulse stays exactly zero.
    VortexSolver alone;
    still_fluid(alone, kSphere);
    for (int k = 0; k < steps; ++k) alone.step();
    EXPECT_EQ(stat3(alone, "linear_impulse"), dvec3(0.0));
    EXPECT_EQ(alone.bodies()[0].position, start);

    VortexSolver s;
    still_fluid(s, kSphere);
    const double speed = 1.0;
    ASSERT_EQ(std::get<double>(s.params().at("drag_speed").get()), speed);
    s.set_hand(drag(0, target));
    double first_impulse = 0.0, fastest = 0.0;
    int arrived = -1;
    for (int k = 0; k < steps; ++k) {
        const dvec3 before = s.bodies()[0].position;
        s.step();
        const dvec3 after = s.bodies()[0].position;
        const double dt = s.stats().find("dt")->value[0];
        const double moved = glm::length(after - before);
        fastest = std::max(fastest, moved / dt);
        EXPECT_LE(moved, speed * dt * (1.0 + 1e-12)) << "step " << k;
        EXPECT_LE(glm::length(target - after), glm::length(target - before) + 1e-15) << "step " << k;
        // The velocity the solver reports (the one the collide stage used) is the one it moved by.
        EXPECT_LT(glm::length(stat3(s, "body1_velocity") - (after - before) / dt), 1e-9) << "step " << k;
        if (k == 0) first_impulse = glm::dot(stat3(s, "linear_impulse"), along);
        if (arrived < 0 && glm::length(target - after) < 1e-12) arrived = k;
    }
    const dvec3 P = stat3(s, "linear_impulse");
    std::printf("drag: fastest %.6g m/s (drag_speed %.3g), at the target after step %d; fluid impulse after the "
                "first step %.4g, at the end (%.4g, %.4g, %.4g) kg m/s\n",
                fastest, speed, arrived, first_impulse, P.x, P.y, P.z);
    EXPECT_GT(fastest, 0.99 * speed);  // it moved at the drag speed while far from the target
    ASSERT_GE(arrived, 0);
    EXPECT_LT(glm::length(s.bodies()[0].position - target), 1e-12);
    // The fluid felt the body move in the very step it moved (its velocity reached the collide
    // stage), and its impulse gained what the body lost, along the drag: drag opposes motion.
    EXPECT_GT(first_impulse, 0.0);
    EXPECT_GT(glm::dot(P, along), 0.99 * glm::length(P));
    EXPECT_GT(glm::length(P), 0.0);
    EXPECT_GT(s.stats().find("enstrophy")->value[0], 0.0);  // the still vortons now spin
    // Held at the target, it stays there.
    for (int k = 0; k < 5; ++k) s.step();
    EXPECT_LT(glm::length(s.bodies()[0].position - target), 1e-12);
    EXPECT_EQ(stat3(s, "body1_velocity"), dvec3(0.0));
}

TEST(VortexHands, StepBackUndoesADragResetReturnsToTheSceneAndKeepBodyPosesKeepsIt) {
    // A user-given shape (its centroid, (0.075, 0.075, 0.075), is not its origin), turned and
    // spinning, so the centroid shift and the rotation are both tested.
    VortexSolver s;
    still_fluid(s, {{"body1_shape", "vertices"},
                    {"body1_vertices", "0,0,0, 0.3,0,0, 0,0.3,0, 0,0,0.3"},
                    {"body1_position", "-0.3,0,0"},
                    {"body1_rotation", "10,20,30"},
                    {"body1_spin", "0,0,2"}});
    const fs::vortex::BodyState initial = s.bodies()[0];
    EXPECT_LT(glm::length(initial.position - dvec3(-0.225, 0.075, 0.075)), 1e-15);
    for (int k = 0; k < 3; ++k) s.step();
    const auto cp = s.checkpoint();
    const fs::vortex::BodyState before = s.bodies()[0];
    s.set_hand(drag(0, before.position + dvec3(0.3, 0.1, 0.0)));
    for (int k = 0; k < 10; ++k) s.step();
    const fs::vortex::BodyState dragged = s.bodies()[0];
    EXPECT_GT(glm::length(dragged.position - before.position), 0.1);

    // Step back: the body is where it was, turned and moving as it was.
    s.restore(cp);
    EXPECT_EQ(s.bodies()[0].position, before.position);
    EXPECT_EQ(s.bodies()[0].home, before.home);
    EXPECT_EQ(s.bodies()[0].orientation, before.orientation);
    EXPECT_EQ(s.bodies()[0].velocity, before.velocity);
    EXPECT_EQ(s.bodies()[0].angular_velocity, before.angular_velocity);
    // The same drag again goes to the same place.
    for (int k = 0; k < 10; ++k) s.step();
    EXPECT_EQ(s.bodies()[0].position, dragged.position);
    EXPECT_EQ(s.bodies()[0].orientation, dragged.orientation);

    // Reset lets go and puts the body where the scene says.
    s.reset();
    EXPECT_EQ(s.hand().tool, fs::Hand::Tool::None);
    EXPECT_EQ(s.bodies()[0].position, initial.position);
    EXPECT_EQ(s.bodies()[0].orientation, initial.orientation);

    // keep_body_poses: the scene now says where the drag (and the spin) left it.
    s.set_hand(drag(0, initial.position + dvec3(0.2, -0.1, 0.05)));
    for (int k = 0; k < 15; ++k) s.step();
    const fs::vortex::BodyState kept = s.bodies()[0];
    s.keep_body_poses();
    s.reset();
    const double moved = glm::length(s.bodies()[0].position - initial.position);
    const double off = glm::length(s.bodies()[0].position - kept.position);
    const double turn = largest_difference(s.bodies()[0].orientation, kept.orientation);
    std::printf("keep_body_poses: moved %.4g m from the scene's place; after Reset %.3g m and %.3g (rotation "
                "entries) from where the drag left it\n",
                moved, off, turn);
    EXPECT_GT(moved, 0.2);
    EXPECT_LT(off, 1e-14);
    EXPECT_GT(largest_difference(kept.orientation, initial.orientation), 0.1);  // it spun
    EXPECT_LT(turn, 1e-14);
    const auto p = std::get<std::vector<double>>(s.params().at("body1_position").get());
    EXPECT_LT(glm::length(dvec3(p[0], p[1], p[2]) + kept.centroid - kept.position), 1e-14);
}

TEST(VortexHands, KeepBodyPosesKeepsTurnsAtAndNearNinetyDegreesAboutY) {
    // At 90 degrees about y only the difference of the x and z turns is defined, and next to it
    // the z turn is ill-conditioned; the kept turns still give the same orientation.
    for (const char* turns : {"25,90,-40", "25,89.9999999,-40", "-170,-90,100", "10,20,30", "0,0,0"}) {
        VortexSolver s;
        still_fluid(s, {{"body1_shape", "box"},
                        {"body1_position", "0.2,0,0"},
                        {"body1_size", "0.2,0.1,0.15"},
                        {"body1_rotation", turns}});
        const glm::dmat3 o = s.bodies()[0].orientation;
        s.keep_body_poses();
        s.reset();
        EXPECT_LT(largest_difference(s.bodies()[0].orientation, o), 1e-14) << turns;
    }
}

TEST(VortexHands, AScriptedBodyLetGoGoesOnWithItsScriptFromWhereItWasLeft) {
    VortexSolver s;
    still_fluid(s, {{"body1_shape", "sphere"},
                    {"body1_position", "-0.4,0,0"},
                    {"body1_size", "0.15,0.15,0.15"},
                    {"body1_velocity", "0.5,0,0"},
                    {"body1_path_amplitude", "0,0.1,0"},
                    {"body1_path_period", "1"}});
    s.set_hand(drag(0, dvec3(-0.4, -0.5, 0.0)));
    for (int k = 0; k < 12; ++k) s.step();
    const dvec3 left = s.bodies()[0].position;
    const double t_left = s.time();
    // Held, it followed the hand: straight down, no script.
    EXPECT_LT(std::fabs(left.x + 0.4), 1e-12);
    EXPECT_LT(left.y, -0.15);
    s.set_hand(fs::Hand{});
    const dvec3 v(0.5, 0.0, 0.0), amp(0.0, 0.1, 0.0);
    const double w = 2.0 * fs::vortex::kPi;
    double worst = 0.0;
    for (int k = 0; k < 20; ++k) {
        s.step();
        const double t = s.time();
        const dvec3 expect = left + (t - t_left) * v + (std::sin(w * t) - std::sin(w * t_left)) * amp;
        worst = std::max(worst, glm::length(s.bodies()[0].position - expect));
    }
    std::printf("scripted body let go: %.3g m at most from its script continued from where it was left\n", worst);
    EXPECT_LT(worst, 1e-12);
}

TEST(VortexHands, ADynamicBodyLetGoKeepsTheVelocityItWasDraggedAt) {
    // Gravity on: held, the body does not fall (the hand takes its weight); let go, it goes on
    // along x at the drag speed and falls at g (1 - rho_fluid / rho_body) from then on.
    VortexSolver s;
    still_fluid(s, {{"body1_shape", "sphere"},
                    {"body1_position", "-0.4,0,0"},
                    {"body1_size", "0.15,0.15,0.15"},
                    {"body1_motion", "dynamic"},
                    {"body1_density", "500"},
                    {"gravity", "9.81"},
                    {"drag_speed", "0.8"}});
    s.set_hand(drag(0, dvec3(3.0, 0.0, 0.0)));
    for (int k = 0; k < 15; ++k) s.step();
    const dvec3 dragged = stat3(s, "body1_velocity");
    EXPECT_LT(glm::length(dragged - dvec3(0.8, 0.0, 0.0)), 1e-12);
    EXPECT_EQ(s.bodies()[0].position.y, 0.0);
    const double t_left = s.time();
    s.set_hand(fs::Hand{});
    for (int k = 0; k < 15; ++k) s.step();
    const dvec3 v = stat3(s, "body1_velocity");
    const double fall = -9.81 * (1.0 - 1.2 / 500.0) * (s.time() - t_left);
    std::printf("dynamic body let go at (%.4g, %.4g, %.4g) m/s: %.3g s later (%.4g, %.4g, %.4g) m/s, free fall "
                "alone %.4g m/s\n",
                dragged.x, dragged.y, dragged.z, s.time() - t_left, v.x, v.y, v.z, fall);
    // The fluid's drag slows it a little (a body 400 times denser than the fluid): along x it
    // keeps nearly all of the drag speed, and it falls a little slower than in a vacuum.
    EXPECT_LT(v.x, 0.8);
    EXPECT_GT(v.x, 0.97 * 0.8);
    EXPECT_GT(v.y, fall);
    EXPECT_LT(v.y, 0.97 * fall);
    EXPECT_LT(std::fabs(v.z), 1e-3);
}

TEST(VortexHands, BodiesAreDraggableAndPickedByARayThroughTheirCentre) {
    // Body slot 1 empty: obstacles() lists bodies 2 and 3, and a hand's body index is theirs.
    VortexSolver s;
    still_fluid(s, {{"body2_shape", "sphere"},
                    {"body2_position", "-0.3,0,0"},
                    {"body2_size", "0.15,0.15,0.15"},
                    {"body3_shape", "box"},
                    {"body3_position", "0.4,0,0"},
                    {"body3_size", "0.2,0.2,0.2"}});
    EXPECT_EQ(s.hand_tools(), static_cast<unsigned>(fs::kHandDrag));
    const std::vector<fs::Obstacle> obs = s.obstacles();
    ASSERT_EQ(obs.size(), 2u);
    for (std::size_t k = 0; k < obs.size(); ++k) {
        EXPECT_TRUE(obs[k].draggable) << k;
        const dvec3 at = s.bodies()[k + 1].position;
        EXPECT_EQ(dvec3(obs[k].anchor[0], obs[k].anchor[1], obs[k].anchor[2]), at) << k;
    }
    const double down[3] = {0.0, 0.0, -1.0};
    const double over_sphere[3] = {-0.3, 0.0, 5.0}, over_box[3] = {0.4, 0.0, 5.0}, between[3] = {0.05, 0.0, 5.0};
    EXPECT_EQ(fs::pick_obstacle(obs, over_sphere, down), 0);
    EXPECT_EQ(fs::pick_obstacle(obs, over_box, down), 1);
    EXPECT_EQ(fs::pick_obstacle(obs, between, down), -1);

    // Grabbed at the box's top face and moved 0.2 up in y: the box (slot 3) follows, the sphere stays.
    const fs::Grip g = fs::grip_obstacle(obs, over_box, down);
    ASSERT_EQ(g.body, 1);
    const double to[3] = {g.grab[0], g.grab[1] + 0.2, g.grab[2]};
    s.set_hand(fs::drag_hand(g, to));
    for (int k = 0; k < 20; ++k) s.step();
    EXPECT_LT(glm::length(s.bodies()[2].position - dvec3(0.4, 0.2, 0.0)), 1e-12);
    EXPECT_EQ(s.bodies()[1].position, dvec3(-0.3, 0.0, 0.0));
    const fs::Obstacle box = s.obstacles()[1];
    EXPECT_EQ(dvec3(box.anchor[0], box.anchor[1], box.anchor[2]), s.bodies()[2].position);
}

}  // namespace
