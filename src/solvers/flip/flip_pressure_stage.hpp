// Part of the FLIP pipeline (flip_pipeline.hpp; the class in flip_pipeline_class.hpp): the
// PIC-FLIP assignment's Pressure Projection (occupancy, divergence, the solve and the gradient) and the volume
// correction, which solves the same equation, for both executors.
#pragma once

#include <cmath>

#include "solvers/flip/flip_friction.hpp"
#include "solvers/flip/flip_pipeline_class.hpp"

namespace fs::flip {

// body(f, (i, j, k), its two cells (FaceCells)) for every face f of one component. On the
// CPU by rows along x: a row's faces, coordinates and cells come by counting, and its cells'
// types are read from two rows of cells with the bounds tested once a row. These loops were
// bound by the coordinates' and bounds' arithmetic a face, not by memory (perf, FLIP 64^3:
// about 5 ns a face). On a GPU, a thread a face (FaceCoords, face_cells), which keeps every
// thread busy. The body is the same.
template <class Exec, class Body>
void for_each_face(Exec& exec, const MacGrid& g, const Faces& faces, View<const unsigned char> type, const Body& body) {
    if constexpr (Exec::space == MemorySpace::Host) {
        constexpr int kRows = 16;  // a task's rows: about a thousand faces at 64^3
        const int rows = faces.fy * faces.fz;
        const int a = faces.axis;
        const int stride = faces.cell_stride(g);
        const int first_lo = a == 0 ? 1 : 0;  // x faces: face i's lower cell is i - 1
        exec.parallel_tasks((rows + kRows - 1) / kRows, [&](int task) {
            const int end = std::min(rows, (task + 1) * kRows);
            for (int row = task * kRows; row < end; ++row) {
                const int j = row % faces.fy, k = row / faces.fy, f0 = row * faces.fx;
                const int cell0 = g.nx * (j + g.ny * k);  // cell (0, j, k), if inside
                const bool hi_in = j < g.ny && k < g.nz;
                const int lj = j - (a == 1), lk = k - (a == 2);
                const bool lo_in = lj >= 0 && lk >= 0 && lj < g.ny && lk < g.nz;
                FaceCells c;
                c.stride = stride;
                for (int i = 0; i < faces.fx; ++i) {
                    c.cell_hi = cell0 + i;
                    c.hi = hi_in && i < g.nx ? type[cell0 + i] : static_cast<unsigned char>(kSolid);
                    c.lo = lo_in && i >= first_lo ? type[cell0 + i - stride] : static_cast<unsigned char>(kSolid);
                    body(f0 + i, ivec3(i, j, k), c);
                }
            }
        });
    } else {
        const FaceCoords coords(faces);
        exec.parallel_for(faces.count(), FS_LAMBDA(int f) {
            const ivec3 at = coords(f);
            body(f, at, face_cells(g, faces, type, at));
        });
    }
}

// Cell types (the PIC-FLIP assignment: fluid where a particle is, solid in obstacles, air elsewhere), and
// the particles in each cell (for the volume measure and its correction): counted by the
// scatter, or taken from the half cells' starts after the gather.
template <class Exec>
void Pipeline<Exec>::occupancy(const Config& c) {
    const MacGrid g = c.grid;
    const Config cfg = c;
    ++types_version_;
    const bool counted = scatter_;
    auto start = sort_.cell_start();
    auto type = type_.view();
    auto count = count_.view();
    exec_.parallel_for(g.cells(), FS_LAMBDA(int cell) {
        const ivec3 ijk = g.cell_coords(cell);
        const dvec3 centre = g.cell_center(ijk.x, ijk.y, ijk.z);
        const int n = counted ? count[cell] : particles_in_cell(g, start, cell);
        count[cell] = n;
        if (in_box(cfg, centre) || in_sphere(cfg, centre))
            type[cell] = kSolid;
        else
            type[cell] = n > 0 ? kFluid : kAir;
    });
}

// Faces touching a solid take the solid's velocity: 0 at the domain's walls, an obstacle's
// own where a hand drags it (solid_face_velocity; the PIC-FLIP assignment, Gradient Operator: "set the
// velocity component at that face to the solid velocity").
template <class Exec>
void Pipeline<Exec>::enforce_solid_faces(const Config& c) {
    const MacGrid g = c.grid;
    const Config cfg = c;
    auto type = type_.cview();
    for (int a = 0; a < 3; ++a) {
        const Faces faces = Faces::of(g, a);
        auto u = face_[a].view();
        auto valid = valid_[a].view();
        for_each_face(exec_, g, faces, type, FS_LAMBDA(int f, ivec3 hi, const FaceCells& cells) {
            if (cells.lo == kSolid || cells.hi == kSolid) {
                u[f] = solid_face_velocity(cfg, faces, hi);
                valid[f] = 1;
            }
        });
    }
}

// The walls' friction on the tangential faces beside them (wall_friction_face), before the
// projection, so that the velocity it leaves is divergence-free again.
template <class Exec>
void Pipeline<Exec>::wall_friction(const Config& c) {
    const MacGrid g = c.grid;
    const Config cfg = c;
    auto type = type_.cview();
    for (int a = 0; a < 3; ++a) {
        const Faces faces = Faces::of(g, a);
        auto u = face_[a].view();
        for_each_face(exec_, g, faces, type, FS_LAMBDA(int f, ivec3 hi, const FaceCells& cells) {
            u[f] = wall_friction_face(cfg, type, faces, cells, hi, u[f]);
        });
    }
}

// the PIC-FLIP assignment, Divergence Operator (divergence_at) on the fluid cells, and the pressure
// equation's right-hand side
// b = -(rho dx^2 / dt) div (the solver's A is the positive 7-point Laplacian).
template <class Exec>
void Pipeline<Exec>::divergence(const Config& c) {
    if (c.wall_friction > 0.0) wall_friction(c);
    enforce_solid_faces(c);
    divergence_pass(c, rhs_.view(), -c.density * c.grid.dx * c.grid.dx / c.dt, 0);
}

// One pass over the cells: the largest |div u| (the step report's div_max_before, slot 0,
// or div_max_after, slot 1) left on the device for report(), and, where b is given, b = scale
// div u as well.
template <class Exec>
void Pipeline<Exec>::divergence_pass(const Config& c, View<double> b, double scale, int slot) {
    const MacGrid g = c.grid;
    auto u = face_[0].cview();
    auto v = face_[1].cview();
    auto w = face_[2].cview();
    auto type = type_.cview();
    const bool write = b.size > 0;
    exec_.transform_reduce_into(
        g.cells(), 0.0,
        FS_LAMBDA(int cell) {
            const double d = divergence_at(g, type, u, v, w, cell);
            if (write) b[cell] = scale * d;
            return std::fabs(d);
        },
        MaxOp{}, div_max_.data() + slot);
}

template <class Exec>
typename PressureSolver<Exec>::Settings Pipeline<Exec>::solver_settings(const PressureSettings& ps) const {
    typename PressureSolver<Exec>::Settings s;
    s.cells_version = types_version_;
    s.method = ps.method;
    s.iterations = ps.iterations;
    s.jacobi_alpha = ps.jacobi_alpha;
    s.sor_omega = ps.sor_omega;
    s.tolerance = ps.tolerance;
    s.max_iterations = ps.max_iterations;
    return s;
}

template <class Exec>
void Pipeline<Exec>::pressure_solve(const Config& c, const PressureSettings& ps) {
    const auto r = solver_.solve(exec_, c.grid, type_.cview(), rhs_.cview(), pressure_.view(), solver_settings(ps));
    iterations_ = r.iterations;
    residual_ = r.residual;
}

// the PIC-FLIP assignment, Gradient Operator: u -= (dt / rho) (p_right - p_left) / dx on faces next to
// fluid (p = 0 in air); faces touching a solid keep the solid's velocity (face_pressure,
// solid_face_velocity).
template <class Exec>
void Pipeline<Exec>::pressure_gradient(const Config& c) {
    const MacGrid g = c.grid;
    const Config cfg = c;
    auto type = type_.cview();
    auto p = pressure_.cview();
    const double k = c.dt / (c.density * g.dx);
    for (int a = 0; a < 3; ++a) {
        const Faces faces = Faces::of(g, a);
        auto u = face_[a].view();
        auto valid = valid_[a].view();
        for_each_face(exec_, g, faces, type, FS_LAMBDA(int f, ivec3 at, const FaceCells& cells) {
            const FacePressure fp = face_pressure(cells, p);
            if (fp.kind == kSolidFace) {
                u[f] = solid_face_velocity(cfg, faces, at);
            } else if (fp.kind == kFluidFace) {
                u[f] -= k * fp.dp;
                valid[f] = 1;
            }
        });
    }
    divergence_pass(c, View<double>{}, 0.0, 1);
}

// Volume correction (optional; past the PIC-FLIP assignment, whose FLIP particles drift together and lose
// volume). Implicit density projection after Kugelstadt et al. 2019, with the particle
// count as the density: crowded particles are moved apart by a displacement d = -grad q with
//   div d = k (n / n0 - 1)        (n: particles in the cell, n0 = particles_per_cell,
//                                  k = volume_correction, the share of the excess removed),
// so A q = dx^2 k (n / n0 - 1) with A, q = 0 in air and no flux through solids as in the
// pressure solve (same solver, same settings). Bulk cells (is_bulk_cell) are corrected both
// ways, so the noise of their counts averages out instead of pushing the fluid apart; cells at
// the surface only when over-full, being rightly part empty. Positions move, velocities do
// not: unlike a divergence source in the pressure solve, which FLIP would keep in the
// particles' velocities, it adds no kinetic energy. It runs before G2P, while the particles
// still sit where the occupancy counted them; G2P moves them by d (g2p_pic_flip).
template <class Exec>
void Pipeline<Exec>::correct_volume(const Config& c, const PressureSettings& ps) {
    correction_iterations_ = 0;
    if (!(c.volume_correction > 0.0)) return;
    const MacGrid g = c.grid;
    const double n0 = c.particles_per_cell;
    const double scale = c.volume_correction * g.dx * g.dx;
    auto type = type_.cview();
    auto count = count_.cview();
    auto b = rhs_.view();  // the pressure solve is done with it
    exec_.parallel_for(g.cells(), FS_LAMBDA(int cell) {
        double excess = 0.0;
        if (type[cell] == kFluid) {
            excess = count[cell] / n0 - 1.0;
            if (excess < 0.0 && !is_bulk_cell(g, type, count, n0, cell)) excess = 0.0;
        }
        b[cell] = scale * excess;
    });
    // A fresh problem each step (the counts' noise does not persist), so q starts from 0; and
    // MGPCG need not go past a relative 1e-2, which moves the particles to within 1% of
    // what the exact q would (the sweeps of Jacobi and Gauss-Seidel stay the user's).
    correction_q_.resize(rhs_.size());  // allocates only when the grid grows
    correction_q_.fill_zero();
    auto settings = solver_settings(ps);
    settings.tolerance = std::max(settings.tolerance, kCorrectionTolerance);
    settings.measure_residual = false;
    const auto r = solver_.solve(exec_, g, type, rhs_.cview(), correction_q_.view(), settings);
    correction_iterations_ = r.iterations;
    // d = -grad q on the faces next to fluid; 0 on faces touching a solid, moving or not (no
    // flux through solids: the correction moves particles, never into a body), and between
    // two air cells (G2P reads d with the velocity's faces and weights).
    auto q = correction_q_.cview();
    for (int a = 0; a < 3; ++a) {
        const Faces faces = Faces::of(g, a);
        shift_[a].resize(faces.count());  // as correction_q_
        auto d = shift_[a].view();
        const double inv_dx = 1.0 / g.dx;
        for_each_face(exec_, g, faces, type, FS_LAMBDA(int f, ivec3, const FaceCells& cells) {
            const FacePressure fq = face_pressure(cells, q);
            d[f] = fq.kind == kFluidFace ? -fq.dp * inv_dx : 0.0;
        });
    }
    shift_ready_ = true;
}

}  // namespace fs::flip
