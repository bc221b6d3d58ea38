// The PIC/FLIP solver (seed 001): transfers, the divergence operator, the tank at rest,
// determinism, CUDA parity.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "core/backend.hpp"
#include "solvers/flip/flip_solver.hpp"

namespace {

using fs::flip::FlipSolver;
using fs::flip::HostState;
using glm::dvec3;

void set(FlipSolver& s, const std::string& name, const std::string& value) {
    s.params().at(name).set_text(value);
}

// Particles on a regular lattice (no jitter) filling `box` of the unit cube, no gravity, and a
// time step so small that advection leaves them where they are.
void lattice(FlipSolver& s, int resolution, const std::string& box = "0,0,0,1,1,1") {
    set(s, "domain_size", "1,1,1");
    set(s, "resolution", std::to_string(resolution));
    set(s, "fluid_box", box);
    set(s, "jitter", "0");
    set(s, "gravity", "0");
    set(s, "max_dt", "1e-6");
    s.reset();
}

TEST(FlipTransfer, P2GThenG2PReproducesAUniformField) {
    for (const char* weights : {"linear", "quadratic"}) {
        FlipSolver s;
        set(s, "transfer", weights);
        set(s, "flip_ratio", "0");  // pure PIC: the particles get what the grid says
        // A blob in the middle, air around it: a uniform flow is divergence-free, so the
        // projection leaves it alone and the step is P2G followed by G2P.
        lattice(s, 12, "0.25,0.25,0.25,0.75,0.75,0.75");
        HostState h = s.state();
        for (auto& v : h.vel) v = dvec3(0.3, -0.2, 0.7);
        s.set_state(h);
        s.step();
        EXPECT_LT(s.stats().get("div_max_before"), 1e-9) << weights;
        for (const dvec3& v : s.state().vel) {
            EXPECT_NEAR(v.x, 0.3, 1e-12) << weights;
            EXPECT_NEAR(v.y, -0.2, 1e-12) << weights;
            EXPECT_NEAR(v.z, 0.7, 1e-12) << weights;
        }
    }
}

TEST(FlipTransfer, P2GThenG2PApproximatesALinearField) {
    // v = (y, 0, 0): a shear, divergence-free. Not exact for PIC (APIC would be); within a few
    // percent of the velocity range away from the walls.
    FlipSolver s;
    set(s, "flip_ratio", "0");
    lattice(s, 16, "0.1,0.1,0.1,0.9,0.9,0.9");
    HostState h = s.state();
    for (std::size_t i = 0; i < h.pos.size(); ++i) h.vel[i] = dvec3(h.pos[i].y, 0, 0);
    s.set_state(h);
    s.step();
    const HostState out = s.state();
    double worst = 0.0;
    for (std::size_t i = 0; i < out.pos.size(); ++i) {
        const dvec3 x = out.pos[i];
        if (x.x < 0.15 || x.x > 0.85 || x.y < 0.15 || x.y > 0.85 || x.z < 0.15 || x.z > 0.85) continue;
        worst = std::max(worst, std::abs(out.vel[i].x - h.vel[i].x));
        EXPECT_NEAR(out.vel[i].y, 0.0, 1e-6);  // the projection's residual (MGPCG at 1e-6)
    }
    EXPECT_LT(worst, 0.02);
}

TEST(FlipOperators, DivergenceOfAKnownField) {
    // v = (x, 2y, -z) has divergence 2 everywhere; on a regular lattice the linear P2G puts
    // exactly the field's value on every interior face, so interior cells read div = 2.
    FlipSolver s;
    lattice(s, 8);
    HostState h = s.state();
    for (std::size_t i = 0; i < h.pos.size(); ++i) h.vel[i] = dvec3(h.pos[i].x, 2 * h.pos[i].y, -h.pos[i].z);
    s.set_state(h);
    for (int k = 0; k < 2; ++k) s.advance_stage();  // advect, p2g
    const auto u = s.engine().faces(0);
    const auto v = s.engine().faces(1);
    const auto w = s.engine().faces(2);
    const auto g = s.grid();
    for (int k = 2; k < g.nz - 2; ++k)
        for (int j = 2; j < g.ny - 2; ++j)
            for (int i = 2; i < g.nx - 2; ++i) {
                const double div = (u[g.u_face(i + 1, j, k)] - u[g.u_face(i, j, k)] + v[g.v_face(i, j + 1, k)] -
                                    v[g.v_face(i, j, k)] + w[g.w_face(i, j, k + 1)] - w[g.w_face(i, j, k)]) /
                                   g.dx;
                // Advection by dt = 1e-6 s first stretches the lattice by dt v: O(1e-6) off.
                EXPECT_NEAR(div, 2.0, 1e-5) << i << "," << j << "," << k;
            }
}

TEST(FlipHydrostatic, TankStaysAtRestWithAFlatSurface) {
    FlipSolver s;
    set(s, "domain_size", "0.5,0.5,0.5");
    set(s, "resolution", "16");
    set(s, "fluid_box", "0,0,0,0.5,0.25,0.5");
    s.reset();
    while (s.time() < 1.0) s.step();
    const HostState h = s.state();
    double max_speed = 0.0, top_lo = 1e9, top_hi = -1e9;
    // The surface: the highest particle of each column of cells, away from the walls.
    const auto g = s.grid();
    std::vector<double> top(static_cast<std::size_t>(g.nx * g.nz), -1e9);
    for (std::size_t i = 0; i < h.pos.size(); ++i) {
        max_speed = std::max(max_speed, glm::length(h.vel[i]));
        const int ci = std::min(g.nx - 1, static_cast<int>(h.pos[i].x / g.dx));
        const int ck = std::min(g.nz - 1, static_cast<int>(h.pos[i].z / g.dx));
        auto& t = top[static_cast<std::size_t>(ci + g.nx * ck)];
        t = std::max(t, h.pos[i].y);
    }
    for (int k = 1; k < g.nz - 1; ++k)
        for (int i = 1; i < g.nx - 1; ++i) {
            top_lo = std::min(top_lo, top[static_cast<std::size_t>(i + g.nx * k)]);
            top_hi = std::max(top_hi, top[static_cast<std::size_t>(i + g.nx * k)]);
        }
    std::printf("tank after 1 s: max speed %.3g m/s, surface height spread %.3g m (dx %.3g m)\n", max_speed,
                top_hi - top_lo, g.dx);
    EXPECT_LT(max_speed, 0.1);
    EXPECT_LT(top_hi - top_lo, g.dx);
}

// The particle-counted volume's change over 2 s of a dam break (final, and largest on the way).
std::pair<double, double> volume_change(double correction) {
    FlipSolver s;
    set(s, "domain_size", "1,0.6,0.4");
    set(s, "resolution", "24");
    set(s, "fluid_box", "0,0,0,0.35,0.45,0.4");
    set(s, "volume_correction", std::to_string(correction));
    s.reset();
    s.step();
    const double v0 = s.stats().get("fluid_volume");
    double worst = 0.0, last = 0.0;
    while (s.time() < 2.0) {
        s.step();
        last = (s.stats().get("fluid_volume") - v0) / v0;
        worst = std::max(worst, std::abs(last));
    }
    return {last, worst};
}

TEST(FlipVolume, CorrectionKeepsTheDamBreaksVolume) {
    // Without correction FLIP particles clump and the counted volume falls (seed 001 as it is);
    // the correction brings it back. Printed: the figures for the closing note.
    const auto [off_last, off_worst] = volume_change(0.0);
    const auto [on_last, on_worst] = volume_change(0.5);
    std::printf("dam break 2 s, volume change: correction off %.2f%% (largest %.2f%%), 0.5: %.2f%% (largest %.2f%%)\n",
                100 * off_last, 100 * off_worst, 100 * on_last, 100 * on_worst);
    EXPECT_LT(std::abs(on_last), 0.02);
    EXPECT_LT(std::abs(on_last) * 5, std::abs(off_last));
}

TEST(FlipDeterminism, OneAndTwoThreadsGiveIdenticalStates) {
    const int before = fs::cpu_threads();
    HostState result[2];
    for (int t = 1; t <= 2; ++t) {
        fs::set_cpu_threads(t);
        FlipSolver s;
        set(s, "resolution", "16");
        s.reset();
        for (int k = 0; k < 10; ++k) s.step();
        result[t - 1] = s.state();
    }
    fs::set_cpu_threads(before);
    EXPECT_EQ(result[0].pos, result[1].pos);
    EXPECT_EQ(result[0].vel, result[1].vel);
}

TEST(FlipCuda, OneStepAgreesWithTheCpu) {
    if (!fs::cuda_status().usable)
        GTEST_SKIP() << "no usable CUDA GPU (" << fs::cuda_status().reason << "); CUDA parity not checked";
    FlipSolver cpu(fs::Backend::Cpu), gpu(fs::Backend::Cuda);
    for (FlipSolver* s : {&cpu, &gpu}) {
        set(*s, "resolution", "32");
        s->reset();
        s->step();
    }
    const HostState a = cpu.state(), b = gpu.state();
    ASSERT_EQ(a.pos.size(), b.pos.size());
    for (std::size_t i = 0; i < a.pos.size(); ++i) {
        ASSERT_NEAR(a.vel[i].x, b.vel[i].x, 1e-6) << i;
        ASSERT_NEAR(a.vel[i].y, b.vel[i].y, 1e-6) << i;
        ASSERT_NEAR(a.vel[i].z, b.vel[i].z, 1e-6) << i;
    }
}

}  // namespace
