#include "render/line_renderer.hpp"

#include <glad/gl.h>

#include <cstddef>

#include "render/gl_buffer.hpp"
#include "render/vertex_color.hpp"

namespace fs::render {

LineRenderer::~LineRenderer() {
    release();
}

void LineRenderer::release() {
    if (vao_) glDeleteVertexArrays(1, &vao_);
    if (vbo_) glDeleteBuffers(1, &vbo_);
    shader_ = Shader();
    vao_ = vbo_ = 0;
    vbo_bytes_ = 0;
    dirty_ = true;
}

void LineRenderer::init() {
    release();
    shader_ = Shader("lines.vert", "lines.frag");
    glGenVertexArrays(1, &vao_);
    glGenBuffers(1, &vbo_);
    detail::upload_growing(vbo_, vbo_bytes_, nullptr, 1024 * sizeof(Vertex));
    glBindVertexArray(vao_);
    glBindBuffer(GL_ARRAY_BUFFER, vbo_);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(Vertex),
                          reinterpret_cast<const void*>(offsetof(Vertex, position)));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(Vertex),
                          reinterpret_cast<const void*>(offsetof(Vertex, rgba)));
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void LineRenderer::clear() {
    vertices_.clear();
    dirty_ = true;
}

void LineRenderer::reserve(std::size_t segments) {
    vertices_.reserve(2 * segments);
}

void LineRenderer::add(glm::vec3 a, glm::vec3 b, glm::vec4 color) {
    Vertex va{a, {}}, vb{b, {}};
    detail::pack_rgba8(color, va.rgba);
    detail::pack_rgba8(color, vb.rgba);
    vertices_.push_back(va);
    vertices_.push_back(vb);
    dirty_ = true;
}

void LineRenderer::add_box(glm::vec3 lo, glm::vec3 hi, glm::vec4 color) {
    auto corner = [&](int k, float z) {
        return glm::vec3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, z);
    };
    // The rectangle at lo.z, going round: (lo,lo) (hi,lo) (hi,hi) (lo,hi).
    constexpr int ring[4] = {0, 1, 3, 2};
    for (int i = 0; i < 4; ++i) add(corner(ring[i], lo.z), corner(ring[(i + 1) % 4], lo.z), color);
    if (lo.z == hi.z) return;
    for (int i = 0; i < 4; ++i) {
        add(corner(ring[i], hi.z), corner(ring[(i + 1) % 4], hi.z), color);
        add(corner(ring[i], lo.z), corner(ring[i], hi.z), color);
    }
}

void LineRenderer::draw(const glm::mat4& view_proj) {
    if (vertices_.empty() || !shader_) return;
    if (dirty_) {
        detail::upload_growing(vbo_, vbo_bytes_, vertices_.data(),
                               vertices_.size() * sizeof(Vertex));
        dirty_ = false;
    }
    glDisable(GL_CULL_FACE);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_TRUE);
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    shader_.use();
    shader_.set("u_view_proj", view_proj);
    glBindVertexArray(vao_);
    glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(vertices_.size()));
    glBindVertexArray(0);
    glUseProgram(0);
}

}  // namespace fs::render
