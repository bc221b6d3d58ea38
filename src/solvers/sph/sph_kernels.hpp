// Per-particle bodies of the WCSPH solver (seed 003: the 2D WCSPH assignment, after Koschier et
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
    kAssignment = 0,        // seed 003, 2.4: density rho0, pressure 0
    kPressureMirroring = 1  // Adami, Hu and Adams 2012: pressure extrapolated from the fluid
};

// The 2D cubic spline of seed 003, 2.1, with support radius h (q = r/h):
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
    FS_HDI glm::vec<2, T> grad(glm::vec<2, T> xij) const {
        const T r = std::sqrt(xij.x * xij.x + xij.y * xij.y);
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

// Tait equation (seed 003, 2.2): p = B((rho/rho0)^gamma - 1), with B = rho0 c_s^2 / gamma so that
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

// Everything a stage needs, as plain values.
struct Config {
    double dt = 1e-4;
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
    dvec2 barrier_center{0.5, 0.5};
    double barrier_angle = 0.0;  // radians
    dvec2 barrier_velocity{0.0, 0.0};  // while a hand drags it (core/hands.hpp)
    HandForce<dvec2> hand;             // push and pull
    grid::Grid2 grid;
};

// The force terms between particle i and a neighbour j, per unit mass of i, for x_ij = x_i - x_j
// and v_ij = v_i - v_j (seed 003, 2.3 and 2.5):
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

// seed 003, 2.3 and 2.5: fluid particle i's acceleration, g + sum_j pair_acceleration over its
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

// Per-step sums for the stats, over fluid particles.
struct Sums : MotionSums<dvec2> {
    double max_accel2 = 0.0;  // |a|^2 of the last accelerations stage
    double density_sum = 0.0;
    double density_max_error = -1e300;  // maxima start below any value
    double pressure_max = -1e300;
    double front_x = -1e300;  // the surge front: the largest x of fluid within h of the floor
    long long neighbors = 0;
    long long fluid = 0;
    long long outside = 0;  // fluid particles outside the search grid's box (the walls and their padding)
};

struct SumsOp {
    FS_HDI Sums operator()(const Sums& a, const Sums& b) const {
        Sums s;
        s.join_motion(a, b);
        s.max_accel2 = a.max_accel2 > b.max_accel2 ? a.max_accel2 : b.max_accel2;
        s.density_sum = a.density_sum + b.density_sum;
        s.density_max_error = a.density_max_error > b.density_max_error ? a.density_max_error : b.density_max_error;
        s.pressure_max = a.pressure_max > b.pressure_max ? a.pressure_max : b.pressure_max;
        s.front_x = a.front_x > b.front_x ? a.front_x : b.front_x;
        s.neighbors = a.neighbors + b.neighbors;
        s.fluid = a.fluid + b.fluid;
        s.outside = a.outside + b.outside;
        return s;
    }
};

}  // namespace fs::sph
