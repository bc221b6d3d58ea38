// Coloured line segments (GL_LINES, one pixel wide): domain boxes, velocity vectors, grid lines.
// Collect segments with add*(), then draw(); the vertices go to the GPU only when they changed.
// Shaders: shaders/lines.vert, shaders/lines.frag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <glm/glm.hpp>
#include <vector>

#include "render/vertex_buffer.hpp"

namespace fs::render {

struct LineVertex {
    glm::vec3 position;
    std::uint8_t rgba[4];  // normalised by the vertex fetch
};

// A batch of coloured segments in world space, kept on the CPU and drawn in one call
// (VertexBatch: release(), clear()).
class LineRenderer : public VertexBatch<LineVertex> {
  public:
    void init();  // compiles the shaders (throws std::runtime_error naming the file), buffers

    void reserve(std::size_t segments);
    void add(glm::vec3 a, glm::vec3 b, glm::vec4 color);  // color: sRGB and alpha in [0, 1]
    // The edges of the axis-aligned box [lo, hi]: 12, or 4 when lo.z == hi.z (a 2D rectangle).
    void add_box(glm::vec3 lo, glm::vec3 hi, glm::vec4 color);
    std::size_t segment_count() const { return vertices_.size() / 2; }

    // Draws every segment with depth test (less-or-equal) and alpha blending (see shaders/).
    void draw(const glm::mat4& view_proj);
};

}  // namespace fs::render
