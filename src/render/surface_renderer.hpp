// The liquid drawn as a surface rather than as particles, from the particle renderer's buffers
// (the same quads, particles.vert), in screen space:
//   3D: screen-space fluid rendering (van der Laan, Green & Sainz 2009): the spheres' nearest
//       depth, smoothed by a separable bilateral filter, its normals from finite differences,
//       the thickness of liquid along each ray, and a shading pass with Fresnel reflection,
//       refraction of the scene behind tinted by the thickness, and a specular highlight;
//   2D: the particles splatted into a density field with a smooth kernel, drawn where it exceeds
//       half its value at rest, with an anti-aliased edge, lit as a height field.
// The liquid's colour is the colour field's through the colour map (or water's blue).
// Shaders: shaders/fullscreen.vert, surface_splat.frag, surface_filter.frag, surface_shade.frag.
#pragma once

#include <glm/glm.hpp>

#include "render/colormap.hpp"
#include "render/particle_renderer.hpp"
#include "render/shader.hpp"

namespace fs::render {

class SurfaceRenderer {
public:
    SurfaceRenderer() = default;
    ~SurfaceRenderer();
    SurfaceRenderer(const SurfaceRenderer&) = delete;
    SurfaceRenderer& operator=(const SurfaceRenderer&) = delete;

    void init();     // compiles the shaders (throws std::runtime_error naming the file)
    void release();  // deletes the GL objects (while the context is current)

    // Draws the liquid over what the bound framebuffer holds (w x h pixels, with a depth buffer):
    // the scene behind it is read from there first. radius_world: the particles' radius; map,
    // range: the colour field's, or tinted false for water's blue; opacity < 1 lets particles
    // drawn before show through. Restores the framebuffer binding and the viewport.
    // The screen-space passes stay inside the screen image of the box [lo, hi] (the domain: the
    // liquid is in it), grown by the splats' reach.
    void draw(const ParticleRenderer& particles, const glm::mat4& view_proj, const glm::mat4& view, bool is_3d,
              float radius_world, Colormap map, float range_min, float range_max, bool tinted, int w, int h,
              const glm::vec3& lo, const glm::vec3& hi, float opacity = 1.0f);

    // The 2D kernel's sum at a particle of a square lattice of spacing 2 radius (a liquid at
    // rest), over its support of 2 spacings, in units where the kernel is 1 at its centre.
    static float density_at_rest_2d();

private:
    struct Target {  // an RG32F colour texture and, for the depth pass, a depth buffer
        unsigned fbo = 0, colour = 0, depth = 0;
    };
    void make_targets(int w, int h);
    void release_targets();

    Shader splat_, filter_, shade_;
    unsigned empty_vao_ = 0;  // the fullscreen triangle has no attributes
    Target surface_, thickness_, ping_;
    unsigned background_ = 0;  // the scene behind, copied before shading
    int w_ = 0, h_ = 0;
};

}  // namespace fs::render
