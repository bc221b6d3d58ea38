// Part of the FLIP pipeline (flip_pipeline.hpp; the class in flip_pipeline_class.hpp): the
// PIC-FLIP assignment's Advection, for both executors.
#pragma once

#include <cmath>

#include "solvers/flip/flip_pipeline_class.hpp"

namespace fs::flip {

// the PIC-FLIP assignment, Advection: x += dt v with the particle's velocity (forward Euler), or through
// the grid's velocity u, divergence-free since the pressure gradient (Bridson 2015, 3.1: a
// particle moved by forward Euler in a rotating flow spirals outward, and particles crowd
// where the interpolated velocity converges): the midpoint rule x += dt u(x + dt/2 u(x)), or
// Ralston's RK3, k1 = u(x), k2 = u(x + dt/2 k1), k3 = u(x + 3dt/4 k2),
// x += dt (2 k1 + 3 k2 + 4 k3) / 9. u is read trilinearly from the faces P2G reached.
template <class Exec>
void Pipeline<Exec>::advect(const Config& c) {
    auto pos = pos_.view();
    auto vel = vel_.view();
    const Config cfg = c;
    if (c.advection == kForwardEuler) {
        sums_ = exec_.transform_reduce(
            size(), Sums{},
            FS_LAMBDA(int i) {
                dvec3 x = pos[i] + cfg.dt * vel[i];
                dvec3 v = vel[i];
                keep_out_of_solids(cfg, x, v);
                pos[i] = x;
                vel[i] = v;
                return particle_sums(x, v);
            },
            SumsOp{});
        sums_ready_ = true;
        return;
    }
    const MacGrid g = c.grid;
    const Faces f0 = Faces::of(g, 0), f1 = Faces::of(g, 1), f2 = Faces::of(g, 2);
    auto u0 = face_[0].cview(), u1 = face_[1].cview(), u2 = face_[2].cview();
    auto m0 = valid_[0].cview(), m1 = valid_[1].cview(), m2 = valid_[2].cview();
    const bool rk3 = c.advection == kRk3;
    sums_ = exec_.transform_reduce(size(), Sums{}, FS_LAMBDA(int i) {
        auto u = [&](dvec3 x) {
            return interpolate_vector<kLinear>(f0, f1, f2, u0, u1, u2, m0, m1, m2, to_cells(g, x));
        };
        const double dt = cfg.dt;
        const dvec3 x0 = pos[i], k1 = u(x0), k2 = u(x0 + 0.5 * dt * k1);
        dvec3 x = rk3 ? x0 + dt / 9.0 * (2.0 * k1 + 3.0 * k2 + 4.0 * u(x0 + 0.75 * dt * k2)) : x0 + dt * k2;
        dvec3 v = vel[i];
        keep_out_of_solids(cfg, x, v);
        pos[i] = x;
        vel[i] = v;
        return particle_sums(x, v);
    }, SumsOp{});
    sums_ready_ = true;
}

}  // namespace fs::flip
