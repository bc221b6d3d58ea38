// The CPU's P2G by scatter (Pipeline::p2g_scatter, blocks of cells in four colours) against the
// gather the GPU runs (p2g_axis, each face summing its particles): the same terms, summed in
// another order, so the faces agree to rounding on every kernel and scheme, on grids whose
// sides are not multiples of the block, with particles against every wall and crowded in corners.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/backend.hpp"
#include "core/exec_cpu.hpp"
#include "solvers/flip/flip_pipeline.hpp"

namespace {

using fs::flip::Config;
using fs::flip::HostState;
using fs::flip::Pipeline;
using glm::dvec3;

// A grid whose sides differ and are not multiples of the scatter's blocks of 4 cells.
fs::flip::MacGrid odd_grid() {
    fs::flip::MacGrid g;
    g.nx = 13, g.ny = 18, g.nz = 22;
    g.dx = 0.05;
    g.origin = dvec3(-0.2, 0.1, 0.3);
    return g;
}

HostState particles(const fs::flip::MacGrid& g, int n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0), sym(-1.0, 1.0);
    const dvec3 size = g.dx * dvec3(g.nx, g.ny, g.nz);
    HostState h;
    for (int i = 0; i < n; ++i) {
        dvec3 x(unit(rng), unit(rng), unit(rng));
        if (i % 5 == 0) x = x * x * x;  // crowded towards the low corner
        if (i % 7 == 0) x[i % 3] = (i / 7) % 2 ? 0.0 : 1.0 - 1e-9;  // on a wall
        h.pos.push_back(g.origin + x * size);
        h.vel.push_back(dvec3(sym(rng), sym(rng), sym(rng)) * 3.0);
        h.id.push_back(i);
        for (auto& c : h.affine) c.push_back(dvec3(sym(rng), sym(rng), sym(rng)) * 20.0);
    }
    return h;
}

TEST(FlipTransfer, TheCpusScatterIsTheGatherToRounding) {
    const int before = fs::cpu_threads();
    fs::set_cpu_threads(2);  // two threads run each colour's blocks at once
    const fs::flip::MacGrid g = odd_grid();  // 5 x 6 blocks of 4 cells in (y, z), the last ones partial
    const HostState h = particles(g, 8 * g.cells() / 3, 11);
    for (int weights : {fs::flip::kLinear, fs::flip::kQuadratic})
        for (int scheme : {fs::flip::kPicFlip, fs::flip::kApic}) {
            Config c;
            c.grid = g;
            c.weights = weights;
            c.scheme = scheme;
            Pipeline<fs::CpuExec> scatter, gather;
            EXPECT_TRUE(scatter.scatter());  // the CPU's default
            gather.set_scatter(false);
            HostState hs = h;
            if (scheme == fs::flip::kPicFlip)
                for (auto& a : hs.affine) a.clear();
            for (Pipeline<fs::CpuExec>* p : {&scatter, &gather}) {
                p->upload(hs);
                p->run_stage(fs::flip::kP2G, c, fs::flip::PressureSettings{});
                p->run_stage(fs::flip::kOccupancy, c, fs::flip::PressureSettings{});
            }
            // Each cell's particles: counted by the scatter, from the half cells' starts after the
            // gather, and one by one here.
            std::vector<int> counted(static_cast<std::size_t>(g.cells()), 0);
            for (const dvec3& x : hs.pos) ++counted[static_cast<std::size_t>(fs::flip::cell_index(g, x))];
            ASSERT_EQ(scatter.cell_counts(), counted);
            ASSERT_EQ(gather.cell_counts(), counted);
            for (int a = 0; a < 3; ++a) {
                const std::vector<double> fs_ = scatter.faces(a), fg = gather.faces(a);
                ASSERT_EQ(fs_.size(), fg.size());
                int reached = 0;
                for (std::size_t f = 0; f < fg.size(); ++f) {
                    // A weighted average of velocities up to |v| + |c| |d| (about 4 m/s): a few
                    // dozen terms rounded in another order differ by a few 1e-16 of that.
                    ASSERT_NEAR(fs_[f], fg[f], 1e-13) << "weights " << weights << " scheme " << scheme << " axis " << a
                                                      << " face " << f;
                    ASSERT_EQ(fs_[f] == 0.0, fg[f] == 0.0) << "face " << f;
                    reached += fg[f] != 0.0;
                }
                EXPECT_GT(reached, static_cast<int>(fg.size()) / 2);  // the test reaches most faces
            }
        }
    fs::set_cpu_threads(before);
}

TEST(FlipTransfer, TheEightLaneG2PIsTheScalarToTheBit) {
    // G2P eight particles at a time (flip_simd.hpp, AVX-512F hosts) against the scalar body, over
    // whole steps of a flow with the volume correction's shift, a box and a sphere to be kept out
    // of, particles on every wall and crowded in a corner, on a grid whose sides differ: the
    // positions and velocities agree bit for bit, on 1 and 2 threads.
    Pipeline<fs::CpuExec> probe;
    probe.set_lanes(true);
    if (!probe.use_lanes<fs::flip::kLinear>()) GTEST_SKIP() << "this host has no AVX-512F: G2P runs the scalar body only";
    const int before = fs::cpu_threads();
    const fs::flip::MacGrid g = odd_grid();
    HostState h = particles(g, 8 * g.cells() / 3, 17);
    for (auto& a : h.affine) a.clear();
    Config c;
    c.grid = g;
    c.dt = 4e-3;
    c.volume_correction = 0.5;
    c.box_lo = g.origin + dvec3(0.2, 0.2, 0.3);
    c.box_hi = g.origin + dvec3(0.35, 0.5, 0.6);
    c.box_velocity = dvec3(0.3, 0.0, -0.2);
    c.sphere_center = g.origin + dvec3(0.45, 0.6, 0.8);
    c.sphere_radius = 0.12;
    for (int threads : {1, 2}) {
        fs::set_cpu_threads(threads);
        Pipeline<fs::CpuExec> lanes, scalar;
        lanes.set_lanes(true);
        scalar.set_lanes(false);
        for (Pipeline<fs::CpuExec>* p : {&lanes, &scalar}) {
            p->upload(h);
            for (int step = 0; step < 4; ++step)
                for (int stage = fs::flip::kP2G; stage < fs::flip::kStageCount; ++stage)
                    p->run_stage(stage, c, fs::flip::PressureSettings{});
        }
        HostState a, b;
        lanes.download(a);
        scalar.download(b);
        ASSERT_EQ(a.pos.size(), b.pos.size());
        int moved = 0;
        for (std::size_t i = 0; i < a.pos.size(); ++i) {
            for (int k = 0; k < 3; ++k) {
                ASSERT_EQ(a.pos[i][k], b.pos[i][k]) << "particle " << i << " on " << threads << " threads";
                ASSERT_EQ(a.vel[i][k], b.vel[i][k]) << "particle " << i << " on " << threads << " threads";
            }
            moved += a.pos[i] != h.pos[static_cast<std::size_t>(a.id[i])] ? 1 : 0;
        }
        EXPECT_GT(moved, static_cast<int>(a.pos.size()) * 9 / 10) << "the flow should move nearly every particle";
    }
    fs::set_cpu_threads(before);
}

TEST(FaceCoords, AreTheFacesCoordinatesWithoutDividing) {
    // The face loops' coordinates by multiply and shift (FaceCoords) against Faces::coords, for
    // every face of every component of grids with odd, even and unequal sides.
    for (const glm::ivec3 n : {glm::ivec3(13, 18, 22), glm::ivec3(64, 64, 64), glm::ivec3(1, 7, 3), glm::ivec3(129, 5, 33)}) {
        fs::flip::MacGrid g;
        g.nx = n.x, g.ny = n.y, g.nz = n.z;
        for (int a = 0; a < 3; ++a) {
            const fs::flip::Faces faces = fs::flip::Faces::of(g, a);
            const fs::flip::FaceCoords coords(faces);
            for (int f = 0; f < faces.count(); ++f) ASSERT_EQ(coords(f), faces.coords(f)) << "face " << f << " axis " << a;
        }
    }
}

}  // namespace

TEST(FlipSums, TheAdvectStagesSumsAreThoseOfTheParticlesAsTheyAre) {
    // The step's sums (energy, momentum, top speed, non-finite count) are taken in the advect
    // stage as it moves the particles. They must be what a pass over the particles gives after
    // the stage, bit for bit, on both advection paths, and must not outlive a change of particles.
    const fs::flip::MacGrid g = odd_grid();
    HostState h = particles(g, 8 * g.cells() / 3, 23);
    for (auto& a : h.affine) a.clear();
    for (int advection : {fs::flip::kForwardEuler, fs::flip::kRk3}) {
        Config c;
        c.grid = g;
        c.dt = 4e-3;
        c.advection = advection;
        c.sphere_center = g.origin + dvec3(0.45, 0.6, 0.8);  // keeps some particles out: their v changes
        c.sphere_radius = 0.12;
        Pipeline<fs::CpuExec> p, fresh;
        p.upload(h);
        for (int step = 0; step < 2; ++step)
            for (int stage = fs::flip::kP2G; stage < fs::flip::kStageCount; ++stage)
                p.run_stage(stage, c, fs::flip::PressureSettings{});
        const fs::flip::Sums taken = p.sums();
        HostState now;
        p.download(now);
        fresh.upload(now);
        const fs::flip::Sums counted = fresh.sums();
        EXPECT_EQ(taken.kinetic_energy, counted.kinetic_energy) << advection;
        EXPECT_EQ(taken.momentum, counted.momentum) << advection;
        EXPECT_EQ(taken.max_speed2, counted.max_speed2) << advection;
        EXPECT_EQ(taken.nonfinite, counted.nonfinite) << advection;
        EXPECT_NE(taken.kinetic_energy, 0.5 * 0.0) << "the particles move";
        // New particles count at once.
        p.append({g.origin + dvec3(0.3)}, {dvec3(40.0, 0.0, 0.0)});
        EXPECT_EQ(p.sums().max_speed2, 1600.0);
        EXPECT_NEAR(p.sums().kinetic_energy, counted.kinetic_energy + 800.0, 1e-9 * counted.kinetic_energy + 1e-9);
    }
}

TEST(FaceLoops, TheRowsGiveEveryFaceOnceWithItsOwnCells) {
    // The CPU's face loops go by rows (for_each_face): each face must come once, with its own
    // coordinates and the two cells face_cells() gives it one face at a time (types kSolid
    // outside the grid), on grids with odd, unequal sides and cells of every type.
    for (const glm::ivec3 n : {glm::ivec3(13, 18, 22), glm::ivec3(1, 7, 3), glm::ivec3(64, 5, 33)}) {
        fs::flip::MacGrid g;
        g.nx = n.x, g.ny = n.y, g.nz = n.z;
        std::vector<unsigned char> types(static_cast<std::size_t>(g.cells()));
        std::mt19937 rng(5);
        for (auto& t : types) t = static_cast<unsigned char>(rng() % 3);  // fluid, air, solid
        const fs::View<const unsigned char> type{types.data(), static_cast<int>(types.size())};
        fs::CpuExec exec;
        for (int a = 0; a < 3; ++a) {
            const fs::flip::Faces faces = fs::flip::Faces::of(g, a);
            std::vector<int> seen(static_cast<std::size_t>(faces.count()), 0), wrong(static_cast<std::size_t>(faces.count()), 0);
            fs::flip::for_each_face(exec, g, faces, type, [&](int f, glm::ivec3 at, const fs::flip::FaceCells& c) {
                const fs::flip::FaceCells want = fs::flip::face_cells(g, faces, type, faces.coords(f));
                ++seen[static_cast<std::size_t>(f)];
                const bool fluid_lo = c.lo == fs::flip::kFluid, fluid_hi = c.hi == fs::flip::kFluid;
                wrong[static_cast<std::size_t>(f)] =
                    at != faces.coords(f) || c.lo != want.lo || c.hi != want.hi ||
                    (fluid_hi && c.cell_hi != want.cell_hi) || (fluid_lo && c.cell_hi - c.stride != want.cell_hi - want.stride);
            });
            for (int f = 0; f < faces.count(); ++f) {
                ASSERT_EQ(seen[static_cast<std::size_t>(f)], 1) << "axis " << a << " face " << f;
                ASSERT_EQ(wrong[static_cast<std::size_t>(f)], 0) << "axis " << a << " face " << f;
            }
        }
    }
}
