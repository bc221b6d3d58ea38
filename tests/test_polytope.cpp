// Convex polytopes of the vortex solver (src/solvers/vortex/polytope.hpp, shapes.hpp; vortex particles part 13,
// "Convex Obstacles"): point queries against brute-force and exact geometry, hull and plane-set
// construction and their error rules, meshes, mass properties, poses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <glm/glm.hpp>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "solvers/vortex/polytope.hpp"
#include "solvers/vortex/shapes.hpp"
#include "solvers/vortex/vortex_kernels.hpp"

namespace {

using glm::dmat3;
using glm::dvec3;
using namespace fs::vortex;

dvec3 random_in_box(std::mt19937_64& rng, dvec3 half) {
    return {(2 * fs::uniform01(rng) - 1) * half.x, (2 * fs::uniform01(rng) - 1) * half.y,
            (2 * fs::uniform01(rng) - 1) * half.z};
}

dvec3 random_unit(std::mt19937_64& rng) {
    for (;;) {
        const dvec3 v = random_in_box(rng, dvec3(1.0));
        const double l = glm::length(v);
        if (l > 0.1 && l <= 1.0) return v / l;
    }
}

// Rotation by angle about a unit axis (Rodrigues): R = cos θ 1 + sin θ [k]x + (1 - cos θ) k kᵀ.
dmat3 rotation(dvec3 k, double angle) {
    const double c = std::cos(angle), s = std::sin(angle);
    const dmat3 cross_k(0, k.z, -k.y, -k.z, 0, k.x, k.y, -k.x, 0);  // columns of [k]x
    return c * dmat3(1.0) + s * cross_k + (1 - c) * glm::outerProduct(k, k);
}

Pose random_pose(std::mt19937_64& rng) {
    return {random_in_box(rng, dvec3(3.0)),
            rotation(random_unit(rng), 2 * std::numbers::pi * fs::uniform01(rng))};
}

dvec3 to_world(const Pose& pose, dvec3 body) {
    return pose.position + pose.orientation * body;
}

// Reference hull, built independently of hull_of: the plane through three points is a face
// plane when every point lies on one side of it (O(n^4)); repeats (coplanar faces) kept once.
std::vector<Plane> naive_hull(const std::vector<dvec3>& p) {
    std::vector<Plane> planes;
    const std::size_t n = p.size();
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            for (std::size_t k = j + 1; k < n; ++k) {
                const dvec3 c = glm::cross(p[j] - p[i], p[k] - p[i]);
                if (glm::length(c) < 1e-12) continue;
                const dvec3 nrm = glm::normalize(c);
                const double d = glm::dot(nrm, p[i]);
                bool below = true, above = true;
                for (const dvec3& q : p) {
                    below = below && glm::dot(nrm, q) - d <= 1e-12;
                    above = above && glm::dot(nrm, q) - d >= -1e-12;
                }
                if (!below && !above) continue;
                const Plane plane = below ? Plane{nrm, d} : Plane{-nrm, -d};
                bool known = false;
                for (const Plane& f : planes)
                    known = known ||
                            (glm::length(f.n - plane.n) < 1e-9 && std::abs(f.d - plane.d) < 1e-9);
                if (!known) planes.push_back(plane);
            }
    return planes;
}

// A random convex shape: the hull of 5 to 12 random points in an anisotropic box, with the
// reference plane set from naive_hull.
struct RandomShape {
    std::vector<dvec3> points;
    dvec3 half;  // the points lie in [-half, half]
    Polytope poly;
    std::vector<Plane> reference;
};

RandomShape random_shape(std::mt19937_64& rng) {
    RandomShape s;
    const int n = 5 + static_cast<int>(fs::uniform01(rng) * 8);
    s.half = {0.5 + fs::uniform01(rng), 0.5 + fs::uniform01(rng), 0.5 + fs::uniform01(rng)};
    for (int i = 0; i < n; ++i) s.points.push_back(random_in_box(rng, s.half));
    s.poly = hull_of(s.points);
    s.reference = naive_hull(s.points);
    return s;
}

std::vector<Polytope> ready_made_shapes() {
    return {make_box({0.5, 1.0, 1.5}), make_plate(2.0, 1.0, 0.05), make_wedge(2.0, 1.0, 0.5),
            make_tetrahedron(1.3), make_airfoil(1.0, 0.12, 2.0)};
}

// The corners of a polytope on its plane k.
std::vector<dvec3> face_corners(const Polytope& poly, int k) {
    std::vector<dvec3> on;
    for (const dvec3& v : vertices_of(poly))
        if (std::abs(signed_distance(poly.planes[k], v)) < 1e-9) on.push_back(v);
    return on;
}

void expect_one_line_throw(auto&& make) {
    try {
        make();
        ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_FALSE(what.empty());
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
}

std::vector<Plane> cube_planes(double h) {
    return {{{1, 0, 0}, h},  {{-1, 0, 0}, h}, {{0, 1, 0}, h},
            {{0, -1, 0}, h}, {{0, 0, 1}, h},  {{0, 0, -1}, h}};
}

std::vector<dvec3> box_corners(dvec3 h, dvec3 offset = dvec3(0.0)) {
    std::vector<dvec3> v;
    for (double x : {-h.x, h.x})
        for (double y : {-h.y, h.y})
            for (double z : {-h.z, h.z}) v.push_back(offset + dvec3{x, y, z});
    return v;
}

// ---------------------------------------------------------------------------------------------

TEST(Polytope, HullMatchesNaiveHullAndInsideMatchesBruteForce) {
    std::mt19937_64 rng(20250101);
    const Pose identity{};
    int tested = 0, inside_count = 0;
    for (int shape = 0; shape < 40; ++shape) {
        const RandomShape s = random_shape(rng);
        // Same plane set as the independent O(n^4) construction.
        ASSERT_EQ(s.poly.count, static_cast<int>(s.reference.size()));
        for (const Plane& r : s.reference) {
            int matches = 0;
            for (int i = 0; i < s.poly.count; ++i)
                matches += glm::length(s.poly.planes[i].n - r.n) < 1e-9 &&
                           std::abs(s.poly.planes[i].d - r.d) < 1e-9;
            EXPECT_EQ(matches, 1);
        }
        const Pose pose = random_pose(rng);
        for (int trial = 0; trial < 500; ++trial) {
            const dvec3 q = random_in_box(rng, 1.1 * s.half);
            bool expected = true;
            double nearest = std::numeric_limits<double>::infinity();
            for (const Plane& r : s.reference) {
                const double d = glm::dot(r.n, q) - r.d;
                expected = expected && d < 0;
                nearest = std::min(nearest, std::abs(d));
            }
            if (nearest < 1e-9) continue;  // on the surface to rounding: either answer is right
            EXPECT_EQ(inside(s.poly, identity, q), expected);
            EXPECT_EQ(inside(s.poly, pose, to_world(pose, q)), expected);
            ++tested;
            inside_count += expected;
        }
    }
    EXPECT_GT(tested, 19000);
    EXPECT_GT(inside_count, 1500);  // both answers well represented
}

// Many points on a box's faces (and inside it): the coplanar triangles merge into the 6 planes.
TEST(Polytope, HullMergesCoplanarFaces) {
    std::mt19937_64 rng(23);
    const dvec3 h{0.7, 0.2, 1.3};
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<dvec3> points = box_corners(h, dvec3(0.5, -1.0, 2.0));
        for (int i = 0; i < 60; ++i) {
            dvec3 q = random_in_box(rng, h);
            const int axis = static_cast<int>(fs::uniform01(rng) * 4);  // 3: stays inside
            if (axis < 3) q[axis] = fs::uniform01(rng) < 0.5 ? -h[axis] : h[axis];
            points.push_back(dvec3(0.5, -1.0, 2.0) + q);
        }
        std::shuffle(points.begin(), points.end(), rng);
        const Polytope poly = hull_of(points);
        const std::vector<Plane> reference = naive_hull(points);
        ASSERT_EQ(poly.count, 6);
        ASSERT_EQ(reference.size(), 6u);
        for (const Plane& r : reference) {
            int matches = 0;
            for (int i = 0; i < poly.count; ++i)
                matches += glm::length(poly.planes[i].n - r.n) < 1e-12 &&
                           std::abs(poly.planes[i].d - r.d) < 1e-12;
            EXPECT_EQ(matches, 1);
        }
        EXPECT_EQ(vertices_of(poly).size(), 8u);
    }
}

// In a face's region, the largest plane distance is the exact Euclidean distance (outside) or
// minus the depth (inside), and the contact point is the foot of the perpendicular on the face.
TEST(Polytope, ContactDistanceIsExactInFaceRegions) {
    std::mt19937_64 rng(7);
    std::vector<Polytope> shapes = ready_made_shapes();
    for (int i = 0; i < 10; ++i) shapes.push_back(random_shape(rng).poly);
    int checked = 0;
    for (const Polytope& poly : shapes) {
        const Pose pose = random_pose(rng);
        for (int k = 0; k < poly.count; ++k) {
            const std::vector<dvec3> corners = face_corners(poly, k);
            ASSERT_GE(corners.size(), 3u);
            dvec3 centroid(0.0), mix(0.0);
            double total = 0;
            for (const dvec3& c : corners) {
                const double w = fs::uniform01(rng) + 1e-3;
                centroid += c / static_cast<double>(corners.size());
                mix += w * c;
                total += w;
            }
            const dvec3 p = 0.5 * centroid + 0.5 * mix / total;  // in the face's relative interior
            const dvec3 n = poly.planes[k].n;
            double room =
                std::numeric_limits<double>::infinity();  // distance of p from the other planes
            for (int m = 0; m < poly.count; ++m)
                if (m != k) room = std::min(room, -signed_distance(poly.planes[m], p));
            ASSERT_GT(room, 0.0);
            // Moving in by t moves q at most 2t closer to any other plane (1 - n_m·n <= 2).
            const double t_in = 0.45 * room * (0.1 + 0.9 * fs::uniform01(rng));
            const double t_out = poly.bounding_radius * (0.01 + 2 * fs::uniform01(rng));
            for (double t : {t_out, -t_in}) {
                const dvec3 q = to_world(pose, p + t * n);
                int index = -1;
                const double distance = contact_distance(poly, pose, q, index);
                EXPECT_EQ(index, k);
                EXPECT_NEAR(distance, t, 1e-12);
                dvec3 normal;
                const dvec3 contact = contact_point(poly, pose, q, index, distance, normal);
                EXPECT_NEAR(glm::length(normal - pose.orientation * n), 0.0, 1e-14);
                const dvec3 contact_body = to_body(pose, contact);
                EXPECT_LT(std::abs(signed_distance(poly.planes[k], contact_body)), 1e-12);
                for (int m = 0; m < poly.count; ++m)
                    EXPECT_LE(signed_distance(poly.planes[m], contact_body), 1e-12);
                EXPECT_NEAR(glm::length(contact_body - p), 0.0, 1e-12);
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 200);
}

TEST(Polytope, BoxHullPlanesCornersAndMesh) {
    const dvec3 h{0.5, 1.25, 2.0};
    const Polytope hull = hull_of(box_corners(h));
    ASSERT_EQ(hull.count, 6);
    const Polytope box = make_box(h);
    for (int e = 0; e < box.count; ++e) {
        const Plane& expected = box.planes[e];
        int matches = 0;
        for (int i = 0; i < hull.count; ++i)
            matches += hull.planes[i].n == expected.n && hull.planes[i].d == expected.d;
        EXPECT_EQ(matches, 1) << expected.n.x << " " << expected.n.y << " " << expected.n.z;
    }
    EXPECT_DOUBLE_EQ(hull.bounding_radius, glm::length(h));

    const Polytope cube = from_planes(cube_planes(1.0));
    EXPECT_EQ(cube.count, 6);
    const std::vector<dvec3> corners = vertices_of(cube);
    ASSERT_EQ(corners.size(), 8u);
    for (const dvec3& c : corners) {
        EXPECT_DOUBLE_EQ(std::abs(c.x), 1.0);
        EXPECT_DOUBLE_EQ(std::abs(c.y), 1.0);
        EXPECT_DOUBLE_EQ(std::abs(c.z), 1.0);
    }
    for (std::size_t i = 0; i < corners.size(); ++i)
        for (std::size_t j = i + 1; j < corners.size(); ++j) EXPECT_NE(corners[i], corners[j]);

    const Mesh mesh = mesh_of(make_box(h));
    ASSERT_EQ(mesh.triangles.size(), 36u);
}

// Every face of every shape is triangulated with outward winding, and the triangles cover the
// surface: the mesh's volume is the shape's (checked against a closed form where there is one).
TEST(Polytope, MeshesAreClosedAndWoundOutward) {
    std::mt19937_64 rng(11);
    std::vector<Polytope> shapes = ready_made_shapes();
    for (int i = 0; i < 10; ++i) shapes.push_back(random_shape(rng).poly);
    for (const Polytope& poly : shapes) {
        const Mesh mesh = mesh_of(poly);
        ASSERT_EQ(mesh.triangles.size() % 3, 0u);
        dvec3 inner(0.0);  // the corners' mean lies inside a convex shape
        const std::vector<dvec3> corners = vertices_of(poly);
        for (const dvec3& c : corners) inner += c / static_cast<double>(corners.size());
        // Euler: V - E + F = 2 with E = 3F/2 for a closed triangulation of the corners.
        EXPECT_EQ(corners.size() - mesh.triangles.size() / 2 + mesh.triangles.size() / 3, 2u);
        for (std::size_t i = 0; i < mesh.triangles.size(); i += 3) {
            const dvec3 a = mesh.triangles[i], b = mesh.triangles[i + 1], c = mesh.triangles[i + 2];
            const dvec3 area = glm::cross(b - a, c - a);
            EXPECT_GT(glm::length(area), 1e-9);
            EXPECT_GT(glm::dot(area, (a + b + c) / 3.0 - inner), 0.0);
        }
    }
}

TEST(Polytope, BadInputThrowsOneLineReasons) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<Plane> cube = cube_planes(1.0);

    // from_planes: counts, zero normal, non-finite, empty, unbounded, flat.
    expect_one_line_throw([&] { from_planes({cube[0], cube[1], cube[2]}); });
    std::vector<Plane> many;
    for (int i = 0; i < kMaxPlanes + 1; ++i) many.push_back(cube[i % 6]);
    expect_one_line_throw([&] { from_planes(many); });
    {
        auto zero = cube;
        zero.push_back({{0, 0, 0}, 1.0});
        expect_one_line_throw([&] { from_planes(zero); });
    }
    {
        auto bad = cube;
        bad[2].d = nan;
        expect_one_line_throw([&] { from_planes(bad); });
        bad = cube;
        bad[4].n.y = inf;
        expect_one_line_throw([&] { from_planes(bad); });
    }
    {
        auto empty = cube;  // x <= 0 and x >= 1
        empty[0] = {{1, 0, 0}, 0.0};
        empty[1] = {{-1, 0, 0}, -1.0};
        expect_one_line_throw([&] { from_planes(empty); });
    }
    {
        auto open = cube;  // no lid
        open.erase(open.begin() + 4);
        open.push_back(open[0]);
        expect_one_line_throw([&] { from_planes(open); });
        // A four-sided cone: corner at the apex, no bottom.
        std::vector<Plane> cone = {
            {{1, 0, 1}, 0}, {{-1, 0, 1}, 0}, {{0, 1, 1}, 0}, {{0, -1, 1}, 0}};
        expect_one_line_throw([&] { from_planes(cone); });
    }
    {
        auto flat = cube;  // 0 <= x <= 0
        flat[0].d = 0.0;
        flat[1].d = 0.0;
        expect_one_line_throw([&] { from_planes(flat); });
    }

    // hull_of: too few, coplanar, collinear, coincident, non-finite, too many faces.
    expect_one_line_throw([] { hull_of({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}); });
    std::vector<dvec3> grid;
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) grid.push_back({i * 0.3, j * 0.7, 2.0 + 1e-13 * ((i * j) % 2)});
    expect_one_line_throw([&] { hull_of(grid); });
    expect_one_line_throw([] {
        hull_of({{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {-1, -1, -1}});
    });
    expect_one_line_throw([] { hull_of({{1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}}); });
    expect_one_line_throw([&] { hull_of({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, nan}}); });
    expect_one_line_throw([&] {
        hull_of({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {inf, 0, 0}});
    });
    std::vector<dvec3> sphere;  // Fibonacci sphere: 40 points in convex position, 76 triangles
    for (int i = 0; i < 40; ++i) {
        const double y = 1 - (i + 0.5) * 2 / 40, r = std::sqrt(1 - y * y),
                     phi = i * 2.399963229728653;
        sphere.push_back({r * std::cos(phi), y, r * std::sin(phi)});
    }
    expect_one_line_throw([&] { hull_of(sphere); });

    // Ready-made shapes and mass properties.
    expect_one_line_throw([] { make_box({1, -1, 1}); });
    expect_one_line_throw([&] { make_airfoil(1.0, nan, 1.0); });
    expect_one_line_throw([] { make_tetrahedron(0.0); });
    expect_one_line_throw([] { mass_properties(Mesh{{{0, 0, 0}, {1, 0, 0}}}, 1.0); });
    expect_one_line_throw([] { mass_properties(mesh_of(make_box(dvec3(1.0))), -1.0); });
    Mesh inverted = mesh_of(make_box(dvec3(1.0)));
    for (std::size_t i = 0; i < inverted.triangles.size(); i += 3)
        std::swap(inverted.triangles[i + 1], inverted.triangles[i + 2]);
    expect_one_line_throw([&] { mass_properties(inverted, 1.0); });
}

// Normals of any length are accepted and scaled to unit with their offsets, so distances come out
// in metres; planes that do not hold a face are dropped.
TEST(Polytope, FromPlanesNormalisesAndDropsRedundantPlanes) {
    std::vector<Plane> scaled = cube_planes(1.0);
    const double factors[6] = {2.0, 0.5, 7.0, 1e-3, 3.0, 1e4};
    for (int i = 0; i < 6; ++i) {
        scaled[i].n *= factors[i];
        scaled[i].d *= factors[i];
    }
    const Polytope cube = from_planes(scaled);
    ASSERT_EQ(cube.count, 6);
    for (int i = 0; i < 6; ++i) {
        EXPECT_NEAR(glm::length(cube.planes[i].n), 1.0, 1e-15);
        EXPECT_NEAR(cube.planes[i].d, 1.0, 1e-15);
    }
    int index = -1;
    EXPECT_NEAR(contact_distance(cube, Pose{}, {3.0, 0.2, -0.1}, index), 2.0, 1e-14);
    EXPECT_EQ(index, 0);
    EXPECT_NEAR(contact_distance(cube, Pose{}, {0.1, -0.95, 0.3}, index), -0.05, 1e-14);
    EXPECT_EQ(index, 3);
    EXPECT_NEAR(cube.bounding_radius, std::sqrt(3.0), 1e-14);

    std::vector<Plane> extra = cube_planes(1.0);
    extra.insert(extra.begin() + 2, {{1, 1, 1}, 3.0});  // touches the corner (1,1,1) only
    extra.push_back({{1, 1, 0}, 2.0});                  // touches an edge only
    extra.push_back({{0, 0, 1}, 5.0});                  // misses the cube
    extra.push_back({{0, 0, 2}, 2.0});                  // a repeat of z <= 1
    const Polytope kept = from_planes(extra);
    ASSERT_EQ(kept.count, 6);
    const std::vector<Plane> expected = cube_planes(1.0);
    for (int i = 0; i < 6; ++i) {  // in the given order
        EXPECT_EQ(kept.planes[i].n, expected[i].n);
        EXPECT_EQ(kept.planes[i].d, expected[i].d);
    }

    // A tilted shape: a hull's planes, handed back in, give the same corners.
    std::mt19937_64 rng(3);
    const RandomShape s = random_shape(rng);
    const Polytope again =
        from_planes(std::vector<Plane>(s.poly.planes, s.poly.planes + s.poly.count));
    EXPECT_EQ(again.count, s.poly.count);
    EXPECT_EQ(vertices_of(again).size(), vertices_of(s.poly).size());
    EXPECT_NEAR(again.bounding_radius, s.poly.bounding_radius, 1e-12);
}

TEST(Polytope, MassPropertiesOfBoxAndTetrahedron) {
    const dvec3 h{0.5, 1.0, 1.5};
    const double density = 3.0;
    const MassProperties box = mass_properties(mesh_of(make_box(h)), density);
    const double a = 2 * h.x, b = 2 * h.y, c = 2 * h.z, m = density * a * b * c;
    EXPECT_NEAR(box.volume, a * b * c, 1e-12);
    EXPECT_NEAR(box.mass, m, 1e-12);
    EXPECT_NEAR(glm::length(box.centroid), 0.0, 1e-14);
    // Solid cuboid: I_xx = m (b² + c²) / 12 and so on, no products of inertia.
    const dmat3 expected(m * (b * b + c * c) / 12, 0, 0, 0, m * (a * a + c * c) / 12, 0, 0, 0,
                         m * (a * a + b * b) / 12);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) EXPECT_NEAR(box.inertia[i][j], expected[i][j], 1e-12);

    // Moving the solid moves its centroid and leaves the inertia about it alone; turning it
    // turns the tensor, I' = R I Rᵀ.
    std::mt19937_64 rng(5);
    const Pose pose = random_pose(rng);
    Mesh moved = mesh_of(make_box(h));
    for (dvec3& v : moved.triangles) v = to_world(pose, v);
    const MassProperties turned = mass_properties(moved, density);
    EXPECT_NEAR(turned.volume, box.volume, 1e-12);
    EXPECT_NEAR(glm::length(turned.centroid - pose.position), 0.0, 1e-12);
    const dmat3 rotated = pose.orientation * expected * glm::transpose(pose.orientation);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) EXPECT_NEAR(turned.inertia[i][j], rotated[i][j], 1e-11);

    // Regular tetrahedron: V = a³/(6√2); its inertia is isotropic, m a²/20 about any axis.
    const double edge = 1.3;
    const MassProperties tet = mass_properties(mesh_of(make_tetrahedron(edge)), density);
    EXPECT_NEAR(tet.volume, edge * edge * edge / (6 * std::sqrt(2.0)), 1e-14);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            EXPECT_NEAR(tet.inertia[i][j], i == j ? tet.mass * edge * edge / 20 : 0.0, 1e-14);

    // Wedge: half the box around it.
    EXPECT_NEAR(mass_properties(mesh_of(make_wedge(2.0, 1.0, 0.5)), 1.0).volume, 0.5, 1e-14);
}

TEST(Polytope, ReadyMadeShapesAreCentredAndSized) {
    for (const Polytope& poly : ready_made_shapes()) {
        EXPECT_LE(poly.count, kMaxPlanes);
        const MassProperties mp = mass_properties(mesh_of(poly), 1.0);
        EXPECT_NEAR(glm::length(mp.centroid), 0.0, 1e-12 * poly.bounding_radius);
        // The bounding sphere is the farthest corner: it holds every corner and touches one.
        double farthest = 0;
        for (const dvec3& v : vertices_of(poly)) {
            farthest = std::max(farthest, glm::length(v));
            EXPECT_TRUE(in_bounding_sphere(poly, Pose{}, v, 1e-12));
        }
        EXPECT_DOUBLE_EQ(poly.bounding_radius, farthest);
    }
    // The plate: length x, thickness y, width z.
    const Polytope plate = make_plate(2.0, 1.0, 0.05);
    int index = -1;
    EXPECT_NEAR(contact_distance(plate, Pose{}, {0.0, 1.0, 0.0}, index), 0.975, 1e-15);
    EXPECT_NEAR(contact_distance(plate, Pose{}, {0.0, 0.0, 1.0}, index), 0.5, 1e-15);
    EXPECT_NEAR(contact_distance(plate, Pose{}, {2.0, 0.0, 0.0}, index), 1.0, 1e-15);

    // The airfoil: 7 facets a side and two caps; chord along x, thickness along y, span along z;
    // the centroid, its origin, lies ahead of mid-chord.
    const double chord = 1.5, thickness = 0.18, span = 3.0;
    const Polytope wing = make_airfoil(chord, thickness, span);
    EXPECT_EQ(wing.count, 16);
    dvec3 lo(1e9), hi(-1e9);
    for (const dvec3& v : vertices_of(wing)) {
        lo = glm::min(lo, v);
        hi = glm::max(hi, v);
    }
    EXPECT_NEAR(hi.x - lo.x, chord, 1e-12);
    EXPECT_NEAR(hi.z - lo.z, span, 1e-12);
    EXPECT_NEAR(hi.y + lo.y, 0.0, 1e-12);  // symmetric section
    EXPECT_LE(hi.y - lo.y, thickness);
    EXPECT_GT(hi.y - lo.y, 0.9 * thickness);
    EXPECT_GT(-lo.x, 0.3 * chord);
    EXPECT_LT(-lo.x, 0.5 * chord);
}

// A posed box against a reference that does not go through to_body: the point's coordinates
// along the box's world axes, R e_i.
TEST(Polytope, PoseMatchesBodySpaceReference) {
    std::mt19937_64 rng(13);
    const dvec3 h{0.3, 0.8, 1.1};
    const Polytope box = make_box(h);
    int inside_count = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        const Pose pose = random_pose(rng);
        const dvec3 q = pose.position + random_in_box(rng, dvec3(1.5));
        bool expected = true;
        for (int i = 0; i < 3; ++i)
            expected =
                expected && std::abs(glm::dot(pose.orientation[i], q - pose.position)) < h[i];
        EXPECT_EQ(inside(box, pose, q), expected);
        inside_count += expected;
        EXPECT_EQ(in_bounding_sphere(box, pose, q, 0.1),
                  glm::length(q - pose.position) < glm::length(h) + 0.1);
    }
    EXPECT_GT(inside_count, 200);
}

// A particle that went down through a thin plate ends nearer the bottom face: contact_distance
// would push it out below, collision_distance pushes it back out of the top, where it entered.
TEST(Polytope, CollisionDistancePicksTheEntryPlane) {
    const Polytope plate = make_plate(2.0, 2.0, 0.1);
    std::mt19937_64 rng(17);
    for (int trial = 0; trial < 20; ++trial) {
        const Pose pose = trial == 0 ? Pose{} : random_pose(rng);
        const dvec3 q = to_world(pose, {0.3, -0.03, 0.2});
        const dvec3 down = pose.orientation * dvec3{0.1, -1.0, 0.05};
        const dvec3 up_normal = pose.orientation * dvec3{0, 1, 0};

        int nearest = -1, entry = -1;
        EXPECT_NEAR(contact_distance(plate, pose, q, nearest), -0.02, 1e-12);
        EXPECT_EQ(plate.planes[nearest].n, dvec3(0, -1, 0));
        const double distance = collision_distance(plate, pose, q, down, entry);
        EXPECT_NEAR(distance, -0.08, 1e-12);
        ASSERT_EQ(plate.planes[entry].n, dvec3(0, 1, 0));
        dvec3 normal;
        const dvec3 contact = contact_point(plate, pose, q, entry, distance, normal);
        EXPECT_NEAR(glm::length(normal - up_normal), 0.0, 1e-14);
        EXPECT_NEAR(glm::length(contact - to_world(pose, {0.3, 0.05, 0.2})), 0.0, 1e-12);

        // Moving up through it, the bottom is the entry; at rest, the nearest face.
        EXPECT_NEAR(collision_distance(plate, pose, q, -down, entry), -0.02, 1e-12);
        EXPECT_EQ(plate.planes[entry].n, dvec3(0, -1, 0));
        EXPECT_NEAR(collision_distance(plate, pose, q, dvec3(0.0), entry), -0.02, 1e-12);
        EXPECT_EQ(entry, nearest);
    }
}

// A move that went in at the top of a thin plate and out at its bottom ends outside: only the
// segment knows it crossed, and through which face it came in (swept_entry).
TEST(Polytope, SweptEntryFindsTheFaceAMoveCameInBy) {
    const Polytope plate = make_plate(2.0, 2.0, 0.1);  // y in [-0.05, 0.05]
    auto face = [&](dvec3 n) {
        for (int i = 0; i < plate.count; ++i)
            if (plate.planes[i].n == n) return i;
        return -1;
    };
    const int top = face({0, 1, 0}), bottom = face({0, -1, 0});
    ASSERT_GE(top, 0);
    ASSERT_GE(bottom, 0);
    std::mt19937_64 rng(23);
    std::uniform_real_distribution<double> u(-0.9, 0.9);
    for (int trial = 0; trial < 200; ++trial) {
        const dvec3 from{u(rng), 0.05 + 0.1 * (u(rng) + 1.0), u(rng)};           // above the top
        const dvec3 to = from + dvec3{0.05 * u(rng), -0.3 - 0.2 * (u(rng) + 1.0), 0.05 * u(rng)};  // below
        if (std::fabs(to.x) > 1.0 || std::fabs(to.z) > 1.0) continue;             // off the side
        EXPECT_EQ(swept_entry(plate, from, to), top) << trial;
        EXPECT_EQ(swept_entry(plate, to, from), bottom) << trial;                 // upward: the bottom
    }
    // Beside the plate, parallel to a face, starting inside, or standing still: no entry.
    EXPECT_EQ(swept_entry(plate, {1.5, 0.5, 0.0}, {1.5, -0.5, 0.0}), -1);
    EXPECT_EQ(swept_entry(plate, {-0.5, 0.2, 0.0}, {0.5, 0.2, 0.0}), -1);
    EXPECT_EQ(swept_entry(plate, {0.0, 0.0, 0.0}, {0.0, -0.5, 0.0}), -1);
    EXPECT_EQ(swept_entry(plate, {0.0, 0.2, 0.0}, {0.0, 0.2, 0.0}), -1);
    // A move that stops short of the plate does not enter it.
    EXPECT_EQ(swept_entry(plate, {0.0, 0.5, 0.0}, {0.0, 0.06, 0.0}), -1);
}

TEST(Polytope, SphereContact) {
    const dvec3 center{1.0, -2.0, 0.5};
    dvec3 point, normal;
    EXPECT_NEAR(sphere_contact(center, 0.5, center + dvec3{0, 0, 2}, point, normal), 1.5, 1e-15);
    EXPECT_EQ(normal, dvec3(0, 0, 1));
    EXPECT_NEAR(glm::length(point - (center + dvec3{0, 0, 0.5})), 0.0, 1e-15);
    EXPECT_NEAR(sphere_contact(center, 0.5, center + dvec3{-0.3, 0, 0}, point, normal), -0.2,
                1e-15);
    EXPECT_EQ(normal, dvec3(-1, 0, 0));
    EXPECT_NEAR(glm::length(point - (center + dvec3{-0.5, 0, 0})), 0.0, 1e-15);
    EXPECT_EQ(sphere_contact(center, 0.5, center, point, normal), -0.5);
    EXPECT_EQ(normal, dvec3(0, 1, 0));
    EXPECT_EQ(point, center + dvec3(0, 0.5, 0));
}

}  // namespace

// may_touch, the broad phase collide_tracers runs inline before body_contact: wherever it says
// no, body_contact says no too (a particle it skipped would have been moved or heated), for
// spheres and turning, moving polytopes, points near and far, at rest and moving fast. And it
// says no to most points far from the body, or it would spare nothing.
TEST(PolytopeBroadPhase, MayTouchRulesOutOnlyWhatBodyContactRulesOut) {
    using namespace fs::vortex;
    using glm::dvec3;
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> sym(-1.0, 1.0);
    std::vector<BodyShape> bodies;
    BodyShape sphere;
    sphere.kind = kSphere;
    sphere.radius = 0.25;
    sphere.pose.position = dvec3(0.3, -0.1, 0.2);
    bodies.push_back(sphere);
    for (const Polytope& poly : {make_plate(1.0, 0.7, 0.06), make_airfoil(1.0, 0.12, 0.8), make_box({0.2, 0.3, 0.1})}) {
        BodyShape b;
        b.kind = kPolytope;
        b.poly = poly;
        b.pose = random_pose(rng);
        b.velocity = dvec3(sym(rng), sym(rng), sym(rng));
        b.angular_velocity = 3.0 * dvec3(sym(rng), sym(rng), sym(rng));
        bodies.push_back(b);
    }
    for (const BodyShape& b : bodies) {
        int ruled_out = 0;
        for (int n = 0; n < 20000; ++n) {
            const double reach = 2.5 * (b.kind == kSphere ? b.radius : b.poly.bounding_radius);
            const dvec3 x = b.pose.position + reach * dvec3(sym(rng), sym(rng), sym(rng));
            const dvec3 v = (n % 3 == 0 ? 30.0 : 1.0) * dvec3(sym(rng), sym(rng), sym(rng));
            const double margin = n % 2 ? 0.004 : 0.1, dt = n % 5 == 0 ? 0.0 : 1.0 / 60.0;
            double dist;
            dvec3 point, normal;
            const bool maybe = may_touch(b, x, margin, v, dt);
            const bool contact = body_contact(b, x, margin, dist, point, normal, v, dt);
            if (!maybe) {
                ASSERT_FALSE(contact) << "kind " << b.kind << ", point " << n;
                ++ruled_out;
            }
        }
        // The points fill a cube 5 reaches wide: nine in ten lie beyond the bounding sphere.
        EXPECT_GT(ruled_out, 20000 / 2) << "kind " << b.kind;
    }
}
