// Per-particle bodies of the WCSPH solver (the 2D WCSPH assignment, after Koschier et
// al., "Smoothed Particle Hydrodynamics Techniques for the Physics Based Simulation of Fluids
// and Solids", Eurographics 2019 tutorial), shared by the CPU and CUDA pipelines.
#pragma once

#include <cmath>

#include <glm/glm.hpp>

#include "core/hd.hpp"
#include "solvers/common/hands.hpp"
#include "solvers/common/grid2d.hpp"
#include "solvers/common/motion_sums.hpp"

namespace fs::sph {

using glm::dvec2;

// What a particle is. Boundary particles (walls and the barrier) are fixed or moved
// kinematically; they take part in density and forces but are never integrated.
enum Kind : int { kFluid = 0, kWall = 1, kBarrier = 2 };

// How boundary particles enter density and pressure forces.
enum BoundaryModel : int {
    kAssignment = 0,        // the WCSPH assignment, 2.4: density rho0, pressure 0
    kPressureMirroring = 1  // Adami, Hu and Adams 2012: pressure extrapolated from the fluid
};

// The 2D cubic spline of the WCSPH assignment, 2.1, with support radius h (q = r/h):
//   W(r, h) = 40/(7 pi h^2) * { 6(q^3 - q^2) + 1   for 0 <= q < 1/2
//                               2(1 - q)^3          for 1/2 <= q < 1
//                               0                   otherwise }
// The normalisation and 1/h are computed once (the pair loops ran two divisions a call for
// them, which bounded the force stage).
template <class T>
struct CubicSpline {
    T h;
    T inv_h = T(1) / h;
    T s = T(40) / (T(7) * T(3.14159265358979323846) * h * h);  // sigma
    T s_h = s * inv_h;                                          // sigma / h
    T s_h2 = s_h * inv_h;                                       // sigma / h^2

    FS_HDI T sigma() const { return s; }
    FS_HDI T W(T r) const {
        const T q = r * inv_h;
        if (q < T(0.5)) return s * (T(6) * (q * q * q - q * q) + T(1));
        if (q < T(1)) {
            const T a = T(1) - q;
            return s * T(2) * a * a * a;
        }
        return T(0);
    }
    // W for r <= h, with no branch: both pieces evaluated and one chosen (the density stage's
    // loop, where the pieces' branch is taken at random).
    FS_HDI T W_within(T r) const {
        const T q = r * inv_h;
        const T a = T(1) - q;
        const T inner = T(6) * (q * q * q - q * q) + T(1);
        const T outer = T(2) * a * a * a;
        return s * (q < T(0.5) ? inner : outer);
    }
    // dW/dr.
    FS_HDI T dW(T r) const {
        const T q = r * inv_h;
        if (q < T(0.5)) return s_h * (T(18) * q * q - T(12) * q);
        if (q < T(1)) {
            const T a = T(1) - q;
            return -s_h * T(6) * a * a;
        }
        return T(0);
    }
    // grad_i W(|x_i - x_j|, h) for x_ij = x_i - x_j: dW/dr * x_ij / r (zero at r = 0). On the
    // inner piece (dW/dr) / r = sigma/h^2 (18 q - 12), since q / r = 1/h: no division there.
    FS_HDI glm::vec<2, T> grad(glm::vec<2, T> xij) const { return grad(xij, std::sqrt(xij.x * xij.x + xij.y * xij.y)); }
    // The same with r = |x_ij| already known.
    FS_HDI glm::vec<2, T> grad(glm::vec<2, T> xij, T r) const {
        if (!(r > T(0))) return {T(0), T(0)};
        const T q = r * inv_h;
        T f = T(0);
        if (q < T(0.5)) {
            f = s_h2 * (T(18) * q - T(12));
        } else if (q < T(1)) {
            const T a = T(1) - q;
            f = -s_h * T(6) * a * a / r;
        }
        return f * xij;
    }
};

// Tait equation (the WCSPH assignment, 2.2): p = B((rho/rho0)^gamma - 1), with B = rho0 c_s^2 / gamma so that
// the speed of sound c_s (dp/drho at rest) is the one number a user sets.
// x^gamma by squaring where gamma is a whole number from 1 to 16 (the usual 7: four products,
// a few ulp from pow, which cost the pressure stage most of its time), pow otherwise.
FS_HDI double tait_power(double x, double gamma) {
    const int e = static_cast<int>(gamma);
    if (static_cast<double>(e) != gamma || e < 1 || e > 16) return std::pow(x, gamma);
    double result = 1.0, base = x;
    for (int k = e; k > 0; k >>= 1) {
        if (k & 1) result *= base;
        base *= base;
    }
    return result;
}
FS_HDI double tait_pressure(double rho, double rho0, double B, double gamma) {
    return B * FS_PARITY_DEMO_FACTOR * (tait_power(rho / rho0, gamma) - 1.0);
}
// Its inverse, for boundary particles that take a mirrored pressure.
FS_HDI double tait_density(double p, double rho0, double B, double gamma) {
    return rho0 * std::pow(p / B + 1.0, 1.0 / gamma);
}

// How the pressure is found (the `pressure_solver` parameter).
enum PressureSolver : int {
    kWcsph = 0,  // the WCSPH assignment: the Tait equation of state, explicit (weakly compressible)
    kDfsph = 1,  // divergence-free SPH (Bender & Koschier 2015, 2017): two implicit solves a step
    kIisph = 2   // implicit incompressible SPH (Ihmsen et al. 2014): DFSPH's density solve alone
};
// Whether the pressure comes from the implicit solves (DFSPH, IISPH) rather than the Tait equation.
FS_HDI bool implicit_pressure(int solver) { return solver != kWcsph; }
// How DFSPH and IISPH apply the viscosity (the `viscosity_solver` parameter): Monaghan's term,
// explicit (viscous_acceleration below), or Weiler et al. 2018's implicit solve (sph_viscosity.hpp).
enum ViscositySolver : int { kExplicitViscosity = 0, kImplicitViscosity = 1 };

// Everything a stage needs, as plain values.
struct Config {
    double dt = 1e-4;
    int solver = kWcsph;
    int viscosity_solver = kExplicitViscosity;  // DFSPH and IISPH only
    double h = 0.02;           // kernel support radius (m)
    double spacing = 0.01;     // particle spacing at rest (m)
    double mass = 0.1;         // particle mass (kg): rho0 * spacing^2 (2D, per unit depth)
    double rho0 = 1000.0;
    double B = 1e5;            // Tait stiffness (Pa)
    double gamma = 7.0;
    double c_s = 30.0;         // speed of sound (m/s)
    double alpha = 0.8;        // Monaghan viscosity
    double epsilon = 0.01;
    dvec2 gravity{0.0, -9.81};
    bool clamp_density = true;
    int boundary_model = kPressureMirroring;
    double boundary_viscosity = 1.0;  // the walls' viscosity over the fluid's (sph_boundary_friction.hpp)
    dvec2 barrier_center{0.5, 0.5};
    double barrier_angle = 0.0;  // radians
    dvec2 barrier_velocity{0.0, 0.0};  // while a hand drags it (core/hands.hpp)
    HandForce<dvec2> hand;             // push and pull
    grid::Grid2 grid;
    // DFSPH: the density solve stops when the mean density error left is below density_tolerance
    // rho0, the divergence solve when the mean rate of density change times dt is below
    // divergence_tolerance rho0 (Bender & Koschier 2017, eta and eta^v), or after max_iterations.
    double density_tolerance = 1e-3;
    double divergence_tolerance = 1e-3;
    int max_iterations = 100;
    double relaxation = 0.5;  // omega of the Jacobi updates (jacobi_update)
    double warm_start = 0.25;  // the fraction of the last step's pressures a solve starts from (see below)
    double lattice_denominator = 1.0;  // dfsph_density's alpha denominator inside the rest lattice
};

// The kinematic viscosity the viscosity term below amounts to, nu = alpha h c_s / 8 (Monaghan
// 2005, d = 2; h the support radius, as Pi_ij carries it).
FS_HDI double kinematic_viscosity(double alpha, double h, double c_s) { return alpha * h * c_s / 8.0; }

// The force terms between particle i and a neighbour j, per unit mass of i, for x_ij = x_i - x_j
// and v_ij = v_i - v_j (the WCSPH assignment, 2.3 and 2.5):
//   pressure:  -m (p_i/rho_i^2 + p_j/rho_j^2) grad_i W_ij
//   viscosity: -m Pi_ij grad_i W_ij, with Pi_ij = -(2 alpha h c_s / (rho_i + rho_j))
//              (v_ij . x_ij) / (|x_ij|^2 + epsilon h^2), only when v_ij . x_ij < 0.
// The document writes epsilon h in the denominator; |x_ij|^2 is a squared length, so we use
// epsilon h^2 (Monaghan 1992, as in Koschier et al.). p/rho^2 comes per particle (P_i, P_j:
// `pressure_over_rho2`, once a step) and Pi_ij's two quotients are one. Every factor is
// symmetric in i and j and grad_j W_ji = -grad_i W_ij exactly, so the pair's forces cancel bit
// for bit: momentum is conserved to round-off.
FS_HDI double pressure_over_rho2(double p, double rho) { return p / (rho * rho); }

FS_HDI dvec2 pair_acceleration(const Config& c, const CubicSpline<double>& k, dvec2 xij, dvec2 vij,
                               double rho_i, double rho_j, double P_i, double P_j) {
    const dvec2 g = k.grad(xij);
    double coeff = P_i + P_j;
    const double vx = vij.x * xij.x + vij.y * xij.y;
    if (vx < 0.0) {
        const double r2 = xij.x * xij.x + xij.y * xij.y;
        coeff += -(2.0 * c.alpha * c.h * c.c_s) * vx / ((rho_i + rho_j) * (r2 + c.epsilon * c.h * c.h));
    }
    return -(c.mass * coeff) * g;
}

// Each particle's neighbours within h, found once per step by the density stage and read by
// the later stages (which would otherwise search the grid again, testing about five times as
// many candidates as there are neighbours). A particle with more than `cap` neighbours (strong
// compression) is searched through the grid instead: the list is a cache, never a limit.
struct NeighborList {
    grid::Neighbors2 grid;
    View<const int> list;   // cap entries per particle
    View<const int> count;  // neighbours of each particle (may exceed cap)
    int cap = 0;
    double h2 = 0.0;

    template <class Visit>
    FS_HDI void for_each(int i, Visit&& visit) const {
        const int n = count[i];
        if (n <= cap) {
            const int* row = list.data + static_cast<long long>(i) * cap;
            for (int k = 0; k < n; ++k) visit(row[k]);
            return;
        }
        const dvec2 xi = grid.pos[i];
        grid.for_each(i, [&](int j) {
            const dvec2 d = xi - grid.pos[j];
            if (d.x * d.x + d.y * d.y < h2) visit(j);
        });
    }
};

// the WCSPH assignment, 2.3 and 2.5: fluid particle i's acceleration, g + sum_j pair_acceleration over its
// neighbours, rho_P holding each particle's (rho, p / rho^2). The force stage's scalar body (the
// GPU's, and hosts' without AVX-512), and sph_simd.hpp's for a particle whose row overflowed.
FS_HDI dvec2 fluid_acceleration(const Config& c, const CubicSpline<double>& k, const NeighborList& nb, int i,
                                const dvec2* pos, const dvec2* vel, const dvec2* rho_P) {
    const dvec2 xi = pos[i], vi = vel[i];
    const double rho_i = rho_P[i].x, P_i = rho_P[i].y;
    dvec2 a = c.gravity;
    nb.for_each(i, [&](int j) {
        a += pair_acceleration(c, k, xi - pos[j], vi - vel[j], rho_i, rho_P[j].x, P_i, rho_P[j].y);
    });
    return a;
}

// ---- DFSPH (Bender & Koschier 2015, "Divergence-free smoothed particle hydrodynamics", SCA;
// 2017, "Divergence-free SPH for incompressible and viscous fluids", TVCG 23(3)) ----
//
// Both of its solves find a pressure P_i = p_i / rho_i^2 per fluid particle whose acceleration,
// the same symmetric form as WCSPH's (the WCSPH assignment, 2.3),
//   a_i(P) = -sum_f m (P_i + P_f) grad W_if - sum_b m (P_i + P_b) grad W_ib   (f fluid, b boundary),
// applied over dt removes a density change: rho*_i - rho0 (the density solve; rho*_i the density
// the predicted velocities lead to) or dt D rho_i / Dt (the divergence solve). Boundary particles
// (walls, the barrier) do not move under pressure: they enter with their mass m (they lie on the
// fluid's lattice) and P_b = P_i or 0 (boundary_factor), as in Bender & Koschier's boundary handling
// (Akinci et al. 2012).
// Each iteration updates every pressure at once (Jacobi),
//   P_i += omega (change_i / dt^2) alpha_i,   alpha_i = 1 / (|sum_j m grad W_ij|^2 + sum_f |m grad W_if|^2),
// alpha_i the 2015 paper's factor (eq. 9) over rho_i, written for P instead of kappa / rho: a
// velocity change dv_i = -dt P_i sum_j m grad W_ij (and +dt m P_i grad W_if on each fluid
// neighbour f) changes rho_i by -dt^2 P_i / alpha_i (with mirrored boundaries their gradients
// count twice in the first factor of |.|^2). P is kept non-negative (no suction at the
// free surface: the WCSPH assignment's clamp, for the implicit pressure), which makes each solve a
// projected Jacobi iteration.
// Where this project departs from the papers, measured on the resting tank (sph_hydrostatic, 50
// layers) and the dam break: Bender & Koschier take the full update (omega = 1) and start from the
// last step's pressures. Here the full update let the pressure's alternating mode grow (the dam
// break's first density solve went from 0.08% to 7% mean compression in 100 iterations), and the
// full warm start let a pressure offset build up that the iteration removes only slowly (a constant
// pressure pushes nothing in the bulk): the tank's water boiled, 2 J of kinetic energy after 2 s.
// The solves take Ihmsen et al. 2014's (IISPH) omega = 0.5 instead, and a quarter of the last step's
// pressure to start from, where Ihmsen et al. take half. Why not half: the warm start acts on the
// present particles with the last step's pressure, one step late, and on the tank's slowest modes,
// which an iteration stopped at the tolerance corrects by a small fraction f a step, that lag eats
// their damping. A model of one such mode (displacement x, u = dt v, warm-start pressure F in
// density units: e = x + u - w F, F' = w F + f e, x' = (1 - f) e, u' = x' - x) damps by about
// (f/2)(1 - 2w)/(1 - w)^2 a step: none at w = 1/2, growth above (0.8 and 1 boiled, measured).
// Measured on sph_hydrostatic with the dam-break scenes' nu = 0.01 m^2/s and dt = 1.25 ms, w = 0.5
// let the tank's slowest mode (the whole water swinging between the walls, about 90 Hz) gain
// energy from about 2 s on: the layer pressures went from 0.3% to 8.2% RMS off rho0 g depth at
// 4.26 s; w = 0.25 (89% of the damping of w = 0) holds 0.8% and the kinetic energy decays. w = 0
// costs twice the iterations of 0.5 at rest, and at the scene's own dt = 0.2 ms, where one
// iteration a step meets the tolerance, leaves the solve without memory: the column bounced, 8%.
// Conjugate gradients on
// the same system (tried: A = G^T G is symmetric positive definite) removed the offset but needed
// the non-negative clamp after the solve, and the tank boiled even at 1e-5 tolerance.

// Each fluid particle's neighbours within h with grad_i W_ij beside each (the density stage stores
// both, the solves' iterations read them: a dot product per pair instead of a kernel evaluation).
// A particle with more than `cap` neighbours is searched through the grid and its gradients
// computed, as NeighborList does: the stored gradients are a cache, never a limit.
struct GradList {
    NeighborList nb;
    View<const dvec2> grad;  // cap entries per particle, row i filled for fluid particles
    CubicSpline<double> k;

    // init + the sum of term(j, grad_i W_ij) over the neighbours j. A sum, not a visit with a
    // captured accumulator: captured, the accumulator lived in memory (the grid path hands it to
    // a call) and every pair waited on a store and a load; here the row's loop keeps it in a
    // register.
    template <class T, class Term>
    FS_HDI T sum(int i, T init, Term&& term) const {
        const int n = nb.count[i];
        if (n <= nb.cap) {
            const long long row = static_cast<long long>(i) * nb.cap;
            const int* js = nb.list.data + row;
            const dvec2* gs = grad.data + row;
            // Two running sums, even and odd pairs: one waits on the adder's latency (four cycles
            // a pair on this machine), two overlap.
            T even = init, odd = init - init;
            int q = 0;
            for (; q + 1 < n; q += 2) {
                even += term(js[q], gs[q]);
                odd += term(js[q + 1], gs[q + 1]);
            }
            if (q < n) even += term(js[q], gs[q]);
            return even + odd;
        }
        // A row that overflowed: the grid in the order the row would have held them, the same two
        // running sums, so the same bits as a row (the row's length is a cache's, never a result's).
        T even = init, odd = init - init;
        int q = 0;
        const dvec2 xi = nb.grid.pos[i];
        nb.grid.for_each(i, [&](int j) {
            const dvec2 d = xi - nb.grid.pos[j];
            if (d.x * d.x + d.y * d.y < nb.h2) {
                const T t = term(j, k.grad(d));
                if (q++ & 1)
                    odd += t;
                else
                    even += t;
            }
        });
        return even + odd;
    }
};

// How much of P_i a boundary neighbour pushes with: P_i + P_b with P_b = P_i under pressure
// mirroring (the boundary takes the pressure of the fluid beside it, as WCSPH's mirroring does and
// Akinci et al. 2012's boundary force), P_i alone with the assignment's P_b = 0. Measured on the
// resting tank: with P_i alone the layer on the floor reads 1.7 rho0 g depth (it holds the water up
// by itself); mirrored, rho0 g depth.
FS_HDI double boundary_factor(const Config& c) { return c.boundary_model == kPressureMirroring ? 2.0 : 1.0; }

// DFSPH's density stage for fluid particle i, one pass over the grid: rho_i = sum_j m W_ij with the
// particle itself (the WCSPH assignment, 2.1), alpha_i (above), and the neighbours within h with grad_i W_ij
// beside each, written to `list` and `grads` (room for `cap`; the count is returned either way).
struct DensityAlpha {
    double rho, alpha;
    dvec2 sum, push;  // sum_j grad W_ij, and the own pressure's push (below)
    int count;
};
FS_HDI DensityAlpha dfsph_density(const Config& c, const CubicSpline<double>& k, const grid::Neighbors2& nb, int i,
                                  const dvec2* pos, const int* kind, int* list, dvec2* grads, int cap) {
    const dvec2 xi = pos[i];
    const double h2 = c.h * c.h;
    // The neighbours first, then the sums over them in a plain loop: summed inside the grid's
    // callback, the sums lived in memory (the gradient stores could alias them) and the stage
    // took twice as long.
    // The append has no branch (a candidate is inside at random, a third of the time): j goes to
    // the next slot and counts if inside (a later candidate overwrites it if not); a full row
    // keeps what it holds.
    int near = 0;
    nb.for_each(i, [&](int j) {
        const dvec2 d = xi - pos[j];
        const bool room = near < cap;
        const int slot = room ? near : cap - 1;
        list[slot] = room ? j : list[slot];
        near += d.x * d.x + d.y * d.y < h2 ? 1 : 0;
    });
    double w = k.W(0.0), sum_sq = 0.0;
    dvec2 sum(0.0), sum_b(0.0);
    auto add = [&](int j, dvec2 d, double r) {
        w += k.W_within(r);
        const dvec2 g = k.grad(d, r);
        sum += g;
        if (kind[j] == kFluid)
            sum_sq += g.x * g.x + g.y * g.y;
        else
            sum_b += g;
        return g;
    };
    if (near <= cap) {
        for (int q = 0; q < near; ++q) {
            const int j = list[q];
            const dvec2 d = xi - pos[j];
            grads[q] = add(j, d, std::sqrt(d.x * d.x + d.y * d.y));
        }
    } else {  // more neighbours than the row holds: the grid again, nothing stored
        nb.for_each(i, [&](int j) {
            const dvec2 d = xi - pos[j];
            const double r2 = d.x * d.x + d.y * d.y;
            if (r2 < h2) add(j, d, std::sqrt(r2));
        });
    }
    // A particle with few neighbours (a drop of two or three in a splash) has a small
    // denominator, and its pressure would be huge and throw its neighbours (measured: 1e8 Pa in
    // the dam break's splash, then the run failed). The denominator is bounded below by a tenth
    // of a particle's with the full rest lattice around it (Config::lattice_denominator).
    // The own pressure's push, sum_f grad W + (1 + mirror) sum_b grad W, against the density's
    // response to it.
    const dvec2 push = sum + (boundary_factor(c) - 1.0) * sum_b;
    const double denominator = c.mass * c.mass * (push.x * sum.x + push.y * sum.y + sum_sq);
    const double floor = 0.1 * c.lattice_denominator;
    return {c.mass * w, 1.0 / (denominator > floor ? denominator : floor), sum, push, near};
}

// dfsph_density's denominator for a particle with the rest lattice of spacing c.spacing all around:
// m^2 sum_j |grad W_ij|^2 (the sum of the gradients is zero there).
inline double lattice_denominator(const Config& c, const CubicSpline<double>& k) {
    const int reach = static_cast<int>(std::ceil(c.h / c.spacing));
    double sum = 0.0;
    for (int b = -reach; b <= reach; ++b)
        for (int a = -reach; a <= reach; ++a) {
            const dvec2 g = k.grad(dvec2(a, b) * c.spacing);
            sum += g.x * g.x + g.y * g.y;
        }
    return c.mass * c.mass * sum;
}

// The rate of change of rho_i the velocities give, D rho_i / Dt = sum_j m (v_i - v_j) . grad W_ij
// (Bender & Koschier 2017, eq. 4; boundary particles with their own velocity: the barrier's),
// as m (v_i . sum_j grad W_ij - sum_j v_j . grad W_ij) with the first sum from the density stage.
FS_HDI double density_rate(const Config& c, const GradList& gl, int i, const dvec2* vel, dvec2 sum) {
    const double others = gl.sum(i, 0.0, [&](int j, dvec2 g) { return vel[j].x * g.x + vel[j].y * g.y; });
    return c.mass * (vel[i].x * sum.x + vel[i].y * sum.y - others);
}

// a_i(P) above for fluid particle i, as -m (P_i push_i + sum_f P_f grad W_if), push_i = sum_f grad
// W_if + (1 + mirror) sum_b grad W_ib from the density stage; P is zero on boundary particles, so
// the pair loop needs no test of who is who.
FS_HDI dvec2 pressure_acceleration(const Config& c, const GradList& gl, int i, const double* P, dvec2 push) {
    return -c.mass * gl.sum(i, P[i] * push, [&](int j, dvec2 g) { return P[j] * g; });
}

// DFSPH's non-pressure acceleration of fluid particle i: gravity and the viscosity term of seed
// 003, 2.5 (pair_acceleration's, without pressure), as WCSPH has them, with the stored gradients.
// alpha c_s is what the term uses; with a kinematic viscosity it is 8 nu / h, free of the speed of
// sound (Monaghan 2005). Boundary particles count at rest density, as WCSPH's do.
FS_HDI dvec2 viscous_acceleration(const Config& c, const GradList& gl, int i, const dvec2* pos, const dvec2* vel,
                                  const double* rho, const int* kind) {
    const dvec2 xi = pos[i], vi = vel[i];
    const double rho_i = rho[i], rho0 = c.rho0;
    const double nu8 = 2.0 * c.alpha * c.h * c.c_s, eps = c.epsilon * c.h * c.h;
    const dvec2 sum = gl.sum(i, dvec2(0.0), [&](int j, dvec2 g) {
        const dvec2 x = xi - pos[j], v = vi - vel[j];
        const double vx = v.x * x.x + v.y * x.y;
        if (!(vx < 0.0)) return dvec2(0.0);
        const double rho_j = kind[j] == kFluid ? rho[j] : rho0;
        return (nu8 * vx / ((rho_i + rho_j) * (x.x * x.x + x.y * x.y + eps))) * g;
    });
    // -m Pi_ij grad W_ij with Pi_ij = -nu8 vx / (...) is +m nu8 vx / (...) grad W_ij.
    return c.gravity + c.mass * sum;
}

// One projected Jacobi update of P_i for a density change `change` (kg/m^3) to remove over dt:
// P_i <- max(0, P_i + omega change alpha_i / dt^2). The residual the solves average is the change
// left where the constraint is active (compressed, or holding pressure).
struct JacobiUpdate {
    double dP, residual;
};
FS_HDI JacobiUpdate jacobi_update(double P, double change, double alpha, double dt, double omega) {
    const double raised = P + omega * change * alpha / (dt * dt);
    const double next = raised > 0.0 ? raised : 0.0;
    const double residual = (change > 0.0 || P > 0.0) ? std::fabs(change) : 0.0;
    return {next - P, residual};
}

// Per-step sums for the stats, over fluid particles.
struct Sums : MotionSums<dvec2> {
    double max_accel2 = 0.0;  // |a|^2 of the last accelerations stage
    double density_sum = 0.0;
    double compression_sum = 0.0;  // sum of max(0, rho - rho0): the solves' measure
    double density_max_error = -1e300;  // maxima start below any value
    double pressure_max = -1e300;
    double front_x = -1e300;  // the surge front: the largest x of fluid within h of the floor
    long long neighbors = 0;
    int neighbors_max = 0;  // the most any particle has (fluid or boundary): the lists' row length
    long long fluid = 0;
    long long outside = 0;  // fluid particles outside the search grid's box (the walls and their padding)
};

struct SumsOp {
    FS_HDI Sums operator()(const Sums& a, const Sums& b) const {
        Sums s;
        s.join_motion(a, b);
        s.max_accel2 = a.max_accel2 > b.max_accel2 ? a.max_accel2 : b.max_accel2;
        s.density_sum = a.density_sum + b.density_sum;
        s.compression_sum = a.compression_sum + b.compression_sum;
        s.density_max_error = a.density_max_error > b.density_max_error ? a.density_max_error : b.density_max_error;
        s.pressure_max = a.pressure_max > b.pressure_max ? a.pressure_max : b.pressure_max;
        s.front_x = a.front_x > b.front_x ? a.front_x : b.front_x;
        s.neighbors = a.neighbors + b.neighbors;
        s.neighbors_max = a.neighbors_max > b.neighbors_max ? a.neighbors_max : b.neighbors_max;
        s.fluid = a.fluid + b.fluid;
        s.outside = a.outside + b.outside;
        return s;
    }
};

}  // namespace fs::sph
