// Per-particle bodies of the Euler particle solver (the particle tutorial), shared by the CPU and CUDA
// pipelines. Plain functions of plain data: no allocation, no globals, host and device.
#pragma once

#include <cmath>

#include <glm/glm.hpp>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "solvers/common/grid2d.hpp"
#include "solvers/common/hands.hpp"
#include "solvers/common/motion_sums.hpp"

namespace fs::euler {

using glm::dvec2;

enum Detector : int { kGrid = 0, kBruteForce = 1 };

// How particles in contact push each other apart. kImpulse: the tutorial's collisions, one
// impulse per matched pair per step and only for approaching pairs; a pile at rest has nothing
// holding it up and sinks into itself. kSoft: every overlapping pair (and a particle overlapping
// a wall) pushes apart with a spring-dashpot force, integrated in sub-steps (the discrete element
// method): a pile comes to rest as a heap.
enum Contact : int { kImpulse = 0, kSoft = 1 };

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
    HandForce<dvec2> hand;     // push and pull (core/hands.hpp)
    int boundary = kWalls;
    double wall_damping = 0.9;
    bool collisions = true;
    int detector = kGrid;
    double distance2 = 0.001;  // squared collision distance (m^2)
    double restitution = 1.0;
    grid::Grid2 grid;          // the search grid over [0,1]^2 (the particle tutorial, "search grid")
    // Soft contact (contact == kSoft); see pair_force.
    int contact = kImpulse;
    double diameter = 0.0316;  // contact diameter d (the collision distance)
    double stiffness = 1e6;    // k (N/m)
    double zeta = 0.0;         // damping ratio from the restitution (damping_ratio)
    int substeps = 1;          // sub-steps of tau/substeps in the collide stage
    double skin = 0.0;         // the grid's reach is d + skin; a particle moving skin/2 from
                               // where the grid saw it triggers a rebuild
    double force_scale = 1.0;  // fixed-point quanta per newton (to_quanta)
};

// Two particles collide when nearer than the collision distance and approaching (the particle tutorial,
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

// Particle i's search for its partner (the particle tutorial, "collisions"), one candidate j at a time in any
// order: the nearest approaching candidate (Best), the candidates of higher index (contacts),
// and the nearest distance of any (the overlap stat). The scalar loop visits every candidate;
// euler_simd.hpp's eight-lane loop visits only those its filter lets through, which changes
// nothing: a candidate at or beyond the collision distance alters none of the three.
struct PartnerSearch {
    Best best;
    int near = 0;
    double nearest2;
    double distance2;
    FS_HDI explicit PartnerSearch(double d2max) : nearest2(d2max), distance2(d2max) {}
    FS_HDI void visit(int i, int j, dvec2 xi, dvec2 vi, const dvec2* pos, const dvec2* vel, const int* id,
                      bool periodic) {
        const dvec2 r = separation(xi, pos[j], periodic);
        double d2;
        if (is_candidate(r, vel[j] - vi, distance2, d2)) {
            near += j > i;
            best.consider(j, id[j], d2);
        }
        nearest2 = d2 < nearest2 ? d2 : nearest2;
    }
    // The deepest overlap as a fraction of the collision distance (the square root only for the
    // few with a neighbour within reach: a division and a square root for every particle were a
    // tenth of the search at N = 1e6).
    FS_HDI double overlap() const { return nearest2 < distance2 ? 1.0 - std::sqrt(nearest2 / distance2) : 0.0; }
};

// New velocity of particle `self` after its collision with `other` (the pair chose each other).
// An impulse J along the line of centres n = (x_b - x_a)/|x_b - x_a| with restitution e:
//   J = -(1 + e) (v_b - v_a).n  m_a m_b / (m_a + m_b),   v_a -= (J/m_a) n,   v_b += (J/m_b) n,
// which conserves momentum for any masses and, for e = 1, kinetic energy (Newton's law of
// restitution for smooth disks). Both particles compute J from the pair ordered (a, b) = (lower
// index, higher index), so they apply exactly opposite impulses; swapping a and b negates n and
// v_b - v_a exactly, so the result does not depend on where the two sit in memory either.
// The tutorial (the particle tutorial, "bounce") instead reflects each velocity across the direction of the
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
    const double J = -(1.0 + restitution) * vn * (ma * mb / (ma + mb)) * FS_PARITY_DEMO_FACTOR;
    return self == a ? vel[a] - (J / ma) * n : vel[b] + (J / mb) * n;
}

// ---- Soft contact: the discrete element method (Cundall & Strack 1979) -------------------------
// A contact is a linear spring and dashpot along the line of centres (Poeschel & Schwager 2005,
// "Computational Granular Dynamics", 3.1.1): with overlap delta = d - |r| and normal relative
// velocity v_n,  F_n = k delta - gamma v_n,  gamma = 2 zeta sqrt(k m_eff),  m_eff = m_a m_b/(m_a+m_b).
// F_n is kept >= 0: the dashpot would otherwise pull the pair together as it separates (no
// cohesion in this model). With that clamp the contact ends when F_n reaches zero, not when the
// overlap does, and the restitution is (Schwager & Poeschel 2007, "Coefficient of restitution
// and linear-dashpot model revisited", Granular Matter 9) the one clamped_restitution gives:
// the same for any speed and masses, so the restitution parameter sets zeta (damping_ratio).
// A heap of height H rests on overlaps of about m g H / (d k) at its bottom: the stiffness sets them.

// The restitution of a clamped linear-dashpot contact of damping ratio zeta < 1: with
// beta = zeta omega_0 and omega = omega_0 sqrt(1 - zeta^2), the overlap is
// delta(t) = (v/omega) e^{-beta t} sin(omega t); the force vanishes first at
// omega t* = pi - atan2(2 beta omega, omega_0^2 - 2 beta^2), and e = -delta'(t*) / v.
inline double clamped_restitution(double zeta) {
    const double w = std::sqrt(1.0 - zeta * zeta);  // omega / omega_0
    const double wt = 3.14159265358979323846 - std::atan2(2.0 * zeta * w, 1.0 - 2.0 * zeta * zeta);
    const double t = wt / w;                          // in units of 1/omega_0
    return -std::exp(-zeta * t) * (std::cos(wt) - (zeta / w) * std::sin(wt));
}

// The damping ratio whose clamped contact ends with `restitution` (bisection: the restitution
// falls steadily with zeta). Below zeta = 0.99 (e = 0.137) the clamped model cannot go: lower
// restitutions get that most damped contact.
inline double damping_ratio(double restitution) {
    double lo = 0.0, hi = 0.99;
    if (restitution >= 1.0) return 0.0;
    if (restitution <= clamped_restitution(hi)) return hi;
    for (int k = 0; k < 60; ++k) {
        const double mid = 0.5 * (lo + hi);
        (clamped_restitution(mid) > restitution ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

// The pair's dashpot coefficient, gamma = 2 zeta sqrt(k m_eff) with m_eff = ma mb / (ma + mb):
// the damping ratio zeta of the pair's spring-dashpot oscillator. It depends on the pair alone,
// so the contact list keeps it for its pairs (Pipeline::pair_gammas) instead of two divisions
// and a square root a pair every sub-step.
FS_HDI double pair_damping(double ma, double mb, const Config& c) {
    return 2.0 * c.zeta * std::sqrt(c.stiffness * (ma * mb / (ma + mb)));
}

// The force on b from a (r = x_b - x_a, dv = v_b - v_a, gamma = pair_damping); zero unless they
// overlap. `overlap` receives delta / d.
FS_HDI dvec2 pair_force(dvec2 r, dvec2 dv, double gamma, const Config& c, double& overlap) {
    // Without branches: a quarter of the listed pairs are apart, at no pattern a branch predictor
    // could learn (measured on `default`: the mispredictions were a fifth of the pairs' time).
    // Apart or coincident, the arithmetic runs on a stand-in distance and the result is masked.
    const double d2 = r.x * r.x + r.y * r.y;
    const double reach2 = c.diameter * c.diameter;
    const bool touching = d2 > 0.0 && d2 < reach2;
    const double dist = std::sqrt(touching ? d2 : reach2);
    const dvec2 n = r * (1.0 / dist);
    const double delta = c.diameter - dist;
    const double vn = dv.x * n.x + dv.y * n.y;  // < 0 when approaching
    const double fn = c.stiffness * delta - gamma * vn;
    overlap = touching ? delta / c.diameter : 0.0;
    return (touching && fn > 0.0 ? fn : 0.0) * n;
}

// Contact forces are summed in fixed point (integer quanta of 1/force_scale newtons): integer
// addition is exact and associative, so a particle's total does not depend on the order its
// neighbours are visited in (grid and brute force give the same bits, on any thread count), and
// the pair forces, +q on one particle and -q on the other, cancel exactly: contacts change the
// total momentum by nothing at all. The solver sets force_scale = 2^40 / (k d) (k d: the force
// of a complete overlap); a pair force is clamped to 2^12 k d, so that even a thousand pairs on
// one particle stay far inside the range of a 64-bit integer.
FS_HDI long long to_quanta(double f, double scale) {
    const double limit = 4503599627370496.0;  // 2^52 quanta = 2^12 k d
    double q = f * scale;
    q = q > limit ? limit : (q < -limit ? -limit : q);
    return static_cast<long long>(q + std::copysign(0.5, q));  // to the nearest, halves away from 0
}

// A pair's contact force on its b end in quanta, and its overlap over d (0: apart).
struct PairQuanta {
    long long x = 0, y = 0;
    double overlap = 0.0;
};

// A wall as a contact partner of infinite mass (walls boundary): the disk of diameter d touches
// the border when its centre is d/2 from it. Returns the force on the particle.
FS_HDI dvec2 wall_force(dvec2 x, dvec2 v, double m, const Config& c, double& overlap) {
    const double r = 0.5 * c.diameter;
    dvec2 f(0.0);
    overlap = 0.0;
    // Most particles touch no wall: the dashpot's square root only for those that do. (min_of,
    // not fmin: fmin's NaN rule made it a call into libm, once a particle every sub-step; a
    // position that is not finite gets no wall force, and the step reports it.)
    const double nearest = min_of(min_of(x.x, 1.0 - x.x), min_of(x.y, 1.0 - x.y));
    if (!(nearest < r)) return f;
    const double gamma = 2.0 * c.zeta * std::sqrt(c.stiffness * m);
    auto push = [&](double gap, double v_in, double& out) {  // v_in > 0: moving into the wall
        if (gap >= r) return;
        const double delta = r - gap;
        overlap = overlap > delta / c.diameter ? overlap : delta / c.diameter;
        const double fn = c.stiffness * delta + gamma * v_in;
        if (fn > 0.0) out += fn;
    };
    double up = 0.0, down = 0.0, right = 0.0, left = 0.0;
    push(x.y, -v.y, up);           // floor pushes up
    push(1.0 - x.y, v.y, down);    // ceiling
    push(x.x, -v.x, right);        // left wall pushes right
    push(1.0 - x.x, v.x, left);    // right wall
    f.x = right - left;
    f.y = up - down;
    return f;
}

// Bounce on the borders of [0,1]^2 (the particle tutorial, "bounce_on_borders"): a particle outside is put
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
struct Sums : MotionSums<dvec2> {
    long long pair_tests = 0;
    long long contacts = 0;
    long long matched = 0;   // particles whose collision was resolved (2 per collision)
    double max_overlap = 0.0;  // deepest overlap seen by the last contact pass, over d
    double min_mass = 1e300;   // lightest particle (the soft contact's sub-step needs it)
};

struct SumsOp {
    FS_HDI Sums operator()(const Sums& a, const Sums& b) const {
        Sums s;
        s.join_motion(a, b);
        s.pair_tests = a.pair_tests + b.pair_tests;
        s.contacts = a.contacts + b.contacts;
        s.matched = a.matched + b.matched;
        s.max_overlap = a.max_overlap > b.max_overlap ? a.max_overlap : b.max_overlap;
        s.min_mass = a.min_mass < b.min_mass ? a.min_mass : b.min_mass;
        return s;
    }
};

}  // namespace fs::euler
