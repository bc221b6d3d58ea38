// Per-particle bodies of the Euler particle solver (seed 000), shared by the CPU and CUDA
// pipelines. Plain functions of plain data: no allocation, no globals, host and device.
#pragma once

#include <cmath>

#include <glm/glm.hpp>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "solvers/common/grid2d.hpp"

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
    grid::Grid2 grid;          // the search grid over [0,1]^2 (seed 000, "search grid")
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
// The tutorial (seed 000, "bounce") instead reflects each velocity across the direction of the
// pair's centre-of-mass velocity V_g (it flips the components along N, the normal of V_g). The
// pair's momentum has no component along N, so the reflection keeps it, and it keeps each speed,
// so energy too; its damping of 0.99 on both velocities then removes 1% of the pair's momentum
// and 2% of its energy. What is wrong with it physically is the direction: the impulse acts along
// N, set by the velocities alone, not along the line of centres, so a glancing contact deflects
// the particles as hard as a head-on one. Its "collision damping" maps here to the restitution.
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
