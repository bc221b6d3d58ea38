// VertexBuffer's OpenGL calls: the vertex array set-up from a list of attributes, growing
// uploads (gl_buffer.hpp), the draw call and the batches' state around it.
#include "render/vertex_buffer.hpp"

#include "render/gl.hpp"

#include "render/gl_buffer.hpp"

namespace fs::render {

namespace {
// Room for the first uploads (a domain box, a few shapes) without growing.
constexpr std::size_t k_initial_vertices = 1024;
}  // namespace

VertexBuffer::~VertexBuffer() {
    release();
}

void VertexBuffer::release() {
    if (vao_) glDeleteVertexArrays(1, &vao_);
    if (vbo_) glDeleteBuffers(1, &vbo_);
    vao_ = vbo_ = 0;
    vbo_bytes_ = 0;
}

void VertexBuffer::create(std::size_t stride, std::initializer_list<VertexAttribute> attributes) {
    release();
    stride_ = stride;
    glGenVertexArrays(1, &vao_);
    glGenBuffers(1, &vbo_);
    detail::upload_growing(vbo_, vbo_bytes_, nullptr, k_initial_vertices * stride_);
    glBindVertexArray(vao_);
    glBindBuffer(GL_ARRAY_BUFFER, vbo_);
    GLuint location = 0;
    for (const VertexAttribute& a : attributes) {
        glEnableVertexAttribArray(location);
        glVertexAttribPointer(location, a.rgba8 ? 4 : a.components, a.rgba8 ? GL_UNSIGNED_BYTE : GL_FLOAT,
                              a.rgba8 ? GL_TRUE : GL_FALSE, static_cast<GLsizei>(stride_),
                              reinterpret_cast<const void*>(a.offset));
        ++location;
    }
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void VertexBuffer::upload(const void* vertices, std::size_t count) {
    detail::upload_growing(vbo_, vbo_bytes_, vertices, count * stride_);
}

void VertexBuffer::draw(unsigned primitive, std::size_t count) const {
    glBindVertexArray(vao_);
    glDrawArrays(primitive, 0, static_cast<GLsizei>(count));
    glBindVertexArray(0);
}

bool VertexBuffer::begin(const Shader& program, const void* vertices, std::size_t count, bool& dirty) {
    if (count == 0) return false;
    if (dirty) {
        upload(vertices, count);
        dirty = false;
    }
    detail::depth_tested_blending();
    program.use();
    return true;
}

void VertexBuffer::end(unsigned primitive, std::size_t count) const {
    draw(primitive, count);
    glUseProgram(0);
}

}  // namespace fs::render
