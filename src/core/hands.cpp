#include "core/hands.hpp"

#include <cmath>
#include <limits>

#include "core/solver.hpp"

namespace fs {

namespace {

using V = double[3];

double dot(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// Ray against an axis-aligned box: the slab method (Kay and Kajiya 1986). A ray that starts
// inside hits at t = 0.
bool hit_box(const double* p, const double* d, const double* lo, const double* hi, double& t) {
    double t0 = 0.0, t1 = std::numeric_limits<double>::infinity();
    for (int a = 0; a < 3; ++a) {
        if (d[a] == 0.0) {
            if (p[a] < lo[a] || p[a] > hi[a]) return false;
            continue;
        }
        double ta = (lo[a] - p[a]) / d[a], tb = (hi[a] - p[a]) / d[a];
        if (ta > tb) std::swap(ta, tb);
        t0 = std::max(t0, ta);
        t1 = std::min(t1, tb);
        if (t0 > t1) return false;
    }
    t = t0;
    return true;
}

// Ray against a sphere: the smaller root of |p + t d - c|^2 = r^2 (d a unit vector), or 0 inside.
bool hit_sphere(const double* p, const double* d, const double* c, double r, double& t) {
    const double m[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    const double b = dot(m, d), cc = dot(m, m) - r * r;
    if (cc <= 0.0) {
        t = 0.0;
        return true;
    }
    const double disc = b * b - cc;
    if (b > 0.0 || disc < 0.0) return false;
    t = -b - std::sqrt(disc);
    return true;
}

// Ray against a triangle: Moller and Trumbore (1997), both faces.
bool hit_triangle(const double* p, const double* d, const double* a, const double* b, const double* c, double& t) {
    const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double q[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
    const double det = dot(e1, q);
    if (std::abs(det) < 1e-300) return false;
    const double s[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    const double u = dot(s, q) / det;
    if (u < 0.0 || u > 1.0) return false;
    const double r[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
    const double v = dot(d, r) / det;
    if (v < 0.0 || u + v > 1.0) return false;
    t = dot(e2, r) / det;
    return t >= 0.0;
}

// Ray against a polygon in z = 0: where it crosses the plane, inside by the crossing-number test.
bool hit_polygon(const double* p, const double* d, const std::vector<double>& xy, double& t) {
    double x = p[0], y = p[1], at = 0.0;
    if (p[2] != 0.0) {
        if (d[2] == 0.0) return false;
        at = -p[2] / d[2];
        if (at < 0.0) return false;
        x += at * d[0];
        y += at * d[1];
    }
    const std::size_t n = xy.size() / 2;
    bool inside = false;
    for (std::size_t i = 0, j = n - 1; i < n; j = i++) {
        const double xi = xy[2 * i], yi = xy[2 * i + 1], xj = xy[2 * j], yj = xy[2 * j + 1];
        if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) inside = !inside;
    }
    t = at;
    return inside;
}

}  // namespace

int pick_obstacle(const std::vector<Obstacle>& obstacles, const double point[3], const double axis[3], double* t_out) {
    int best = -1;
    double best_t = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < obstacles.size(); ++k) {
        const Obstacle& o = obstacles[k];
        if (!o.draggable) continue;
        double t = 0.0;
        bool hit = false;
        switch (o.shape) {
            case Obstacle::Shape::Box: hit = hit_box(point, axis, o.lo, o.hi, t); break;
            case Obstacle::Shape::Sphere: hit = hit_sphere(point, axis, o.center, o.radius, t); break;
            case Obstacle::Shape::Polygon: hit = hit_polygon(point, axis, o.points, t); break;
            case Obstacle::Shape::Mesh:
                for (std::size_t i = 0; i + 8 < o.points.size(); i += 9) {
                    double ti = 0.0;
                    if (hit_triangle(point, axis, &o.points[i], &o.points[i + 3], &o.points[i + 6], ti) &&
                        (!hit || ti < t)) {
                        t = ti;
                        hit = true;
                    }
                }
                break;
        }
        if (hit && t < best_t) {
            best_t = t;
            best = static_cast<int>(k);
        }
    }
    if (t_out) *t_out = best_t;
    return best;
}

Grip grip_obstacle(const std::vector<Obstacle>& obstacles, const double point[3], const double axis[3]) {
    Grip g;
    double t = 0.0;
    g.body = pick_obstacle(obstacles, point, axis, &t);
    if (g.body < 0) return g;
    for (int a = 0; a < 3; ++a) {
        g.grab[a] = point[a] + t * axis[a];
        g.anchor[a] = obstacles[static_cast<std::size_t>(g.body)].anchor[a];
    }
    return g;
}

Hand drag_hand(const Grip& g, const double p[3]) {
    Hand h;
    if (g.body < 0) return h;
    h.tool = Hand::Tool::Drag;
    h.body = g.body;
    for (int a = 0; a < 3; ++a) {
        h.point[a] = p[a];
        h.target[a] = g.anchor[a] + (p[a] - g.grab[a]);
    }
    return h;
}

}  // namespace fs
