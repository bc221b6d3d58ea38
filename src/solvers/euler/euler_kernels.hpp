// Per-particle bodies of the Euler particle solver (seed 000), shared by the CPU and CUDA
// pipelines. Plain functions of plain data: no allocation, no globals, host and device.
#pragma once

#include <cmath>

#include <glm/glm.hpp>

#include "core/buffer.hpp"
#include "core/hd.hpp"

namespace fs::euler {

using glm::dvec2;

enum Detector : int { kGrid = 0, kBruteForce = 1 };

// What happens at the borders of the unit square: the tutorial's bouncing walls, a periodic box
// (a particle leaving on one side enters on the other; pairs interact across the border, so
// momentum is conserved exactly: the classic hard-disk gas set-up), or nothing at all.
enum Boundary : int { kWalls = 0, kPeriodic = 1, kOpen = 2 };

// Separation vector from a to b: with a periodic box, the nearest image (minimum image
// convention; positions are in [0,1], so each component of b - a is in [-1, 1] and one shift
// by the box size is enough). The branches are symmetric, so separation(b, a) is
// -separation(a, b) bit for bit.
FS_HDI double nearest_image(double d) { return d > 0.5 ? d - 1.0 : (d < -0.5 ? d + 1.0 : d); }
FS_HDI dvec2 separation(dvec2 a, dvec2 b, bool periodic) {
    const dvec2 r = b - a;
    return periodic ? dvec2{nearest_image(r.x), nearest_image(r.y)} : r;
}

// Everything a stage needs, as plain values (derived from the parameters before each stage).
struct Config {
    double tau = 0.005;        // time step (s)
    dvec2 gravity{0, -9.81};   // acceleration vector (m/s^2)
    int boundary = kWalls;
    double wall_damping = 0.9;
    bool collisions = true;
    int detector = kGrid;
    double distance2 = 0.001;  // squared collision distance (m^2)
    double restitution = 1.0;
    int grid_side = 1;         // cells per axis of the search grid over [0,1]^2
};

// The uniform search grid over [0,1]^2 (seed 000, "search grid"). Cells are more than twice the
// collision distance wide (see GridNeighbors), so two colliding particles are in the same or
// adjacent cells. Points outside the square are clamped into the border cells; clamping is
// monotone and never moves two points more than one cell apart, so the search stays exact for
// any positions.
struct GridSpec {
    int side = 1;

    FS_HDI int coord(double x) const {
        double f = std::floor(x * side);
        if (!(f >= 0.0)) f = 0.0;  // also catches NaN
        if (f > side - 1) f = side - 1;
        return static_cast<int>(f);
    }
    FS_HDI int cell_of(dvec2 p) const { return coord(p.y) * side + coord(p.x); }
    FS_HDI int cells() const { return side * side; }
};

// Two particles collide when nearer than the collision distance and approaching (seed 000,
// "choc"). r = x_j - x_i, dv = v_j - v_i. Both tests are symmetric in i and j bit for bit
// ((-a)(-b) == ab in IEEE arithmetic), so i and j always agree about their pair. Coincident
// particles (r = 0) have no line of centres and are left alone.
FS_HDI bool is_candidate(dvec2 r, dvec2 dv, double distance2, double& d2) {
    d2 = r.x * r.x + r.y * r.y;
    return d2 > 0.0 && d2 < distance2 && (dv.x * r.x + dv.y * r.y) < 0.0;
}

// The partner a particle picks among its candidates: the nearest, ties to the lower id. This is
// a total order on particles (ids never change, array positions do), so the choice depends
// neither on the order candidates are visited in nor on where particles sit in memory.
struct Best {
    int j = -1;  // array index of the partner
    int id = 0;
    double d2 = 0.0;
    FS_HDI void consider(int cand, int cand_id, double cand_d2) {
        if (j < 0 || cand_d2 < d2 || (cand_d2 == d2 && cand_id < id)) {
            j = cand;
            id = cand_id;
            d2 = cand_d2;
        }
    }
};

// New velocity of particle `self` after its collision with `other` (the pair chose each other).
// An impulse J along the line of centres n = (x_b - x_a)/|x_b - x_a| with restitution e:
//   J = -(1 + e) (v_b - v_a).n  m_a m_b / (m_a + m_b),   v_a -= (J/m_a) n,   v_b += (J/m_b) n,
// which conserves momentum for any masses and, for e = 1, kinetic energy (Newton's law of
// restitution for smooth disks). Both particles compute J from the pair ordered (a, b) = (lower
// index, higher index), so they apply exactly opposite impulses; swapping a and b negates n and
// v_b - v_a exactly, so the result does not depend on where the two sit in memory either.
// The tutorial (seed 000, "bounce") instead reflects both velocities about the normal of the
// centre-of-mass velocity and multiplies them by a damping factor, which conserves neither
// momentum nor energy; its "collision damping" maps here to the restitution coefficient.
FS_HDI dvec2 collision_velocity(int self, int other, const dvec2* pos, const dvec2* vel,
                                const double* mass, double restitution, bool periodic) {
    const int a = self < other ? self : other;
    const int b = self < other ? other : self;
    dvec2 n = separation(pos[a], pos[b], periodic);
    n *= 1.0 / std::sqrt(n.x * n.x + n.y * n.y);
    const dvec2 dv = vel[b] - vel[a];
    const double vn = dv.x * n.x + dv.y * n.y;
    const double ma = mass[a], mb = mass[b];
    const double J = -(1.0 + restitution) * vn * (ma * mb / (ma + mb));
    return self == a ? vel[a] - (J / ma) * n : vel[b] + (J / mb) * n;
}

// Bounce on the borders of [0,1]^2 (seed 000, "bounce_on_borders"): a particle outside is put
// back on the border, its normal velocity reversed, and its whole velocity scaled by the damping.
FS_HDI void bounce_on_borders(dvec2& x, dvec2& v, double damp) {
    if (x.x > 1.0) { x.x = 1.0; v.x = -damp * v.x; v.y = damp * v.y; }
    if (x.x < 0.0) { x.x = 0.0; v.x = -damp * v.x; v.y = damp * v.y; }
    if (x.y > 1.0) { x.y = 1.0; v.x = damp * v.x; v.y = -damp * v.y; }
    if (x.y < 0.0) { x.y = 0.0; v.x = damp * v.x; v.y = -damp * v.y; }
}

// Periodic box: bring a position back into [0,1) (x - floor(x) may round to 1.0 for a tiny
// negative x; the grid clamps that into the last cell and the minimum image keeps distances).
FS_HDI void wrap_into_box(dvec2& x) {
    x.x -= std::floor(x.x);
    x.y -= std::floor(x.y);
}

// Candidate visitors: visit(j, x_j, v_j, id_j) is called for every other particle the detector
// offers particle s; the return value is the number of pair tests made.

// Brute force: every other particle (seed 000, the O(N^2) double loop).
struct BruteNeighbors {
    View<const dvec2> pos, vel;
    View<const int> id;
    template <class Visit>
    FS_HDI int for_each(int s, Visit&& visit) const {
        for (int j = 0; j < pos.size; ++j)
            if (j != s) visit(j, pos[j], vel[j], id[j]);
        return pos.size - 1;
    }
};

// Grid: particles stored in cell order (grid_build reorders them), each cell a range of the
// arrays. Cells are at least twice the collision distance wide, so everything within reach of a
// particle lies in the 2x2 block of cells on its side: the neighbour column left of its cell if
// it sits in the left half, right of it otherwise, and likewise for rows (a quarter of the area
// of the usual 3x3 block of distance-wide cells, 16 d^2 against 36 d^2 at the same cell count).
// The two cells of a row are consecutive in memory, so a row is one range of the arrays. In a
// periodic box rows and columns wrap around (a run split in two at the border).
struct GridNeighbors {
    GridSpec grid;
    bool periodic = false;
    View<const int> cell_start;  // cells + 1 entries
    View<const dvec2> pos, vel;
    View<const int> id;

    // Visits the particles of cells [first, last] of row y (columns already in range).
    template <class Visit>
    FS_HDI int visit_run(int s, int y, int first, int last, Visit& visit) const {
        const int row = y * grid.side;
        const int end = cell_start[row + last + 1];
        int tests = 0;
        for (int j = cell_start[row + first]; j < end; ++j) {
            if (j == s) continue;
            ++tests;
            visit(j, pos[j], vel[j], id[j]);
        }
        return tests;
    }

    template <class Visit>
    FS_HDI int for_each(int s, Visit&& visit) const {
        const dvec2 p = pos[s];
        const int side = grid.side;
        if (side == 1) return visit_run(s, 0, 0, 0, visit);
        const int cx = grid.coord(p.x), cy = grid.coord(p.y);
        // First column and row of the 2x2 block: the particle's half of its cell decides. Points
        // clamped into a border cell from outside pick the side that holds their neighbours.
        const int x0 = cx - (p.x * side - cx < 0.5 ? 1 : 0);
        const int y0 = cy - (p.y * side - cy < 0.5 ? 1 : 0);
        int tests = 0;
        for (int y = y0; y <= y0 + 1; ++y) {
            int row = y;
            if (row < 0 || row >= side) {
                if (!periodic) continue;
                row = row < 0 ? row + side : row - side;
            }
            if (x0 >= 0 && x0 + 1 < side) {
                tests += visit_run(s, row, x0, x0 + 1, visit);
            } else if (x0 < 0) {  // the block sticks out on the left
                tests += visit_run(s, row, 0, 0, visit);
                if (periodic) tests += visit_run(s, row, side - 1, side - 1, visit);
            } else {  // on the right
                tests += visit_run(s, row, side - 1, side - 1, visit);
                if (periodic) tests += visit_run(s, row, 0, 0, visit);
            }
        }
        return tests;
    }
};

// Per-step sums for the stats; joined in a fixed order by the executors' reductions.
struct Sums {
    double kinetic_energy = 0.0;
    dvec2 momentum{0.0, 0.0};
    double max_speed2 = 0.0;
    long long pair_tests = 0;
    long long contacts = 0;
    long long matched = 0;   // particles whose collision was resolved (2 per collision)
    long long nonfinite = 0; // particles with a NaN or Inf position or velocity
};

struct SumsOp {
    FS_HDI Sums operator()(const Sums& a, const Sums& b) const {
        Sums s;
        s.kinetic_energy = a.kinetic_energy + b.kinetic_energy;
        s.momentum = a.momentum + b.momentum;
        s.max_speed2 = a.max_speed2 > b.max_speed2 ? a.max_speed2 : b.max_speed2;
        s.pair_tests = a.pair_tests + b.pair_tests;
        s.contacts = a.contacts + b.contacts;
        s.matched = a.matched + b.matched;
        s.nonfinite = a.nonfinite + b.nonfinite;
        return s;
    }
};

}  // namespace fs::euler
