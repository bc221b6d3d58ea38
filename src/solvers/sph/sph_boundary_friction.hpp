// The walls' share of the viscosity, for both backends (the parameter boundary_viscosity).
#pragma once

#include "solvers/sph/sph_kernels.hpp"

namespace fs::sph {

// The viscosity term between fluid particle i and the boundary particles beside it, per unit mass
// of i: sum_b -m Pi_ib grad_i W_ib with the WCSPH assignment, 2.5's Pi_ib (pair_acceleration's viscous part,
// rho_b the boundary's density: rho0, or the mirrored one), the wall at its own velocity (0, the
// barrier's while dragged). This is Akinci et al. 2012's ("Versatile rigid-fluid coupling for
// incompressible SPH", eq. 11) boundary friction: the boundary's viscosity term with a coefficient
// of its own, sigma_b. The force stage already counts it once with the fluid's (sigma_b = sigma);
// the stage after adds (boundary_viscosity - 1) times it, so 0 leaves free-slip walls and 1 (the
// default) adds nothing.
FS_HDI dvec2 boundary_viscous_acceleration(const Config& c, const CubicSpline<double>& k, const NeighborList& nb,
                                           int i, const dvec2* pos, const dvec2* vel, const double* rho,
                                           const int* kind) {
    const dvec2 xi = pos[i], vi = vel[i];
    const double nu8 = 2.0 * c.alpha * c.h * c.c_s, eps = c.epsilon * c.h * c.h;
    dvec2 a(0.0);
    nb.for_each(i, [&](int j) {
        if (kind[j] == kFluid) return;
        const dvec2 x = xi - pos[j], v = vi - vel[j];
        const double vx = v.x * x.x + v.y * x.y;
        if (!(vx < 0.0)) return;
        a += (c.mass * nu8 * vx / ((rho[i] + rho[j]) * (x.x * x.x + x.y * x.y + eps))) * k.grad(x);
    });
    return a;
}

}  // namespace fs::sph
