// Per-particle and per-face bodies of the PIC/FLIP solver (seed 001, the PIC-FLIP assignment;
// Zhu and Bridson 2005), shared by the CPU and CUDA pipelines.
#pragma once

#include <cmath>

#include <glm/glm.hpp>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "solvers/flip/mac_grid.hpp"

namespace fs::flip {

using glm::dvec3;
using glm::ivec3;

enum Weights : int { kLinear = 0, kQuadratic = 1 };

// The 1D transfer kernels, of a distance in cells: linear ("tent", seed 001's trilinear
// weights) and the quadratic B-spline (support 1.5 cells).
FS_HDI double kernel_1d(double x, int weights) {
    x = std::fabs(x);
    if (weights == kLinear) return x < 1.0 ? 1.0 - x : 0.0;
    if (x < 0.5) return 0.75 - x * x;
    if (x < 1.5) return 0.5 * (1.5 - x) * (1.5 - x);
    return 0.0;
}
FS_HDI double kernel_support(int weights) { return weights == kLinear ? 1.0 : 1.5; }

// One velocity component's faces: dims and positions (axis 0: u, 1: v, 2: w), in cell units
// relative to the grid origin: face (i, j, k) of axis a sits at (i, j, k) + 0.5 off the axis.
struct Faces {
    int axis = 0;
    int fx = 1, fy = 1, fz = 1;
    FS_HDI static Faces of(const MacGrid& g, int axis) {
        return {axis, g.nx + (axis == 0), g.ny + (axis == 1), g.nz + (axis == 2)};
    }
    FS_HDI int count() const { return fx * fy * fz; }
    FS_HDI int index(int i, int j, int k) const { return i + fx * (j + fy * k); }
    FS_HDI ivec3 coords(int f) const {
        const int i = f % fx, jk = f / fx;
        return {i, jk % fy, jk / fy};
    }
    // Position in cell units.
    FS_HDI dvec3 position(ivec3 c) const {
        return dvec3(c.x + (axis == 0 ? 0.0 : 0.5), c.y + (axis == 1 ? 0.0 : 0.5), c.z + (axis == 2 ? 0.0 : 0.5));
    }
    // The two cells a face separates (the lower one may be outside the grid).
    FS_HDI ivec3 lower_cell(ivec3 c) const { return c - ivec3(axis == 0, axis == 1, axis == 2); }
};

// Particle position in cell units.
FS_HDI dvec3 to_cells(const MacGrid& g, dvec3 x) { return (x - g.origin) / g.dx; }

// The cell of a particle, clamped into the grid (particles are kept inside; NaN lands in 0).
FS_HDI int cell_index(const MacGrid& g, dvec3 x) {
    const dvec3 u = to_cells(g, x);
    auto clamp = [](double f, int n) {
        if (!(f >= 0.0)) return 0;
        return f >= n - 1 ? n - 1 : static_cast<int>(f);
    };
    return g.cell(clamp(std::floor(u.x), g.nx), clamp(std::floor(u.y), g.ny), clamp(std::floor(u.z), g.nz));
}

// Weighted average of one velocity component at a point (cell units), over the faces within the
// kernel's support that carry a value (valid != 0). Returns 0 where none does.
FS_HDI double interpolate(const Faces& f, View<const double> value, View<const unsigned char> valid, dvec3 u,
                          int weights) {
    const double s = kernel_support(weights);
    // Face coordinates p satisfy |p - u| < s along each axis; p = c + offset(axis).
    const dvec3 off = f.position(ivec3(0));
    const ivec3 lo(static_cast<int>(std::ceil(u.x - off.x - s)), static_cast<int>(std::ceil(u.y - off.y - s)),
                   static_cast<int>(std::ceil(u.z - off.z - s)));
    const ivec3 hi(static_cast<int>(std::floor(u.x - off.x + s)), static_cast<int>(std::floor(u.y - off.y + s)),
                   static_cast<int>(std::floor(u.z - off.z + s)));
    double sum = 0.0, wsum = 0.0;
    for (int k = lo.z > 0 ? lo.z : 0; k <= hi.z && k < f.fz; ++k)
        for (int j = lo.y > 0 ? lo.y : 0; j <= hi.y && j < f.fy; ++j)
            for (int i = lo.x > 0 ? lo.x : 0; i <= hi.x && i < f.fx; ++i) {
                const int idx = f.index(i, j, k);
                if (!valid[idx]) continue;
                const dvec3 p = f.position(ivec3(i, j, k));
                const double w = kernel_1d(u.x - p.x, weights) * kernel_1d(u.y - p.y, weights) *
                                 kernel_1d(u.z - p.z, weights);
                sum += w * value[idx];
                wsum += w;
            }
    return wsum > 0.0 ? sum / wsum : 0.0;
}

// Everything a stage needs, as plain values.
struct Config {
    MacGrid grid;
    double dt = 1e-3;
    dvec3 gravity{0.0, -9.81, 0.0};
    double density = 1000.0;  // rho of the pressure equation (kg/m^3)
    double flip_ratio = 0.95; // weight of the FLIP part: v = flip (v_p + dv) + (1 - flip) v_pic
    int particles_per_cell = 8;
    double volume_correction = 0.0;  // 0: off (the assignment); see FlipSolver's parameter
    int weights = kLinear;
    // A static box obstacle (empty when hi <= lo) and a sphere (radius 0: none), in metres.
    dvec3 box_lo{0.0}, box_hi{0.0};
    dvec3 sphere_center{0.0};
    double sphere_radius = 0.0;
};

FS_HDI bool in_box(const Config& c, dvec3 x) {
    return x.x > c.box_lo.x && x.y > c.box_lo.y && x.z > c.box_lo.z && x.x < c.box_hi.x && x.y < c.box_hi.y &&
           x.z < c.box_hi.z;
}
FS_HDI bool in_sphere(const Config& c, dvec3 x) {
    const dvec3 d = x - c.sphere_center;
    return c.sphere_radius > 0.0 && d.x * d.x + d.y * d.y + d.z * d.z < c.sphere_radius * c.sphere_radius;
}

// Particles never leave the domain or enter solids: a particle found outside is put back on the
// nearest boundary, and the component of its velocity into the solid is removed.
FS_HDI void keep_out_of_solids(const Config& c, dvec3& x, dvec3& v) {
    const MacGrid& g = c.grid;
    const double eps = 1e-6 * g.dx;
    const dvec3 lo = g.origin + dvec3(eps), hi = g.origin + g.dx * dvec3(g.nx, g.ny, g.nz) - dvec3(eps);
    for (int a = 0; a < 3; ++a) {
        if (!(x[a] >= lo[a])) {  // also NaN
            x[a] = lo[a];
            if (v[a] < 0) v[a] = 0;
        }
        if (x[a] > hi[a]) {
            x[a] = hi[a];
            if (v[a] > 0) v[a] = 0;
        }
    }
    if (in_box(c, x)) {  // out through the nearest face
        int best = 0;
        double dist = 1e300, target = 0.0;
        for (int a = 0; a < 3; ++a) {
            if (x[a] - c.box_lo[a] < dist) { dist = x[a] - c.box_lo[a]; best = a; target = c.box_lo[a] - eps; }
            if (c.box_hi[a] - x[a] < dist) { dist = c.box_hi[a] - x[a]; best = a; target = c.box_hi[a] + eps; }
        }
        const bool upper = target > x[best];
        x[best] = target;
        if (upper ? v[best] < 0 : v[best] > 0) v[best] = 0;
    }
    if (in_sphere(c, x)) {
        dvec3 n = x - c.sphere_center;
        const double len = std::sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
        n = len > 0 ? n / len : dvec3(0, 1, 0);
        x = c.sphere_center + (c.sphere_radius + eps) * n;
        const double vn = v.x * n.x + v.y * n.y + v.z * n.z;
        if (vn < 0) v -= vn * n;
    }
}

// The pressure solve's settings, as the solver's parameters give them.
struct PressureSettings {
    int method = 2;  // 0 jacobi, 1 gauss_seidel, 2 mgpcg
    int iterations = 200;
    double jacobi_alpha = 1.0;
    double sor_omega = 1.7;
    double tolerance = 1e-6;
    int max_iterations = 100;
};

// Per-step sums for the stats.
struct Sums {
    double kinetic_energy = 0.0;
    dvec3 momentum{0.0};
    double max_speed2 = 0.0;
    long long nonfinite = 0;
};
struct SumsOp {
    FS_HDI Sums operator()(const Sums& a, const Sums& b) const {
        Sums s;
        s.kinetic_energy = a.kinetic_energy + b.kinetic_energy;
        s.momentum = a.momentum + b.momentum;
        s.max_speed2 = a.max_speed2 > b.max_speed2 ? a.max_speed2 : b.max_speed2;
        s.nonfinite = a.nonfinite + b.nonfinite;
        return s;
    }
};
struct SumOp {
    FS_HDI double operator()(double a, double b) const { return a + b; }
};
struct AddOp {
    FS_HDI long long operator()(long long a, long long b) const { return a + b; }
};
struct MaxOp {
    FS_HDI double operator()(double a, double b) const { return a > b ? a : b; }
};

}  // namespace fs::flip
