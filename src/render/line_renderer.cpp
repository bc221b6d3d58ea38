#include "render/line_renderer.hpp"

#include "render/gl.hpp"

#include <cstddef>

#include "render/vertex_color.hpp"

namespace fs::render {

void LineRenderer::init() {
    create("lines.vert", "lines.frag", {{3, offsetof(LineVertex, position)}, {4, offsetof(LineVertex, rgba), true}});
}

void LineRenderer::reserve(std::size_t segments) {
    vertices_.reserve(2 * segments);
}

void LineRenderer::add(glm::vec3 a, glm::vec3 b, glm::vec4 color) {
    LineVertex va{a, {}}, vb{b, {}};
    detail::pack_rgba8(color, va.rgba);
    detail::pack_rgba8(color, vb.rgba);
    push(va);
    push(vb);
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
    if (!begin_draw()) return;
    shader_.set("u_view_proj", view_proj);
    end_draw(GL_LINES);
}

}  // namespace fs::render
