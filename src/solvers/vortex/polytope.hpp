// Convex polytopes for the vortex-particle solver (vortex particles part 13, "Convex Obstacles"): a body's shape as
// a fixed set of planes in body space, and the point queries the collision stages run per
// particle. Plain data and inline host-device functions: no allocation, no virtuals, so the same
// code runs in CPU loops and CUDA kernels. Building shapes (hulls, checks, meshes) is host-only
// code in shapes.hpp.
#pragma once

#include <cfloat>
#include <cmath>
#include <glm/glm.hpp>

#include "core/hd.hpp"

namespace fs::vortex {

// A plane n·x - d = 0 with unit normal n; d is then its distance from the origin (vortex particles part 13,
// "The Math Behind Planes"). Points with n·x - d > 0 lie in front of it, outside the body.
struct Plane {
    glm::dvec3 n;
    double d;
};

constexpr int kMaxPlanes = 32;

// A convex polytope as the intersection of the half-spaces behind its face planes, in body space
// (vortex particles part 13, "Planes Make Convex Hulls": the H-representation). Build it with shapes.hpp, which
// also sets bounding_radius.
struct Polytope {
    int count = 0;
    Plane planes[kMaxPlanes];
    double bounding_radius = 0;  // radius of a sphere about the body origin containing the shape
};

// A rigid body's placement: world = position + orientation * body, orientation a rotation.
struct Pose {
    glm::dvec3 position{0.0};
    glm::dmat3 orientation{1.0};
};

// Signed distance of q from the plane, D = n·q - d (vortex particles part 13, "The Math Behind Planes");
// negative behind the plane, where -D is the penetration depth.
FS_HDI double signed_distance(const Plane& p, glm::dvec3 q) {
    return glm::dot(p.n, q) - p.d;
}

// World point to body space: the inverse of the pose, transpose(R) (q - position), R orthonormal.
FS_HDI glm::dvec3 to_body(const Pose& pose, glm::dvec3 q_world) {
    return glm::transpose(pose.orientation) * (q_world - pose.position);
}

// A point is inside when it lies behind every face plane (vortex particles part 13, "Planes Make Convex Hulls").
// Points on the surface count as outside.
FS_HDI bool inside(const Polytope& poly, const Pose& pose, glm::dvec3 q_world) {
    const glm::dvec3 q = to_body(pose, q_world);
    for (int i = 0; i < poly.count; ++i) {
        if (!(signed_distance(poly.planes[i], q) < 0.0)) return false;
    }
    return true;
}

// The largest signed plane distance of q and that plane's index (vortex particles part 13, "Collision Detection",
// ContactDistance). Positive: q is outside, and the value is a lower bound of its distance (exact
// where q faces the plane's face). Negative: q is inside and -value is its depth below the
// nearest face. Ties go to the lower index. An empty polytope gives -DBL_MAX and index -1.
// The largest signed distance of q (body space) from the planes, if above `floor`, and its
// plane's index (-1 and floor when none is above it; ties go to the lower index).
FS_HDI double largest_plane_distance(const Polytope& poly, glm::dvec3 q, double floor, int& plane_index) {
    double largest = floor;
    plane_index = -1;
    for (int i = 0; i < poly.count; ++i) {
        const double distance = signed_distance(poly.planes[i], q);
        if (distance > largest) {
            largest = distance;
            plane_index = i;
        }
    }
    return largest;
}

FS_HDI double contact_distance(const Polytope& poly, const Pose& pose, glm::dvec3 q_world,
                               int& plane_index) {
    return largest_plane_distance(poly, to_body(pose, q_world), -DBL_MAX, plane_index);
}

// Contact point and world normal for a plane and distance from contact_distance or
// collision_distance (vortex particles part 13, "Collision Detection", ContactPoint): the plane normal turned
// to world space, and the query point moved back along it by the distance, onto the plane.
// plane_index must be a valid index (>= 0: the polytope has planes).
FS_HDI glm::dvec3 contact_point(const Polytope& poly, const Pose& pose, glm::dvec3 q_world,
                                int plane_index, double distance, glm::dvec3& normal_world) {
    normal_world = pose.orientation * poly.planes[plane_index].n;
    return q_world - distance * normal_world;
}

// The nearest point of the polytope to q (body space) when q is outside, given the plane of
// largest signed distance `first` and that distance s > 0, and its distance |q - nearest|.
// The largest plane distance is the true distance only where q faces that plane's face; past an
// edge or a corner it is smaller, and past a sharp trailing edge much smaller: behind an
// airfoil's 12-degree tail, points a bounding radius away lie within a core of the extended
// facet planes, and were taken for contacts. The nearest point of a convex polytope lies on a
// face, an edge (two planes) or a corner (three): project onto the first plane; where that point
// is outside another plane, onto the line the two share (x = q - a n_i - b n_j with n_i.x = d_i
// and n_j.x = d_j, a 2x2 system); where still outside a third, onto their corner (the 3x3
// system, Cramer's rule). The second and third planes are those the last projection violates
// most: exact for faces, edges and corners that the first plane borders, which is every case of
// a point within a core radius of a body.
FS_HDI int most_violated(const Polytope& poly, glm::dvec3 p, double tolerance) {
    int worst = -1;
    largest_plane_distance(poly, p, tolerance, worst);
    return worst;
}

FS_HDI double outside_distance(const Polytope& poly, glm::dvec3 q, int first, double s, glm::dvec3& nearest) {
    const double tolerance = 1e-12 * (poly.bounding_radius + glm::length(q));
    const Plane& a = poly.planes[first];
    nearest = q - s * a.n;
    const int second = most_violated(poly, nearest, tolerance);
    if (second >= 0) {
        const Plane& b = poly.planes[second];
        const double c = glm::dot(a.n, b.n), det = 1.0 - c * c;
        const double sb = signed_distance(b, q);
        if (det > 1e-12) {
            nearest = q - ((s - c * sb) / det) * a.n - ((sb - c * s) / det) * b.n;
            const int third = most_violated(poly, nearest, tolerance);
            if (third >= 0) {
                const Plane& t = poly.planes[third];
                const glm::dvec3 bc = glm::cross(b.n, t.n);
                const double vol = glm::dot(a.n, bc);
                if (std::fabs(vol) > 1e-12)
                    nearest = (a.d * bc + b.d * glm::cross(t.n, a.n) + t.d * glm::cross(a.n, b.n)) / vol;
            }
        }
    }
    return glm::length(q - nearest);
}

// Like contact_distance, but only among the planes the particle moves farther behind, that is
// velocity·n < 0 in body space (vortex particles part 13, "Deepening Penetration", CollisionDistance): a particle
// that went through a thin body is pushed back out the way it came in, not out of the far side.
// velocity_rel_world is the particle's velocity relative to the body's surface point there.
// When no plane qualifies (at rest, or moving outward), it is contact_distance.
FS_HDI double collision_distance(const Polytope& poly, const Pose& pose, glm::dvec3 q_world,
                                 glm::dvec3 velocity_rel_world, int& plane_index) {
    const glm::dvec3 q = to_body(pose, q_world);
    const glm::dvec3 v = glm::transpose(pose.orientation) * velocity_rel_world;
    double largest = -DBL_MAX;
    plane_index = -1;
    for (int i = 0; i < poly.count; ++i) {
        if (!(glm::dot(v, poly.planes[i].n) < 0.0)) continue;
        const double distance = signed_distance(poly.planes[i], q);
        if (distance > largest) {
            largest = distance;
            plane_index = i;
        }
    }
    if (plane_index < 0) return contact_distance(poly, pose, q_world, plane_index);
    return largest;
}

// The face through which the segment q0 -> q1 (body space) enters the polytope, or -1 when it
// does not enter from outside (Cyrus & Beck 1978, "Generalized two- and three-dimensional
// clipping"): clipped by every plane, the segment enters at the last plane it crosses inward,
// provided that comes before the first it crosses outward. It catches what a test of the end
// point alone misses: a particle that went in and out through a thin body within one step.
FS_HDI int swept_entry(const Polytope& poly, glm::dvec3 q0, glm::dvec3 q1) {
    double t_in = 0.0, t_out = 1.0;
    int entry = -1;
    for (int i = 0; i < poly.count; ++i) {
        const double s0 = signed_distance(poly.planes[i], q0), s1 = signed_distance(poly.planes[i], q1);
        if (s0 > 0.0 && s1 > 0.0) return -1;  // wholly outside this plane: misses the polytope
        if (s0 <= 0.0 && s1 <= 0.0) continue;  // wholly inside it
        const double t = s0 / (s0 - s1);
        if (s0 > 0.0) {
            if (entry < 0 || t > t_in) {
                t_in = t;
                entry = i;
            }
        } else if (t < t_out) {
            t_out = t;
        }
    }
    return entry >= 0 && t_in <= t_out ? entry : -1;
}

// Broad phase (vortex particles part 13, "Broad Phase"): the cheap bounding-sphere test, |q - position| <
// bounding_radius + margin, that decides whether the plane loop is worth running.
FS_HDI bool in_bounding_sphere(const Polytope& poly, const Pose& pose, glm::dvec3 q_world,
                               double margin) {
    const glm::dvec3 r = q_world - pose.position;
    const double reach = poly.bounding_radius + margin;
    return glm::dot(r, r) < reach * reach;
}

// A sphere's answer in the form of contact_distance + contact_point: the signed distance of q from
// the surface, |q - c| - radius, the nearest surface point and the outward normal (vortex particles part 13,
// "Simplified Vorton Interaction with Planes": the sphere branch). At the centre itself, where
// every direction is as near, the normal is +y.
FS_HDI double sphere_contact(glm::dvec3 center, double radius, glm::dvec3 q, glm::dvec3& point,
                             glm::dvec3& normal) {
    const glm::dvec3 r = q - center;
    const double length = glm::length(r);
    normal = length > 0.0 ? r / length : glm::dvec3(0.0, 1.0, 0.0);
    point = center + radius * normal;
    return length - radius;
}

}  // namespace fs::vortex
