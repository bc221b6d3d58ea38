// Particles as instanced camera-facing quads, coloured by a scalar field through a colour map:
// flat anti-aliased discs with a thin darker rim in 2D, shaded sphere impostors that write their
// true depth in 3D. Shaders: shaders/particles.vert, shaders/particles.frag.
//
// 3D spheres are drawn one of two ways (SphereDrawing). Exact: every sphere's quad, its true depth
// written per fragment, in the particles' order (what a GPU does at no cost). Sprites, for a
// software rasteriser (the default where GL_RENDERER names one): the particles sorted nearest
// first on the CPU each draw (depth_order.hpp), drawn as one point each with their front point's
// depth, so hidden fragments fail the depth test before they are shaded; the nearest ones, whose
// image might pass the driver's largest point, as quads. On Mesa's llvmpipe with the simulation
// on the other core, the FLIP dam break's frame went from 77-81 ms to about 35 (docs/window.md).
#pragma once

#include <array>
#include <cstddef>
#include <glm/glm.hpp>
#include <vector>

#include "render/colormap.hpp"
#include "render/depth_order.hpp"
#include "render/shader.hpp"

namespace fs::render {

enum class SphereDrawing { Exact, Sprites };

// True for the renderers that rasterise on the CPU (Mesa's llvmpipe and softpipe, SwiftShader,
// Microsoft's GDI renderer), from the GL_RENDERER string.
bool is_software_renderer(const char* gl_renderer);

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
    // particle, or is null to draw them all in the colour at the middle of the range. With
    // sprites the renderer keeps a host copy too, to sort at each draw.
    void upload(int n, const float* xyz, const float* scalar);

    // How 3D spheres are drawn (above). init() picks Sprites on a software rasteriser, else
    // Exact. Sprites need the host copy that upload() keeps: after set_sphere_drawing(Sprites),
    // upload again (buffers filled by set_count() are drawn Exact).
    void set_sphere_drawing(SphereDrawing d) { drawing_ = d; }
    SphereDrawing sphere_drawing() const { return drawing_; }
    SphereDrawing default_sphere_drawing() const { return default_drawing_; }
    // Of the last 3D draw with sprites: how many particles were drawn (the rest hidden), and how
    // many of those as quads (the nearest).
    int last_drawn_count() const { return last_drawn_; }
    int last_quad_count() const { return last_quads_; }

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
    // outside take the end colours, NaN is grey. Sets the GL state it needs (shaders/).
    // boundary_only: only the particles whose scalar is NaN (walls), as under a liquid's surface.
    void draw(const glm::mat4& view_proj, const glm::mat4& view, bool is_3d, float radius_world,
              Colormap map, float range_min, float range_max, int viewport_h, bool boundary_only = false);

    // For other programs that draw the same quads with particles.vert (the liquid's surface
    // passes, surface_renderer.hpp): sets particles.vert's uniforms on `program`, which must be
    // in use, and draws every particle's quad. The caller sets the GL state.
    void draw_instances(Shader& program, const glm::mat4& view_proj, const glm::mat4& view, bool is_3d,
                        float radius_world, float range_min, float range_max, int viewport_h) const;
    // Sets particles.vert's uniforms on `program` (in use) for these arguments.
    void set_uniforms(Shader& program, const glm::mat4& view_proj, const glm::mat4& view, bool is_3d,
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

    // The sprites' draw, given the host copy of count_ particles: sorts it, culls the hidden,
    // uploads the rest in that order, draws the nearest as quads and the rest as points.
    void draw_sprites(const glm::mat4& view_proj, const glm::mat4& view, float radius_world, float range_min,
                      float range_max, int viewport_h, bool boundary_only);
    void enable_scalars(float range_min, float range_max) const;

    Shader shader_;
    Shader sprite_shader_;  // particles.vert/.frag with FS_SPRITES
    unsigned vao_ = 0;
    // The sprites' sorted, culled copy: its buffers, read as quads and as points (no divisor).
    unsigned sprite_quad_vao_ = 0, point_vao_ = 0;
    unsigned sprite_position_vbo_ = 0, sprite_scalar_vbo_ = 0;
    std::size_t sprite_position_bytes_ = 0, sprite_scalar_bytes_ = 0;
    SphereDrawing drawing_ = SphereDrawing::Exact, default_drawing_ = SphereDrawing::Exact;
    float max_point_px_ = 1.0f;  // the driver's largest point size
    // The host copy for sprites (host_count_ < 0: none), the sorted copy, the order.
    std::vector<float> host_xyz_, host_scalar_, sorted_xyz_, sorted_scalar_;
    int host_count_ = -1;
    FrontToBack order_;
    OcclusionCuller culler_;
    int last_quads_ = 0, last_drawn_ = 0;
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
