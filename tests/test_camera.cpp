// Camera maths of the viewports (src/render/camera): round trips between pixels and the world,
// zoom about the cursor, framing, panning that follows the mouse, the orbit camera's geometry.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <glm/glm.hpp>

#include "render/camera.hpp"

namespace {

using fs::render::Camera2D;
using fs::render::Camera3D;

constexpr int W = 1280;
constexpr int H = 720;

// Clip space to pixels (top-left origin, y down), the way the viewport transform does it.
glm::dvec2 clip_to_pixel(glm::dvec4 clip, int w, int h) {
    const glm::dvec2 ndc = glm::dvec2(clip) / clip.w;
    return {(ndc.x + 1.0) * 0.5 * w, (1.0 - ndc.y) * 0.5 * h};
}

glm::dvec2 project(const glm::mat4& view_proj, glm::dvec3 p, int w, int h) {
    return clip_to_pixel(glm::dmat4(view_proj) * glm::dvec4(p, 1.0), w, h);
}

void expect_near(glm::dvec2 a, glm::dvec2 b, double tol) {
    EXPECT_NEAR(a.x, b.x, tol);
    EXPECT_NEAR(a.y, b.y, tol);
}

Camera2D some_2d_camera() {
    Camera2D cam;
    cam.center = {3.25, -1.5};
    cam.pixels_per_unit = 37.0;
    return cam;
}

TEST(Camera2D, ScreenToWorldInvertsWorldToScreen) {
    const Camera2D cam = some_2d_camera();
    for (glm::dvec2 px : {glm::dvec2{0, 0}, glm::dvec2{W, H}, glm::dvec2{17.5, 600.25}}) {
        expect_near(cam.world_to_screen(cam.screen_to_world(px, W, H), W, H), px, 1e-9);
    }
    for (glm::dvec2 world : {glm::dvec2{0, 0}, glm::dvec2{-40, 12.5}, glm::dvec2{3.25, -1.5}}) {
        expect_near(cam.screen_to_world(cam.world_to_screen(world, W, H), W, H), world, 1e-9);
    }
}

TEST(Camera2D, CenterIsMiddleOfViewportAndYPointsUp) {
    const Camera2D cam = some_2d_camera();
    expect_near(cam.world_to_screen(cam.center, W, H), {W / 2.0, H / 2.0}, 1e-9);
    // One world unit up is pixels_per_unit pixels toward the top of the window.
    expect_near(cam.world_to_screen(cam.center + glm::dvec2{1, 1}, W, H),
                {W / 2.0 + 37.0, H / 2.0 - 37.0}, 1e-9);
}

TEST(Camera2D, ViewProjAgreesWithWorldToScreen) {
    const Camera2D cam = some_2d_camera();
    const glm::mat4 vp = cam.view_proj(W, H);
    for (glm::dvec2 world : {glm::dvec2{0, 0}, glm::dvec2{-4, 2.5}, glm::dvec2{10, -7}}) {
        expect_near(project(vp, glm::dvec3(world, 0.0), W, H), cam.world_to_screen(world, W, H),
                    1e-3);
    }
    // z = 0 is mid-depth, larger z nearer (smaller depth).
    const glm::dvec4 at0 = glm::dmat4(vp) * glm::dvec4(0, 0, 0, 1);
    const glm::dvec4 at_half = glm::dmat4(vp) * glm::dvec4(0, 0, 0.5, 1);
    EXPECT_NEAR(at0.z, 0.0, 1e-7);
    EXPECT_LT(at_half.z, at0.z);
}

TEST(Camera2D, ZoomAtKeepsTheCursorsWorldPointFixed) {
    Camera2D cam = some_2d_camera();
    const glm::dvec2 cursor{200.0, 511.0};
    const glm::dvec2 before = cam.screen_to_world(cursor, W, H);
    for (double factor : {1.25, 0.5, 3.0, 1.0 / 1.1}) {
        cam.zoom_at(cursor, factor, W, H);
        expect_near(cam.screen_to_world(cursor, W, H), before, 1e-9);
        expect_near(cam.world_to_screen(before, W, H), cursor, 1e-7);
    }
    EXPECT_NEAR(cam.pixels_per_unit, 37.0 * 1.25 * 0.5 * 3.0 / 1.1, 1e-9);
}

TEST(Camera2D, ZoomIgnoresNonPositiveFactors) {
    Camera2D cam = some_2d_camera();
    cam.zoom_at({10, 10}, 0.0, W, H);
    cam.zoom_at({10, 10}, -2.0, W, H);
    cam.zoom_at({10, 10}, std::nan(""), W, H);
    EXPECT_EQ(cam.pixels_per_unit, 37.0);
    EXPECT_EQ(cam.center, some_2d_camera().center);
}

TEST(Camera2D, PanMovesContentWithTheMouse) {
    Camera2D cam = some_2d_camera();
    const glm::dvec2 grab{400.0, 300.0};
    const glm::dvec2 world = cam.screen_to_world(grab, W, H);
    const glm::dvec2 delta{35.0, -12.0};
    cam.pan_pixels(delta);
    expect_near(cam.world_to_screen(world, W, H), grab + delta, 1e-9);
}

TEST(Camera2D, FrameFitsTheBoxWithTheMargin) {
    struct Case {
        glm::dvec2 lo, hi;
        int w, h;
    };
    for (const Case& c : {Case{{0, 0}, {1, 1}, W, H}, Case{{-5, 2}, {15, 3}, W, H},
                          Case{{0, 0}, {1, 4}, 300, 900}, Case{{-1, -1}, {1, 1}, 800, 800}}) {
        Camera2D cam;
        const double margin = 0.05;
        cam.frame(c.lo, c.hi, c.w, c.h, margin);
        const glm::dvec2 a = cam.world_to_screen(c.lo, c.w, c.h);
        const glm::dvec2 b = cam.world_to_screen(c.hi, c.w, c.h);
        const glm::dvec2 px_lo = glm::min(a, b), px_hi = glm::max(a, b);
        const double mx = margin * c.w, my = margin * c.h;
        // Inside with the margin on every side ...
        EXPECT_GE(px_lo.x, mx - 1e-6);
        EXPECT_GE(px_lo.y, my - 1e-6);
        EXPECT_LE(px_hi.x, c.w - mx + 1e-6);
        EXPECT_LE(px_hi.y, c.h - my + 1e-6);
        // ... touching the margin along the limiting axis, centred, square pixels.
        const bool x_limits = (px_lo.x - mx) < 1e-6;
        const bool y_limits = (px_lo.y - my) < 1e-6;
        EXPECT_TRUE(x_limits || y_limits);
        expect_near(0.5 * (px_lo + px_hi), {c.w / 2.0, c.h / 2.0}, 1e-6);
        EXPECT_NEAR((px_hi.x - px_lo.x) / (c.hi.x - c.lo.x),
                    (px_hi.y - px_lo.y) / (c.hi.y - c.lo.y), 1e-6);
    }
}

TEST(Camera2D, FrameOfAFlatBoxUsesTheOtherAxisAndAPointKeepsTheZoom) {
    Camera2D cam;
    cam.frame({0, 2}, {10, 2}, 1000, 500, 0.0);
    EXPECT_NEAR(cam.pixels_per_unit, 100.0, 1e-9);
    cam.frame({1, 1}, {1, 1}, 1000, 500);
    EXPECT_NEAR(cam.pixels_per_unit, 100.0, 1e-9);
    expect_near(cam.center, {1, 1}, 0);
}

Camera3D some_3d_camera() {
    Camera3D cam;
    cam.target = {1.0, -2.0, 0.5};
    cam.distance = 7.5;
    cam.yaw = 0.7;
    cam.pitch = 0.4;
    return cam;
}

TEST(Camera3D, EyeIsAtDistanceFromTarget) {
    for (double yaw : {0.0, 1.0, -2.5, 3.0}) {
        for (double pitch : {0.0, 0.5, -1.2}) {
            Camera3D cam = some_3d_camera();
            cam.yaw = yaw;
            cam.pitch = pitch;
            EXPECT_NEAR(glm::length(cam.eye() - cam.target), cam.distance, 1e-12);
            // Positive pitch looks down from above.
            EXPECT_NEAR(cam.eye().y - cam.target.y, cam.distance * std::sin(pitch), 1e-12);
        }
    }
    Camera3D front;
    front.distance = 3;
    const glm::dvec3 eye = front.eye();  // yaw = pitch = 0: on +z, looking down -z
    EXPECT_NEAR(eye.x, 0, 1e-12);
    EXPECT_NEAR(eye.y, 0, 1e-12);
    EXPECT_NEAR(eye.z, 3, 1e-12);
}

TEST(Camera3D, ViewPutsTargetOnTheViewAxis) {
    const Camera3D cam = some_3d_camera();
    const glm::dvec4 v = glm::dmat4(cam.view()) * glm::dvec4(cam.target, 1.0);
    EXPECT_NEAR(v.x, 0.0, 1e-5);
    EXPECT_NEAR(v.y, 0.0, 1e-5);
    EXPECT_NEAR(v.z, -cam.distance, 1e-5);
    // The world's up stays up on screen: a point above the target projects above it.
    const glm::mat4 vp = cam.view_proj(W, H);
    EXPECT_LT(project(vp, cam.target + glm::dvec3(0, 0.1, 0), W, H).y,
              project(vp, cam.target, W, H).y);
    expect_near(project(vp, cam.target, W, H), {W / 2.0, H / 2.0}, 1e-3);
}

// The mouse's ray: a world point seen at a pixel lies on the ray through that pixel, and the
// pixel agrees with what the GPU's view_proj draws there.
TEST(Camera3D, ThePixelsRayPassesThroughWhatIsSeenThere) {
    const Camera3D cam = some_3d_camera();
    const glm::mat4 vp = cam.view_proj(W, H);
    for (const glm::dvec3 p : {cam.target, cam.target + glm::dvec3(0.3, -0.2, 0.1), cam.target + glm::dvec3(-0.5, 0.4, -0.3)}) {
        const glm::dvec2 px = cam.world_to_screen(p, W, H);
        expect_near(px, project(vp, p, W, H), 1e-2);  // float matrices
        const glm::dvec3 d = cam.ray_direction(px, W, H), e = p - cam.eye();
        EXPECT_NEAR(glm::length(d), 1.0, 1e-12);
        EXPECT_NEAR(glm::length(glm::cross(d, e)) / glm::length(e), 0.0, 1e-12);
        EXPECT_GT(glm::dot(d, e), 0.0);
    }
    const glm::dvec3 mid = cam.ray_direction({W / 2.0, H / 2.0}, W, H);
    EXPECT_NEAR(glm::dot(mid, cam.forward()), 1.0, 1e-12);
}

TEST(Camera3D, BasisIsOrthonormalAndRightHanded) {
    const Camera3D cam = some_3d_camera();
    const glm::dvec3 f = cam.forward(), r = cam.right(), u = cam.up();
    EXPECT_NEAR(glm::length(f), 1, 1e-12);
    EXPECT_NEAR(glm::length(r), 1, 1e-12);
    EXPECT_NEAR(glm::length(u), 1, 1e-12);
    EXPECT_NEAR(glm::dot(f, r), 0, 1e-12);
    EXPECT_NEAR(glm::dot(f, u), 0, 1e-12);
    EXPECT_NEAR(glm::length(glm::cross(r, u) + f), 0, 1e-12);  // right x up = toward the eye
    EXPECT_NEAR(r.y, 0, 1e-12);                                // no roll
}

TEST(Camera3D, PitchIsClamped) {
    Camera3D cam = some_3d_camera();
    cam.orbit(0, 1e6);
    EXPECT_NEAR(cam.pitch, Camera3D::max_pitch, 1e-15);
    EXPECT_NEAR(cam.pitch, glm::half_pi<double>() - 0.01, 1e-15);
    cam.orbit(0, -1e7);
    EXPECT_NEAR(cam.pitch, -Camera3D::max_pitch, 1e-15);
    // Even at the clamp the view is well defined (up is not the view axis).
    const glm::mat4 v = cam.view();
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) EXPECT_TRUE(std::isfinite(v[c][r]));
}

TEST(Camera3D, OrbitTurnsTheContentWithTheMouse) {
    Camera3D cam;
    cam.distance = 5;
    // A point in front of the target (toward the eye) moves right when dragging right, and down
    // when dragging down.
    const glm::dvec3 p = cam.target + glm::dvec3(0, 0, 1);
    const glm::dvec2 before = project(cam.view_proj(W, H), p, W, H);
    Camera3D right = cam;
    right.orbit(40, 0);
    EXPECT_GT(project(right.view_proj(W, H), p, W, H).x, before.x + 1);
    Camera3D down = cam;
    down.orbit(0, 40);
    EXPECT_GT(project(down.view_proj(W, H), p, W, H).y, before.y + 1);
    EXPECT_NEAR(glm::length(down.eye() - down.target), down.distance, 1e-12);
}

TEST(Camera3D, PanMovesContentAtTheTargetsDepthWithTheMouse) {
    Camera3D cam = some_3d_camera();
    // A point at the target's depth, off the centre of the screen.
    const glm::dvec3 p = cam.target + 0.8 * cam.right() - 0.5 * cam.up();
    const glm::dvec2 before = project(cam.view_proj(W, H), p, W, H);
    const glm::dvec2 delta{25.0, -40.0};
    cam.pan_pixels(delta, H);
    expect_near(project(cam.view_proj(W, H), p, W, H), before + delta, 1e-2);
    EXPECT_NEAR(cam.distance, some_3d_camera().distance, 0);
}

TEST(Camera3D, ZoomScalesDistanceAndStaysPositive) {
    Camera3D cam = some_3d_camera();
    cam.zoom(0.5);
    EXPECT_NEAR(cam.distance, 3.75, 1e-12);
    cam.zoom(0.0);
    cam.zoom(-1.0);
    EXPECT_NEAR(cam.distance, 3.75, 1e-12);
    for (int i = 0; i < 200; ++i) cam.zoom(1e-3);
    EXPECT_GT(cam.distance, 0.0);
    EXPECT_GE(cam.distance, Camera3D::min_distance);
}

TEST(Camera3D, FrameMakesTheBoxCornersProjectInsideClipSpace) {
    struct Case {
        glm::dvec3 lo, hi;
        int w, h;
        double yaw, pitch;
    };
    for (const Case& c :
         {Case{{0, 0, 0}, {1, 1, 1}, W, H, 0.0, 0.0}, Case{{-3, 0, -1}, {5, 2, 1}, W, H, 0.9, 0.5},
          Case{{0, 0, 0}, {1, 10, 1}, 400, 1000, -2.0, -0.3},
          Case{{-1, -1, -1}, {1, 1, 1}, 1000, 300, 2.5, 1.4},
          Case{{-5, -0.1, -0.1}, {5, 0.1, 0.1}, 400, 1000, 0.0, 0.0}}) {
        Camera3D cam;
        cam.yaw = c.yaw;
        cam.pitch = c.pitch;
        cam.frame(c.lo, c.hi, static_cast<double>(c.w) / c.h);
        EXPECT_NEAR(glm::length(cam.target - 0.5 * (c.lo + c.hi)), 0, 1e-12);
        const glm::dmat4 vp(cam.view_proj(c.w, c.h));
        double widest = 0;
        for (int k = 0; k < 8; ++k) {
            const glm::dvec3 corner{k & 1 ? c.hi.x : c.lo.x, k & 2 ? c.hi.y : c.lo.y,
                                    k & 4 ? c.hi.z : c.lo.z};
            const glm::dvec4 clip = vp * glm::dvec4(corner, 1.0);
            ASSERT_GT(clip.w, 0);
            const glm::dvec3 ndc = glm::dvec3(clip) / clip.w;
            EXPECT_LE(std::abs(ndc.x), 1.0);
            EXPECT_LE(std::abs(ndc.y), 1.0);
            EXPECT_LE(std::abs(ndc.z), 1.0);
            widest = std::max({widest, std::abs(ndc.x), std::abs(ndc.y)});
        }
        // Not absurdly far away either: the box spans a good part of the view.
        EXPECT_GT(widest, 0.3);
    }
}

TEST(Camera3D, ProjectionDepthRangeFollowsDistance) {
    Camera3D cam = some_3d_camera();
    const glm::dmat4 vp(cam.view_proj(W, H));
    // The target is well inside the depth range, a point just past the near plane too.
    const glm::dvec4 t = vp * glm::dvec4(cam.target, 1.0);
    EXPECT_LT(std::abs(t.z / t.w), 1.0);
    const glm::dvec3 near_point = cam.eye() + 1.5 * cam.near_plane() * cam.forward();
    const glm::dvec4 n = vp * glm::dvec4(near_point, 1.0);
    EXPECT_LT(std::abs(n.z / n.w), 1.0);
    EXPECT_LT(cam.near_plane(), cam.distance);
    EXPECT_GT(cam.far_plane(), cam.distance);
}

}  // namespace

namespace {

// Framing into the columns side panels leave free (the window at 1024 x 768 with panels 266
// points wide: columns [274, 750)). Every corner of the box lands inside them, and the box
// fills most of their width or height.
TEST(CameraFraming, A2DBoxFitsBetweenThePanels) {
    for (const auto& [lo, hi] : {std::pair{glm::dvec2(-0.03, -0.03), glm::dvec2(1.03, 1.03)},
                                 std::pair{glm::dvec2(-0.03, -0.03), glm::dvec2(2.03, 1.03)}}) {
        Camera2D cam;
        const double left = 274, right = 750;
        cam.frame_in(lo, hi, left, right, 1024, 768);
        double x0 = 1e9, x1 = -1e9;
        for (glm::dvec2 c : {lo, hi, glm::dvec2(lo.x, hi.y), glm::dvec2(hi.x, lo.y)}) {
            const glm::dvec2 p = cam.world_to_screen(c, 1024, 768);
            EXPECT_GE(p.x, left - 1e-9);
            EXPECT_LE(p.x, right + 1e-9);
            EXPECT_GE(p.y, 0.0);
            EXPECT_LE(p.y, 768.0);
            x0 = std::min(x0, p.x);
            x1 = std::max(x1, p.x);
        }
        EXPECT_NEAR(0.5 * (x0 + x1), 0.5 * (left + right), 1e-6) << "centred in the columns";
        EXPECT_GT(x1 - x0, 0.85 * (right - left)) << "the narrow axis decides: it fills the columns' width";
    }
}

TEST(CameraFraming, A3DBoxFitsBetweenThePanels) {
    Camera3D cam;
    cam.yaw = 0.55;
    cam.pitch = 0.45;
    const glm::dvec3 lo(0, 0, 0), hi(1, 0.6, 0.4);
    const double left = 340, right = 1092;  // 1440 wide, panels 340 wide
    cam.frame_in(lo, hi, left, right, 1440, 900);
    const glm::mat4 vp = cam.view_proj(1440, 900);
    double x0 = 1e9, x1 = -1e9;
    for (int k = 0; k < 8; ++k) {
        const glm::dvec3 c(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z);
        const glm::dvec2 p = project(vp, c, 1440, 900);
        x0 = std::min(x0, p.x);
        x1 = std::max(x1, p.x);
        EXPECT_GE(p.y, 0.0);
        EXPECT_LE(p.y, 900.0);
    }
    EXPECT_GE(x0, left);
    EXPECT_LE(x1, right);
    EXPECT_GT(x1 - x0, 0.6 * (right - left)) << "framed, not lost in the middle";
}

}  // namespace
