// VertexBuffer: one vertex array over one interleaved vertex buffer that grows as needed: the GL
// set-up, upload and draw call that the line, mesh and polygon renderers share; VertexBatch: what
// they keep (the program, the vertices collected on the CPU, whether they changed since the upload).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "render/shader.hpp"

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
    // Makes `program` current with the state the batches draw with (depth-tested, less-or-equal;
    // both sides of a face; alpha blended), uploading `count` vertices from `vertices` first when
    // `dirty` (and clearing it). False, and nothing bound, when there is nothing to draw.
    bool begin(const Shader& program, const void* vertices, std::size_t count, bool& dirty);
    // Draws the `count` vertices as `primitive` and unbinds the program.
    void end(unsigned primitive, std::size_t count) const;

  private:
    unsigned vao_ = 0;
    unsigned vbo_ = 0;
    std::size_t stride_ = 0;
    std::size_t vbo_bytes_ = 0;
};

// Vertices of one kind collected on the CPU and drawn in one call with one program: the base of
// the line, mesh and polygon renderers. Needs a current OpenGL 3.3 core context from create() to
// release() or destruction (collecting vertices does not).
template <class Vertex>
class VertexBatch {
  public:
    // Deletes the GL objects now (the destructor does it too): call it while the context is still
    // current when the context goes first. The vertices kept on the CPU stay.
    void release() {
        buffer_.release();
        shader_ = Shader();
        dirty_ = true;
    }
    void clear() {
        vertices_.clear();
        dirty_ = true;
    }

  protected:
    // Compiles the program (throws std::runtime_error naming the file) and sets out the vertex's
    // attributes.
    void create(std::string_view vertex_file, std::string_view fragment_file,
                std::initializer_list<VertexAttribute> attributes) {
        release();
        shader_ = Shader(vertex_file, fragment_file);
        buffer_.create(sizeof(Vertex), attributes);
    }
    void push(const Vertex& v) {
        vertices_.push_back(v);
        dirty_ = true;
    }
    // VertexBuffer::begin and end over the batch: set the program's uniforms between them.
    bool begin_draw() { return shader_ && buffer_.begin(shader_, vertices_.data(), vertices_.size(), dirty_); }
    void end_draw(unsigned primitive) const { buffer_.end(primitive, vertices_.size()); }

    Shader shader_;
    std::vector<Vertex> vertices_;

  private:
    VertexBuffer buffer_;
    bool dirty_ = true;  // vertices_ changed since the last upload
};

}  // namespace fs::render
