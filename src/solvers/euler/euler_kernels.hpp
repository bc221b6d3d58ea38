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
// convention). round(-d) == -round(d), so separation(b, a) == -separation(a, b) bit for bit.
FS_HDI dvec2 separation(dvec2 a, dvec2 b, bool periodic) {
    dvec2 r = b - a;
    if (periodic) {
        r.x -= std::round(r.x);
        r.y -= std::round(r.y);
    }
    return r;
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

// The uniform search grid over [0,1]^2 (seed 000, "search grid"). Cells are at least the
// collision distance wide, so two colliding particles are in the same or adjacent cells. Points
// outside the square are clamped into the border cells; clamping is monotone and never moves
// two points more than one cell apart, so the 3x3 search stays exact for any positions.
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

// The partner a particle picks among its candidates: the nearest, ties to the lower index. This
// is a total order, so the choice does not depend on the order candidates are visited in.
struct Best {
    int j = -1;
    double d2 = 0.0;
    FS_HDI void consider(int cand, double cand_d2) {
        if (j < 0 || cand_d2 < d2 || (cand_d2 == d2 && cand < j)) {
            j = cand;
            d2 = cand_d2;
        }
    }
};

// New velocity of particle `self` after its collision with `other` (the pair chose each other).
// An impulse J along the line of centres n = (x_b - x_a)/|x_b - x_a| with restitution e:
//   J = -(1 + e) (v_b - v_a).n  m_a m_b / (m_a + m_b),   v_a -= (J/m_a) n,   v_b += (J/m_b) n,
// which conserves momentum for any masses and, for e = 1, kinetic energy (Newton's law of
// restitution for smooth disks). Both particles compute J from the pair ordered (a, b) = (lower
// index, higher index), so they apply exactly opposite impulses.
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

// Candidate visitors: each particle is looked at through a "slot" (its place in the arrays the
// detector reads). visit(j, x_j, v_j) is called for every other particle the detector offers;
// the return value is the number of pair tests made.

// Brute force: every other particle (seed 000, the O(N^2) double loop).
struct BruteNeighbors {
    View<const dvec2> pos, vel;
    FS_HDI int particle(int s) const { return s; }
    FS_HDI dvec2 x(int s) const { return pos[s]; }
    FS_HDI dvec2 v(int s) const { return vel[s]; }
    template <class Visit>
    FS_HDI int for_each(int s, Visit&& visit) const {
        for (int j = 0; j < pos.size; ++j)
            if (j != s) visit(j, pos[j], vel[j]);
        return pos.size - 1;
    }
};

// Grid: particles sorted by cell (counting sort); the 3x3 block of cells around the particle,
// wrapping around in a periodic box (where a grid of fewer than 3 cells a side is visited whole,
// so that no cell is visited twice).
struct GridNeighbors {
    GridSpec grid;
    bool periodic = false;
    View<const int> cell_start;    // cells + 1 entries
    View<const int> sorted_index;  // slot -> particle
    View<const dvec2> spos, svel;  // positions and velocities in slot order
    FS_HDI int particle(int s) const { return sorted_index[s]; }
    FS_HDI dvec2 x(int s) const { return spos[s]; }
    FS_HDI dvec2 v(int s) const { return svel[s]; }
    template <class Visit>
    FS_HDI int for_each(int s, Visit&& visit) const {
        const dvec2 p = spos[s];
        const int side = grid.side;
        const bool whole = periodic && side < 3;
        const int cx = grid.coord(p.x), cy = grid.coord(p.y);
        const int y0 = whole ? 0 : cy - 1, y1 = whole ? side - 1 : cy + 1;
        const int x0 = whole ? 0 : cx - 1, x1 = whole ? side - 1 : cx + 1;
        int tests = 0;
        for (int yy = y0; yy <= y1; ++yy) {
            const int y = periodic ? (yy + side) % side : yy;
            if (y < 0 || y >= side) continue;
            for (int xx = x0; xx <= x1; ++xx) {
                const int x = periodic ? (xx + side) % side : xx;
                if (x < 0 || x >= side) continue;
                const int c = y * side + x;
                for (int s2 = cell_start[c]; s2 < cell_start[c + 1]; ++s2) {
                    if (s2 == s) continue;
                    ++tests;
                    visit(sorted_index[s2], spos[s2], svel[s2]);
                }
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
