// SceneView: the simulation as the window draws it: the latest frame, the particle, line and
// mesh renderers, the 2D and 3D cameras, and the CUDA-OpenGL interop for device frames.
#pragma once

#include <SDL.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "app/simulation_host.hpp"
#include "app/view_settings.hpp"
#include "render/camera.hpp"
#include "render/cuda_gl_interop.hpp"
#include "render/line_renderer.hpp"
#include "render/mesh_renderer.hpp"
#include "render/offscreen_target.hpp"
#include "render/particle_renderer.hpp"
#include "render/polygon_renderer.hpp"
#include "render/surface_renderer.hpp"

namespace fs {

class SceneView {
public:
    // With the window's OpenGL context current, from init() to release().
    void init(SDL_Window* window);
    void release();

    // Takes the simulation's latest frame into the renderers. Returns a notice when the
    // CUDA-OpenGL interop failed (frames then come through host memory for good).
    std::optional<std::string> update(SimulationHost& host, const SimStatus& status, const ViewSettings& settings);
    // Draws into a viewport of w x h pixels (framing a newly opened scene first).
    void draw(int w, int h, const SimStatus& status, const ViewSettings& settings);
    // Fits the domain into the part of the viewport between the side panels that are open.
    void frame_all(int w, int h, const SimStatus& status, const ViewSettings& settings);

    // Mouse, in window points: a drag pans (2D), orbits (3D, left button) or pans (3D, others);
    // the wheel zooms at the cursor (2D) or towards the target (3D).
    void drag(glm::dvec2 by, bool left_button);
    void zoom(double factor, glm::dvec2 at);

    // The mouse in the world, for the hands (window points, as SDL reports the mouse): the
    // cursor's ray (2D: the point in z = 0 looking along -z; 3D: from the eye), where the ray
    // meets the plane through `on` facing the camera, a world point's pixel, how many pixels a
    // metre spans at a world point, and the view direction.
    void cursor_ray(glm::dvec2 px, glm::dvec3& point, glm::dvec3& axis) const;
    glm::dvec3 on_view_plane(glm::dvec2 px, glm::dvec3 on) const;
    glm::dvec2 to_screen(glm::dvec3 world) const;
    double pixels_per_metre(glm::dvec3 at) const;
    glm::dvec3 view_axis() const;

    // How the simulation's frames reached OpenGL, and the longest a frame spent taking one (the
    // window's share of the hand-over: the copy under the publisher's lock, the interop's map
    // and unmap). A frame that waited for a step would show here.
    struct HandOver {
        long long interop = 0, host = 0;
        double longest_ms = 0.0;
    };
    // How 3D spheres are drawn now (the View menu's choice, or the renderer's default).
    render::SphereDrawing sphere_drawing() const { return particles_.sphere_drawing(); }
    // Of the last picture drawn with sprites: the particles drawn, and all of them.
    int sprites_drawn() const { return particles_.last_drawn_count(); }
    int particle_count() const { return particles_.count(); }
    const HandOver& hand_over() const { return hand_over_; }

    const FrameData& frame() const { return frame_; }
    // Why the surface view is unavailable (its programs did not build), or empty.
    const std::string& surface_error() const { return surface_error_; }
    int dimension() const { return dimension_; }
    // A world direction as the view shows it: its screen direction (x right, y up, unit length;
    // zero when it points along the view axis).
    glm::vec2 screen_direction(const glm::dvec3& world) const;
    // The auto colour range: over the drawn values (boundary particles are NaN: skipped).
    const float* data_range() const { return data_range_; }

    // Scene pictures drawn, and frames that showed the last one again (nothing in it changed).
    long long pictures_drawn() const { return pictures_drawn_; }
    long long pictures_reused() const { return pictures_reused_; }

private:
    void add_cells(const ViewSettings& settings);
    // Everything the picture depends on but the frame: 18 settings, then the camera's 16 entries
    // (picture_key asserts that it filled them all).
    static constexpr int kPictureSettings = 18;
    using PictureKey = std::array<float, kPictureSettings + 16>;
    PictureKey picture_key(int w, int h, const glm::mat4& view_proj, const ViewSettings& settings,
                           int liquid_view) const;
    void draw_picture(int w, int h, const glm::mat4& view_proj, const glm::mat4& view, const ViewSettings& settings,
                      int liquid_view);

    SDL_Window* window_ = nullptr;
    FrameData frame_;
    bool frame_uploaded_ = false;
    HandOver hand_over_;
    int dimension_ = 2;
    std::string framed_scene_;
    float data_range_[2] = {0.0f, 1.0f};

    render::Camera2D cam2_;
    render::Camera3D cam3_;
    render::ParticleRenderer particles_;
    render::SurfaceRenderer surface_;  // a liquid's surface, from particles_' buffers
    std::string surface_error_;        // set when surface_ could not be built
    // CUDA-OpenGL interop: on the CUDA backend the particles go from the simulation's device
    // memory into particles_' buffers on the GPU. Off for good once it failed (then frames come
    // through host memory and a notice says why).
    render::CudaGlBuffers interop_;
    bool interop_failed_ = false;
    bool device_frames_ = false;     // what the host was last told
    bool velocity_overlay_ = false;  // likewise
    render::LineRenderer lines_;
    render::MeshRenderer meshes_;
    render::MeshRenderer cells_;  // the cell overlay, drawn after the particles, depth-tested
    render::PolygonRenderer polygons_;  // the particles' own cells (ot), outlined by their fill
    // The last picture of the scene, shown again while nothing in it changes: what it showed (the
    // frame's version and picture_key()), and how often it was drawn and reused.
    render::OffscreenTarget picture_;
    std::uint64_t picture_version_ = ~std::uint64_t{0};
    PictureKey picture_key_{};
    long long pictures_drawn_ = 0, pictures_reused_ = 0;
    // The frame version shown last, in how many window frames, and whether the one before it was
    // shown in more than one (the simulation slower than the window: its pictures are cached).
    std::uint64_t shown_version_ = ~std::uint64_t{0};
    long long shown_frames_ = 0;
    bool shown_repeated_ = true;
};

}  // namespace fs
