// Writes particles as a USD ASCII layer (.usda) that Blender and usdview open: one Points prim
// "/World/particles" with time-sampled points, velocities, widths and ids, and the solver's other
// fields as per-point primvars (primvars:pressure, primvars:density, primvars:vorticity, ...), one
// time sample per exported frame (timeCodesPerSecond 24). 2D solvers write z = 0. Optionally a
// Mesh prim "/World/surface" beside it: the liquid's surface (surface/particle_surface.hpp), one
// time sample per frame, its vertices and triangles changing from frame to frame.
//
// USD stores each attribute's samples together, so frames are streamed into one temporary file
// per attribute beside the target and joined when the writer closes: memory stays flat however
// long the run.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/solver.hpp"
#include "surface/particle_surface.hpp"

namespace fs {

// A per-point field written as a primvar: 1 value per point (float[]) or 3 (vector3f[]); a
// 2-component field is written as 3 with z = 0, like the points of a 2D solver.
struct Primvar {
    std::string name;
    int components = 1;
    std::vector<double> values;
};

class UsdPointsWriter {
public:
    // Throws std::runtime_error naming the file when it cannot be created.
    UsdPointsWriter(const std::string& path, std::string comment);
    ~UsdPointsWriter();
    UsdPointsWriter(const UsdPointsWriter&) = delete;
    UsdPointsWriter& operator=(const UsdPointsWriter&) = delete;

    // positions and velocities: `dim` (2 or 3) values per particle; widths: one per particle;
    // ids: one per particle.
    // primvars: the same names in every frame (the first frame's set is the file's).
    void add_frame(int dim, const std::vector<double>& positions,
                   const std::vector<double>& velocities, const std::vector<double>& widths,
                   const std::vector<double>& ids, const std::vector<Primvar>& primvars = {});
    // The liquid's surface at the frame add_frame just wrote. Either never called (a file without
    // /World/surface, as before there was one) or called for every frame from the first.
    void add_surface(const SurfaceMesh& mesh);
    // Joins the parts into the target file. Called by the destructor if not called before.
    void close();
    int frames() const { return frames_; }

private:
    struct Part {
        std::string path;
        std::FILE* file = nullptr;
    };
    std::string path_;
    std::string comment_;
    Part points_, velocities_, widths_, ids_;
    struct PrimvarPart {
        std::string name;
        int components = 1;
        Part part;
    };
    std::vector<PrimvarPart> primvars_;
    // /World/surface: opened by the first add_surface.
    Part surface_points_, surface_counts_, surface_indices_;
    std::vector<PrimvarPart> surface_fields_;  // the mesh's vertex fields, the first frame's set
    int surface_frames_ = 0;
    int frames_ = 0;
    bool closed_ = false;
};

// The solver's fields a USD export carries as primvars: every one but position, velocity and id
// (written as the points' own attributes).
std::vector<std::string> exportable_fields(const Solver& solver);
// The fields a choice names: "all", "none", or a comma-separated list of exportable_fields.
// Throws std::invalid_argument "the SOLVER solver has no field 'x' to export (allowed: ...)".
std::vector<std::string> chosen_fields(const std::string& choice, const Solver& solver);

// Writes the solver's particles (position, velocity, id; width = 2 x particle_radius) and the
// named fields as primvars, as a frame.
void add_solver_frame(UsdPointsWriter& usd, const Solver& solver, const std::vector<std::string>& primvars = {});

}  // namespace fs
