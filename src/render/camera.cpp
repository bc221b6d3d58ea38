#include "render/camera.hpp"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>

namespace fs::render {

namespace {

// A minimised window reports a zero size; the maths below divides by it.
double positive(int pixels) {
    return std::max(pixels, 1);
}

const glm::dvec3 world_up{0.0, 1.0, 0.0};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Camera2D. Orthographic projection: clip = S (p - center) with S = diag(2 ppu / w, 2 ppu / h);
// pixel = (w/2, h/2) + ppu (x - cx, -(y - cy)) since pixel y grows downward.

glm::mat4 Camera2D::view_proj(int width, int height) const {
    const double sx = 2.0 * pixels_per_unit / positive(width);
    const double sy = 2.0 * pixels_per_unit / positive(height);
    glm::dmat4 m(1.0);
    m[0][0] = sx;
    m[1][1] = sy;
    m[2][2] = -1.0;  // glm::ortho(..., near = -1, far = 1): +z toward the viewer
    m[3][0] = -sx * center.x;
    m[3][1] = -sy * center.y;
    return glm::mat4(m);
}

glm::dvec2 Camera2D::screen_to_world(glm::dvec2 pixel, int width, int height) const {
    return {center.x + (pixel.x - 0.5 * positive(width)) / pixels_per_unit,
            center.y - (pixel.y - 0.5 * positive(height)) / pixels_per_unit};
}

glm::dvec2 Camera2D::world_to_screen(glm::dvec2 world, int width, int height) const {
    return {0.5 * positive(width) + (world.x - center.x) * pixels_per_unit,
            0.5 * positive(height) - (world.y - center.y) * pixels_per_unit};
}

void Camera2D::pan_pixels(glm::dvec2 delta_pixels) {
    center.x -= delta_pixels.x / pixels_per_unit;
    center.y += delta_pixels.y / pixels_per_unit;
}

void Camera2D::zoom_at(glm::dvec2 pixel, double factor, int width, int height) {
    if (!(factor > 0.0) || !std::isfinite(factor)) return;
    const glm::dvec2 anchor = screen_to_world(pixel, width, height);
    pixels_per_unit *= factor;
    // Solve world_to_screen(anchor) == pixel for the new centre.
    center.x = anchor.x - (pixel.x - 0.5 * positive(width)) / pixels_per_unit;
    center.y = anchor.y + (pixel.y - 0.5 * positive(height)) / pixels_per_unit;
}

void Camera2D::frame(glm::dvec2 lo, glm::dvec2 hi, int width, int height, double margin) {
    center = 0.5 * (lo + hi);
    const double fill = std::clamp(1.0 - 2.0 * margin, 0.01, 1.0);
    const glm::dvec2 size = glm::abs(hi - lo);
    // A box flat along one axis is framed by the other; a point keeps the current zoom.
    double ppu = 0.0;
    if (size.x > 0.0) ppu = fill * positive(width) / size.x;
    if (size.y > 0.0) {
        const double ppu_y = fill * positive(height) / size.y;
        ppu = ppu > 0.0 ? std::min(ppu, ppu_y) : ppu_y;
    }
    if (ppu > 0.0 && std::isfinite(ppu)) pixels_per_unit = ppu;
}

void Camera2D::frame_in(glm::dvec2 lo, glm::dvec2 hi, double left, double right, int width, int height,
                        double margin) {
    frame(lo, hi, static_cast<int>(std::max(1.0, right - left)), height, margin);
    pan_pixels({0.5 * (left + right) - 0.5 * positive(width), 0.0});  // the columns' centre
}

// ---------------------------------------------------------------------------------------------
// Camera3D. Spherical coordinates about the target: the eye sits at
// target + distance (cos(pitch) sin(yaw), sin(pitch), cos(pitch) cos(yaw)).

glm::dvec3 Camera3D::eye() const {
    return target - distance * forward();
}

glm::dvec3 Camera3D::forward() const {
    const double p = std::clamp(pitch, -max_pitch, max_pitch);
    return -glm::dvec3(std::cos(p) * std::sin(yaw), std::sin(p), std::cos(p) * std::cos(yaw));
}

glm::dvec3 Camera3D::right() const {
    return glm::normalize(glm::cross(forward(), world_up));
}

glm::dvec3 Camera3D::up() const {
    return glm::cross(right(), forward());
}

glm::mat4 Camera3D::view() const {
    return glm::mat4(glm::lookAt(eye(), target, world_up));
}

glm::mat4 Camera3D::proj(double aspect) const {
    if (!(aspect > 0.0) || !std::isfinite(aspect)) aspect = 1.0;
    return glm::mat4(glm::perspective(fov_y, aspect, near_plane(), far_plane()));
}

// Pinhole camera: a pixel's offset from the centre, in units of the half-height, scales
// tan(fov_y / 2) along up (and times the aspect along right).
glm::dvec3 Camera3D::ray_direction(glm::dvec2 pixel, int width, int height) const {
    const double w = positive(width), h = positive(height), t = std::tan(0.5 * fov_y);
    const double sx = (2.0 * pixel.x / w - 1.0) * t * (w / h), sy = (1.0 - 2.0 * pixel.y / h) * t;
    return glm::normalize(forward() + sx * right() + sy * up());
}

glm::dvec2 Camera3D::world_to_screen(glm::dvec3 world, int width, int height) const {
    const double w = positive(width), h = positive(height), t = std::tan(0.5 * fov_y);
    const glm::dvec3 d = world - eye();
    const double depth = glm::dot(d, forward());
    const double sx = glm::dot(d, right()) / (depth * t * (w / h)), sy = glm::dot(d, up()) / (depth * t);
    return {0.5 * w * (sx + 1.0), 0.5 * h * (1.0 - sy)};
}

glm::mat4 Camera3D::view_proj(int width, int height) const {
    return proj(positive(width) / positive(height)) * view();
}

void Camera3D::clamp_pitch() {
    pitch = std::clamp(pitch, -max_pitch, max_pitch);
}

void Camera3D::orbit(double dx_pixels, double dy_pixels) {
    // Dragging right moves the eye to the left around the target (the scene turns right);
    // dragging down raises the eye (the scene's near side goes down with the mouse).
    yaw -= dx_pixels * radians_per_pixel;
    pitch += dy_pixels * radians_per_pixel;
    yaw = std::remainder(yaw, glm::two_pi<double>());
    clamp_pitch();
}

void Camera3D::pan_pixels(glm::dvec2 delta_pixels, int height) {
    // Height of the view at the target's depth is 2 d tan(fov_y / 2): world units per pixel there.
    const double units_per_pixel = 2.0 * distance * std::tan(0.5 * fov_y) / positive(height);
    target += units_per_pixel * (-delta_pixels.x * right() + delta_pixels.y * up());
}

void Camera3D::zoom(double factor) {
    if (!(factor > 0.0) || !std::isfinite(factor)) return;
    distance = std::max(distance * factor, min_distance);
}

void Camera3D::frame(glm::dvec3 lo, glm::dvec3 hi, double aspect, double margin) {
    if (!(aspect > 0.0) || !std::isfinite(aspect)) aspect = 1.0;
    target = 0.5 * (lo + hi);
    const double radius = 0.5 * glm::length(hi - lo) * (1.0 + std::max(margin, 0.0));
    if (!(radius > 0.0) || !std::isfinite(radius)) return;
    // A sphere of radius R seen from distance d fills a cone of half-angle asin(R / d): it fits
    // when that angle is at most the smaller half field of view.
    const double half_v = 0.5 * fov_y;
    const double half_h = std::atan(aspect * std::tan(half_v));
    distance = std::max(radius / std::sin(std::min(half_v, half_h)), min_distance);
}

void Camera3D::frame_in(glm::dvec3 lo, glm::dvec3 hi, double left, double right, int width, int height,
                        double margin) {
    // Fit as if the viewport were the columns alone (their aspect), then slide the view sideways
    // so that the target, at the middle of the columns' width of the picture, lands there.
    const double cols = std::max(1.0, right - left);
    frame(lo, hi, cols / positive(height), margin);
    pan_pixels({0.5 * (left + right) - 0.5 * positive(width), 0.0}, height);
}

}  // namespace fs::render
