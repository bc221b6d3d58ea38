// Per-particle and per-face bodies of the PIC/FLIP solver (the PIC-FLIP assignment;
// Zhu and Bridson 2005), shared by the CPU and CUDA pipelines.
#pragma once

#include <cmath>

#include <glm/glm.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "core/reduce_ops.hpp"
#include "solvers/common/hands.hpp"
#include "solvers/common/motion_sums.hpp"
#include "solvers/flip/mac_grid.hpp"

namespace fs::flip {

using glm::dvec3;
using glm::ivec3;

enum Weights : int { kLinear = 0, kQuadratic = 1 };
// What a particle carries between the grid transfers: a velocity (PIC/FLIP blend, the PIC-FLIP assignment), or
// a velocity and an affine part per component (APIC, Jiang et al. 2015).
enum Scheme : int { kPicFlip = 0, kApic = 1 };
// How the advect stage moves particles: the PIC-FLIP assignment's forward Euler with the particle's velocity, or
// through the grid's velocity by the midpoint rule or Ralston's third-order Runge-Kutta.
enum Advection : int { kForwardEuler = 0, kRk2 = 1, kRk3 = 2 };

// max(t, 0) as (t + |t|) / 2, exactly (both steps are exact), without a branch.
FS_HDI double positive_part(double t) { return 0.5 * (t + std::fabs(t)); }

// The 1D transfer kernels, of a distance in cells: linear ("tent", the PIC-FLIP assignment's trilinear
// weights: max(0, 1 - |x|)) and the quadratic B-spline (support 1.5 cells: 3/4 - x^2 for
// |x| < 1/2, (3/2 - |x|)^2 / 2 for |x| < 3/2). The PIC-FLIP assignment calls its 3x3x3 kernel a "cubic"
// B-spline, but a B-spline reaching 3 nodes per axis is the quadratic one: the cubic spans 4
// (support 2 cells). This is the kernel the assignment means. Written without data-dependent branches: in
// the transfers' inner loops a particle is about as often inside as outside the support, and
// the compiler keeps plain ternaries as branches that mispredict.
FS_HDI double kernel_1d(double x, int weights) {
    x = std::fabs(x);
    if (weights == kLinear) return positive_part(1.0 - x);
    const double t = positive_part(1.5 - x);
    const double inner = x < 0.5 ? 1.0 : 0.0;  // a setcc, not a jump
    return inner * (0.75 - x * x) + (1.0 - inner) * (0.5 * t * t);
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
    // The same as an offset of g's cell indices: cell(lower_cell(c)) = cell(c) - cell_stride(g).
    FS_HDI int cell_stride(const MacGrid& g) const { return axis == 0 ? 1 : axis == 1 ? g.nx : g.nx * g.ny; }
};

// Faces::coords without its divisions: the cells' CellCoords (mac_grid.hpp) over a component's
// fx by fy rows of faces; made once per loop on the host.
struct FaceCoords : CellCoords {
    explicit FaceCoords(const Faces& f) : CellCoords(f.fx, f.fy) {}
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

// P2G sorts the particles by half cell (each cell split in 2 x 2 x 2), so that every face
// reads exactly the particles its kernel reaches, as whole rows of half cells along x: half cell
// (hx, hy, hz) has index hx + 2 nx (hy + 2 ny hz) and holds the points with 2u in [h, h + 1) on
// each axis (u in cell units), clamped into the grid like cell_index. u2 = 2u along one axis;
// for u2 >= 0 truncation is the floor.
FS_HDI int half_cell_1d(double u2, int n2) {
    if (!(u2 >= 0.0)) return 0;
    return u2 >= n2 - 1 ? n2 - 1 : static_cast<int>(u2);
}
FS_HDI int half_cell_index(const MacGrid& g, dvec3 u) {
    const int hx = half_cell_1d(2.0 * u.x, 2 * g.nx);
    const int hy = half_cell_1d(2.0 * u.y, 2 * g.ny);
    const int hz = half_cell_1d(2.0 * u.z, 2 * g.nz);
    return hx + 2 * g.nx * (hy + 2 * g.ny * hz);
}
// The row of half cells along x that holds u: hy + 2 ny hz. The CPU's scatter (p2g_scatter)
// needs its particles by row only, and takes hx from each particle.
FS_HDI int half_row_index(const MacGrid& g, dvec3 u) {
    const int hy = half_cell_1d(2.0 * u.y, 2 * g.ny);
    const int hz = half_cell_1d(2.0 * u.z, 2 * g.nz);
    return hy + 2 * g.ny * hz;
}
// The particles of a cell, from the half cells' starts: 4 rows of 2 half cells.
FS_HDI int particles_in_cell(const MacGrid& g, View<const int> half_start, int cell) {
    const ivec3 q = g.cell_coords(cell);
    int n = 0;
    for (int oz = 0; oz < 2; ++oz)
        for (int oy = 0; oy < 2; ++oy) {
            const int h = 2 * q.x + 2 * g.nx * (2 * q.y + oy + 2 * g.ny * (2 * q.z + oz));
            n += half_start[h + 2] - half_start[h];
        }
    return n;
}

// One particle's P2G terms for one component's faces (the CPU's scatter, Pipeline::p2g_scatter):
// the PIC-FLIP assignment's trilinear weight w = k(dx) k(dy) k(dz) (or the quadratic B-spline's), added as
// w v_a (APIC: w (v_a + c . (x_f - x_p)), Jiang et al. 2015) and w to every face within
// reach. u is the position in cell units and h its half cell (half_cell_1d on each axis, so a
// point clamped into the grid reaches the faces the gather's rows give it); the first face
// along an axis is (h + 2 - hb) >> 1 with hb = 2 (offset + support), as in p2g_axis. Each
// term is computed as p2g_axis computes it (the same operands in the same order), so the two
// transfers differ only in the order each face sums its terms.
template <int W, bool Apic>
FS_HDI void p2g_add(const Faces& f, ivec3 h, dvec3 u, double va, dvec3 cq, double dx, View<double> sum,
                    View<double> wsum) {
    constexpr int kReach = W == kLinear ? 2 : 3;  // faces per axis
    const double s = W == kLinear ? 1.0 : 1.5;    // kernel_support
    const dvec3 off = f.position(ivec3(0));
    int base[3];
    double k[3][kReach];
    for (int d = 0; d < 3; ++d) {
        base[d] = (h[d] + 2 - static_cast<int>(2.0 * (off[d] + s))) >> 1;
        for (int m = 0; m < kReach; ++m) k[d][m] = kernel_1d(u[d] - ((base[d] + m) + off[d]), W);
    }
#if !defined(__CUDA_ARCH__)
    // The CPU's path for the linear kernel where all 8 faces lie inside the grid (all but the
    // particles at the walls): each row's two faces, adjacent in memory, as one pair of doubles,
    // one load, add and store for the pair's sums and one for their weights, instead of two
    // each behind bounds tests. The same terms, (kx ky) kz and w v, added in the same order:
    // the same bits as the loops below.
    if constexpr (W == kLinear && !Apic) {
        if (base[0] >= 0 && base[0] + 1 < f.fx && base[1] >= 0 && base[1] + 1 < f.fy && base[2] >= 0 &&
            base[2] + 1 < f.fz) {
            typedef double Pair __attribute__((vector_size(16)));
            const Pair kx = {k[0][0], k[0][1]};
            for (int c = 0; c < 2; ++c)
                for (int b = 0; b < 2; ++b) {
                    double* const at_sum = sum.data + f.index(base[0], base[1] + b, base[2] + c);
                    double* const at_w = wsum.data + (at_sum - sum.data);
                    const Pair w = (kx * k[1][b]) * k[2][c];
                    Pair t, tw;
                    __builtin_memcpy(&t, at_sum, sizeof t);
                    __builtin_memcpy(&tw, at_w, sizeof tw);
                    t += w * va;
                    tw += w;
                    __builtin_memcpy(at_sum, &t, sizeof t);
                    __builtin_memcpy(at_w, &tw, sizeof tw);
                }
            return;
        }
    }
#endif
    for (int c = 0; c < kReach; ++c) {
        const int kk = base[2] + c;
        if (kk < 0 || kk >= f.fz) continue;
        for (int b = 0; b < kReach; ++b) {
            const int jj = base[1] + b;
            if (jj < 0 || jj >= f.fy) continue;
            const int row = f.index(0, jj, kk);
            for (int m = 0; m < kReach; ++m) {
                const int ii = base[0] + m;
                if (ii < 0 || ii >= f.fx) continue;
                const double w = k[0][m] * k[1][b] * k[2][c];
                if (Apic) {
                    const dvec3 d = dx * (dvec3((ii + off.x), (jj + off.y), (kk + off.z)) - u);  // x_f - x_p
                    sum[row + ii] += w * (va + cq.x * d.x + cq.y * d.y + cq.z * d.z);
                } else {
                    sum[row + ii] += w * va;
                }
                wsum[row + ii] += w;
            }
        }
    }
}

// The end of P2G at face f (both transfers): sum holds sum w v and wsum sum w; both become the
// face's value sum w v / sum w (the grid now, and the grid after P2G that FLIP's G2P reads), 0
// where no particle reached it, and valid says whether one did.
FS_HDI void finish_p2g_face(View<double> sum, View<double> wsum, View<unsigned char> valid, int f) {
    const double ws = wsum[f];
    const double value = ws > 0.0 ? sum[f] / ws : 0.0;
    sum[f] = value;
    wsum[f] = value;
    valid[f] = ws > 0.0 ? 1 : 0;
}

// A bulk cell: full of fluid, so its particle count measures the fluid's density. It is fluid,
// none of its 6 neighbours is air (walls outside the grid and solids count as solid), and it and
// its fluid neighbours hold on average at least half of n0 = particles_per_cell particles, which
// leaves out the sparse clouds of a splash whose every cell happens to hold a particle.
FS_HDI bool is_bulk_cell(const MacGrid& g, View<const unsigned char> type, View<const int> count, double n0,
                         int cell) {
    if (type[cell] != kFluid) return false;
    const ivec3 q = g.cell_coords(cell);
    int sum = count[cell], cells = 1;
    for (int axis = 0; axis < 3; ++axis)
        for (int side = -1; side <= 1; side += 2) {
            ivec3 r = q;
            r[axis] += side;
            if (!g.inside(r.x, r.y, r.z)) continue;
            const int nb = g.cell(r.x, r.y, r.z);
            if (type[nb] == kAir) return false;
            if (type[nb] == kFluid) {
                sum += count[nb];
                ++cells;
            }
        }
    return 2.0 * sum >= cells * n0;
}

// The nodes of one axis that a point reaches, at node coordinate r (nodes at the integers):
// the first node, the weights and their derivatives d w / d r, for 2 (linear) or 3 (quadratic)
// nodes. The same weights as kernel_1d(r - node), taken from the point's side so that a point
// exactly on a node still gets the one-sided gradient of the linear kernel.
struct Stencil1 {
    int base = 0;
    int n = 2;
    double w[3] = {0.0, 0.0, 0.0};
    double dw[3] = {0.0, 0.0, 0.0};
};
FS_HDI Stencil1 stencil_1d(double r, int weights) {
    Stencil1 s;
    if (weights == kLinear) {
        const double b = std::floor(r), f = r - b;  // f in [0, 1)
        s.base = static_cast<int>(b);
        s.n = 2;
        s.w[0] = 1.0 - f;
        s.w[1] = f;
        s.dw[0] = -1.0;
        s.dw[1] = 1.0;
        return s;
    }
    // The quadratic B-spline's three pieces (kernel_1d; as written in Jiang et al. 2016, "The
    // material point method for simulating continuum materials", SIGGRAPH course, sec. on
    // interpolation functions), with f = r - base in [0.5, 1.5) the distance to the first node.
    const double b = std::floor(r - 0.5), f = r - b;
    s.base = static_cast<int>(b);
    s.n = 3;
    s.w[0] = 0.5 * (1.5 - f) * (1.5 - f);
    s.w[1] = 0.75 - (f - 1.0) * (f - 1.0);
    s.w[2] = 0.5 * (f - 0.5) * (f - 0.5);
    s.dw[0] = -(1.5 - f);
    s.dw[1] = -2.0 * (f - 1.0);
    s.dw[2] = f - 0.5;
    return s;
}

// One velocity component at a point and its APIC affine vector c (row of the velocity
// gradient C, in 1/s), from the faces that carry a value.
struct AffineSample {
    double value = 0.0;
    dvec3 c{0.0};
};

// APIC's grid-to-particle transfer of one MAC component (Jiang et al. 2015, "The affine
// particle-in-cell method", with its per-component form for MAC grids; Ding, Shinar and
// Schroeder 2020, "Affine particle in cell method for MAC grids and fluid simulation", for
// smooth kernels on MAC grids):
//   u_p = sum_i w_ip u_i,      c_p = sum_i u_i b_ip,
// with b_ip = grad w_ip (multilinear kernel: then B_p D_p^-1 = sum_i u_i grad w_ip^T, which
// stays defined where D_p is singular) or b_ip = w_ip D^-1 (x_i - x_p) with D = dx^2/4 I
// (quadratic B-spline: B_p D_p^-1). Faces without a value (valid == 0) are left out and the
// weights renormalised, u_p = sum w u / sum w and c_p = sum b (u_i - u_p) / sum w: with the
// full stencil sum w = 1 and sum b = 0, so this is the paper's formula; near missing faces it
// keeps c = 0 for a uniform field.
FS_HDI AffineSample interpolate_affine(const Faces& f, View<const double> value, View<const unsigned char> valid,
                                       dvec3 u, int weights, double dx) {
    const dvec3 r = u - f.position(ivec3(0));  // node coordinates of this component's faces
    const Stencil1 sx = stencil_1d(r.x, weights), sy = stencil_1d(r.y, weights), sz = stencil_1d(r.z, weights);
    double sw = 0.0, swu = 0.0;
    dvec3 sb(0.0), sbu(0.0);
    for (int c = 0; c < sz.n; ++c) {
        const int k = sz.base + c;
        if (k < 0 || k >= f.fz) continue;
        for (int b = 0; b < sy.n; ++b) {
            const int j = sy.base + b;
            if (j < 0 || j >= f.fy) continue;
            for (int a = 0; a < sx.n; ++a) {
                const int i = sx.base + a;
                if (i < 0 || i >= f.fx) continue;
                const int idx = f.index(i, j, k);
                if (!valid[idx]) continue;
                const double w = sx.w[a] * sy.w[b] * sz.w[c];
                // b_ip in 1/cell (divided by dx below).
                const dvec3 bip = weights == kLinear
                                      ? dvec3(sx.dw[a] * sy.w[b] * sz.w[c], sx.w[a] * sy.dw[b] * sz.w[c],
                                              sx.w[a] * sy.w[b] * sz.dw[c])
                                      : 4.0 * w * (dvec3(i, j, k) - r);
                const double ui = value[idx];
                sw += w;
                swu += w * ui;
                sb += bip;
                sbu += bip * ui;
            }
        }
    }
    AffineSample s;
    if (sw > 0.0) {
        s.value = swu / sw;
        s.c = (sbu - s.value * sb) / (sw * dx);
    }
    return s;
}

// the PIC-FLIP assignment, Divergence Operator, at one cell: div = (u(i+1) - u(i) + v(j+1) - v(j) + w(k+1) -
// w(k)) / dx on fluid cells, 0 elsewhere (the divergence and pressure_gradient stages).
FS_HDI double divergence_at(const MacGrid& g, View<const unsigned char> type, View<const double> u,
                            View<const double> v, View<const double> w, int cell) {
    if (type[cell] != kFluid) return 0.0;
    const Faces fu = Faces::of(g, 0), fv = Faces::of(g, 1), fw = Faces::of(g, 2);
    const ivec3 q = g.cell_coords(cell);
    return (1.0 / g.dx) * (u[fu.index(q.x + 1, q.y, q.z)] - u[fu.index(q.x, q.y, q.z)] +
                           v[fv.index(q.x, q.y + 1, q.z)] - v[fv.index(q.x, q.y, q.z)] +
                           w[fw.index(q.x, q.y, q.z + 1)] - w[fw.index(q.x, q.y, q.z)]);
}

// What the pressure gradient does at a face (the PIC-FLIP assignment, Gradient Operator): a face touching a
// solid takes the solid's velocity (kSolidFace; solid_face_velocity); a face with air on both
// sides is left alone (kAirFace); otherwise the gradient is dp / dx with dp = p_hi - p_lo, p = 0
// in air (kFluidFace). p is read on fluid cells only.
enum FaceKind : int { kSolidFace = 0, kAirFace = 1, kFluidFace = 2 };
struct FacePressure {
    int kind = kAirFace;
    double dp = 0.0;
};
// A face's two cells as the face loops see them: their types (kSolid outside the grid) and the
// upper cell's index, the lower one's being cell_hi - stride (an index is read only where its
// cell is fluid, so only inside the grid).
struct FaceCells {
    unsigned char lo = kSolid, hi = kSolid;
    int cell_hi = 0, stride = 1;
};
// hi: the face's coordinates (faces.coords(f)).
FS_HDI FaceCells face_cells(const MacGrid& g, const Faces& faces, View<const unsigned char> type, ivec3 hi) {
    const ivec3 lo = faces.lower_cell(hi);
    FaceCells c;
    c.lo = cell_type(g, type, lo.x, lo.y, lo.z);
    c.hi = cell_type(g, type, hi.x, hi.y, hi.z);
    c.cell_hi = hi.x + g.nx * (hi.y + g.ny * hi.z);
    c.stride = faces.cell_stride(g);
    return c;
}
FS_HDI FacePressure face_pressure(const FaceCells& c, View<const double> p) {
    FacePressure r;
    if (c.lo == kSolid || c.hi == kSolid) {
        r.kind = kSolidFace;
    } else if (c.lo == kFluid || c.hi == kFluid) {
        const double pl = c.lo == kFluid ? p[c.cell_hi - c.stride] : 0.0;
        const double ph = c.hi == kFluid ? p[c.cell_hi] : 0.0;
        r.kind = kFluidFace;
        r.dp = ph - pl;
    }
    return r;
}
FS_HDI FacePressure face_pressure(const MacGrid& g, const Faces& faces, View<const unsigned char> type,
                                  View<const double> p, ivec3 hi) {
    return face_pressure(face_cells(g, faces, type, hi), p);
}
FS_HDI FacePressure face_pressure(const MacGrid& g, const Faces& faces, View<const unsigned char> type,
                                  View<const double> p, int f) {
    return face_pressure(g, faces, type, p, faces.coords(f));
}

// The weighted average of a face field at a point u (cell units) over the faces within the
// kernel's support that carry a value (valid != 0), sum w f / sum w (0 where none does), for the
// first N (1 to 3) of the fields a, b, c at once: G2P's grid now, after P2G, and the volume
// correction's displacement share one component's faces and weights. The 1D weights are
// stencil_1d's (the kernel's, node by node), taken once per axis and multiplied per face; the
// kernel W and N are template arguments, so the loops have fixed trip counts.
struct FaceValues {
    double v[3] = {0.0, 0.0, 0.0};
};
template <int W, int N>
FS_HDI FaceValues interpolate_faces(const Faces& f, View<const double> a, View<const double> b, View<const double> c,
                                    View<const unsigned char> valid, dvec3 u) {
    static_assert(N >= 1 && N <= 3, "one to three fields");
    const dvec3 r = u - f.position(ivec3(0));  // node coordinates of this component's faces
    const Stencil1 sx = stencil_1d(r.x, W), sy = stencil_1d(r.y, W), sz = stencil_1d(r.z, W);
    constexpr int n = W == kLinear ? 2 : 3;
    // Plain scalars, not an array, so that they stay in registers; a face without a value
    // weighs 0 (its stored value is finite: P2G writes 0 there) rather than taking a branch,
    // which mispredicts along the free surface. The same sums, term by term, as skipping it.
    double t0 = 0.0, t1 = 0.0, t2 = 0.0, wsum = 0.0;
    for (int zc = 0; zc < n; ++zc) {
        const int k = sz.base + zc;
        if (k < 0 || k >= f.fz) continue;
        for (int yc = 0; yc < n; ++yc) {
            const int j = sy.base + yc;
            if (j < 0 || j >= f.fy) continue;
            const double wyz = sy.w[yc] * sz.w[zc];
            const int row = f.index(0, j, k);
            for (int xc = 0; xc < n; ++xc) {
                const int i = sx.base + xc;
                if (i < 0 || i >= f.fx) continue;
                const double w = valid[row + i] ? sx.w[xc] * wyz : 0.0;
                t0 += w * a[row + i];
                if (N > 1) t1 += w * b[row + i];
                if (N > 2) t2 += w * c[row + i];
                wsum += w;
            }
        }
    }
    FaceValues t;
    if (wsum > 0.0) {  // one division, not N
        const double inv = 1.0 / wsum;
        t.v[0] = t0 * inv;
        if (N > 1) t.v[1] = t1 * inv;
        if (N > 2) t.v[2] = t2 * inv;
    }
    return t;
}

// The three components of a face vector field (one field per MAC component) at u, each the
// valid-face average of interpolate_faces.
template <int W>
FS_HDI dvec3 interpolate_vector(const Faces& f0, const Faces& f1, const Faces& f2, View<const double> a0,
                                View<const double> a1, View<const double> a2, View<const unsigned char> m0,
                                View<const unsigned char> m1, View<const unsigned char> m2, dvec3 u) {
    return dvec3(interpolate_faces<W, 1>(f0, a0, a0, a0, m0, u).v[0], interpolate_faces<W, 1>(f1, a1, a1, a1, m1, u).v[0],
                 interpolate_faces<W, 1>(f2, a2, a2, a2, m2, u).v[0]);
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
    double wall_friction = 0.0;      // Darcy f of the walls; 0: free-slip (flip_friction.hpp)
    int weights = kLinear;
    int scheme = kPicFlip;
    int advection = kForwardEuler;
    // A box obstacle (empty when hi <= lo) and a sphere (radius 0: none), in metres, where they
    // are in this step, and their velocities over it (a hand drags them; 0 otherwise).
    dvec3 box_lo{0.0}, box_hi{0.0};
    dvec3 sphere_center{0.0};
    double sphere_radius = 0.0;
    dvec3 box_velocity{0.0}, sphere_velocity{0.0};
    // Push and pull (solvers/common/hands.hpp): off unless a hand pushes or pulls.
    HandForce<dvec3> hand;
};

FS_HDI bool in_box(const Config& c, dvec3 x) {
    return x.x > c.box_lo.x && x.y > c.box_lo.y && x.z > c.box_lo.z && x.x < c.box_hi.x && x.y < c.box_hi.y &&
           x.z < c.box_hi.z;
}
FS_HDI bool in_sphere(const Config& c, dvec3 x) {
    const dvec3 d = x - c.sphere_center;
    return c.sphere_radius > 0.0 && d.x * d.x + d.y * d.y + d.z * d.z < c.sphere_radius * c.sphere_radius;
}

// The velocity component (along the faces' axis) of the solid at a face that touches one
// (kSolidFace): the domain's walls stand still, 0; an obstacle's cell (the occupancy stage's
// test of its centre, box before sphere) gives that obstacle's velocity. the PIC-FLIP assignment, Gradient
// Operator: "set the velocity component at that face to the solid velocity"; Bridson, Fluid
// Simulation for Computer Graphics, 2nd ed., 5.1: u_face = u_solid for moving solids, so the
// divergence the projection removes counts the flux the solid pushes into the fluid.
FS_HDI double solid_face_velocity(const Config& c, const Faces& faces, ivec3 hi) {
    const MacGrid& g = c.grid;
    const ivec3 lo = faces.lower_cell(hi);
    if (!g.inside(lo.x, lo.y, lo.z) || !g.inside(hi.x, hi.y, hi.z)) return 0.0;
    const ivec3 sides[2] = {hi, lo};
    for (const ivec3 q : sides) {
        const dvec3 centre = g.cell_center(q.x, q.y, q.z);
        if (in_box(c, centre)) return c.box_velocity[faces.axis];
        if (in_sphere(c, centre)) return c.sphere_velocity[faces.axis];
    }
    return 0.0;
}

// Particles never leave the domain or enter solids: a particle found outside is put back on the
// nearest boundary, and the component of its velocity into the solid, relative to the solid's
// velocity, is removed (Bridson 2015, 5.1: the normal velocity of fluid and solid agree at
// the boundary; the fluid may slide along it and leave it). A moving obstacle that has come
// over a particle pushes it out the same way.
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
    if (in_box(c, x)) {  // out through the nearest face that does not lie on the domain's walls
        int best = 0;
        double dist = 1e300, target = 0.0;
        for (int a = 0; a < 3; ++a) {
            // A face at a wall leads out of the domain: only when every face does (a box
            // filling the domain) is one of those taken.
            const double dl = x[a] - c.box_lo[a] + (c.box_lo[a] - eps >= lo[a] ? 0.0 : 1e200);
            const double dh = c.box_hi[a] - x[a] + (c.box_hi[a] + eps <= hi[a] ? 0.0 : 1e200);
            if (dl < dist) { dist = dl; best = a; target = c.box_lo[a] - eps; }
            if (dh < dist) { dist = dh; best = a; target = c.box_hi[a] + eps; }
        }
        const bool upper = target > x[best];
        x[best] = target;
        const double rel = v[best] - c.box_velocity[best];
        if (upper ? rel < 0 : rel > 0) v[best] = c.box_velocity[best];
    }
    if (in_sphere(c, x)) {
        dvec3 n = x - c.sphere_center;
        const double len = std::sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
        n = len > 0 ? n / len : dvec3(0, 1, 0);
        x = c.sphere_center + (c.sphere_radius + eps) * n;
        const dvec3 rel = v - c.sphere_velocity;
        const double vn = rel.x * n.x + rel.y * n.y + rel.z * n.z;
        if (vn < 0) v -= vn * n;
        // A sphere against a wall pushes out towards it: back into the domain.
        for (int a = 0; a < 3; ++a) x[a] = x[a] < lo[a] ? lo[a] : (x[a] > hi[a] ? hi[a] : x[a]);
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

// Per-step sums for the stats: the motion's (solvers/common/motion_sums.hpp), per unit particle mass.
using Sums = MotionSums<dvec3>;
// One particle's share of the Sums (kinetic energy per unit particle mass, scaled by the solver).
FS_HDI Sums particle_sums(dvec3 x, dvec3 v) {
    Sums s;
    const double v2 = v.x * v.x + v.y * v.y + v.z * v.z;
    s.kinetic_energy = 0.5 * v2;
    s.momentum = v;
    s.max_speed2 = v2;
    s.nonfinite = std::isfinite(v2 + x.x + x.y + x.z) ? 0 : 1;
    return s;
}
struct SumsOp {
    FS_HDI Sums operator()(const Sums& a, const Sums& b) const {
        Sums s;
        s.join_motion(a, b);
        return s;
    }
};
// The step report's tally of the cells: fluid cells, and the bulk cells (is_bulk_cell) with
// their particles. Counts as doubles: exact below 2^53.
struct CellTally {
    double fluid = 0.0, bulk_particles = 0.0, bulk_cells = 0.0;
};
struct CellTallyOp {
    FS_HDI CellTally operator()(const CellTally& a, const CellTally& b) const {
        return CellTally{a.fluid + b.fluid, a.bulk_particles + b.bulk_particles, a.bulk_cells + b.bulk_cells};
    }
};
using SumOp = fs::Plus;  // core/reduce_ops.hpp
using AddOp = fs::Plus;
using MaxOp = fs::Largest;

}  // namespace fs::flip
