// Writes particles as a USD ASCII layer (.usda) that Blender and usdview open: one Points prim
// "/World/particles" with time-sampled points, velocities, widths and ids, one time sample per
// exported frame (timeCodesPerSecond 24). 2D solvers write z = 0.
//
// USD stores each attribute's samples together, so frames are streamed into one temporary file
// per attribute beside the target and joined when the writer closes: memory stays flat however
// long the run.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/solver.hpp"

namespace fs {

class UsdPointsWriter {
public:
    // Throws std::runtime_error naming the file when it cannot be created.
    UsdPointsWriter(const std::string& path, std::string comment);
    ~UsdPointsWriter();
    UsdPointsWriter(const UsdPointsWriter&) = delete;
    UsdPointsWriter& operator=(const UsdPointsWriter&) = delete;

    // positions and velocities: `dim` (2 or 3) values per particle; widths: one per particle;
    // ids: one per particle.
    void add_frame(int dim, const std::vector<double>& positions,
                   const std::vector<double>& velocities, const std::vector<double>& widths,
                   const std::vector<double>& ids);
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
    int frames_ = 0;
    bool closed_ = false;
};

// Writes the solver's particles (position, velocity, id; width = 2 x particle_radius) as a frame.
void add_solver_frame(UsdPointsWriter& usd, const Solver& solver);

}  // namespace fs
