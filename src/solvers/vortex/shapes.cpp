// Convex hull, plane-set checks, meshes and mass properties for the vortex solver's obstacles
// (vortex particles part 13, "Planes Make Convex Hulls"). Host-only set-up code: it runs once per shape.
#include "solvers/vortex/shapes.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

namespace fs::vortex {

namespace {

using glm::dvec3;

// Geometric tolerances, relative to the size of the shape at hand: distances below
// kRelTol * size count as zero (double rounding is ~1e-16 * size, so this leaves a wide margin
// and still separates any features a sandbox obstacle has).
constexpr double kRelTol = 1e-9;
// Corners closer than this (relative) are one corner: the same corner computed from different
// triples of planes.
constexpr double kRelMerge = 1e-7;
// Triples of unit normals whose triple product is below this are treated as parallel (no single
// intersection point, or one too ill-conditioned to trust).
constexpr double kMinTripleProduct = 1e-10;

void fail(const std::string& what) {
    throw std::invalid_argument(what);
}

bool is_finite(dvec3 v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

// Half the diagonal of the bounding box: the size the hull tolerance is relative to.
double cloud_size(const std::vector<dvec3>& points) {
    dvec3 lo = points[0], hi = points[0];
    for (const dvec3& p : points) {
        lo = glm::min(lo, p);
        hi = glm::max(hi, p);
    }
    return 0.5 * glm::length(hi - lo);
}

// A hull triangle a, b, c (indices into the points), counter-clockwise seen from outside, with
// its outward plane.
struct Face {
    int a, b, c;
    dvec3 n;
    double d;
};

Face make_face(const std::vector<dvec3>& p, int a, int b, int c) {
    const dvec3 n = glm::normalize(glm::cross(p[b] - p[a], p[c] - p[a]));
    return {a, b, c, n, glm::dot(n, p[a])};
}

// The convex hull's outward face planes, coplanar triangles merged, without the kMaxPlanes
// limit. The incremental algorithm (O'Rourke, "Computational Geometry in C", 2nd ed., §4.3):
// start from a tetrahedron of extreme points, then for each further point remove the
// triangles it sees and join it to the horizon, the boundary of the removed region.
std::vector<Plane> hull_planes(const std::vector<dvec3>& p) {
    if (p.size() < 4)
        fail("a convex hull needs at least 4 points, got " + std::to_string(p.size()));
    for (const dvec3& q : p) {
        if (!is_finite(q)) fail("convex hull: a point is not finite");
    }
    const double eps = kRelTol * cloud_size(p);
    const int n = static_cast<int>(p.size());

    // Initial tetrahedron: the lowest x, the point farthest from it, the point farthest from
    // that line, the point farthest from that plane.
    int i0 = 0;
    for (int i = 1; i < n; ++i) {
        if (p[i].x < p[i0].x) i0 = i;
    }
    auto farthest = [&](auto distance) {
        int best = -1;
        double best_distance = -1.0;
        for (int i = 0; i < n; ++i) {
            const double di = distance(p[i]);
            if (di > best_distance) {
                best_distance = di;
                best = i;
            }
        }
        return std::pair{best, best_distance};
    };
    const auto [i1, d1] = farthest([&](dvec3 q) { return glm::length(q - p[i0]); });
    if (!(d1 > eps)) fail("convex hull: all points coincide (zero volume)");
    const dvec3 axis = (p[i1] - p[i0]) / d1;
    const auto [i2, d2] =
        farthest([&](dvec3 q) { return glm::length(glm::cross(q - p[i0], axis)); });
    if (!(d2 > eps)) fail("convex hull: all points are collinear (zero volume)");
    const dvec3 base_normal = glm::normalize(glm::cross(p[i1] - p[i0], p[i2] - p[i0]));
    const auto [i3, d3] =
        farthest([&](dvec3 q) { return std::abs(glm::dot(q - p[i0], base_normal)); });
    if (!(d3 > eps)) fail("convex hull: all points are coplanar (zero volume)");

    std::vector<Face> faces;
    const int tet[4] = {i0, i1, i2, i3};
    for (int skip = 0; skip < 4; ++skip) {
        int v[3], k = 0;
        for (int j = 0; j < 4; ++j) {
            if (j != skip) v[k++] = tet[j];
        }
        Face f = make_face(p, v[0], v[1], v[2]);
        if (glm::dot(f.n, p[tet[skip]]) - f.d > 0.0) f = make_face(p, v[0], v[2], v[1]);
        faces.push_back(f);
    }

    std::vector<std::pair<int, int>> visible_edges, horizon;
    std::vector<Face> kept;
    for (int i = 0; i < n; ++i) {
        if (i == i0 || i == i1 || i == i2 || i == i3) continue;
        visible_edges.clear();
        kept.clear();
        for (const Face& f : faces) {
            if (glm::dot(f.n, p[i]) - f.d > eps) {
                visible_edges.insert(visible_edges.end(), {{f.a, f.b}, {f.b, f.c}, {f.c, f.a}});
            } else {
                kept.push_back(f);
            }
        }
        if (visible_edges.empty()) continue;  // inside the hull so far, or on it within eps
        // An edge of the visible region whose reverse is not in it borders a hidden triangle.
        horizon.clear();
        for (const auto& [u, v] : visible_edges) {
            if (std::find(visible_edges.begin(), visible_edges.end(), std::pair{v, u}) ==
                visible_edges.end())
                horizon.push_back({u, v});
        }
        faces.swap(kept);
        // The point lies more than eps in front of the removed face that held (u, v), so the new
        // triangle is never degenerate.
        for (const auto& [u, v] : horizon) faces.push_back(make_face(p, u, v, i));
    }

    // Merge the triangles of each face: a triangle joins a group when it faces the same way and
    // its corners lie on the group's first plane within eps. The merged normal is the area-
    // weighted mean, and d is the support of the points in that direction, so every point lies
    // on or behind every plane.
    struct Group {
        dvec3 n0;
        double d0;
        dvec3 area_sum;
    };
    std::vector<Group> groups;
    for (const Face& f : faces) {
        const dvec3 area = glm::cross(p[f.b] - p[f.a], p[f.c] - p[f.a]);
        auto on = [&](const Group& g, int v) {
            return std::abs(glm::dot(g.n0, p[v]) - g.d0) <= eps;
        };
        auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
            return glm::dot(g.n0, f.n) > 0.0 && on(g, f.a) && on(g, f.b) && on(g, f.c);
        });
        if (g == groups.end()) {
            groups.push_back({f.n, f.d, area});
        } else {
            g->area_sum += area;
        }
    }
    std::vector<Plane> planes;
    for (const Group& g : groups) {
        const dvec3 normal = glm::normalize(g.area_sum);
        double support = glm::dot(normal, p[0]);
        for (const dvec3& q : p) support = std::max(support, glm::dot(normal, q));
        planes.push_back({normal, support});
    }
    return planes;
}

// Distance tolerance for a corner x of planes whose offsets reach `scale`.
double corner_tolerance(double scale, dvec3 x) {
    return kRelTol * std::max(scale, glm::length(x));
}

double plane_scale(const Plane* planes, int count) {
    double scale = 0.0;
    for (int i = 0; i < count; ++i) scale = std::max(scale, std::abs(planes[i].d));
    return scale;
}

// The corners of the intersection of the half-spaces n·x <= d: every intersection point of
// three planes that lies on or behind all planes, each corner once.
std::vector<dvec3> corners(const Plane* planes, int count) {
    const double scale = plane_scale(planes, count);
    std::vector<dvec3> result;
    for (int i = 0; i < count; ++i) {
        for (int j = i + 1; j < count; ++j) {
            for (int k = j + 1; k < count; ++k) {
                const Plane &a = planes[i], &b = planes[j], &c = planes[k];
                // Cramer's rule for the 3x3 system [a.n; b.n; c.n] x = (a.d, b.d, c.d): with the
                // triple product det = a.n · (b.n × c.n), x = (a.d (b.n×c.n) + b.d (c.n×a.n) +
                // c.d (a.n×b.n)) / det.
                const double det = glm::dot(a.n, glm::cross(b.n, c.n));
                if (std::abs(det) < kMinTripleProduct) continue;
                const dvec3 x = (a.d * glm::cross(b.n, c.n) + b.d * glm::cross(c.n, a.n) +
                                 c.d * glm::cross(a.n, b.n)) /
                                det;
                const double tol = corner_tolerance(scale, x);
                bool behind_all = true;
                for (int m = 0; m < count && behind_all; ++m) {
                    behind_all = signed_distance(planes[m], x) <= tol;
                }
                if (!behind_all) continue;
                const double merge = kRelMerge * std::max(scale, glm::length(x));
                const bool known = std::any_of(result.begin(), result.end(), [&](dvec3 y) {
                    return glm::length(x - y) <= merge;
                });
                if (!known) result.push_back(x);
            }
        }
    }
    return result;
}

// Indices of the corners on a plane (within tolerance).
std::vector<int> corners_on(const Plane& plane, const std::vector<dvec3>& corner, double scale) {
    std::vector<int> on;
    for (int v = 0; v < static_cast<int>(corner.size()); ++v) {
        if (std::abs(signed_distance(plane, corner[v])) <= corner_tolerance(scale, corner[v]))
            on.push_back(v);
    }
    return on;
}

// Whether points span a plane (three of them not on one line), up to a length tolerance.
bool spans_area(const std::vector<dvec3>& points, double tol) {
    if (points.size() < 3) return false;
    const dvec3 a = points[0];
    const dvec3* far = &a;
    for (const dvec3& q : points) {
        if (glm::length(q - a) > glm::length(*far - a)) far = &q;
    }
    const double length = glm::length(*far - a);
    if (!(length > tol)) return false;
    const dvec3 axis = (*far - a) / length;
    return std::any_of(points.begin(), points.end(),
                       [&](dvec3 q) { return glm::length(glm::cross(q - a, axis)) > tol; });
}

Polytope to_polytope(const std::vector<Plane>& planes) {
    Polytope poly;
    poly.count = static_cast<int>(planes.size());
    std::copy(planes.begin(), planes.end(), poly.planes);
    finish(poly);
    return poly;
}

void require_size(double value, const char* what) {
    if (!(std::isfinite(value) && value > 0.0))
        fail(std::string(what) + " must be positive and finite");
}

// Moves the body origin to the point c: every plane's offset changes by n·c.
void shift_origin(Polytope& poly, dvec3 c) {
    for (int i = 0; i < poly.count; ++i) poly.planes[i].d -= glm::dot(poly.planes[i].n, c);
    finish(poly);
}

}  // namespace

Polytope hull_of(const std::vector<dvec3>& points) {
    const std::vector<Plane> planes = hull_planes(points);
    if (static_cast<int>(planes.size()) > kMaxPlanes)
        fail("convex hull has " + std::to_string(planes.size()) + " faces, more than the " +
             std::to_string(kMaxPlanes) + " a polytope holds");
    return to_polytope(planes);
}

// Checks, in order: each plane finite with a nonzero normal; bounded: the intersection of
// half-spaces n_i·x <= d_i is bounded exactly when the normals positively span space (no
// direction u with n_i·u <= 0 for all i: the recession cone is {0}, Ziegler, "Lectures on
// Polytopes", lecture 1), i.e. when the origin lies strictly inside the convex hull of the
// normals (a set positively spans space iff 0 is interior to its hull, Davis, "Theory of Positive
// Linear Dependence", 1954); nonempty: some triple of planes meets in a point behind all planes;
// of positive volume: those corners span space. A bounded intersection is the hull of its
// corners, and its faces are the planes holding three corners not on one line; the others
// touch it in an edge or a corner only, or not at all, and are dropped, as are repeats.
Polytope from_planes(const std::vector<Plane>& planes) {
    const int count = static_cast<int>(planes.size());
    if (count < 4) fail("a polytope needs at least 4 planes, got " + std::to_string(count));
    if (count > kMaxPlanes)
        fail("a polytope holds at most " + std::to_string(kMaxPlanes) + " planes, got " +
             std::to_string(count));
    std::vector<Plane> unit;
    for (int i = 0; i < count; ++i) {
        const Plane& p = planes[i];
        if (!is_finite(p.n) || !std::isfinite(p.d))
            fail("plane " + std::to_string(i) + " is not finite");
        const double length = glm::length(p.n);
        if (!(length > 0.0)) fail("plane " + std::to_string(i) + " has a zero normal");
        // n·x - d = 0 and (n/|n|)·x - d/|n| = 0 are the same plane; the second measures metres.
        const Plane u{p.n / length, p.d / length};
        if (!is_finite(u.n) || !std::isfinite(u.d))
            fail("plane " + std::to_string(i) + " is not finite once normalised");
        unit.push_back(u);
    }

    std::vector<dvec3> normals;
    for (const Plane& p : unit) normals.push_back(p.n);
    bool bounded = false;
    try {
        const std::vector<Plane> around = hull_planes(normals);
        bounded =
            std::all_of(around.begin(), around.end(), [](const Plane& f) { return f.d > kRelTol; });
    } catch (const std::invalid_argument&) {
        bounded = false;  // the normals span no volume, so they leave some direction open
    }
    const std::vector<dvec3> corner = corners(unit.data(), count);
    if (!bounded)
        fail(
            "the planes' intersection is unbounded (or empty): their normals leave a direction "
            "open");
    if (corner.empty()) fail("the planes' intersection is empty");
    const double scale = std::max(plane_scale(unit.data(), count), cloud_size(corner));
    if (corner.size() < 4) fail("the planes' intersection has zero volume");
    try {
        hull_planes(corner);
    } catch (const std::invalid_argument&) {
        fail("the planes' intersection has zero volume");
    }

    std::vector<Plane> faces;
    std::vector<std::vector<int>> face_corners;
    for (const Plane& p : unit) {
        std::vector<int> on = corners_on(p, corner, scale);
        std::vector<dvec3> points;
        for (int v : on) points.push_back(corner[v]);
        if (!spans_area(points, kRelMerge * scale)) continue;
        if (std::find(face_corners.begin(), face_corners.end(), on) != face_corners.end()) continue;
        faces.push_back(p);
        face_corners.push_back(std::move(on));
    }
    return to_polytope(faces);
}

std::vector<dvec3> vertices_of(const Polytope& poly) {
    return corners(poly.planes, poly.count);
}

Mesh mesh_of(const Polytope& poly) {
    const std::vector<dvec3> corner = vertices_of(poly);
    const double scale = plane_scale(poly.planes, poly.count);
    Mesh mesh;
    for (int i = 0; i < poly.count; ++i) {
        const dvec3 n = poly.planes[i].n;
        std::vector<dvec3> face;
        for (int v : corners_on(poly.planes[i], corner, scale)) face.push_back(corner[v]);
        if (face.size() < 3) continue;
        dvec3 centroid(0.0);
        for (const dvec3& q : face) centroid += q;
        centroid /= static_cast<double>(face.size());
        // In-plane axes u, v = n × u: (u, v, n) is right-handed, so increasing angle from u toward
        // v turns counter-clockwise seen from outside (from +n).
        const dvec3 helper = std::abs(n.x) < 0.9 ? dvec3(1, 0, 0) : dvec3(0, 1, 0);
        const dvec3 u = glm::normalize(glm::cross(n, helper));
        const dvec3 v = glm::cross(n, u);
        auto angle = [&](dvec3 q) {
            return std::atan2(glm::dot(q - centroid, v), glm::dot(q - centroid, u));
        };
        std::sort(face.begin(), face.end(), [&](dvec3 a, dvec3 b) { return angle(a) < angle(b); });
        for (std::size_t k = 1; k + 1 < face.size(); ++k) {
            mesh.triangles.insert(mesh.triangles.end(), {face[0], face[k], face[k + 1]});
        }
    }
    return mesh;
}

void finish(Polytope& poly) {
    double radius = 0.0;
    for (const dvec3& v : vertices_of(poly)) radius = std::max(radius, glm::length(v));
    poly.bounding_radius = radius;
}

Polytope make_box(dvec3 half_extents) {
    require_size(half_extents.x, "box half extent x");
    require_size(half_extents.y, "box half extent y");
    require_size(half_extents.z, "box half extent z");
    return to_polytope({{{1, 0, 0}, half_extents.x},
                        {{-1, 0, 0}, half_extents.x},
                        {{0, 1, 0}, half_extents.y},
                        {{0, -1, 0}, half_extents.y},
                        {{0, 0, 1}, half_extents.z},
                        {{0, 0, -1}, half_extents.z}});
}

Polytope make_plate(double length_x, double width_z, double thickness_y) {
    return make_box({0.5 * length_x, 0.5 * thickness_y, 0.5 * width_z});
}

Polytope make_wedge(double length, double height, double depth) {
    require_size(length, "wedge length");
    require_size(height, "wedge height");
    require_size(depth, "wedge depth");
    // Cross-section corners (-L/3, -H/3), (2L/3, -H/3), (-L/3, 2H/3): their mean, the triangle's
    // centroid, is the origin. The slope through the last two is H x + L y = L H / 3.
    const double hyp = std::hypot(length, height);
    return to_polytope({{{0, -1, 0}, height / 3.0},
                        {{-1, 0, 0}, length / 3.0},
                        {{height / hyp, length / hyp, 0}, length * height / (3.0 * hyp)},
                        {{0, 0, 1}, 0.5 * depth},
                        {{0, 0, -1}, 0.5 * depth}});
}

Polytope make_tetrahedron(double edge) {
    require_size(edge, "tetrahedron edge");
    // Corners (1,1,1), (1,-1,-1), (-1,1,-1), (-1,-1,1) scaled to the edge (theirs is 2√2): the
    // face opposite corner c has outward normal -c/|c| and lies at the inradius a/(2√6) from the
    // centroid, the origin.
    const double inradius = edge / (2.0 * std::sqrt(6.0));
    const double s = 1.0 / std::sqrt(3.0);
    return to_polytope({{{-s, -s, -s}, inradius},
                        {{-s, s, s}, inradius},
                        {{s, -s, s}, inradius},
                        {{s, s, -s}, inradius}});
}

Polytope make_airfoil(double chord, double thickness, double span) {
    require_size(chord, "airfoil chord");
    require_size(thickness, "airfoil thickness");
    require_size(span, "airfoil span");
    // NACA 4-digit half-thickness y_t = 5 t c (0.2969 √ξ - 0.1260 ξ - 0.3516 ξ² + 0.2843 ξ³ -
    // 0.1036 ξ⁴), ξ = x/c, t = thickness/chord (Abbott & von Doenhoff, "Theory of Wing Sections",
    // §6.4; -0.1036 in place of -0.1015 is the usual closed-trailing-edge variant). y_t is
    // concave, so the polygon through samples of it is convex. Stations at x = c (1 - cos(π k/N))/2
    // crowd the curved nose. The sampled section is at most `thickness` thick.
    constexpr int kSegments = 7;  // 7 facets a side, 6 inner stations: 14 planes + 2 end caps
    const double t = thickness / chord;
    std::vector<dvec3> points;
    for (int k = 0; k <= kSegments; ++k) {
        const double xi = 0.5 * (1.0 - std::cos(std::numbers::pi * k / kSegments));
        const double yt = 5.0 * t * chord *
                          (0.2969 * std::sqrt(xi) - 0.1260 * xi - 0.3516 * xi * xi +
                           0.2843 * xi * xi * xi - 0.1036 * xi * xi * xi * xi);
        for (double side : {-1.0, 1.0}) {
            for (double z : {-0.5 * span, 0.5 * span}) points.push_back({xi * chord, side * yt, z});
        }
    }
    Polytope poly = hull_of(points);
    // The section's centroid lies ahead of mid-chord (the nose is fuller than the tail).
    shift_origin(poly, mass_properties(mesh_of(poly), 1.0).centroid);
    return poly;
}

// Volume, centroid and inertia by the divergence theorem applied through a tetrahedral
// decomposition: each triangle (a, b, c) and a reference point o span a signed tetrahedron, and
// over a closed mesh the signed tetrahedra sum to the solid (Mirtich, "Fast and Accurate
// Computation of Polyhedral Mass Properties", 1996; the same idea as the signed-area polygon
// formula). With vertices relative to o: volume det/6, det = a·(b×c); first moment
// volume (a+b+c)/4; second moment ∫ x xᵀ = volume/20 (a aᵀ + b bᵀ + c cᵀ + s sᵀ), s = a+b+c
// (Tonon, "Explicit Exact Formulas for the 3-D Tetrahedron Inertia Tensor in Terms of its Vertex
// Coordinates", J. Math. Stat. 2005, with the fourth vertex at o). o is the mean vertex, so
// large offsets do not cancel away digits.
MassProperties mass_properties(const Mesh& mesh, double density) {
    if (mesh.triangles.size() % 3 != 0) fail("a mesh holds 3 vertices per triangle");
    if (mesh.triangles.empty()) fail("the mesh is empty");
    if (!(std::isfinite(density) && density > 0.0)) fail("density must be positive and finite");
    dvec3 o(0.0);
    for (const dvec3& v : mesh.triangles) {
        if (!is_finite(v)) fail("a mesh vertex is not finite");
        o += v;
    }
    o /= static_cast<double>(mesh.triangles.size());

    double volume = 0.0;
    dvec3 first(0.0);
    glm::dmat3 second(0.0);
    for (std::size_t i = 0; i < mesh.triangles.size(); i += 3) {
        const dvec3 a = mesh.triangles[i] - o, b = mesh.triangles[i + 1] - o,
                    c = mesh.triangles[i + 2] - o;
        const double v = glm::dot(a, glm::cross(b, c)) / 6.0;
        const dvec3 s = a + b + c;
        volume += v;
        first += v * s / 4.0;
        second += (v / 20.0) * (glm::outerProduct(a, a) + glm::outerProduct(b, b) +
                                glm::outerProduct(c, c) + glm::outerProduct(s, s));
    }
    if (!(volume > 0.0)) fail("the mesh encloses no positive volume (inside out, or open)");
    const dvec3 centroid_rel = first / volume;
    // Parallel-axis theorem on the second moment: about the centroid, ∫ x xᵀ - V c cᵀ; the
    // inertia tensor is ρ (tr(C) 1 - C).
    const glm::dmat3 c = second - volume * glm::outerProduct(centroid_rel, centroid_rel);
    const double trace = c[0][0] + c[1][1] + c[2][2];
    MassProperties m;
    m.volume = volume;
    m.mass = density * volume;
    m.centroid = o + centroid_rel;
    m.inertia = density * (trace * glm::dmat3(1.0) - c);
    return m;
}

}  // namespace fs::vortex
