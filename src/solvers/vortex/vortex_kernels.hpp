// Per-particle and per-node bodies of the vortex-particle solver (vortex particles part 13 and the parts of its
// series it summarises), shared by the CPU and CUDA pipelines.
//
// A vorton carries a vorticity vector omega and a core radius sigma; it stands for the fluid of a
// cube of side h = sigma / overlap, its volume V = h^3, its strength alpha = omega V. The
// document's overlap is 1/2 (V = (2 sigma)^3: cores that just touch on a lattice of spacing 2 sigma);
// vortex methods converge only where neighbouring cores overlap, sigma / h >= 1 (Cottet and
// Koumoutsakos, "Vortex Methods", 2000, sec. 2.6), which the scenes with bodies need (core_overlap).
#pragma once

#include <cmath>

#include <glm/glm.hpp>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "solvers/vortex/polytope.hpp"

namespace fs::vortex {

using glm::dmat3;
using glm::dvec3;

constexpr double kPi = 3.14159265358979323846;
constexpr int kMaxBodies = 4;

constexpr double kDocumentOverlap = 0.5;
FS_HDI double vorton_volume(double sigma, double overlap = kDocumentOverlap) {
    const double h = sigma / overlap;
    return h * h * h;
}

// Regularised Biot-Savart kernel (Rosenhead 1930, Moore 1972; Winckelmans and Leonard 1993, the
// "low-order algebraic" smoothing): u(x) = sum_j K_j (alpha_j x r), r = x - x_j,
// K_j = 1 / (4 pi (|r|^2 + sigma_j^2)^(3/2)). It is the curl of the vector potential
// psi(x) = sum_j alpha_j / (4 pi sqrt(|r|^2 + sigma_j^2)).
struct KernelTerms {
    double k;   // K above
    double dk;  // dK/dr_b = dk * r_b, dk = -3 / (4 pi (r^2 + s^2)^(5/2))
    double g;   // the potential's 1 / (4 pi sqrt(r^2 + s^2))
};
FS_HDI KernelTerms kernel_terms(double r2, double s2) {
    const double q = r2 + s2;
    const double inv = 1.0 / std::sqrt(q);
    const double inv3 = inv * inv * inv;
    KernelTerms t;
    t.g = inv / (4.0 * kPi);
    t.k = inv3 / (4.0 * kPi);
    t.dk = -3.0 * inv3 * inv * inv / (4.0 * kPi);
    return t;
}

// What one source vorton (position xj, strength alpha_j, core sj) adds at a point x: velocity,
// vector potential, and for a vorton at x with vorticity w the stretching term (w . grad) u:
//   d u_a / d x_b = K eps_acb alpha_c + (alpha x r)_a dk r_b, so
//   (w . grad) u = K (alpha x w) + (alpha x r) dk (r . w).
struct Induced {
    dvec3 u{0.0}, psi{0.0}, stretch{0.0}, curl{0.0};
};
// `want_curl`: also the field's own vorticity at x, curl u = grad(div psi) - lap psi (psi above;
// lap (r^2 + s^2)^(-1/2) = -3 s^2 (r^2 + s^2)^(-5/2)):
//   curl u = sum_j [3 (s_j^2 alpha_j + (alpha_j . r) r) / q^(5/2) - alpha_j / q^(3/2)] / (4 pi),
// which differs from the vortons' own vorticity where the particles' field is not
// divergence-free (Winckelmans and Leonard 1993, section 2); relaxation and the transposed
// stretching read it (vorticity_rate).
FS_HDI void add_induced(Induced& acc, dvec3 x, dvec3 w, dvec3 xj, dvec3 alpha_j, double sj, bool want_stretch,
                        bool want_curl = false) {
    const dvec3 r = x - xj;
    const double r2 = glm::dot(r, r);
    const KernelTerms t = kernel_terms(r2, sj * sj);
    const dvec3 axr = glm::cross(alpha_j, r);
    acc.u += t.k * axr;
    acc.psi += t.g * alpha_j;
    if (want_stretch) acc.stretch += t.k * glm::cross(alpha_j, w) + (t.dk * glm::dot(r, w)) * axr;
    if (want_curl) acc.curl += -t.dk * (sj * sj * alpha_j + glm::dot(alpha_j, r) * r) - t.k * alpha_j;
}

// The two forms of the stretching term (Winckelmans and Leonard 1993, section 2.2; Cottet and
// Koumoutsakos, "Vortex Methods", 2000, 5.2): the classical (omega . grad) u, whose particles'
// total vorticity sum alpha drifts, and the transposed (omega . grad^T) u, which keeps it exactly
// for vortons of equal cores (each pair's parts cancel). They are the same for a divergence-free
// field: (grad u - grad u^T) omega = curl u x omega, so transposed = classical + omega x curl u.
enum StretchForm : int { kClassical = 0, kTranspose = 1 };

// The relaxation rate a step of dt applies for `lambda` per second: the fraction f = 1 - e^(-lambda
// dt) of the way to the target (Pedrizzetti's per-step form, a convex combination for any lambda,
// so no rate overshoots), over dt.
FS_HDI double relaxation_rate(double lambda, double dt) {
    return lambda > 0.0 ? -std::expm1(-lambda * dt) / dt : 0.0;
}

// The rate of a vorton's vorticity w besides buoyancy: the stretching (`classical`, the sums'
// (w . grad) u, in `form`; `on` = 0 without it), the diffusion nu lap w, and Pedrizzetti's
// relaxation (Pedrizzetti 1992, Fluid Dyn. Res. 10; Winckelmans and Leonard 1993, section 2.3)
// at `relax` per second, which turns w toward the field's own vorticity `curl` with |w| as the
// target (Alvarez and Ning 2020 relax their particles so; relaxation_rate gives `relax` for a
// step): the particles' vorticity drifts off the divergence-free field it stands for, and two
// leapfrogging rings, given that drift, broke up and ran away after 30 passes (docs/solvers/vortex.md, the vortex
// solver).
FS_HDI dvec3 vorticity_rate(dvec3 w, dvec3 classical, dvec3 diffuse, dvec3 curl, double on, int form, double relax) {
    dvec3 rate = diffuse;
    if (on != 0.0) rate += on * (form == kTranspose ? classical + glm::cross(w, curl) : classical);
    if (relax > 0.0) {
        const double lc = glm::length(curl);
        if (lc > 0.0) rate += relax * ((glm::length(w) / lc) * curl - w);
    }
    return rate;
}

// The weights of the two-step Adams-Bashforth rule with a variable step (Hairer, Norsett and
// Wanner, "Solving ODEs I", III.5: the rates f(n-1), f(n) interpolated linearly in time and
// integrated over the step): y(n+1) = y(n) + dt (now f(n) + before f(n-1)), now = 1 + r/2 and
// before = -r/2 with r = dt / last_dt, the last step's dt. Second order with one evaluation of
// the rates a step. Its error grows an oscillation of frequency w by (w dt)^4 / 4 a step, the
// midpoint rule's by (w dt)^4 / 8 for two evaluations: at the same cost (AB2 at dt / 2) four
// times less. Without a last step (last_dt = 0) it is explicit Euler: now = 1, before = 0; and
// likewise for a step more than three times the last (the CFL bound relaxing after a spike of
// speed, the dt slider), whose weights would extrapolate the rates' change over the short last
// step (a collision's, an emission's) by more than r / 2 = 1.5 times: Euler restarts the rule.
struct Ab2Weights {
    double now = 1.0, before = 0.0;
};
FS_HDI Ab2Weights ab2_weights(double dt, double last_dt) {
    if (!(last_dt > 0.0) || dt > 3.0 * last_dt) return {};
    const double r = dt / last_dt;
    return {1.0 + 0.5 * r, -0.5 * r};
}

// Particle strength exchange (Degond and Mas-Gallic 1989): nu lap(omega) at vorton i is
// approximated by (nu / eps^2) sum_j V_j (omega_j - omega_i) eta_eps(x_i - x_j), with the Gaussian
// eta(x) = 4 / pi^(3/2) exp(-|x|^2) (its second moment is 2 per axis), eta_eps(x) = eta(x/eps)/eps^3;
// eps is the mean of the two cores.
FS_HDI dvec3 pse_term(dvec3 r, double eps, dvec3 wi, dvec3 wj, double vj) {
    const double r2 = glm::dot(r, r) / (eps * eps);
    if (r2 > 16.0) return dvec3(0.0);  // exp(-16) ~ 1e-7: outside the kernel's reach
    const double eta = 4.0 / (kPi * std::sqrt(kPi)) * std::exp(-r2) / (eps * eps * eps);
    return (vj * eta / (eps * eps)) * (wj - wi);
}

// The uniform grid of the vortex-in-cell method: nodes at origin + h (i, j, k), x fastest.
struct VicGrid {
    dvec3 origin{0.0};
    double h = 1.0;
    int nx = 2, ny = 2, nz = 2;

    FS_HDI int nodes() const { return nx * ny * nz; }
    FS_HDI int node(int i, int j, int k) const { return i + nx * (j + ny * k); }
    // The inverse of node(): (i, j, k) of node nd.
    FS_HDI void node_ijk(int nd, int& i, int& j, int& k) const {
        const int row = nd / nx;
        i = nd - row * nx;
        k = row / ny;
        j = row - k * ny;
    }
    // Cells are (nx-1)(ny-1)(nz-1); cell (i, j, k) has node (i, j, k) as its low corner.
    FS_HDI int cells() const { return (nx - 1) * (ny - 1) * (nz - 1); }
    FS_HDI int cell_index(int i, int j, int k) const { return i + (nx - 1) * (j + (ny - 1) * k); }
    // The cell holding x (clamped into the grid) and x's fractions inside it, in [0, 1].
    // Truncation instead of floor: the two differ only for g < 0, where both clamp to cell 0
    // (and truncation is one instruction; floor is a libm call without SSE4.1).
    FS_HDI void locate(dvec3 x, int& i, int& j, int& k, dvec3& f) const {
        const dvec3 g = (x - origin) / h;
        i = clamp_to(static_cast<int>(g.x), 0, nx - 2);
        j = clamp_to(static_cast<int>(g.y), 0, ny - 2);
        k = clamp_to(static_cast<int>(g.z), 0, nz - 2);
        f = dvec3(clamp_to(g.x - i, 0.0, 1.0), clamp_to(g.y - j, 0.0, 1.0), clamp_to(g.z - k, 0.0, 1.0));
    }
    FS_HDI int cell_of(dvec3 x) const {
        int i, j, k;
        dvec3 f;
        locate(x, i, j, k, f);
        return cell_index(i, j, k);
    }
};

// Trilinear ("cloud in cell") weight of corner (a, b, c) in {0,1}^3 for fractions f.
FS_HDI double cic_weight(dvec3 f, int a, int b, int c) {
    return (a ? f.x : 1.0 - f.x) * (b ? f.y : 1.0 - f.y) * (c ? f.z : 1.0 - f.z);
}

// Trilinear interpolation of `comps` interleaved-by-block components: value m at node n is
// field[m * nodes + n].
template <int Comps>
FS_HDI void interpolate(const VicGrid& g, const double* field, dvec3 x, double* out) {
    int i, j, k;
    dvec3 f;
    g.locate(x, i, j, k, f);
    for (int m = 0; m < Comps; ++m) out[m] = 0.0;
    const int n = g.nodes();
    for (int c = 0; c < 2; ++c)
        for (int b = 0; b < 2; ++b)
            for (int a = 0; a < 2; ++a) {
                const double w = cic_weight(f, a, b, c);
                const int at = g.node(i + a, j + b, k + c);
                for (int m = 0; m < Comps; ++m) out[m] += w * field[m * n + at];
            }
}

// The same for a field of vectors stored node after node (8 contiguous reads per point: the
// layout for the many tracers).
FS_HDI dvec3 interpolate_vec(const VicGrid& g, const dvec3* field, dvec3 x) {
    int i, j, k;
    dvec3 f;
    g.locate(x, i, j, k, f);
    dvec3 out(0.0);
    for (int c = 0; c < 2; ++c)
        for (int b = 0; b < 2; ++b)
            for (int a = 0; a < 2; ++a) out += cic_weight(f, a, b, c) * field[g.node(i + a, j + b, k + c)];
    return out;
}

// Central difference of component field[m] along axis `axis` at node (i, j, k); one-sided on the
// grid's faces.
FS_HDI double node_derivative(const VicGrid& g, const double* field, int i, int j, int k, int axis) {
    int lo[3] = {i, j, k}, hi[3] = {i, j, k};
    const int n[3] = {g.nx, g.ny, g.nz};
    if (lo[axis] > 0) --lo[axis];
    if (hi[axis] < n[axis] - 1) ++hi[axis];
    const int span = hi[axis] - lo[axis];
    if (span == 0) return 0.0;
    return (field[g.node(hi[0], hi[1], hi[2])] - field[g.node(lo[0], lo[1], lo[2])]) / (span * g.h);
}

// Fourth-order central difference, (f(-2) - 8 f(-1) + 8 f(1) - f(2)) / (12 h) (Fornberg 1988,
// the 5-point first derivative): its error h^4/30 f^(5) against the second-order one's h^2/6
// f''', which for a field varying on a core sigma is (h / sigma)^2 / 6 relative. The
// second-order one within two nodes of the grid's faces.
FS_HDI double node_derivative4(const VicGrid& g, const double* field, int i, int j, int k, int axis) {
    const int at[3] = {i, j, k};
    const int n[3] = {g.nx, g.ny, g.nz};
    if (at[axis] < 2 || at[axis] > n[axis] - 3) return node_derivative(g, field, i, j, k, axis);
    const int stride = axis == 0 ? 1 : axis == 1 ? g.nx : g.nx * g.ny;
    const int c = g.node(i, j, k);
    return (field[c - 2 * stride] - 8.0 * field[c - stride] + 8.0 * field[c + stride] - field[c + 2 * stride]) /
           (12.0 * g.h);
}

// 7-point Laplacian at an interior node (0 on the grid's faces, where the field is ~0 anyway:
// the grid has a margin around every particle).
FS_HDI double node_laplacian(const VicGrid& g, const double* field, int i, int j, int k) {
    if (i == 0 || j == 0 || k == 0 || i == g.nx - 1 || j == g.ny - 1 || k == g.nz - 1) return 0.0;
    const double c = field[g.node(i, j, k)];
    const double s = field[g.node(i - 1, j, k)] + field[g.node(i + 1, j, k)] + field[g.node(i, j - 1, k)] +
                     field[g.node(i, j + 1, k)] + field[g.node(i, j, k - 1)] + field[g.node(i, j, k + 1)];
    return (s - 6.0 * c) / (g.h * g.h);
}

// A body as the kernels see it: a sphere or a convex polytope, where it is and how it moves.
enum BodyKind : int { kNoBody = 0, kSphere = 1, kPolytope = 2 };
struct BodyShape {
    int kind = kNoBody;
    double radius = 0.0;  // the sphere's radius (a polytope's bounding radius is in poly)
    Polytope poly;
    Pose pose;
    dvec3 velocity{0.0}, angular_velocity{0.0};
    double temperature = 0.0;  // K; 0: exchanges no heat
    // What the fluid's total vorticity strength sum alpha must gain from this body in the coming
    // collide stage: -2 V (Omega - Omega at the last one) (Kelvin; body_collisions.hpp).
    dvec3 kelvin{0.0};
    // The vorticity strength the body holds, 2 V Omega for the spin the fluid has met (Kelvin's
    // other half: the fluid holds -2 V Omega), and its volume.
    dvec3 held{0.0};
    double volume = 0.0;
    double held_radius = 0.0;  // the radius of a ball of that volume, (3 V / (4 pi))^(1/3) (add_held)
};

// What the body's own vorticity (BodyShape::held) induces at x, as a sphere of the body's
// volume in uniform rotation would (exact for a sphere; Saffman 1992, 3.1): outside, the field of
// a point vortex of strength alpha = 2 V Omega, u = alpha x r / (4 pi r^3) and psi = alpha /
// (4 pi r); inside (r < R), u = alpha x r / (4 pi R^3) = (2/3) Omega x r. With the stretching
// (w . grad) u for a vorticity w at x (outside: (alpha x w) / (4 pi r^3) - 3 (alpha x r)(r . w) /
// (4 pi r^5), the point vortex's gradient). The fluid's vortons hold -2 V Omega (Kelvin), so
// without the body's part the sums saw a field whose vortex lines end at the body, and the sheet
// that cancels the slip at the surface turned the fluid outside it the other way.
FS_HDI void add_held(Induced& acc, const BodyShape& b, dvec3 x, dvec3 w, bool want_stretch, bool want_curl = false) {
    if (b.kind == kNoBody || b.volume <= 0.0 || (b.held.x == 0.0 && b.held.y == 0.0 && b.held.z == 0.0)) return;
    const dvec3 r = x - b.pose.position;
    const double R = b.held_radius;  // once a step, not a cube root a particle
    const double r2 = glm::dot(r, r), rr = std::sqrt(r2);
    if (rr < R) {
        const double k = 1.0 / (4.0 * kPi * R * R * R);
        acc.u += k * glm::cross(b.held, r);
        acc.psi += (3.0 * R * R - r2) / (8.0 * kPi * R * R * R) * b.held;
        if (want_stretch) acc.stretch += k * glm::cross(b.held, w);
        if (want_curl) acc.curl += 2.0 * k * b.held;  // curl (k alpha x r)
        return;
    }
    // Outside: a point vortex, add_induced's vorton with no core.
    add_induced(acc, x, w, b.pose.position, b.held, 0.0, want_stretch, want_curl);
}

// Where the vortex-in-cell grid supplies the vortons' part of the velocity, whether a body's own
// vorticity joins it by add_held's formula (true) or spread over the grid's nodes inside the body
// (vortex_in_cell.hpp). The formula is exact for a sphere, and the grid's version of it is not:
// the solve smooths it by the vortons' core, which at the Magnus scene's wall layer (a core
// radius off the surface) left the grid's velocity 12-16% RMS off the direct sum's however fine
// the grid (tests/test_vortex_grid.cpp). A polytope keeps the spreading, which follows its shape
// where add_held's ball of equal volume does not.
FS_HDI bool held_by_formula(const BodyShape& b) { return b.kind == kSphere; }

FS_HDI dvec3 surface_velocity(const BodyShape& b, dvec3 at) {
    return b.velocity + glm::cross(b.angular_velocity, at - b.pose.position);
}

// body_contact's broad phase, which it runs first: false rules contact out. Inlined into a loop
// over many particles, most of them far from the body, it spares them the call (collide_tracers).
FS_HDI bool may_touch(const BodyShape& b, dvec3 x, double margin, dvec3 velocity = dvec3(0.0), double dt = 0.0) {
    if (b.kind == kSphere) return !(glm::length(x - b.pose.position) > b.radius + margin);
    if (b.kind == kPolytope) {
        // The bounding sphere, widened by the particle's move relative to the surface for the
        // swept test only: beyond the sphere the largest plane distance is no distance at all
        // (past a sharp trailing edge it is small far from the body), so only a crossing counts
        // there (body_contact).
        if (in_bounding_sphere(b.poly, b.pose, x, margin)) return true;
        if (!(dt > 0.0)) return false;
        const dvec3 moved = dt * (velocity - surface_velocity(b, x));
        return in_bounding_sphere(b.poly, b.pose, x, margin + glm::length(moved));
    }
    return false;
}

// Where a point stands against a body: signed distance from the surface (negative inside),
// contact point and outward normal there (vortex particles part 13, "Collision Detection": the largest signed
// plane distance for polytopes). Returns false when the broad phase (bounding sphere plus
// `margin`) rules contact out.
// Given the particle's velocity over the step just taken (and the step), a polytope is met by
// the way the particle came, relative to the body: a particle whose move crossed a face, whether
// it ended inside or went on out of the far side of a thin plate, is put against the face it
// crossed (swept_entry; the distance then negative, behind that face); one that was inside
// already goes back out the face it moves farther behind (vortex particles part 13, "Deepening Penetration",
// collision_distance). Without a velocity it is the nearest face.
FS_HDI bool body_contact(const BodyShape& b, dvec3 x, double margin, double& dist, dvec3& point, dvec3& normal,
                         dvec3 velocity = dvec3(0.0), double dt = 0.0) {
    if (!may_touch(b, x, margin, velocity, dt)) return false;  // the broad phase
    if (b.kind == kSphere) {
        dist = sphere_contact(b.pose.position, b.radius, x, point, normal);
        return true;
    }
    if (b.kind == kPolytope) {
        // The particle's move this step relative to the body's surface (in world space), and
        // whether it is within the bounding sphere without the move (may_touch's widening).
        const dvec3 moved = dt * (velocity - surface_velocity(b, x));
        const double move = dt > 0.0 ? glm::length(moved) : 0.0;
        const bool near = in_bounding_sphere(b.poly, b.pose, x, margin);
        const dvec3 q1 = to_body(b.pose, x);
        int plane = 0;
        dist = largest_plane_distance(b.poly, q1, -DBL_MAX, plane);  // contact_distance's
        // The tighter broad phase: a point more than margin + move in front of one face plane is
        // farther than margin from the body, and its move this step stayed in front of that plane
        // (a plane distance changes by at most the move), so it neither touches nor crossed the
        // body. (A thin plate's bounding sphere holds much of a plume; the narrow phase below cost
        // most of the tracers' collisions there.) The 1e-9 leaves room for rounding.
        if (dist > margin + move * (1.0 + 1e-9) + 1e-12) return false;
        const int crossed = dt > 0.0 ? swept_entry(b.poly, q1 - glm::transpose(b.pose.orientation) * moved, q1) : -1;
        if (crossed < 0 && !near) return false;
        if (crossed >= 0) {
            plane = crossed;
            dist = signed_distance(b.poly.planes[crossed], q1);
        } else if (dist < 0.0 && dt > 0.0) {
            int entry = -1;
            const double d = collision_distance(b.poly, b.pose, x, moved, entry);
            if (entry >= 0) {
                dist = d;
                plane = entry;
            }
        }
        if (crossed < 0 && dist > 0.0) {
            // Outside: the true distance to the nearest face, edge or corner (outside_distance).
            dvec3 nearest;
            dist = outside_distance(b.poly, q1, plane, dist, nearest);
            normal = dist > 0.0 ? b.pose.orientation * ((q1 - nearest) / dist) : b.pose.orientation * b.poly.planes[plane].n;
            point = b.pose.position + b.pose.orientation * nearest;
            return true;
        }
        point = contact_point(b.poly, b.pose, x, plane, dist, normal);
        return true;
    }
    return false;
}

// The remesh's reductions over the grid's nodes: the largest |omega|^2 and |heat|, then what the
// dropped nodes held and the kept nodes' sizes that share it out.
struct NodePeak {
    double w2 = 0.0, heat = 0.0;
};
struct NodePeakOp {
    FS_HDI NodePeak operator()(const NodePeak& a, const NodePeak& b) const {
        NodePeak s;
        s.w2 = a.w2 > b.w2 ? a.w2 : b.w2;
        s.heat = a.heat > b.heat ? a.heat : b.heat;
        return s;
    }
};
struct NodeDrop {
    dvec3 dropped{0.0};
    double kept_size = 0.0, dropped_heat = 0.0, kept_heat = 0.0;
};
struct NodeDropOp {
    FS_HDI NodeDrop operator()(const NodeDrop& a, const NodeDrop& b) const {
        NodeDrop s;
        s.dropped = a.dropped + b.dropped;
        s.kept_size = a.kept_size + b.kept_size;
        s.dropped_heat = a.dropped_heat + b.dropped_heat;
        s.kept_heat = a.kept_heat + b.kept_heat;
        return s;
    }
};

// Whether x lies inside the body (on its surface counts as outside).
FS_HDI bool inside_body(const BodyShape& b, dvec3 x) {
    double dist;
    dvec3 point, normal;
    return body_contact(b, x, 0.0, dist, point, normal) && dist < 0.0;
}

// What a body received from the fluid in one collision pass: linear and angular impulse (the
// angular one about the body's position) and heat. Summed over particles in fixed blocks.
struct Exchange {
    dvec3 linear{0.0}, angular{0.0};
    double heat = 0.0;
    int contacts = 0;
};
struct ExchangeOp {
    FS_HDI Exchange operator()(const Exchange& a, const Exchange& b) const {
        Exchange s;
        s.linear = a.linear + b.linear;
        s.angular = a.angular + b.angular;
        s.heat = a.heat + b.heat;
        s.contacts = a.contacts + b.contacts;
        return s;
    }
};

// The fluid's linear impulse of one vorton, (rho / 2) x x alpha, and its angular impulse about
// the origin, (rho / 3) x x (x x alpha) (Saffman, "Vortex Dynamics", 1992, sec. 3.2 and 3.3).
FS_HDI dvec3 linear_impulse_of(dvec3 x, dvec3 alpha, double rho) { return 0.5 * rho * glm::cross(x, alpha); }
FS_HDI dvec3 angular_impulse_of(dvec3 x, dvec3 alpha, double rho) {
    return (rho / 3.0) * glm::cross(x, glm::cross(x, alpha));
}

// Per-step sums over the particles.
struct Sums {
    dvec3 alpha{0.0};    // sum of strengths omega V (total vorticity)
    dvec3 impulse{0.0};  // (1/2) sum x x alpha
    dvec3 angular{0.0};  // (1/3) sum x x (x x alpha), about the origin
    double enstrophy = 0.0;  // sum |omega|^2 V
    double energy = 0.0;     // (1/2) sum alpha . psi  (rho left out)
    double max_speed2 = 0.0;
    int nonfinite = 0;
};
struct SumsOp {
    FS_HDI Sums operator()(const Sums& a, const Sums& b) const {
        Sums s;
        s.alpha = a.alpha + b.alpha;
        s.impulse = a.impulse + b.impulse;
        s.angular = a.angular + b.angular;
        s.enstrophy = a.enstrophy + b.enstrophy;
        s.energy = a.energy + b.energy;
        s.max_speed2 = max_of(a.max_speed2, b.max_speed2);
        s.nonfinite = a.nonfinite + b.nonfinite;
        return s;
    }
};

struct Box3 {
    dvec3 lo{0.0}, hi{0.0};
};
struct Box3Op {
    FS_HDI Box3 operator()(const Box3& a, const Box3& b) const {
        return {dvec3(min_of(a.lo.x, b.lo.x), min_of(a.lo.y, b.lo.y), min_of(a.lo.z, b.lo.z)),
                dvec3(max_of(a.hi.x, b.hi.x), max_of(a.hi.y, b.hi.y), max_of(a.hi.z, b.hi.z))};
    }
};

// Counter-based random numbers (splitmix64, Steele et al. 2014): the k-th draw of a stream is a
// pure function of (seed, k), so emission is the same on every backend and thread count.
FS_HDI unsigned long long splitmix64(unsigned long long z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
FS_HDI double hash01(unsigned long long seed, unsigned long long k) {
    return static_cast<double>(splitmix64(seed * 0x100000001B3ull + k) >> 11) * 0x1.0p-53;
}

}  // namespace fs::vortex
