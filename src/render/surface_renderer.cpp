#include "render/surface_renderer.hpp"

#include "render/gl.hpp"

#include <algorithm>
#include <cmath>

namespace fs::render {

namespace {

// The splat's reach in 2D, in particle radii: two spacings (a spacing is two radii), so a
// particle's kernel covers its neighbours and the field is smooth between them.
constexpr float k_support_2d = 4.0f;
// 3D: the spheres are drawn this much larger than the particles, so that neighbours' spheres
// overlap and the depth has no holes between them; the bilateral filter's radius and the depth
// range that counts as one surface, in particle radii.
constexpr float k_sphere_3d = 1.5f;
constexpr float k_filter_3d = 5.0f;
constexpr float k_range_3d = 4.0f;

int half_size(int n) { return std::max(1, (n + 1) / 2); }

void make_texture(unsigned& tex, GLint internal, GLenum format, GLenum type, int w, int h, GLint filter) {
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexImage2D(GL_TEXTURE_2D, 0, internal, w, h, 0, format, type, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
}

}  // namespace

SurfaceRenderer::~SurfaceRenderer() { release(); }

void SurfaceRenderer::init() {
    release();
    splat_ = Shader("particles.vert", "surface_splat.frag");
    filter_ = Shader("fullscreen.vert", "surface_filter.frag");
    shade_ = Shader("fullscreen.vert", "surface_shade.frag");
    glGenVertexArrays(1, &empty_vao_);
}

void SurfaceRenderer::release() {
    release_targets();
    if (empty_vao_) glDeleteVertexArrays(1, &empty_vao_);
    empty_vao_ = 0;
    splat_ = Shader();
    filter_ = Shader();
    shade_ = Shader();
}

void SurfaceRenderer::release_targets() {
    for (Target* t : {&surface_, &thickness_, &ping_}) {
        if (t->fbo) glDeleteFramebuffers(1, &t->fbo);
        if (t->colour) glDeleteTextures(1, &t->colour);
        if (t->depth) glDeleteRenderbuffers(1, &t->depth);
        *t = Target{};
    }
    if (background_) glDeleteTextures(1, &background_);
    background_ = 0;
    w_ = h_ = 0;
}

void SurfaceRenderer::make_targets(int w, int h) {
    release_targets();
    // The 3D depth at full resolution, read texel by texel; the smooth fields (the 3D thickness
    // and the 2D density) at half, read filtered: a quarter of the fragments for the splats
    // that cost most on a software renderer.
    for (Target* t : {&surface_, &thickness_, &ping_}) {
        const bool half = t == &thickness_;
        make_texture(t->colour, GL_RG32F, GL_RG, GL_FLOAT, half ? half_size(w) : w, half ? half_size(h) : h,
                     half ? GL_LINEAR : GL_NEAREST);
        glGenFramebuffers(1, &t->fbo);
        glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t->colour, 0);
    }
    glGenRenderbuffers(1, &surface_.depth);
    glBindRenderbuffer(GL_RENDERBUFFER, surface_.depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, w, h);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, surface_.fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, surface_.depth);
    make_texture(background_, GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, w, h, GL_LINEAR);
    glBindTexture(GL_TEXTURE_2D, 0);
    w_ = w;
    h_ = h;
}

float SurfaceRenderer::density_at_rest_2d() {
    // Lattice points (i, j) one spacing apart within the support of 2 spacings of the origin.
    const float reach = k_support_2d / 2.0f;  // in spacings
    float sum = 0.0f;
    for (int j = -2; j <= 2; ++j)
        for (int i = -2; i <= 2; ++i) {
            const float s2 = static_cast<float>(i * i + j * j) / (reach * reach);
            if (s2 < 1.0f) sum += (1.0f - s2) * (1.0f - s2) * (1.0f - s2);
        }
    return sum;
}

void SurfaceRenderer::draw(const ParticleRenderer& particles, const glm::mat4& view_proj, const glm::mat4& view,
                           bool is_3d, float radius_world, Colormap map, float range_min, float range_max,
                           bool tinted, int w, int h, const glm::vec3& lo, const glm::vec3& hi, float opacity) {
    if (particles.count() <= 0 || !splat_ || w <= 0 || h <= 0) return;
    GLint target = 0, viewport[4] = {0, 0, 0, 0};
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target);
    glGetIntegerv(GL_VIEWPORT, viewport);
    if (w != w_ || h != h_) make_targets(w, h);

    // The scene behind the liquid, for its refraction.
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(target));
    glBindTexture(GL_TEXTURE_2D, background_);
    glCopyTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 0, 0, w, h);
    glBindTexture(GL_TEXTURE_2D, 0);

    // The box's screen rectangle, grown by the splats' reach: every pass is scissored to it (on
    // a software renderer the full-screen passes cost in proportion to their pixels). A corner
    // behind the eye: the whole viewport.
    const float reach = (is_3d ? k_sphere_3d : k_support_2d) * radius_world;
    glm::vec2 a(1e30f), b(-1e30f);
    bool whole = false;
    for (int c = 0; c < 8; ++c) {
        const glm::vec3 p((c & 1) ? hi.x + reach : lo.x - reach, (c & 2) ? hi.y + reach : lo.y - reach,
                          (c & 4) ? hi.z + reach : lo.z - reach);
        const glm::vec4 clip = view_proj * glm::vec4(p, 1.0f);
        if (clip.w <= 1e-6f) {
            whole = true;
            break;
        }
        const glm::vec2 ndc = glm::vec2(clip) / clip.w;
        a = glm::min(a, ndc);
        b = glm::max(b, ndc);
    }
    auto pixels = [&](float ndc, int n) {
        return std::clamp(static_cast<int>(std::floor(0.5f * (ndc + 1.0f) * static_cast<float>(n))), 0, n);
    };
    const int x0 = whole ? 0 : pixels(a.x, w) - 2, y0 = whole ? 0 : pixels(a.y, h) - 2;
    const int x1 = whole ? w : pixels(b.x, w) + 2, y1 = whole ? h : pixels(b.y, h) + 2;
    auto scissor = [&](int scale) {  // 1: full resolution, 2: half
        const int sx0 = std::max(0, x0 / scale), sy0 = std::max(0, y0 / scale);
        glScissor(sx0, sy0, std::max(0, x1 / scale + 1 - sx0), std::max(0, y1 / scale + 1 - sy0));
    };
    glEnable(GL_SCISSOR_TEST);
    scissor(1);

    glViewport(0, 0, w, h);
    glDisable(GL_CULL_FACE);
    glClearColor(0.0f, 0.0f, 0.0f, 0.0f);
    const glm::mat4 proj = is_3d ? view_proj * glm::inverse(view) : glm::mat4(1.0f);

    // Splats: 3D depth (nearest sphere wins) and thickness (summed); 2D density (summed).
    splat_.use();
    splat_.set("u_is_3d", is_3d);
    const int hw = half_size(w), hh = half_size(h);
    if (is_3d) {
        glBindFramebuffer(GL_FRAMEBUFFER, surface_.fbo);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
        glDepthMask(GL_TRUE);
        glDisable(GL_BLEND);
        splat_.set("u_pass", 0);
        particles.draw_instances(splat_, view_proj, view, true, k_sphere_3d * radius_world, range_min, range_max, h);
    }
    // Summed splats at half resolution: the 3D thickness, or the 2D density.
    glViewport(0, 0, hw, hh);
    scissor(2);
    glBindFramebuffer(GL_FRAMEBUFFER, thickness_.fbo);
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE);
    splat_.set("u_pass", 1);
    particles.draw_instances(splat_, view_proj, view, is_3d, (is_3d ? 1.0f : k_support_2d) * radius_world, range_min,
                             range_max, hh);
    glViewport(0, 0, w, h);
    scissor(1);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glBindVertexArray(empty_vao_);
    glActiveTexture(GL_TEXTURE0);

    if (is_3d) {  // the depth smoothed, x then y: surface -> ping -> surface
        filter_.use();
        filter_.set("u_depth", 0);
        filter_.set("u_pixels", 0.5f * proj[0][0] * static_cast<float>(w));
        filter_.set("u_world", k_filter_3d * radius_world);
        filter_.set("u_range", k_range_3d * radius_world);
        glBindFramebuffer(GL_FRAMEBUFFER, ping_.fbo);
        glBindTexture(GL_TEXTURE_2D, surface_.colour);
        filter_.set("u_step", glm::vec2(1.0f / static_cast<float>(w), 0.0f));
        glDrawArrays(GL_TRIANGLES, 0, 3);
        glBindFramebuffer(GL_FRAMEBUFFER, surface_.fbo);
        glBindTexture(GL_TEXTURE_2D, ping_.colour);
        filter_.set("u_step", glm::vec2(0.0f, 1.0f / static_cast<float>(h)));
        glDrawArrays(GL_TRIANGLES, 0, 3);
    }

    // Shading, over the scene.
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(target));
    shade_.use();
    shade_.set("u_is_3d", is_3d);
    shade_.set("u_surface", 0);
    shade_.set("u_thickness", 1);
    shade_.set("u_background", 2);
    shade_.set("u_colormap", 3);
    shade_.set("u_tinted", tinted);
    shade_.set("u_proj", proj);
    shade_.set("u_texel", is_3d ? glm::vec2(1.0f / static_cast<float>(w), 1.0f / static_cast<float>(h))
                                : glm::vec2(1.0f / static_cast<float>(hw), 1.0f / static_cast<float>(hh)));
    shade_.set("u_density_at_rest", density_at_rest_2d());
    shade_.set("u_opacity", opacity);
    // 2D: the density is the half-resolution target.
    const unsigned textures[4] = {is_3d ? surface_.colour : thickness_.colour, thickness_.colour, background_,
                                  particles.colormap_texture(map)};
    for (int k = 0; k < 4; ++k) {
        glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(k));
        glBindTexture(GL_TEXTURE_2D, textures[k]);
    }
    if (is_3d) {
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LEQUAL);
        glDepthMask(GL_TRUE);
    }
    if (!is_3d || opacity < 1.0f) {
        glEnable(GL_BLEND);
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    }
    glDrawArrays(GL_TRIANGLES, 0, 3);
    for (int k = 3; k >= 0; --k) {
        glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(k));
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
}

}  // namespace fs::render
