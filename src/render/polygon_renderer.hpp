// Filled convex polygons in a plane, each outlined by its own fill (the OT cells in 2D): a polygon
// is a fan of triangles from the mean of its vertices, and the fragment shader darkens the pixels
// next to its rim, found by a rim coordinate (0 at the fan's centre, 1 on the rim) over that
// coordinate's change a pixel (fwidth). No line is drawn: measured on ot_rayleigh_taylor's 9 398
// cells under llvmpipe, the outlines as GL_LINES (56 000 segments, each shared edge twice) took
// about 14 ms of a 55 ms frame. Collect polygons with add(), then draw(); the vertices go to the
// GPU only when they changed. Shaders: shaders/polygons.vert, shaders/polygons.frag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <glm/glm.hpp>
#include <span>

#include "render/vertex_buffer.hpp"

namespace fs::render {

struct PolygonVertex {
    glm::vec3 position;
    float rim;             // 0 at the fan's centre, 1 on the polygon's rim
    std::uint8_t rgba[4];  // normalised by the vertex fetch
};

// VertexBatch: release(), clear().
class PolygonRenderer : public VertexBatch<PolygonVertex> {
  public:
    void init();  // compiles the shaders (throws std::runtime_error naming the file), buffers

    // A convex polygon (three points or more, in order) at depth z, filled with `fill` (sRGB and
    // alpha in [0, 1]).
    void add(std::span<const glm::vec2> points, glm::vec4 fill, float z = 0.0f);
    std::size_t triangle_count() const { return vertices_.size() / 3; }

    // Draws every polygon, depth-tested and blended as the line and mesh renderers draw, with an
    // outline of `outline` (its alpha: how dark) about a pixel wide inside each rim.
    void draw(const glm::mat4& view_proj, glm::vec4 outline);
};

}  // namespace fs::render
