// Building convex polytopes on the host (vortex particles part 13, "Planes Make Convex Hulls"): from points (the
// convex hull), from planes given by the user (checked to bound a solid), the ready-made obstacle
// shapes, and what the renderer and the rigid-body stage need from a shape: its corners, a
// triangle mesh, and the mass properties of a uniform solid.
#pragma once

#include <glm/glm.hpp>
#include <vector>

#include "solvers/vortex/polytope.hpp"

namespace fs::vortex {

// A closed triangle mesh: 3 vertices per triangle, counter-clockwise seen from outside, body space.
struct Mesh {
    std::vector<glm::dvec3> triangles;
};

// The convex hull of points as planes: unit outward normals, one plane per face (coplanar
// triangles merged), bounding_radius set. Throws std::invalid_argument for fewer than 4 points,
// non-finite coordinates, points that span no volume (all coplanar), or more than kMaxPlanes
// faces. Tolerances are relative to the size of the point cloud.
Polytope hull_of(const std::vector<glm::dvec3>& points);

// The polytope bounded by the given planes (normals need not be unit: each plane is divided by
// the length of its normal). Planes that touch the solid in less than a face (redundant ones,
// repeats) are dropped; the others keep their order. Throws std::invalid_argument for fewer than
// 4 or more than kMaxPlanes planes, a zero normal, non-finite numbers, and an intersection that
// is empty, unbounded or of zero volume.
Polytope from_planes(const std::vector<Plane>& planes);

// The corners of the polytope, each once.
std::vector<glm::dvec3> vertices_of(const Polytope& poly);

// The faces as triangles: each face's corners sorted around its centroid and fanned, wound
// counter-clockwise seen from outside.
Mesh mesh_of(const Polytope& poly);

// Sets bounding_radius: the largest distance of a corner from the body origin.
void finish(Polytope& poly);

// Ready-made shapes in body space, centroid at the body origin. Throw std::invalid_argument
// for sizes that are not positive and finite.
Polytope make_box(glm::dvec3 half_extents);
// A thin box: length along x, width along z, thickness along y.
Polytope make_plate(double length_x, double width_z, double thickness_y);
// A right triangular prism: a ramp whose cross-section in x-y has its right angle at the low -x
// corner (bottom face normal -y, back face normal -x, the slope facing +x+y), extruded along z.
Polytope make_wedge(double length, double height, double depth);
// A regular tetrahedron with the given edge length.
Polytope make_tetrahedron(double edge);
// A faceted symmetric NACA 4-digit section (maximum thickness `thickness`, in metres) extruded
// along z: leading edge toward -x, trailing edge toward +x, 16 planes.
Polytope make_airfoil(double chord, double thickness, double span);

// Mass properties of a uniform solid bounded by a closed, outward-wound mesh.
struct MassProperties {
    double volume;
    double mass;
    glm::dvec3 centroid;
    glm::dmat3 inertia;  // inertia tensor about the centroid, body axes
};

// Throws std::invalid_argument for a mesh whose size is not a multiple of 3, non-finite data, a
// density that is not positive and finite, or a volume that is not positive (an inside-out mesh).
MassProperties mass_properties(const Mesh& mesh, double density);

}  // namespace fs::vortex
