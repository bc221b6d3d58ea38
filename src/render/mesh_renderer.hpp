// Solid triangles with per-vertex normal and colour, lit by one directional light: obstacles
// (boxes, spheres, convex polytopes), the SPH barrier, and 2D solid shapes. Collect triangles with
// add*(), then draw(); the vertices go to the GPU only when they changed.
// Shaders: shaders/mesh.vert, shaders/mesh.frag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <glm/glm.hpp>
#include <span>
#include <vector>

#include "render/vertex_buffer.hpp"

namespace fs::render {

struct MeshVertex {
    glm::vec3 position;
    glm::vec3 normal;
    std::uint8_t rgba[4];  // normalised by the vertex fetch
};

// A batch of lit triangles in world space, kept on the CPU and drawn in one call (VertexBatch:
// release(), clear()). Colours are sRGB with alpha in [0, 1]; alpha < 1 blends, but triangles are
// not sorted.
class MeshRenderer : public VertexBatch<MeshVertex> {
  public:
    void init();  // compiles the shaders (throws std::runtime_error naming the file), buffers

    // One triangle with its face normal (from the winding, counter-clockwise = front).
    void add_triangle(glm::vec3 a, glm::vec3 b, glm::vec3 c, glm::vec4 color);
    // One triangle with given vertex normals (smooth surfaces).
    void add_triangle(glm::vec3 a, glm::vec3 b, glm::vec3 c, glm::vec3 na, glm::vec3 nb,
                      glm::vec3 nc, glm::vec4 color);
    // A planar convex polygon, its vertices in order (a face of a convex polytope), as a fan.
    void add_convex_polygon(std::span<const glm::vec3> points, glm::vec4 color);
    // The axis-aligned box [lo, hi]: 6 faces with outward normals, or one face (normal +z) when
    // lo.z == hi.z, for a 2D rectangle.
    void add_box(glm::vec3 lo, glm::vec3 hi, glm::vec4 color);
    // A UV sphere: `slices` around the y axis (at least 3), slices / 2 stacks, smooth normals.
    void add_sphere(glm::vec3 center, float radius, glm::vec4 color, int slices = 24);
    // 2D shapes in the plane z (normal +z): a quadrilateral a-b-c-d in order (e.g. a rotated
    // barrier) and a disc.
    void add_quad_2d(glm::vec2 a, glm::vec2 b, glm::vec2 c, glm::vec2 d, glm::vec4 color,
                     float z = 0.0f);
    void add_disc_2d(glm::vec2 center, float radius, glm::vec4 color, int segments = 48,
                     float z = 0.0f);
    std::size_t triangle_count() const { return vertices_.size() / 3; }

    // Draws every triangle: ambient + Lambert from the direction light_dir points to (world
    // space; both sides of a face are lit alike, so winding and inside views do not matter).
    // For 2D pass (0, 0, 1): faces then show their colour unchanged.
    void draw(const glm::mat4& view_proj, glm::vec3 light_dir);

  private:
    void push(glm::vec3 p, glm::vec3 n, const std::uint8_t rgba[4]);
};

}  // namespace fs::render
