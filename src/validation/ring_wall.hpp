// A thin vortex ring approaching a plane wall, as a ring and its image: two coaxial rings of
// radius R, the image of opposite circulation mirrored in the wall, each moving with Saffman's
// self-induced speed plus the other's Biot-Savart velocity (the inviscid no-through-flow
// condition at the wall; the image by reflection, Saffman, "Vortex Dynamics", 1992, ch. 10).
// The core shrinks as the ring stretches, sigma^2 R constant (its volume kept). Integrated by
// the classical Runge-Kutta rule; pure functions, so the Compare view and the tests share them.
#pragma once

#include <cmath>
#include <vector>

namespace fs::ring_wall {

// The complete elliptic integrals of the first and second kind of modulus k, K(k) and E(k), by
// the arithmetic-geometric mean (Abramowitz & Stegun 1964, 17.6.3-4): K = pi / (2 a_N),
// E = K (1 - sum_n 2^(n-1) c_n^2). Written here because libc++ (the browser build's) has no
// std::comp_ellint_1/2; it agrees with libstdc++'s within 1e-12 (tests/test_vortex_panels.cpp).
inline void complete_elliptic(double k, double& K, double& E) {
    double a = 1.0, b = std::sqrt(1.0 - k * k), c = k, weight = 0.5, sum = 0.5 * k * k;
    for (int n = 1; n < 64 && std::fabs(c) > 1e-17 * a; ++n) {
        c = 0.5 * (a - b);
        const double next = 0.5 * (a + b);
        b = std::sqrt(a * b);
        a = next;
        weight *= 2.0;
        sum += weight * c * c;
    }
    K = 3.14159265358979323846 / (2.0 * a);
    E = K * (1.0 - sum);
}

// The velocity a ring of radius a and circulation g (positive: it moves toward +z, its own axis)
// induces at radius r and axial offset z from its plane: axial uz, radial ur (Lamb,
// "Hydrodynamics", 1932, sec. 161, in complete elliptic integrals K(m), E(m),
// m = 4 r a / ((r + a)^2 + z^2)).
inline void ring_velocity(double g, double a, double r, double z, double& uz, double& ur) {
    const double s2 = (r + a) * (r + a) + z * z, d2 = (a - r) * (a - r) + z * z;
    const double k = std::sqrt(4.0 * r * a / s2);
    double K = 0.0, E = 0.0;
    complete_elliptic(k, K, E);
    const double pi = 3.14159265358979323846, s = std::sqrt(s2);
    uz = g / (2.0 * pi * s) * (K + (a * a - r * r - z * z) / d2 * E);
    ur = r > 0.0 ? g * z / (2.0 * pi * r * s) * (-K + (a * a + r * r + z * z) / d2 * E) : 0.0;
}

// The ring's state: radius R and gap h (from its core's centre to the wall, along its axis).
struct State {
    double t = 0.0, radius = 1.0, gap = 1.0;
};

// Saffman's speed with the constant of the Rosenhead-Moore core, 1 (Moore 1972), as the
// solver's ring speed (compare.cpp, RingSpeed).
inline double self_speed(double gamma, double R, double sigma) {
    return gamma / (4.0 * 3.14159265358979323846 * R) * (std::log(8.0 * R / sigma) - 1.0);
}

// The path from (R0, h0) with circulation gamma and core sigma0 until the gap is `stop_gap` or
// the time t_end, every dt.
inline std::vector<State> path(double gamma, double R0, double sigma0, double h0, double t_end, double dt,
                               double stop_gap) {
    auto rate = [&](double R, double h, double& dR, double& dh) {
        const double sigma = sigma0 * std::sqrt(R0 / R);
        double uz, ur;
        // The image: circulation -gamma, 2h beyond the ring along its axis.
        ring_velocity(-gamma, R, R, -2.0 * h, uz, ur);
        dR = ur;
        dh = -(self_speed(gamma, R, sigma) + uz);
    };
    std::vector<State> out{{0.0, R0, h0}};
    State s = out.back();
    while (s.t < t_end - 1e-12 && s.gap > stop_gap) {
        double k1r, k1h, k2r, k2h, k3r, k3h, k4r, k4h;
        rate(s.radius, s.gap, k1r, k1h);
        rate(s.radius + 0.5 * dt * k1r, s.gap + 0.5 * dt * k1h, k2r, k2h);
        rate(s.radius + 0.5 * dt * k2r, s.gap + 0.5 * dt * k2h, k3r, k3h);
        rate(s.radius + dt * k3r, s.gap + dt * k3h, k4r, k4h);
        s.radius += dt / 6.0 * (k1r + 2 * k2r + 2 * k3r + k4r);
        s.gap += dt / 6.0 * (k1h + 2 * k2h + 2 * k3h + k4h);
        s.t += dt;
        out.push_back(s);
    }
    return out;
}

}  // namespace fs::ring_wall
