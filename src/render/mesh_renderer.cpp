#include "render/mesh_renderer.hpp"

#include "render/gl.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <glm/gtc/constants.hpp>

#include "render/vertex_color.hpp"

namespace fs::render {

namespace {

// Unit normal of the triangle a-b-c (counter-clockwise front); +z for a degenerate one.
glm::vec3 face_normal(glm::vec3 a, glm::vec3 b, glm::vec3 c) {
    const glm::vec3 n = glm::cross(b - a, c - a);
    const float len = glm::length(n);
    return len > 0.0f ? n / len : glm::vec3(0.0f, 0.0f, 1.0f);
}

}  // namespace

void MeshRenderer::init() {
    create("mesh.vert", "mesh.frag", {{3, offsetof(MeshVertex, position)},
                                      {3, offsetof(MeshVertex, normal)},
                                      {4, offsetof(MeshVertex, rgba), true}});
}

void MeshRenderer::push(glm::vec3 p, glm::vec3 n, const std::uint8_t rgba[4]) {
    VertexBatch::push(MeshVertex{p, n, {rgba[0], rgba[1], rgba[2], rgba[3]}});
}

void MeshRenderer::add_triangle(glm::vec3 a, glm::vec3 b, glm::vec3 c, glm::vec4 color) {
    const glm::vec3 n = face_normal(a, b, c);
    add_triangle(a, b, c, n, n, n, color);
}

void MeshRenderer::add_triangle(glm::vec3 a, glm::vec3 b, glm::vec3 c, glm::vec3 na, glm::vec3 nb,
                                glm::vec3 nc, glm::vec4 color) {
    std::uint8_t rgba[4];
    detail::pack_rgba8(color, rgba);
    push(a, na, rgba);
    push(b, nb, rgba);
    push(c, nc, rgba);
}

void MeshRenderer::add_convex_polygon(std::span<const glm::vec3> points, glm::vec4 color) {
    if (points.size() < 3) return;
    // One normal for the whole face: Newell's method, robust to nearly collinear first vertices.
    glm::vec3 n(0.0f);
    for (std::size_t i = 0; i < points.size(); ++i) {
        const glm::vec3 p = points[i], q = points[(i + 1) % points.size()];
        n += glm::vec3((p.y - q.y) * (p.z + q.z), (p.z - q.z) * (p.x + q.x),
                       (p.x - q.x) * (p.y + q.y));
    }
    const float len = glm::length(n);
    n = len > 0.0f ? n / len : glm::vec3(0.0f, 0.0f, 1.0f);
    for (std::size_t i = 1; i + 1 < points.size(); ++i)
        add_triangle(points[0], points[i], points[i + 1], n, n, n, color);
}

void MeshRenderer::add_box(glm::vec3 lo, glm::vec3 hi, glm::vec4 color) {
    auto corner = [&](int k) {
        return glm::vec3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z);
    };
    auto quad = [&](int a, int b, int c, int d) {
        const glm::vec3 q[4] = {corner(a), corner(b), corner(c), corner(d)};
        add_convex_polygon(q, color);
    };
    if (lo.z == hi.z) {
        quad(0, 1, 3, 2);  // counter-clockwise seen from +z
        return;
    }
    // Corner k has bit 0 = x, bit 1 = y, bit 2 = z at hi; each face counter-clockwise from outside.
    quad(0, 2, 3, 1);  // -z
    quad(4, 5, 7, 6);  // +z
    quad(0, 4, 6, 2);  // -x
    quad(1, 3, 7, 5);  // +x
    quad(0, 1, 5, 4);  // -y
    quad(2, 6, 7, 3);  // +y
}

void MeshRenderer::add_sphere(glm::vec3 center, float radius, glm::vec4 color, int slices) {
    slices = std::max(slices, 3);
    const int stacks = std::max(slices / 2, 2);
    auto normal = [&](int stack, int slice) {
        const float theta =
            glm::pi<float>() * static_cast<float>(stack) / static_cast<float>(stacks);  // from +y
        const float phi =
            glm::two_pi<float>() * static_cast<float>(slice) / static_cast<float>(slices);
        return glm::vec3(std::sin(theta) * std::sin(phi), std::cos(theta),
                         std::sin(theta) * std::cos(phi));
    };
    for (int i = 0; i < stacks; ++i) {
        for (int j = 0; j < slices; ++j) {
            const glm::vec3 n00 = normal(i, j), n01 = normal(i, j + 1);
            const glm::vec3 n10 = normal(i + 1, j), n11 = normal(i + 1, j + 1);
            auto p = [&](glm::vec3 n) { return center + radius * n; };
            // The pole rows have one real triangle per cell; skip the degenerate one.
            if (i > 0) add_triangle(p(n00), p(n10), p(n01), n00, n10, n01, color);
            if (i + 1 < stacks) add_triangle(p(n01), p(n10), p(n11), n01, n10, n11, color);
        }
    }
}

void MeshRenderer::add_quad_2d(glm::vec2 a, glm::vec2 b, glm::vec2 c, glm::vec2 d, glm::vec4 color,
                               float z) {
    const glm::vec3 n(0.0f, 0.0f, 1.0f);
    const glm::vec3 pa(a, z), pb(b, z), pc(c, z), pd(d, z);
    add_triangle(pa, pb, pc, n, n, n, color);
    add_triangle(pa, pc, pd, n, n, n, color);
}

void MeshRenderer::add_disc_2d(glm::vec2 center, float radius, glm::vec4 color, int segments,
                               float z) {
    segments = std::max(segments, 3);
    const glm::vec3 n(0.0f, 0.0f, 1.0f);
    const glm::vec3 c(center, z);
    for (int i = 0; i < segments; ++i) {
        const float a0 =
            glm::two_pi<float>() * static_cast<float>(i) / static_cast<float>(segments);
        const float a1 =
            glm::two_pi<float>() * static_cast<float>(i + 1) / static_cast<float>(segments);
        add_triangle(c, c + radius * glm::vec3(std::cos(a0), std::sin(a0), 0.0f),
                     c + radius * glm::vec3(std::cos(a1), std::sin(a1), 0.0f), n, n, n, color);
    }
}

void MeshRenderer::draw(const glm::mat4& view_proj, glm::vec3 light_dir) {
    if (!begin_draw()) return;
    const float len = glm::length(light_dir);
    shader_.set("u_view_proj", view_proj);
    shader_.set("u_light_dir", len > 0.0f ? light_dir / len : glm::vec3(0.0f, 0.0f, 1.0f));
    end_draw(GL_TRIANGLES);
}

}  // namespace fs::render
