// Cameras of the viewports: an orthographic 2D camera over the xy plane and an orbit camera for
// 3D scenes. Plain maths (GLM, double precision state, float matrices for the GPU): no OpenGL, so
// the tests link it without a context.
//
// Pixel coordinates are the window's, as SDL reports mouse positions: origin at the top-left
// corner, x to the right, y down, one unit per pixel of the drawable (the caller passes the same
// width and height as the viewport it draws into).
#pragma once

#include <glm/glm.hpp>
#include <glm/gtc/constants.hpp>

namespace fs::render {

// Orthographic view of the xy plane (y up) for 2D solvers: pan, zoom about the cursor, frame a box.
struct Camera2D {
    glm::dvec2 center{0.0, 0.0};   // world point at the middle of the viewport
    double pixels_per_unit = 100;  // zoom: how many pixels one world unit spans

    // World to clip space. x and y as above; z in [-1, 1] maps to depth (larger z is nearer),
    // so 2D content at z = 0 lands in the middle of the depth range.
    glm::mat4 view_proj(int width, int height) const;

    glm::dvec2 screen_to_world(glm::dvec2 pixel, int width, int height) const;
    glm::dvec2 world_to_screen(glm::dvec2 world, int width, int height) const;

    // Moves the view so that the content follows a mouse drag of delta_pixels.
    void pan_pixels(glm::dvec2 delta_pixels);
    // Multiplies the zoom by factor (> 0; others are ignored) keeping the world point under
    // `pixel` under it.
    void zoom_at(glm::dvec2 pixel, double factor, int width, int height);
    // Centres the box [lo, hi] and zooms so that it fills the viewport less `margin` (a fraction
    // of the viewport) on each side of its limiting axis; aspect is kept (square pixels).
    void frame(glm::dvec2 lo, glm::dvec2 hi, int width, int height, double margin = 0.05);
    // The same into the columns [left, right) of the viewport (the area side panels leave free).
    void frame_in(glm::dvec2 lo, glm::dvec2 hi, double left, double right, int width, int height,
                  double margin = 0.05);
};

// Orbit camera for 3D solvers: it looks at `target` from `distance` away, turned by yaw about the
// world y axis (up) and tilted by pitch; yaw = pitch = 0 looks down -z.
struct Camera3D {
    glm::dvec3 target{0.0, 0.0, 0.0};
    double distance = 5;
    double yaw = 0;                     // radians, about +y
    double pitch = 0;                   // radians, positive looks down from above
    double fov_y = glm::radians(45.0);  // vertical field of view, radians
    double radians_per_pixel = 0.005;   // orbit speed of a mouse drag

    static constexpr double max_pitch = glm::half_pi<double>() - 0.01;  // keeps up != view axis
    static constexpr double min_distance = 1e-6;

    glm::dvec3 eye() const;
    glm::dvec3 forward() const;  // unit, from the eye toward the target
    glm::dvec3 right() const;    // unit, screen +x in world space
    glm::dvec3 up() const;       // unit, screen +y in world space

    glm::mat4 view() const;
    // Perspective projection, OpenGL clip conventions (depth -1..1). near and far follow the
    // distance (0.01 d and 1000 d), so zooming keeps the target's depth precision.
    glm::mat4 proj(double aspect) const;
    glm::mat4 view_proj(int width, int height) const;
    // The ray from the eye through a pixel: its unit direction (the mouse's ray for picking).
    glm::dvec3 ray_direction(glm::dvec2 pixel, int width, int height) const;
    // The pixel a world point is seen at (points behind the eye give nonsense; callers avoid them).
    glm::dvec2 world_to_screen(glm::dvec3 world, int width, int height) const;
    double near_plane() const { return 0.01 * distance; }
    double far_plane() const { return 1000.0 * distance; }

    // Turns the camera about the target for a mouse drag: the content follows the mouse
    // (dragging right turns the scene to the right, dragging down tilts its top toward you).
    void orbit(double dx_pixels, double dy_pixels);
    // Moves the target in the view plane so that content at the target's depth follows the mouse.
    void pan_pixels(glm::dvec2 delta_pixels, int height);
    // distance *= factor (factor > 0; others are ignored), kept above min_distance.
    void zoom(double factor);
    // Aims at the centre of the box [lo, hi] and backs off until its bounding sphere, grown by
    // `margin`, fits in both the vertical and the horizontal field of view. Keeps yaw and pitch.
    void frame(glm::dvec3 lo, glm::dvec3 hi, double aspect, double margin = 0.05);
    // The same into the columns [left, right) of a width x height viewport.
    void frame_in(glm::dvec3 lo, glm::dvec3 hi, double left, double right, int width, int height,
                  double margin = 0.05);

    void clamp_pitch();
};

}  // namespace fs::render
