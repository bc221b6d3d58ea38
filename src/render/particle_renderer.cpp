#include "render/particle_renderer.hpp"

#include "render/gl.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "render/gl_buffer.hpp"

namespace fs::render {

namespace {

constexpr int k_initial_capacity = 1024;

// Attribute locations, as declared in particles.vert.
constexpr GLuint k_center_attribute = 0;
constexpr GLuint k_scalar_attribute = 1;

// Bins of the sprites' depth sort: enough that a bin is far thinner than a particle.
int depth_bins(int n) {
    return std::clamp(n / 8, 1, 4096);
}

}  // namespace

bool is_software_renderer(const char* gl_renderer) {
    if (!gl_renderer) return false;
    for (const char* name : {"llvmpipe", "softpipe", "SwiftShader", "Software Rasterizer", "GDI Generic"})
        if (std::strstr(gl_renderer, name)) return true;
    return false;
}

ParticleRenderer::~ParticleRenderer() {
    release();
}

void ParticleRenderer::release() {
    if (vao_) glDeleteVertexArrays(1, &vao_);
    if (sprite_quad_vao_) glDeleteVertexArrays(1, &sprite_quad_vao_);
    if (point_vao_) glDeleteVertexArrays(1, &point_vao_);
    if (position_vbo_) glDeleteBuffers(1, &position_vbo_);
    if (scalar_vbo_) glDeleteBuffers(1, &scalar_vbo_);
    if (sprite_position_vbo_) glDeleteBuffers(1, &sprite_position_vbo_);
    if (sprite_scalar_vbo_) glDeleteBuffers(1, &sprite_scalar_vbo_);
    if (colormap_textures_[0]) glDeleteTextures(k_colormaps, colormap_textures_.data());
    shader_ = Shader();
    sprite_shader_ = Shader();
    vao_ = sprite_quad_vao_ = point_vao_ = position_vbo_ = scalar_vbo_ = 0;
    sprite_position_vbo_ = sprite_scalar_vbo_ = 0;
    sprite_position_bytes_ = sprite_scalar_bytes_ = 0;
    host_count_ = -1;
    host_xyz_.clear();
    host_scalar_.clear();
    colormap_textures_.fill(0);
    position_bytes_ = scalar_bytes_ = 0;
    capacity_ = count_ = 0;
    has_scalar_ = false;
}

void ParticleRenderer::init() {
    release();
    shader_ = Shader("particles.vert", "particles.frag");
    sprite_shader_ = Shader("particles.vert", "particles.frag", "#define FS_SPRITES");
    default_drawing_ = is_software_renderer(reinterpret_cast<const char*>(glGetString(GL_RENDERER)))
                           ? SphereDrawing::Sprites
                           : SphereDrawing::Exact;
    drawing_ = default_drawing_;
    GLfloat point_range[2] = {1.0f, 1.0f};
    glGetFloatv(point_size_range_name(), point_range);
    max_point_px_ = std::max(point_range[1], 1.0f);

    glGenVertexArrays(1, &vao_);
    glGenVertexArrays(1, &sprite_quad_vao_);
    glGenVertexArrays(1, &point_vao_);
    glGenBuffers(1, &position_vbo_);
    glGenBuffers(1, &scalar_vbo_);
    glGenBuffers(1, &sprite_position_vbo_);
    glGenBuffers(1, &sprite_scalar_vbo_);
    reserve(k_initial_capacity);

    // One instance per particle: both attributes advance once per quad, not per corner; the
    // corners come from gl_VertexID, so the quad itself needs no buffer. The sprites keep their
    // sorted and culled copy in buffers of their own (the particles' stay whole for the liquid's
    // surface), read as quads and as points (a vertex a particle).
    auto attributes = [](unsigned vao, unsigned positions, unsigned scalars, GLuint divisor) {
        glBindVertexArray(vao);
        glBindBuffer(GL_ARRAY_BUFFER, positions);
        glEnableVertexAttribArray(k_center_attribute);
        glVertexAttribPointer(k_center_attribute, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), nullptr);
        glVertexAttribDivisor(k_center_attribute, divisor);
        glBindBuffer(GL_ARRAY_BUFFER, scalars);
        glEnableVertexAttribArray(k_scalar_attribute);
        glVertexAttribPointer(k_scalar_attribute, 1, GL_FLOAT, GL_FALSE, sizeof(float), nullptr);
        glVertexAttribDivisor(k_scalar_attribute, divisor);
    };
    attributes(vao_, position_vbo_, scalar_vbo_, 1);
    attributes(sprite_quad_vao_, sprite_position_vbo_, sprite_scalar_vbo_, 1);
    attributes(point_vao_, sprite_position_vbo_, sprite_scalar_vbo_, 0);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);

    // Each map is a 256 x 1 RGB8 texture, linearly filtered between entries.
    GLint unpack_alignment = 4;
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &unpack_alignment);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glGenTextures(k_colormaps, colormap_textures_.data());
    for (int i = 0; i < k_colormaps; ++i) {
        const std::vector<unsigned char> lut = colormap_lut(static_cast<Colormap>(i), k_lut_size);
        glBindTexture(GL_TEXTURE_2D, colormap_textures_[i]);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB8, k_lut_size, 1, 0, GL_RGB, GL_UNSIGNED_BYTE,
                     lut.data());
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, unpack_alignment);
}

bool ParticleRenderer::reserve(int n) {
    n = std::max(n, 0);
    const bool grew_positions = detail::upload_growing(
        position_vbo_, position_bytes_, nullptr, static_cast<std::size_t>(n) * 3 * sizeof(float));
    const bool grew_scalars = detail::upload_growing(scalar_vbo_, scalar_bytes_, nullptr,
                                                     static_cast<std::size_t>(n) * sizeof(float));
    capacity_ = static_cast<int>(
        std::min(position_bytes_ / (3 * sizeof(float)), scalar_bytes_ / sizeof(float)));
    return grew_positions || grew_scalars;
}

void ParticleRenderer::upload(int n, const float* xyz, const float* scalar) {
    n = xyz ? std::max(n, 0) : 0;
    detail::upload_growing(position_vbo_, position_bytes_, xyz,
                           static_cast<std::size_t>(n) * 3 * sizeof(float));
    if (scalar)
        detail::upload_growing(scalar_vbo_, scalar_bytes_, scalar,
                               static_cast<std::size_t>(n) * sizeof(float));
    capacity_ = static_cast<int>(
        std::min(position_bytes_ / (3 * sizeof(float)), scalar_bytes_ / sizeof(float)));
    count_ = n;
    has_scalar_ = scalar != nullptr;
    if (drawing_ == SphereDrawing::Sprites) {
        host_xyz_.assign(xyz, xyz + 3 * static_cast<std::size_t>(n));
        if (scalar)
            host_scalar_.assign(scalar, scalar + n);
        else
            host_scalar_.clear();
        host_count_ = n;
    } else {
        host_count_ = -1;
    }
}

void ParticleRenderer::set_count(int n, bool has_scalar) {
    count_ = std::clamp(n, 0, capacity_);
    has_scalar_ = has_scalar;
    host_count_ = -1;  // a writer on the device: nothing to sort here
}

void ParticleRenderer::draw(const glm::mat4& view_proj, const glm::mat4& view, bool is_3d,
                            float radius_world, Colormap map, float range_min, float range_max,
                            int viewport_h, bool boundary_only) {
    if (count_ <= 0 || !shader_) return;

    glDisable(GL_CULL_FACE);
    if (is_3d) {
        // Impostors write their sphere's depth; they are opaque, so no blending.
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LEQUAL);
        glDepthMask(GL_TRUE);
        glDisable(GL_BLEND);
    } else {
        // Discs are drawn in order over what is there; their soft edges blend.
        glDisable(GL_DEPTH_TEST);
        glEnable(GL_BLEND);
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    }

    const bool sprites = is_3d && drawing_ == SphereDrawing::Sprites && host_count_ == count_;
    Shader& program = sprites ? sprite_shader_ : shader_;
    program.use();
    program.set("u_colormap", 0);
    program.set("u_boundary_only", boundary_only);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, colormap_texture(map));
    if (sprites)
        draw_sprites(view_proj, view, radius_world, range_min, range_max, viewport_h, boundary_only);
    else
        draw_instances(shader_, view_proj, view, is_3d, radius_world, range_min, range_max, viewport_h);
    glBindTexture(GL_TEXTURE_2D, 0);
    glUseProgram(0);
}

void ParticleRenderer::draw_sprites(const glm::mat4& view_proj, const glm::mat4& view, float radius_world,
                                    float range_min, float range_max, int viewport_h, bool boundary_only) {
    const int n = count_;
    order_front_to_back(view, host_xyz_.data(), n, depth_bins(n), order_);
    GLint vp[4] = {0, 0, 1, 1};
    glGetIntegerv(GL_VIEWPORT, vp);
    const glm::mat4 proj = view_proj * glm::inverse(view);
    const float p00 = proj[0][0], p11 = proj[1][1];

    // The nearest bins whose spheres might be drawn wider than the driver's largest point go as
    // quads: the first bin whose near edge bounds every image in it under that size, and all
    // beyond it, go as points (the bound falls with depth).
    int first_point_bin = 0;
    while (first_point_bin < order_.bins() &&
           !(sphere_image_bound_px(radius_world, order_.bin_near_edge(first_point_bin), 1.0f / p00, 1.0f / p11,
                                   0.5f * static_cast<float>(vp[2]) * p00, 0.5f * static_cast<float>(vp[3]) * p11) +
                 2.0f <=
             max_point_px_))
        ++first_point_bin;
    const int sorted_quads = order_.bin_start[static_cast<std::size_t>(first_point_bin)];

    // The spheres that can show, in that order, into the sprites' buffers. Under a liquid's surface (boundary_only) the shader drops the coloured ones,
    // which then hide nothing: no culling there.
    const bool scalars = has_scalar_ && host_scalar_.size() == static_cast<std::size_t>(n);
    sorted_xyz_.resize(3 * static_cast<std::size_t>(n));
    sorted_scalar_.resize(scalars ? static_cast<std::size_t>(n) : 0);
    culler_.begin(view, proj, vp);
    int kept = 0, quads = 0;
    for (int k = 0; k < n; ++k) {
        const std::size_t i = static_cast<std::size_t>(order_.order[static_cast<std::size_t>(k)]);
        if (!boundary_only && !culler_.offer(&host_xyz_[3 * i], radius_world)) continue;
        std::memcpy(&sorted_xyz_[3 * static_cast<std::size_t>(kept)], &host_xyz_[3 * i], 3 * sizeof(float));
        if (scalars) sorted_scalar_[static_cast<std::size_t>(kept)] = host_scalar_[i];
        ++kept;
        if (k < sorted_quads) quads = kept;
    }
    last_quads_ = quads;
    last_drawn_ = kept;
    detail::upload_growing(sprite_position_vbo_, sprite_position_bytes_, sorted_xyz_.data(),
                           3 * static_cast<std::size_t>(kept) * sizeof(float));
    if (scalars)
        detail::upload_growing(sprite_scalar_vbo_, sprite_scalar_bytes_, sorted_scalar_.data(),
                               static_cast<std::size_t>(kept) * sizeof(float));

    set_uniforms(sprite_shader_, view_proj, view, true, radius_world, range_min, range_max, viewport_h);
    sprite_shader_.set("u_viewport", glm::vec4(static_cast<float>(vp[0]), static_cast<float>(vp[1]),
                                               static_cast<float>(vp[2]), static_cast<float>(vp[3])));
    if (quads > 0) {
        sprite_shader_.set("u_points", false);
        glBindVertexArray(sprite_quad_vao_);
        enable_scalars(range_min, range_max);
        glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, quads);
    }
    if (quads < kept) {
        sprite_shader_.set("u_points", true);
        program_point_size(true);
        glBindVertexArray(point_vao_);
        enable_scalars(range_min, range_max);
        glDrawArrays(GL_POINTS, quads, kept - quads);
        program_point_size(false);
    }
    glBindVertexArray(0);
}

// On the bound vertex array: the scalars from their buffer, or (none uploaded) the generic value
// that a disabled array reads, the middle of the range.
void ParticleRenderer::enable_scalars(float range_min, float range_max) const {
    if (has_scalar_) {
        glEnableVertexAttribArray(k_scalar_attribute);
    } else {
        glDisableVertexAttribArray(k_scalar_attribute);
        glVertexAttrib1f(k_scalar_attribute, 0.5f * (range_min + range_max));
    }
}

void ParticleRenderer::draw_instances(Shader& program, const glm::mat4& view_proj, const glm::mat4& view,
                                      bool is_3d, float radius_world, float range_min, float range_max,
                                      int viewport_h) const {
    if (count_ <= 0) return;
    set_uniforms(program, view_proj, view, is_3d, radius_world, range_min, range_max, viewport_h);
    program.set("u_points", false);
    glBindVertexArray(vao_);
    enable_scalars(range_min, range_max);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, count_);
    glBindVertexArray(0);
}

void ParticleRenderer::set_uniforms(Shader& program, const glm::mat4& view_proj, const glm::mat4& view, bool is_3d,
                                    float radius_world, float range_min, float range_max, int viewport_h) const {
    program.set("u_is_3d", is_3d);
    program.set("u_view_proj", view_proj);
    program.set("u_view", view);
    // The projection alone, for the impostors' bounds and depth: view is rigid, so its inverse
    // is cheap and exact enough in float.
    program.set("u_proj", is_3d ? view_proj * glm::inverse(view) : glm::mat4(1.0f));
    program.set("u_radius", radius_world);
    // Orthographic 2D: clip y = P[1][1] y + ..., and clip space is 2 units across viewport_h
    // pixels, so one pixel spans 2 / (P[1][1] viewport_h) world units.
    const float p11 = std::abs(view_proj[1][1]);
    const float pixel =
        p11 > 0.0f ? 2.0f / (p11 * static_cast<float>(std::max(viewport_h, 1))) : 1.0f;
    program.set("u_pixel", pixel);
    program.set("u_range_min", range_min);
    program.set("u_range_max", range_max);
}

}  // namespace fs::render
