#include "render/polygon_renderer.hpp"

#include "render/gl.hpp"

#include <cstddef>

#include "render/vertex_color.hpp"

namespace fs::render {

void PolygonRenderer::init() {
    create("polygons.vert", "polygons.frag", {{3, offsetof(PolygonVertex, position)},
                                              {1, offsetof(PolygonVertex, rim)},
                                              {4, offsetof(PolygonVertex, rgba), true}});
}

void PolygonRenderer::add(std::span<const glm::vec2> points, glm::vec4 fill, float z) {
    const std::size_t m = points.size();
    if (m < 3) return;
    glm::vec2 centre(0.0f);  // inside a convex polygon, as its particle need not be
    for (const glm::vec2& p : points) centre += p;
    centre /= static_cast<float>(m);
    PolygonVertex c{glm::vec3(centre, z), 0.0f, {}};
    detail::pack_rgba8(fill, c.rgba);
    for (std::size_t k = 0; k < m; ++k) {
        PolygonVertex a = c, b = c;
        a.position = glm::vec3(points[k], z);
        b.position = glm::vec3(points[(k + 1) % m], z);
        a.rim = b.rim = 1.0f;
        push(c);
        push(a);
        push(b);
    }
}

void PolygonRenderer::draw(const glm::mat4& view_proj, glm::vec4 outline) {
    if (!begin_draw()) return;
    shader_.set("u_view_proj", view_proj);
    shader_.set("u_outline", outline);
    end_draw(GL_TRIANGLES);
}

}  // namespace fs::render
