// The implicit viscosity of DFSPH and IISPH (Weiler, Koschier, Brand and Bender 2018,
// sph_viscosity.hpp): a Taylor-Green vortex's decay, the steady flow under a moving lid, the dt it
// frees, determinism across threads, CUDA parity.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "solvers/sph/sph_solver.hpp"
#include "sph_barrier_runs.hpp"

namespace {

using fs::sph::HostState;
using fs::sph::SphSolver;
using glm::dvec2;
using Settings = std::vector<std::pair<std::string, std::string>>;
constexpr double kPi = 3.14159265358979323846;

void set(SphSolver& s, const std::string& name, const std::string& value) { s.params().at(name).set_text(value); }

// A box L x height filled with still fluid, no gravity, DFSPH with implicit viscosity nu.
void filled_box(SphSolver& s, double L, double height, double nu, const Settings& more) {
    set(s, "domain_size", std::to_string(L) + "," + std::to_string(height));
    set(s, "fluid_box", "0,0," + std::to_string(L) + "," + std::to_string(height));
    set(s, "spacing", "0.01");
    set(s, "gravity", "0");
    set(s, "pressure_solver", "dfsph");
    set(s, "viscosity_solver", "implicit");
    set(s, "kinematic_viscosity", std::to_string(nu));
    for (const auto& [name, value] : more) set(s, name, value);
    s.reset();
}

// Taylor-Green vortex u = U sin(kx) cos(ky), v = -U cos(kx) sin(ky), k = 2 pi / 0.2 m, in a walled
// 0.6 m box (three wavelengths): its velocity decays as exp(-2 nu k^2 t) (the Navier-Stokes solution;
// the pressure balances the advection). The amplitude is the projection of the velocities on the
// mode over the central 0.2 m x 0.2 m window, which the walls' boundary layers (sqrt(nu t) < 3 cm
// here) do not reach. Returns measured / exact amplitude at time T.
double taylor_green(double nu, double T, const Settings& more = {}) {
    SphSolver s;
    const double L = 0.6, k = 2.0 * kPi / 0.2, U = 0.01;
    filled_box(s, L, L, nu, more);
    HostState h = s.state();
    auto mode = [&](dvec2 x) { return dvec2(std::sin(k * x.x) * std::cos(k * x.y), -std::cos(k * x.x) * std::sin(k * x.y)); };
    for (std::size_t i = 0; i < h.pos.size(); ++i)
        if (h.kind[i] == fs::sph::kFluid) h.vel[i] = U * mode(h.pos[i]);
    s.set_state(h);
    while (s.time() < T - 1e-12) s.step();
    const HostState e = s.state();
    double vm = 0.0, mm = 0.0;
    for (std::size_t i = 0; i < e.pos.size(); ++i) {
        const dvec2 x = e.pos[i];
        if (e.kind[i] != fs::sph::kFluid || std::abs(x.x - 0.5 * L) > 0.1 || std::abs(x.y - 0.5 * L) > 0.1) continue;
        const dvec2 m = mode(x);
        vm += glm::dot(e.vel[i], m);
        mm += glm::dot(m, m);
    }
    const double measured = vm / mm, exact = U * std::exp(-2.0 * nu * k * k * s.time());
    std::printf("Taylor-Green nu %g: t %.3f s, amplitude %.4g of U (exact %.4g), ratio %.4f\n", nu, s.time(),
                measured / U, exact / U, measured / exact);
    return measured / exact;
}

// Over one e-folding of the exact decay (2 nu k^2 T = 1, 25 steps: backward Euler's error a step,
// (lambda dt)^2 / 2, is 0.08%) the amplitude is 0.75-0.76 of the exact one at every nu: the operator
// on the rest lattice with h = 2 spacings (12 neighbours) is not the continuum's. Its lattice sums
// (computed for a plane wave) give 0.65 of -k^2 for a shear mode and 3.27 of -3 k^2 for a
// longitudinal one; the vortex decays about 1.3 times too fast. Asserted: within 30% of the exact
// amplitude (no viscosity at all would leave 2.7 times it; Monaghan's explicit term, which acts on
// approaching pairs only, measured 1.41), and the same ratio within 2% at every nu, which holds only
// if the decay rate is proportional to nu as the exact one is. Below nu = 0.002 the vortex's own
// pressure (-rho U^2 / 4 (cos 2kx + cos 2ky), negative in places) matters, which the solves' p >= 0
// cannot carry: at nu = 1e-4 the centre reversed (-2.1 of the exact amplitude after 0.5 s, and the
// same under the explicit term), so low viscosities are not judged here.
TEST(SphViscosity, TaylorGreenDecaysAsExpMinus2NuK2T) {
    const double k2 = std::pow(2.0 * kPi / 0.2, 2);
    std::vector<double> ratios;
    for (const double nu : {0.002, 0.01, 0.06}) {
        const double T = 1.0 / (2.0 * nu * k2);
        ratios.push_back(taylor_green(nu, T, {{"max_dt", std::to_string(T / 25.0)}}));
        EXPECT_NEAR(ratios.back(), 1.0, 0.3) << "nu " << nu;
    }
    for (const double r : ratios) EXPECT_NEAR(r / ratios[0], 1.0, 0.02);
}

// A wide, shallow cavity (0.8 m x 0.1 m) whose lid slides at U: the top wall's particles carry
// (U, 0) into the viscosity (Adami, Hu and Adams 2012, moving walls) while staying in place. Far
// from the end walls the flow returns under the lid with zero net flux, and the steady profile is
// the Couette-Poiseuille one u = U eta (3 eta - 2), eta = y / H (the lid's Couette flow plus the
// pressure-driven return; White, Viscous Fluid Flow, 3-2). Returns the RMS deviation from it over
// the central 0.2 m, over U, after `T` seconds (several H^2 / nu).
double lid_cavity_error(double nu, double T) {
    SphSolver s;
    const double L = 0.8, H = 0.1, U = 0.02;
    filled_box(s, L, H, nu, {{"max_dt", "0.005"}});
    HostState h = s.state();
    for (std::size_t i = 0; i < h.pos.size(); ++i)
        if (h.kind[i] != fs::sph::kFluid && h.pos[i].y > H) h.vel[i] = dvec2(U, 0.0);
    s.set_state(h);
    while (s.time() < T) s.step();
    const HostState e = s.state();
    double sq = 0.0;
    int n = 0;
    for (std::size_t i = 0; i < e.pos.size(); ++i) {
        if (e.kind[i] != fs::sph::kFluid || std::abs(e.pos[i].x - 0.5 * L) > 0.1) continue;
        const double eta = e.pos[i].y / H, exact = U * eta * (3.0 * eta - 2.0);
        sq += (e.vel[i].x - exact) * (e.vel[i].x - exact);
        ++n;
    }
    const double rms = std::sqrt(sq / n) / U;
    std::printf("lid cavity nu %g: t %.2f s, RMS deviation from U eta (3 eta - 2) %.3g U\n", nu, s.time(), rms);
    return rms;
}

// Measured 11.7% of U at nu = 0.06 and 8.9% at nu = 0.02 (a still fluid: 0.37 U). Bound 15%: the
// return flow needs a pressure falling along the channel (6 rho nu U L / H^2 over its length, 580
// Pa at nu = 0.06) about a zero mean, and the solves' p >= 0 holds only the upper half of it; the
// profile's return is the weaker, more so at higher nu. A channel with a periodic length would
// need none, and the solver has none.
TEST(SphViscosity, LidDrivenChannelApproachesTheCouettePoiseuilleProfile) {
    EXPECT_LT(lid_cavity_error(0.06, 0.8), 0.15);
    EXPECT_LT(lid_cavity_error(0.02, 2.0), 0.15);
}

// The dt the implicit solve frees: at nu = 0.01 the explicit term binds dt at 0.125 (h/2)^2 / nu =
// 1.25 ms in still water; the implicit one leaves max_dt.
TEST(SphViscosity, ImplicitViscosityNoLongerBindsDt) {
    for (const char* v : {"explicit", "implicit"}) {
        SphSolver s;
        filled_box(s, 0.3, 0.3, 0.01, {{"viscosity_solver", v}, {"max_dt", "0.005"}, {"gravity", "9.81"}});
        for (int k = 0; k < 5; ++k) s.step();
        const double dt = s.settings().time_step;
        if (std::string(v) == "explicit")
            EXPECT_NEAR(dt, 0.125 * 0.01 * 0.01 / 0.01, 1e-12);
        else
            EXPECT_EQ(dt, 0.005);
    }
}

TEST(SphViscosity, OneAndTwoThreadsGiveIdenticalStates) {
    const auto [a, b] = sph_runs::one_and_two_threads(
        {{"pressure_solver", "dfsph"}, {"viscosity_solver", "implicit"}, {"kinematic_viscosity", "0.01"}}, 60);
    EXPECT_EQ(a.pos, b.pos);
    EXPECT_EQ(a.vel, b.vel);
    EXPECT_EQ(a.pressure, b.pressure);
}

TEST(SphViscosity, CudaAgreesWithTheCpu) {
    if (!fs::cuda_status().usable)
        GTEST_SKIP() << "no usable CUDA GPU (" << fs::cuda_status().reason << "); implicit viscosity's CUDA parity not checked";
    for (const char* solver : {"dfsph", "iisph"})
        sph_runs::expect_cuda_parity(
            {{"pressure_solver", solver}, {"viscosity_solver", "implicit"}, {"kinematic_viscosity", "0.01"}});
}

}  // namespace
