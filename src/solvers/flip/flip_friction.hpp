// Optional wall friction for FLIP (the parameter wall_friction; 0, the default, leaves the walls
// free-slip as the PIC-FLIP assignment has them).
#pragma once

#include <cmath>

#include "solvers/flip/flip_kernels.hpp"

namespace fs::flip {

// The velocity component `axis` of the solid in cell q: 0 for the domain's walls (outside the
// grid), the obstacle's own for an obstacle's cell (tested at its centre, box before sphere, as
// the occupancy stage does).
FS_HDI double solid_cell_velocity(const Config& c, ivec3 q, int axis) {
    const MacGrid& g = c.grid;
    if (!g.inside(q.x, q.y, q.z)) return 0.0;
    const dvec3 centre = g.cell_center(q.x, q.y, q.z);
    if (in_box(c, centre)) return c.box_velocity[axis];
    if (in_sphere(c, centre)) return c.sphere_velocity[axis];
    return 0.0;
}

// A tangential face velocity u beside a solid wall, after one step of wall friction. The wall's
// shear stress is the Darcy-Weisbach law tau_w = rho f |u_rel| u_rel / 8 (f the Darcy friction
// factor), the resistance Dressler (1952, "Hydraulic resistance effect upon the dam-break
// functions", J. Res. NBS 49, 217) and Chanson (2009, "Application of the method of
// characteristics to the dam break wave problem", J. Hydraul. Res. 47, 41) put on the dam-break
// wave; the grid lays it on the layer of cells that touches the wall, du/dt = -tau_w / (rho dx).
// Taken implicitly in |u_rel| so that it slows the liquid to the wall's velocity and never past:
// u_rel <- u_rel / (1 + dt f |u_rel| / (8 dx)). A face with walls on several sides (a corner)
// takes each in turn. Walls are where both of the face's cells have a solid neighbour on the same
// side across another axis; faces touching a solid themselves are the projection's
// (enforce_solid_faces) and are left alone.
FS_HDI double wall_friction_face(const Config& c, View<const unsigned char> type, const Faces& faces,
                                 const FaceCells& cells, ivec3 hi, double u) {
    if (cells.lo == kSolid || cells.hi == kSolid) return u;
    if (cells.lo != kFluid && cells.hi != kFluid) return u;
    const MacGrid& g = c.grid;
    const ivec3 lo = faces.lower_cell(hi);
    const double rate = c.dt * c.wall_friction / (8.0 * g.dx);
    for (int b = 0; b < 3; ++b) {
        if (b == faces.axis) continue;
        for (int s = -1; s <= 1; s += 2) {
            ivec3 e(0);
            e[b] = s;
            const ivec3 nh = hi + e, nl = lo + e;
            if (cell_type(g, type, nh.x, nh.y, nh.z) != kSolid || cell_type(g, type, nl.x, nl.y, nl.z) != kSolid) continue;
            const double wall = 0.5 * (solid_cell_velocity(c, nh, faces.axis) + solid_cell_velocity(c, nl, faces.axis));
            const double rel = u - wall;
            u = wall + rel / (1.0 + rate * std::fabs(rel));
        }
    }
    return u;
}

}  // namespace fs::flip
