// Per-cell bodies of the optimal-transport liquid (the particle tutorial's last chapter:
// a liquid whose particles are cells of fixed area), shared by the CPU and CUDA pipelines.
//
// A particle i at x_i with weight w_i owns its Laguerre cell (power cell)
//   L_i = { y in the box : |y - x_i|^2 - w_i <= |y - x_j|^2 - w_j for every j },
// the box clipped by the power bisectors of the others (semi-discrete optimal transport between
// the uniform measure on the box and the particles: Kitagawa, Merigot & Thibert 2019, sec. 2).
// Each cell is computed on its own, as in "Meshless Voronoi on the GPU" (Ray, Sokolov, Lefebvre &
// Levy 2018), extended here to power diagrams: clip by the neighbours ring by ring of the search
// grid, and stop when a security radius proves that no farther particle can cut the cell.
#pragma once

#include <cmath>

#include <glm/glm.hpp>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "solvers/common/grid2d.hpp"
#include "solvers/common/hands.hpp"
#include "solvers/common/motion_sums.hpp"

namespace fs::ot {

// x brought into [lo, hi] by mirroring what lies past a wall at that wall (and clamped, should it
// lie past the other wall too: an overshoot longer than the box).
FS_HDI double mirror_into(double x, double lo, double hi) {
    const double m = x < lo ? lo + (lo - x) : (x > hi ? hi - (x - hi) : x);
    return fmin(fmax(m, lo), hi);
}

using glm::dvec2;

// The most edges a cell may have. Cells of a liquid of equal areas have about six; a cell that
// would need more is reported (Sums::overflow), never cut short silently.
constexpr int kMaxEdges = 64;
// Edge tags for the box's sides (a cell's edge lies on a bisector of neighbour j >= 0, or on one
// of the walls).
constexpr int kWall = -1;

// Everything a stage needs, as plain values.
struct Config {
    dvec2 lo{0.0, 0.0}, hi{1.0, 1.0};  // the box
    double dt = 0.005;
    dvec2 gravity{0.0, -9.81};
    HandForce<dvec2> hand;  // push and pull (core/hands.hpp)
    double epsilon = 0.01;    // the scheme's stiffness time (s): a cell's centroid pulls its particle at 1/eps^2
    double rho_min = 1.0;     // the lightest fluid's density (kg/m^2)
    // The pressure per volume per metre of offset is rho_pull / eps^2, so a particle's pull per mass
    // is rho_pull / (eps^2 rho_i): rho_pull is the density the buoyancy acts with (OtSolver::on_upload).
    double rho_pull = 1.0;
    double weight_max = 0.0;  // the largest weight (the security radius needs it)
    // Partial transport (a free surface, Levy 2022): the liquid covers less than the box, and a
    // cell is its Laguerre cell cut by the disk |y - x_i|^2 <= w_i (the air's power is 0).
    bool free_surface = false;
    double viscosity = 0.0;  // kinematic (m^2/s), between neighbouring cells
    // A closed box: the density whose weight, rho_ref g per volume, the pressure carries without
    // the pull (see OtSolver::on_upload); 0 with a free surface.
    double rho_ref = 0.0;
    double mode_k = 0.0;  // Rayleigh-Taylor: the perturbation's wavenumber (its amplitude's stat)
    grid::Grid2 grid;         // the search grid over the box
};

// A convex polygon and, for each edge k (from v[k] to v[k+1]), what made it: a neighbour's index
// or kWall.
struct Poly {
    int n = 0;
    dvec2 v[kMaxEdges];
    int tag[kMaxEdges];
};

// Keeps the part of p where a.y <= b (Sutherland-Hodgman against one half-plane) in out; the new
// edge along the line gets `tag`. Returns false when the result would have more than kMaxEdges
// edges. A line that leaves every vertex inside costs one pass and no copy (most of the
// particles a search offers do not cut the cell: they only prove they do not).
FS_HDI bool clip(const Poly& p, dvec2 a, double b, int tag, Poly& out, bool& cut) {
    cut = false;
    for (int k = 0; k < p.n && !cut; ++k) cut = a.x * p.v[k].x + a.y * p.v[k].y - b > 0.0;
    if (!cut) return true;
    out.n = 0;
    auto push = [&](dvec2 v, int t) {
        if (out.n >= kMaxEdges) return false;
        out.v[out.n] = v;
        out.tag[out.n] = t;
        ++out.n;
        return true;
    };
    for (int k = 0; k < p.n; ++k) {
        const dvec2 s = p.v[k], e = p.v[(k + 1) % p.n];
        const double fs_ = a.x * s.x + a.y * s.y - b, fe = a.x * e.x + a.y * e.y - b;
        if (fs_ <= 0.0) {
            // s stays. Its edge leaves along the old edge while e stays or the crossing lies
            // past s; from a vertex on the line with e outside, it runs along the line.
            if (!push(s, fe > 0.0 && fs_ == 0.0 ? tag : p.tag[k])) return false;
            if (fs_ < 0.0 && fe > 0.0 && !push(s + (fs_ / (fs_ - fe)) * (e - s), tag)) return false;
        } else if (fe < 0.0) {  // coming back in: the crossing starts the rest of the old edge
            if (!push(s + (fs_ / (fs_ - fe)) * (e - s), p.tag[k])) return false;
        }
    }
    return true;
}

// Area, centroid and the second moment about x (the integral of |y - x|^2 over the cell) of a
// cell, with the vertices taken relative to x for precision. The cell is the polygon, cut by the
// disk of radius r about x when `disk` (partial transport). Each edge (a, b) adds its fan
// triangle (x, a, b) cut by the disk, with signs, so x may lie outside the cell: where the edge
// runs inside the disk, the triangle's shoelace terms ((1/2) cross for the area, (1/6) cross (a + b)
// for the first moment, (1/12) cross (a.a + a.b + b.b) for the second); where it runs outside, the
// circular sector between the directions of its ends (angle phi: area r^2 phi / 2, first moment
// (r^3 / 3) (sin phi2 - sin phi1, cos phi1 - cos phi2), second moment r^4 phi / 4, arc r phi).
struct Moments {
    double area = 0.0;
    dvec2 centroid{0.0, 0.0};
    double second = 0.0;
    double arc = 0.0;  // the length of the cell's boundary on the disk (the liquid's surface)
};

// The part of the segment a + t (b - a), t in [0, 1], inside the circle |y| = r: [t0, t1], empty
// when t0 >= t1.
FS_HDI void chord(dvec2 a, dvec2 b, double r, double& t0, double& t1) {
    const dvec2 d = b - a;
    const double A = d.x * d.x + d.y * d.y, B = a.x * d.x + a.y * d.y, C = a.x * a.x + a.y * a.y - r * r;
    const double disc = B * B - A * C;
    if (!(A > 0.0) || disc <= 0.0) {
        t0 = 1.0;
        t1 = 0.0;
        return;
    }
    const double sq = sqrt(disc);
    t0 = fmax((-B - sq) / A, 0.0);
    t1 = fmin((-B + sq) / A, 1.0);
}

struct MomentSums {
    double a2 = 0.0, s12 = 0.0, arc = 0.0;  // twice the area, twelve times the second moment
    dvec2 c6{0.0, 0.0};                     // six times the first moment
    FS_HDI void triangle(dvec2 a, dvec2 b) {
        const double cross = a.x * b.y - b.x * a.y;
        a2 += cross;
        c6 += cross * (a + b);
        s12 += cross * (a.x * a.x + a.x * b.x + b.x * b.x + a.y * a.y + a.y * b.y + b.y * b.y);
    }
    FS_HDI void sector(dvec2 a, dvec2 b, double r) {
        const double phi = atan2(a.x * b.y - b.x * a.y, a.x * b.x + a.y * b.y);
        const dvec2 u = a * (1.0 / sqrt(a.x * a.x + a.y * a.y)), v = b * (1.0 / sqrt(b.x * b.x + b.y * b.y));
        a2 += r * r * phi;
        c6 += (2.0 * r * r * r) * dvec2(v.y - u.y, u.x - v.x);
        s12 += 3.0 * r * r * r * r * phi;
        arc += r * phi;
    }
};

FS_HDI Moments moments(const Poly& p, dvec2 x, bool disk = false, double r = 0.0) {
    MomentSums s;
    for (int k = 0; k < p.n; ++k) {
        const dvec2 a = p.v[k] - x, b = p.v[(k + 1) % p.n] - x;
        if (!disk) {
            s.triangle(a, b);
            continue;
        }
        double t0, t1;
        chord(a, b, r, t0, t1);
        if (t0 >= t1) {
            s.sector(a, b, r);
            continue;
        }
        const dvec2 p0 = a + t0 * (b - a), p1 = a + t1 * (b - a);
        if (t0 > 0.0) s.sector(a, p0, r);
        s.triangle(p0, p1);
        if (t1 < 1.0) s.sector(p1, b, r);
    }
    Moments m;
    m.area = 0.5 * s.a2;
    m.centroid = m.area > 0.0 ? x + s.c6 * (1.0 / (3.0 * s.a2)) : x;
    m.second = s.s12 / 12.0;
    m.arc = s.arc;
    return m;
}

// The length of edge (a, b) inside the disk of radius r about x (all of it without a disk).
FS_HDI double edge_length(dvec2 a, dvec2 b, dvec2 x, bool disk, double r) {
    const dvec2 d = b - a;
    const double l = sqrt(d.x * d.x + d.y * d.y);
    if (!disk) return l;
    double t0, t1;
    chord(a - x, b - x, r, t0, t1);
    return t1 > t0 ? (t1 - t0) * l : 0.0;
}

// Cell i: the box clipped by the bisectors of the particles the visitor offers, ring by ring.
// The power bisector of i and j is the line 2 y.(x_j - x_i) = |x_j|^2 - |x_i|^2 + w_i - w_j; its
// distance from x_i along x_j - x_i is (r^2 + w_i - w_j) / (2 r), r = |x_j - x_i|, never below
// (r^2 - D) / (2 r) with D = max_j w_j - w_i. So j cannot cut a cell all of whose vertices lie
// within R of x_i once r >= R + sqrt(R^2 + D): the security radius. Ring k of grid cells holds
// only particles at least (k - 1) cell widths away, so the search stops after the ring beyond it.
// Coincident particles (r = 0) have no bisector: the larger weight keeps the cell (the lower
// index on a tie, like the brute force's argmin), the other's is empty.
struct CellSearch {
    grid::Grid2 grid;
    View<const int> cell_start;  // the grid's cell ranges of slots
    View<const int> order;       // slot -> particle
    View<const dvec2> pos;
    View<const double> weight;

    // Returns false when the cell needs more than kMaxEdges edges. The polygon is clipped back
    // and forth between `p` and a second one, and ends in `p`.
    FS_HDI bool cell(int i, const Config& c, Poly& p, int& tests) const {
        Poly q;
        Poly* cur = &p;
        Poly* other = &q;
        const bool ok = cell_into(i, c, cur, other, tests);
        if (cur != &p) p = *cur;
        return ok;
    }

    // The largest w_j - |x_i - x_j|^2 over the other particles: cell i holds x_i itself (so is
    // not empty) when w_i exceeds it, since the power distances at x_i are then -w_i against
    // |x_i - x_j|^2 - w_j. Only particles within sqrt(max w - w_i) of x_i can reach w_i, so the
    // rings stop there. -1e300 where none can.
    FS_HDI double dominance(int i, double weight_max) const {
        const dvec2 xi = pos[i];
        const double wi = weight[i];
        const int cx = grid.cx(xi.x), cy = grid.cy(xi.y);
        const double width = fmin(1.0 / grid.inv_cell.x, 1.0 / grid.inv_cell.y);
        const int rings = grid.nx > grid.ny ? grid.nx : grid.ny;
        const double reach = sqrt(fmax(0.0, weight_max - wi));
        double best = -1e300;
        for (int ring = 0; ring <= rings && (ring - 1) * width < reach; ++ring)
            each_in_ring(i, cx, cy, ring, [&](int j) {
                const dvec2 d = pos[j] - xi;
                best = fmax(best, weight[j] - (d.x * d.x + d.y * d.y));
                return true;
            });
        return best;
    }

    // visit(j) for every particle j != i in ring `ring` of grid cells about cell (cx, cy) (ring 0:
    // that cell), row by row, in the grid's order; false from visit ends the walk, and is
    // returned.
    template <class Visit>
    FS_HDI bool each_in_ring(int i, int cx, int cy, int ring, Visit&& visit) const {
        for (int y = cy - ring; y <= cy + ring; ++y) {
            if (y < 0 || y >= grid.ny) continue;
            const bool edge_row = y == cy - ring || y == cy + ring;
            for (int x = cx - ring; x <= cx + ring; x += edge_row ? 1 : 2 * ring) {
                if (x >= 0 && x < grid.nx) {
                    const int g = y * grid.nx + x;
                    for (int s = cell_start[g]; s < cell_start[g + 1]; ++s) {
                        const int j = order[s];
                        if (j != i && !visit(j)) return false;
                    }
                }
                if (ring == 0) break;
            }
        }
        return true;
    }

    FS_HDI bool cell_into(int i, const Config& c, Poly*& cur, Poly*& other, int& tests) const {
        Poly& p0 = *cur;
        const dvec2 xi = pos[i];
        const double wi = weight[i];
        // The box; with a free surface, only the square about the disk |y - x_i|^2 <= w_i (a
        // cell with w_i <= 0 is empty: the air has it all).
        dvec2 lo = c.lo, hi = c.hi;
        if (c.free_surface) {
            if (!(wi > 0.0)) {
                p0.n = 0;
                return true;
            }
            const double r = sqrt(wi);
            lo = dvec2(fmax(lo.x, xi.x - r), fmax(lo.y, xi.y - r));
            hi = dvec2(fmin(hi.x, xi.x + r), fmin(hi.y, xi.y + r));
        }
        p0.n = 4;
        p0.v[0] = lo;
        p0.v[1] = dvec2(hi.x, lo.y);
        p0.v[2] = hi;
        p0.v[3] = dvec2(lo.x, hi.y);
        for (int k = 0; k < 4; ++k) p0.tag[k] = kWall;
        const int cx = grid.cx(xi.x), cy = grid.cy(xi.y);
        const double width = fmin(1.0 / grid.inv_cell.x, 1.0 / grid.inv_cell.y);
        const int rings = grid.nx > grid.ny ? grid.nx : grid.ny;
        // The cell's reach: every vertex lies within sqrt(R2) of x_i (kept as the cuts shrink it).
        auto reach2 = [&] {
            double m = 0.0;
            for (int k = 0; k < cur->n; ++k) {
                const dvec2 d = cur->v[k] - xi;
                m = fmax(m, d.x * d.x + d.y * d.y);
            }
            return m;
        };
        double R2 = reach2();
        tests = 0;
        for (int ring = 0; ring <= rings; ++ring) {
            // Everything not yet visited lies at least (ring - 1) widths from x_i.
            if (ring >= 2) {
                const double R = sqrt(R2);
                if ((ring - 1) * width >= R + sqrt(R2 + fmax(0.0, c.weight_max - wi))) break;
            }
            bool result = true;  // what the cell ends with, where a particle ends the walk
            const bool walked = each_in_ring(i, cx, cy, ring, [&](int j) {
                ++tests;
                const dvec2 xj = pos[j];
                const dvec2 a = 2.0 * (xj - xi);
                if (a.x == 0.0 && a.y == 0.0) {
                    // Coincident: the larger weight has the whole cell (the lower index on a
                    // tie), the other none.
                    if (weight[j] > wi || (weight[j] == wi && j < i)) {
                        cur->n = 0;
                        return false;
                    }
                    return true;
                }
                // Over the disk |y - x_i| <= R, a.y - b is at most -r^2 + 2 r R + w_j - w_i
                // (r = |x_j - x_i|): where that is below zero, with a margin far above the
                // rounding, j cannot cut, and the pass over the vertices is spared (most
                // candidates; the polygon is the same to the bit).
                const double r2 = 0.25 * (a.x * a.x + a.y * a.y);
                const double gap = r2 + wi - weight[j];
                if (gap > 0.0 && gap * gap > 4.0 * r2 * R2 * (1.0 + 1e-9)) return true;
                const double b = (xj.x * xj.x + xj.y * xj.y) - (xi.x * xi.x + xi.y * xi.y) + wi - weight[j];
                bool cut = false;
                if (!clip(*cur, a, b, j, *other, cut)) {
                    result = false;
                    return false;
                }
                if (cut) {
                    Poly* t = cur;
                    cur = other;
                    other = t;
                    if (cur->n == 0) return false;
                    R2 = reach2();
                }
                return true;
            });
            if (!walked) return result;
        }
        return true;
    }
};

// The derivative of cell i's area with respect to w_j for a neighbour j across an edge of length
// l: l / (2 |x_i - x_j|); with respect to w_i, minus their sum (Kitagawa, Merigot & Thibert 2019,
// Theorem 1.3: the Hessian of the dual functional is this weighted graph Laplacian). With a free
// surface the edges count inside the disks only, and d A_i / d w_i gains arc_i / (2 r_i): the
// disk's radius r_i = sqrt(w_i) grows by 1 / (2 r_i) per unit of weight along the cell's arc
// (Levy 2022, sec. 3).
FS_HDI double hessian_weight(double length, dvec2 xi, dvec2 xj) {
    const dvec2 d = xj - xi;
    return length / (2.0 * sqrt(d.x * d.x + d.y * d.y));
}

// Per-step sums for the stats; joined in a fixed order by the executors' reductions.
struct Sums : MotionSums<dvec2> {
    double potential_energy = 0.0;  // - sum m_i g . x_i
    double transport_energy = 0.0;  // rho_pull / (2 eps^2) sum_i int_{L_i} |y - x_i|^2: the scheme's epsilon term
    double area = 0.0;              // of all the cells
    double max_area_error = 0.0;    // max |A_i - T_i| / T_i
    double mode = 0.0;              // sum over the denser liquid of T_i y_i cos(k x_i) (the interface's mode)
    long long overflow = 0;         // cells that needed more than kMaxEdges edges
};

struct SumsOp {
    FS_HDI Sums operator()(const Sums& a, const Sums& b) const {
        Sums s;
        s.join_motion(a, b);
        s.potential_energy = a.potential_energy + b.potential_energy;
        s.transport_energy = a.transport_energy + b.transport_energy;
        s.area = a.area + b.area;
        s.max_area_error = a.max_area_error > b.max_area_error ? a.max_area_error : b.max_area_error;
        s.mode = a.mode + b.mode;
        s.overflow = a.overflow + b.overflow;
        return s;
    }
};

}  // namespace fs::ot
