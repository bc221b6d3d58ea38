// FLIP's wall friction (wall_friction, flip_friction.hpp): the Darcy-Weisbach law on the faces
// beside a wall, and what it does to the dam break's surge front.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "solvers/flip/flip_friction.hpp"
#include "solvers/flip/flip_solver.hpp"

namespace {

using fs::flip::Config;
using fs::flip::Faces;
using glm::ivec3;

// One x face of an all-fluid 4x4x4 grid after one step of friction f, from u.
double after_friction(ivec3 at, double u, double f) {
    Config c;
    c.grid.nx = c.grid.ny = c.grid.nz = 4;
    c.grid.dx = 0.05;
    c.dt = 0.01;
    c.wall_friction = f;
    std::vector<unsigned char> types(static_cast<std::size_t>(c.grid.cells()), fs::flip::kFluid);
    const fs::View<const unsigned char> type{types.data(), static_cast<int>(types.size())};
    const Faces faces = Faces::of(c.grid, 0);
    return fs::flip::wall_friction_face(c, type, faces, fs::flip::face_cells(c.grid, faces, type, at), at, u);
}

TEST(FlipWallFriction, TheFaceBesideTheFloorSlowsByTheDarcyLawAndNeverReverses) {
    const double f = 0.04, rate = 0.01 * f / (8 * 0.05);  // dt f / (8 dx)
    // Above the floor, away from the side walls: one wall, u / (1 + dt f |u| / (8 dx)).
    EXPECT_DOUBLE_EQ(after_friction(ivec3(2, 0, 1), 2.0, f), 2.0 / (1 + rate * 2.0));
    EXPECT_DOUBLE_EQ(after_friction(ivec3(2, 0, 1), -2.0, f), -2.0 / (1 + rate * 2.0));
    // In the bulk the faces are left alone, and so is every face with no friction.
    EXPECT_EQ(after_friction(ivec3(2, 1, 1), 2.0, f), 2.0);
    EXPECT_EQ(after_friction(ivec3(2, 0, 1), 2.0, 0.0), 2.0);
    // In the corner of floor and side wall: both walls, one after the other.
    const double once = 2.0 / (1 + rate * 2.0);
    EXPECT_DOUBLE_EQ(after_friction(ivec3(2, 0, 0), 2.0, f), once / (1 + rate * once));
    // The no-slip limit: a huge f takes the liquid to the wall's velocity, never past it.
    const double stuck = after_friction(ivec3(2, 0, 1), 2.0, 1e12);
    EXPECT_GE(stuck, 0.0);
    EXPECT_LT(stuck, 1e-9);
}

// The dam break's 2:1 column (a = 0.2 m; resolution 20: 4 cells across): Z = x/a of the front
// (the largest x of a particle within a cell of the floor) at T = t sqrt(2g/a) = 2.
double front_at_T2(double friction) {
    fs::flip::FlipSolver s;
    auto set = [&](const std::string& name, const std::string& value) { s.params().at(name).set_text(value); };
    set("domain_size", "1,0.6,0.4");
    set("resolution", "20");
    set("fluid_box", "0,0,0,0.2,0.4,0.4");
    set("pressure_solver", "mgpcg");
    set("volume_correction", "0.5");
    set("wall_friction", std::to_string(friction));
    s.reset();
    const double a = 0.2, t_end = 2.0 / std::sqrt(2 * 9.81 / a);
    while (s.time() < t_end) s.step();
    double front = 0;
    const auto& st = s.state();
    for (std::size_t i = 0; i < st.pos.size(); ++i)
        if (st.pos[i].y < 0.05) front = std::max(front, st.pos[i].x);
    return front / a;
}

TEST(FlipWallFriction, ARoughFloorHoldsTheSurgeFrontBack) {
    // Measured at resolution 20 (docs/validation.md has 40 and 80): Z(T = 2) falls with f, by
    // more than 5% at f = 1 (a rough floor; a smooth one's f = 0.02 changes it by a few tenths
    // of a percent).
    const double free_slip = front_at_T2(0.0), rough = front_at_T2(1.0);
    std::printf("FLIP dam break, Z at T = 2: free-slip %.3f, f = 1 %.3f\n", free_slip, rough);
    EXPECT_LT(rough, 0.95 * free_slip);
}

}  // namespace
