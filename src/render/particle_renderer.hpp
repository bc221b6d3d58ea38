// Particles as instanced camera-facing quads, coloured by a scalar field through a colour map:
// flat anti-aliased discs with a thin darker rim in 2D, shaded sphere impostors that write their
// true depth in 3D. Shaders: shaders/particles.vert, shaders/particles.frag.
#pragma once

#include <array>
#include <cstddef>
#include <glm/glm.hpp>

#include "render/colormap.hpp"
#include "render/shader.hpp"

namespace fs::render {

// Owns the particle vertex buffers (positions and scalars, one entry per particle, read once per
// instance), the colour-map textures and the program. Needs a current OpenGL 3.3 core context
// from init() to destruction.
class ParticleRenderer {
  public:
    ParticleRenderer() = default;
    ~ParticleRenderer();
    ParticleRenderer(const ParticleRenderer&) = delete;
    ParticleRenderer& operator=(const ParticleRenderer&) = delete;

    // Compiles the shaders (throws std::runtime_error naming the file on failure), creates the
    // buffers and the colour-map textures.
    void init();
    // Deletes the GL objects now (the destructor does it too): call it while the context is
    // still current when the context goes first. init() may follow.
    void release();

    // Copies n particles: xyz holds 3 floats per particle (2D: z = 0), scalar one float per
    // particle, or is null to draw them all in the colour at the middle of the range.
    void upload(int n, const float* xyz, const float* scalar);

    // For writers that fill the buffers themselves (CUDA-GL interop): makes both buffers hold at
    // least n particles. Returns true when they were reallocated: their contents are lost and
    // CUDA registrations of position_buffer()/scalar_buffer() must be made again.
    bool reserve(int n);
    // After such a writer filled the first n entries (n <= capacity()): how many to draw, and
    // whether the scalar buffer was written too.
    void set_count(int n, bool has_scalar = true);

    // Draws the particles. 2D (is_3d false): view_proj maps world to clip (Camera2D), view is
    // ignored, radius_world is the disc radius (never drawn under ~0.75 px so nothing vanishes),
    // viewport_h is the viewport's height in pixels (sets the anti-aliasing width). 3D: view_proj
    // and view come from Camera3D (the projection must be a symmetric perspective), the spheres
    // have radius_world. The scalar range [range_min, range_max] spans the colour map; values
    // outside take the end colours, NaN is grey. Sets the GL state it needs (see the README of
    // shaders/).
    // boundary_only: only the particles whose scalar is NaN (walls), as under a liquid's surface.
    void draw(const glm::mat4& view_proj, const glm::mat4& view, bool is_3d, float radius_world,
              Colormap map, float range_min, float range_max, int viewport_h, bool boundary_only = false);

    // For other programs that draw the same quads with particles.vert (the liquid's surface
    // passes, surface_renderer.hpp): sets particles.vert's uniforms on `program`, which must be
    // in use, and draws every particle's quad. The caller sets the GL state.
    void draw_instances(Shader& program, const glm::mat4& view_proj, const glm::mat4& view, bool is_3d,
                        float radius_world, float range_min, float range_max, int viewport_h) const;
    unsigned colormap_texture(Colormap map) const {
        return colormap_textures_[static_cast<std::size_t>(map) % k_colormaps];
    }

    unsigned position_buffer() const { return position_vbo_; }  // GL buffer name, 3 floats each
    unsigned scalar_buffer() const { return scalar_vbo_; }      // GL buffer name, 1 float each
    int count() const { return count_; }
    int capacity() const { return capacity_; }

  private:
    static constexpr int k_colormaps = colormap_count;  // one texture per Colormap value
    static constexpr int k_lut_size = 256;

    Shader shader_;
    unsigned vao_ = 0;
    unsigned position_vbo_ = 0;
    unsigned scalar_vbo_ = 0;
    std::array<unsigned, k_colormaps> colormap_textures_{};
    std::size_t position_bytes_ = 0;  // allocated store of each buffer
    std::size_t scalar_bytes_ = 0;
    int capacity_ = 0;  // particles both buffers can hold
    int count_ = 0;
    bool has_scalar_ = false;
};

}  // namespace fs::render
