// VertexBuffer: one vertex array over one interleaved vertex buffer that grows as needed: the GL
// set-up, upload and draw call that the line and mesh renderers share.
#pragma once

#include <cstddef>
#include <initializer_list>

namespace fs::render {

// One attribute of an interleaved vertex, at location = its index in the list given to create():
// `components` floats, or, with `rgba8`, 4 bytes the vertex fetch normalises to [0, 1].
struct VertexAttribute {
    int components = 3;
    std::size_t offset = 0;
    bool rgba8 = false;
};

// Needs a current OpenGL 3.3 core context from create() to release() (or destruction).
class VertexBuffer {
  public:
    VertexBuffer() = default;
    ~VertexBuffer();
    VertexBuffer(const VertexBuffer&) = delete;
    VertexBuffer& operator=(const VertexBuffer&) = delete;

    void create(std::size_t stride, std::initializer_list<VertexAttribute> attributes);
    void release();  // deletes the GL objects (safe to repeat)
    // Uploads `count` vertices of the stride given to create() (growing the store when needed).
    void upload(const void* vertices, std::size_t count);
    // Draws `count` vertices as `primitive` (GL_LINES, GL_TRIANGLES, ...) with the bound program.
    void draw(unsigned primitive, std::size_t count) const;

  private:
    unsigned vao_ = 0;
    unsigned vbo_ = 0;
    std::size_t stride_ = 0;
    std::size_t vbo_bytes_ = 0;
};

}  // namespace fs::render
