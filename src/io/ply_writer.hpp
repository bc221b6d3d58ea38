// Writes a triangle mesh (the liquid's surface, surface/particle_surface.hpp) as a binary PLY
// file, for tools that open meshes but not USD (MeshLab, ParaView, Houdini, most mesh libraries).
#pragma once

#include <string>

#include "surface/particle_surface.hpp"

namespace fs {

// Writes `mesh` to `path`: binary little-endian PLY with float x, y, z a vertex and a list of
// 3 int vertex indices a face; `comment` goes into the header (one line). Throws
// std::runtime_error naming the file when it cannot be written.
void write_ply(const std::string& path, const SurfaceMesh& mesh, const std::string& comment);

}  // namespace fs
