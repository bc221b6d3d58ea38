// The surface of a particle liquid as a triangle mesh, for the export (issue 15): a smoothed
// level set of the particles (Zhu & Bridson 2005, "Animating sand as a fluid", section 3.2),
// sampled on a grid of nodes and turned into triangles by marching tetrahedra over the Kuhn
// (Freudenthal) split of every cell into six tetrahedra. One kernel body runs on both
// executors (particle_surface_kernels.hpp): on the CUDA backend the particles never leave the
// GPU and only the mesh comes back.
//
// Why marching tetrahedra rather than marching cubes: the split is the same in neighbouring
// cells, so the mesh is closed and consistently oriented by construction, with no ambiguous
// cases and no 256-case table; it makes about twice the triangles of marching cubes. Why not
// OpenVDB (Debian has it): its particles-to-level-set and volume-to-mesh run on the CPU only,
// and the sandbox's rule is one kernel body for both backends.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.hpp"
#include "core/frame_pack.hpp"

namespace fs {

class Solver;

// A particle field carried onto the mesh's vertices: `components` floats a vertex, the
// kernel-weighted mean of the particles' values around it (velocity for motion blur, or any field
// --export-fields names).
struct VertexField {
    std::string name;
    int components = 1;
    std::vector<float> values;
};

// A triangle mesh: 3 floats a vertex, 3 vertex indices a triangle, counter-clockwise seen from
// outside the liquid (normals point out), and the fields carried onto its vertices.
struct SurfaceMesh {
    std::vector<float> points;
    std::vector<int> triangles;
    std::vector<VertexField> fields;
    int vertex_count() const { return static_cast<int>(points.size() / 3); }
    int triangle_count() const { return static_cast<int>(triangles.size() / 3); }
    const VertexField* field(const std::string& name) const {
        for (const auto& f : fields)
            if (f.name == name) return &f;
        return nullptr;
    }
};

// How the surface is made from the particles:
//   ZhuBridson: the mesh of the particles' level set (Zhu & Bridson 2005) as it is: a bump over
//               every particle near the surface, and still water as lumpy as its particles.
//   Smooth: that mesh, then flattened by Laplacian steps where it is flat (still water, the
//           broad faces of a wave), and left as it is where it curves (a drop, a sheet's rim, a
//           ball's side), so still water is flat and splashes keep their shape and volume.
enum class SurfaceMethod { ZhuBridson, Smooth };
// "zhu_bridson" and "smooth"; nullopt for another name.
std::optional<SurfaceMethod> surface_method_from(std::string_view name);
const char* to_string(SurfaceMethod m);

// A particle field to carry onto the vertices: its name in the mesh and where it lies (F64,
// in the same memory as the positions).
struct CarriedField {
    std::string name;
    FieldView view;
};

struct SurfaceSettings {
    double spacing = 0.0;  // the particles' spacing h at rest (m), > 0
    // The level set's cell, in spacings (the node grid's step is cell_scale * h), and the
    // smoothing kernel's radius R, in spacings. 1 and 2.5 (each node averages ~65 particles):
    // a ball of particles keeps its volume to 0.6% and a resting tank's surface lies within a
    // sixth of a FLIP cell of its height (tests/test_surface.cpp). A level set on the FLIP grid
    // itself (cell_scale 2) lost 3.3% of the ball and was twice as rough.
    double cell_scale = 1.0;
    double support_scale = 2.5;
    int max_nodes = 1 << 25;  // refuse a grid with more nodes than this (std::invalid_argument)
    SurfaceMethod method = SurfaceMethod::Smooth;
    // Smooth: Laplacian steps; the rings of neighbours each vertex's normal is averaged over;
    // and the flatness (the mean squared difference of neighbouring vertices' averaged normals)
    // below which a vertex takes full steps and above which none: a sphere of radius r edge
    // lengths reads about 1/r^2.
    int smoothing_steps = 60;
    int normal_rings = 6;
    double flat_below = 5e-4, curved_above = 1.5e-3;
};

// The surface of `positions` (3D particles, in the backend's memory) inside the box [lo, hi]
// (the solver's domain; the grid reaches a kernel radius beyond it, so the mesh is closed).
// `carried` fields (F64, one value or vector a particle, the positions' count) are carried onto
// the vertices, in that order.
SurfaceMesh particle_surface(Backend backend, const FieldView& positions, const double lo[3], const double hi[3],
                             const SurfaceSettings& settings, const std::vector<CarriedField>& carried = {});

// Why `solver` has no surface mesh, or nothing when it has one. Only FLIP's particles fill a 3D
// liquid: SPH, Euler and optimal transport are 2D, and the vortex solver's particles are vortons
// and tracers in a fluid that fills the whole space. The one place that says so: the headless
// export and the window's both ask here before they write a file.
std::optional<std::string> no_surface_mesh(const Solver& solver);

// The surface of a 3D solver's liquid: its "position" field, its domain, spacing twice its
// particle radius, with the particles' velocity and the named fields carried onto the vertices.
// Throws std::invalid_argument, with no_surface_mesh's reason, for another solver or a field it
// has not.
SurfaceMesh solver_surface(const Solver& solver, SurfaceSettings settings = {},
                           const std::vector<std::string>& fields = {"velocity"});

// The kernel sum (the level set's kernel, zb_kernel, of radius support_scale) a particle of a
// filled lattice of unit spacing sees, itself included: a particle's fullness is its own kernel
// sum over this.
double full_kernel_sum(double support_scale);

// The particle radius r of the level set phi(x) = |x - xbar(x)| - r (Zhu & Bridson 2005) for
// which a flat layer of particles on a lattice of spacing h, filling z < 0 one particle a cube
// of side h, has its surface at z = 0: the sandbox's calibration (the paper leaves r to the
// user). In spacings; depends only on support_scale.
double calibrated_radius(double support_scale);

}  // namespace fs
