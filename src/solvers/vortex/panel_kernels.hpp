// Boundary elements of the vortex solver's bodies (body_model boundary_elements): flat triangular
// panels carrying a constant source density q (m/s), whose velocity is added to the vortons' so
// that no fluid flows through a body (Hess and Smith 1967, "Calculation of potential flow about
// arbitrary bodies", Prog. Aerospace Sci. 8: source panels, collocation at panel centres; Cottet
// and Koumoutsakos, "Vortex Methods", 2000, ch. 6: the potential part of the velocity that makes
// the normal velocity on the whole body vanish at once). Inline host-device functions: the same
// bodies build the influence matrix on the host and evaluate the panels at the particles on
// either backend.
#pragma once

#include <cmath>

#include <glm/glm.hpp>

#include "core/hd.hpp"

namespace fs::vortex {

// One flat triangle: corners a, b, c (counter-clockwise seen from the fluid), its centroid (the
// collocation point), outward unit normal, area and size (its longest edge).
struct Panel {
    glm::dvec3 a{0.0}, b{0.0}, c{0.0};
    glm::dvec3 centre{0.0}, normal{0.0, 1.0, 0.0};
    double area = 0.0, size = 0.0;
};

FS_HDI Panel make_panel(glm::dvec3 a, glm::dvec3 b, glm::dvec3 c) {
    Panel p;
    p.a = a;
    p.b = b;
    p.c = c;
    p.centre = (a + b + c) / 3.0;
    const glm::dvec3 n = glm::cross(b - a, c - a);
    const double twice = glm::length(n);
    p.area = 0.5 * twice;
    p.normal = twice > 0.0 ? n / twice : glm::dvec3(0.0, 1.0, 0.0);
    const double e0 = glm::length(b - a), e1 = glm::length(c - b), e2 = glm::length(a - c);
    p.size = e0 > e1 ? (e0 > e2 ? e0 : e2) : (e1 > e2 ? e1 : e2);
    return p;
}

// A point source of strength s (m^3/s) at y seen from x: u = s r / (4 pi |r|^3), r = x - y, its
// gradient d u_a / d x_b = s (delta_ab / r^3 - 3 r_a r_b / r^5) / (4 pi) applied to w as
// (w . grad) u, and the body's "volume field" term n A / (4 pi |r|) (body_field below).
struct PanelInduced {
    glm::dvec3 u{0.0}, stretch{0.0}, field{0.0};
};

FS_HDI void add_point_source(PanelInduced& acc, glm::dvec3 r, double s, glm::dvec3 w, bool want_stretch) {
    const double r2 = glm::dot(r, r);
    const double inv = 1.0 / std::sqrt(r2), inv3 = inv * inv * inv;
    const double k = s * inv3 / (4.0 * 3.14159265358979323846);
    acc.u += k * r;
    if (want_stretch) acc.stretch += k * (w - (3.0 * glm::dot(r, w) * inv * inv) * r);
}

// The quadrature level for a point at distance d from a panel's centre: one point beyond four
// panel sizes (the point source's error there is below (size / 4 d)^2 / 12, 0.05%), else the
// panel cut into 4^level equal triangles, each a point at its centroid: level 2 (16 points)
// beyond one size, level 3 (64) nearer, so a sub-triangle stays several times smaller than the
// distance for points a fifth of a panel off it.
FS_HDI int panel_level(double d, double size) { return d > 4.0 * size ? 0 : d > size ? 2 : 3; }

// Velocity (and optionally stretching of w, and the field term) at x of panel p with source
// density q. The self-term at the panel's own centre is not for this function: its normal part
// is q / 2 on the fluid's side (the jump of a source sheet), its tangential part zero by
// symmetry for the collocation point (influence_normal handles it).
FS_HDI void add_panel(PanelInduced& acc, const Panel& p, double q, glm::dvec3 x, glm::dvec3 w, bool want_stretch,
                      bool want_field) {
    const glm::dvec3 r0 = x - p.centre;
    const double d = glm::length(r0);
    const int level = panel_level(d, p.size);
    if (level == 0) {
        add_point_source(acc, r0, q * p.area, w, want_stretch);
        if (want_field) acc.field += (p.area / (4.0 * 3.14159265358979323846 * d)) * p.normal;
        return;
    }
    const int n = 1 << level;
    const double wa = p.area / (n * n);
    const glm::dvec3 eu = (p.b - p.a) / double(n), ev = (p.c - p.a) / double(n);
    // A floor a tenth of a sub-triangle's size under the distance: only a point closer to the
    // panel than its quadrature resolves would meet it (the particles stay a core radius off).
    const double floor2 = 0.01 * (p.size / n) * (p.size / n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; i + j < n; ++j)
            for (int up = 0; up < 2; ++up) {
                if (up == 1 && i + j + 1 >= n) continue;
                const double f = up == 0 ? 1.0 / 3.0 : 2.0 / 3.0;
                const glm::dvec3 y = p.a + (i + f) * eu + (j + f) * ev;
                glm::dvec3 r = x - y;
                const double r2 = glm::dot(r, r);
                if (r2 < floor2) r *= std::sqrt(floor2 / (r2 > 0.0 ? r2 : floor2));
                add_point_source(acc, r, q * wa, w, want_stretch);
                if (want_field) acc.field += (wa / (4.0 * 3.14159265358979323846 * glm::length(r))) * p.normal;
            }
}

// A tracer's panel velocity: the point source beyond one panel size (up to (size/d)^2/12 off,
// 8% at one size, of a panel's share: tracers are markers, and the quadrature of add_panel cost
// the plate-over-flames scene's 49 000 tracers 1.5 s a step), add_panel's quadrature nearer.
FS_HDI void add_panel_coarse(PanelInduced& acc, const Panel& p, double q, glm::dvec3 x) {
    const glm::dvec3 r0 = x - p.centre;
    if (glm::dot(r0, r0) > p.size * p.size) {
        add_point_source(acc, r0, q * p.area, glm::dvec3(0.0), false);
        return;
    }
    add_panel(acc, p, q, x, glm::dvec3(0.0), false, false);
}

// The normal velocity at panel i's centre from a unit source density on panel j (the influence
// matrix's entry, Hess and Smith 1967): 1/2 on the diagonal (the fluid's side of the sheet).
FS_HDI double influence_normal(const Panel& pi, const Panel& pj, bool same) {
    if (same) return 0.5;
    PanelInduced acc;
    add_panel(acc, pj, 1.0, pi.centre, glm::dvec3(0.0), false, false);
    return glm::dot(acc.u, pi.normal);
}

// Far from a body its panels' sources act as a multipole about the body's centre x0 (the
// expansion of 1 / |x - y| to second order): total M = sum s_j, moment D = sum s_j d_j and
// Q = sum s_j d_j d_j^T (d_j = y_j - x0, s_j = q_j A_j). The potential
// phi = -(1/4 pi) [M / r + D.x / r^3 + (3 x.Q.x - tr Q r^2) / (2 r^5)], x from x0, and u = grad phi.
struct PanelMultipole {
    glm::dvec3 centre{0.0};
    double reach = 0.0;  // points beyond it (three bounding radii) take the expansion
    double m = 0.0;
    glm::dvec3 d{0.0};
    glm::dmat3 q{0.0};
};

FS_HDI glm::dvec3 multipole_velocity(const PanelMultipole& mp, glm::dvec3 x) {
    const glm::dvec3 r = x - mp.centre;
    const double r2 = glm::dot(r, r), inv = 1.0 / std::sqrt(r2);
    const double inv3 = inv * inv * inv, inv5 = inv3 * inv * inv, inv7 = inv5 * inv * inv;
    const double trq = mp.q[0][0] + mp.q[1][1] + mp.q[2][2];
    const glm::dvec3 qr = mp.q * r;
    const double rqr = glm::dot(r, qr), dr = glm::dot(mp.d, r);
    const glm::dvec3 grad = -mp.m * inv3 * r + inv3 * mp.d - 3.0 * dr * inv5 * r + inv5 * (3.0 * qr - trq * r) -
                            2.5 * (3.0 * rqr - trq * r2) * inv7 * r;
    return (-1.0 / (4.0 * 3.14159265358979323846)) * grad;
}

}  // namespace fs::vortex
