// SceneView: taking the simulation's frames into the renderers (through the interop on CUDA),
// drawing the domain, vectors, obstacles, cells and particles, and the cameras' framing and input.
#include "app/scene_view.hpp"

#include "app/plot_scale.hpp"

#include "render/gl.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <vector>

#include "core/memory.hpp"

namespace fs {

void SceneView::init(SDL_Window* window) {
    window_ = window;
    particles_.init();
    // The surface view is an extra: a driver that cannot build its programs (float render
    // targets, say) leaves the window drawing particles, and L says why.
    try {
        surface_.init();
    } catch (const std::exception& e) {
        surface_error_ = e.what();
    }
    lines_.init();
    meshes_.init();
    cells_.init();
    polygons_.init();
}

void SceneView::release() {
    // GL objects go while their context is still current (CUDA lets go of its buffers first).
    interop_.detach();
    particles_.release();
    surface_.release();
    lines_.release();
    meshes_.release();
    cells_.release();
    polygons_.release();
    picture_.release();
}

void SceneView::drag(glm::dvec2 by, bool left_button) {
    int w = 0, h = 0;
    SDL_GetWindowSize(window_, &w, &h);
    if (dimension_ == 2) {
        cam2_.pan_pixels(by);
    } else if (left_button) {
        cam3_.orbit(by.x, by.y);
    } else {
        cam3_.pan_pixels(by, h);
    }
}

void SceneView::cursor_ray(glm::dvec2 px, glm::dvec3& point, glm::dvec3& axis) const {
    int w = 0, h = 0;
    SDL_GetWindowSize(window_, &w, &h);
    if (dimension_ == 2) {
        point = glm::dvec3(cam2_.screen_to_world(px, w, h), 0.0);
        axis = glm::dvec3(0.0, 0.0, -1.0);
    } else {
        point = cam3_.eye();
        axis = cam3_.ray_direction(px, w, h);
    }
}

glm::dvec3 SceneView::on_view_plane(glm::dvec2 px, glm::dvec3 on) const {
    glm::dvec3 p, d;
    cursor_ray(px, p, d);
    if (dimension_ == 2) return p;
    const glm::dvec3 n = cam3_.forward();
    const double along = glm::dot(d, n);
    return along > 1e-9 ? p + (glm::dot(on - p, n) / along) * d : on;
}

glm::dvec2 SceneView::to_screen(glm::dvec3 world) const {
    int w = 0, h = 0;
    SDL_GetWindowSize(window_, &w, &h);
    return dimension_ == 2 ? cam2_.world_to_screen(glm::dvec2(world), w, h) : cam3_.world_to_screen(world, w, h);
}

double SceneView::pixels_per_metre(glm::dvec3 at) const {
    if (dimension_ == 2) return cam2_.pixels_per_unit;
    return glm::length(to_screen(at + cam3_.right()) - to_screen(at));
}

glm::dvec3 SceneView::view_axis() const {
    return dimension_ == 2 ? glm::dvec3(0.0, 0.0, -1.0) : cam3_.forward();
}

void SceneView::zoom(double factor, glm::dvec2 at) {
    int w = 0, h = 0;
    SDL_GetWindowSize(window_, &w, &h);
    if (dimension_ == 2)
        cam2_.zoom_at(at, factor, w, h);
    else
        cam3_.zoom(1.0 / factor);
}

void SceneView::frame_all(int w, int h, const SimStatus& status, const ViewSettings& settings) {
    // Fit the domain into the part of the window between the side panels (as the panels last
    // measured it; the whole window when they are hidden, or leave less than a fifth of it).
    int window_w = 0, window_h = 0;
    SDL_GetWindowSize(window_, &window_w, &window_h);
    const double to_pixels = window_w > 0 ? static_cast<double>(w) / window_w : 1.0;
    double left = settings.free_left * to_pixels, right = settings.free_right * to_pixels;
    if (!(right > left) || right - left < 0.2 * w) {
        left = 0.0;
        right = w;
    }
    if (dimension_ == 2) {
        cam2_.frame_in({frame_.lo[0], frame_.lo[1]}, {frame_.hi[0], frame_.hi[1]}, left, right, w, h);
    } else {
        if (framed_scene_ != status.scene_path) {  // a new scene: a three-quarter view from above
            cam3_.yaw = 0.55;
            cam3_.pitch = 0.45;
        }
        cam3_.frame_in({frame_.lo[0], frame_.lo[1], frame_.lo[2]}, {frame_.hi[0], frame_.hi[1], frame_.hi[2]}, left,
                       right, w, h);
    }
}

glm::vec2 SceneView::screen_direction(const glm::dvec3& world) const {
    glm::dvec2 d(world.x, world.y);
    if (dimension_ == 3) {
        const glm::dvec4 v = glm::dmat4(cam3_.view()) * glm::dvec4(world, 0.0);
        d = glm::dvec2(v.x, v.y);
    }
    const double n = glm::length(d);
    return n > 1e-6 ? glm::vec2(d / n) : glm::vec2(0.0f);
}

std::optional<std::string> SceneView::update(SimulationHost& host, const SimStatus& status,
                                             const ViewSettings& settings) {
    // Tell the simulation thread what the frames should carry (only when it changes).
    const bool want_device = status.backend == Backend::Cuda && cuda_status().usable && !interop_failed_;
    if (want_device != device_frames_) host.set_device_frames(device_frames_ = want_device);
    if (settings.show_vectors != velocity_overlay_) host.set_velocity_overlay(velocity_overlay_ = settings.show_vectors);

    const auto took_from = std::chrono::steady_clock::now();
    if (!host.take_frame(frame_) && frame_uploaded_) return std::nullopt;
    struct Timed {  // the hand-over's time, however update() returns
        HandOver& h;
        std::chrono::steady_clock::time_point from;
        ~Timed() {
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - from).count();
            h.longest_ms = std::max(h.longest_ms, ms);
        }
    } timed{hand_over_, took_from};
    ScalarRange range = frame_.range;
    if (frame_.on_device) {
        try {
            if (frame_.count > particles_.capacity()) {
                interop_.detach();  // before OpenGL reallocates the buffers
                particles_.reserve(frame_.count);
            }
            if (!interop_.attached()) interop_.attach(particles_.position_buffer(), particles_.scalar_buffer());
            int n = 0;
            interop_.with_mapped([&](float* xyz, float* scalar) {
                n = host.copy_device_frame(xyz, scalar, particles_.capacity(), range);
            });
            particles_.set_count(n, true);
            ++hand_over_.interop;
        } catch (const CudaError& e) {
            interop_.detach();
            interop_failed_ = true;
            host.set_device_frames(device_frames_ = false);
            // The next frame comes through the host.
            return std::string("CUDA-OpenGL interop is not available (") + e.what() +
                   "): particles now reach OpenGL through host memory";
        }
    } else {
        interop_.detach();  // upload() may reallocate the buffers
        particles_.upload(frame_.count, frame_.position.data(), frame_.scalar.data());
        ++hand_over_.host;
    }
    frame_uploaded_ = true;
    dimension_ = frame_.dimension;
    // The auto range over the drawn values (boundary particles are NaN: skipped), never narrower
    // than the field's floor in its unit, anchored at its low end (plot_scale.hpp).
    if (range.lo <= range.hi) {
        double floor = 0.0;
        for (const FieldInfo& f : status.fields)
            if (f.name == frame_.color_field) floor = colour_range_floor(f.unit);
        data_range_[0] = range.lo;
        data_range_[1] = std::max({range.hi, range.lo + static_cast<float>(floor), range.lo + 1e-6f});
    }
    return std::nullopt;
}

// Everything the scene's picture depends on, so that it is drawn again only when one changes.
SceneView::PictureKey SceneView::picture_key(int w, int h, const glm::mat4& view_proj, const ViewSettings& settings,
                                             int liquid_view) const {
    PictureKey k{};
    std::size_t n = 0;
    for (float v : {static_cast<float>(w), static_cast<float>(h), static_cast<float>(dimension_),
                    static_cast<float>(liquid_view), static_cast<float>(settings.colormap),
                    settings.auto_range ? 1.0f : 0.0f, settings.range[0], settings.range[1],
                    settings.show_vectors ? 1.0f : 0.0f, settings.vector_scale, settings.show_domain ? 1.0f : 0.0f,
                    settings.show_polygons ? 1.0f : 0.0f, static_cast<float>(settings.cells_mode), settings.slice_z,
                    settings.size_scale, static_cast<float>(settings.spheres), data_range_[0], data_range_[1]})
        k.at(n++) = v;
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) k.at(n++) = view_proj[c][r];
    assert(n == k.size() && "PictureKey's size counts every setting");
    return k;
}

void SceneView::draw(int w, int h, const SimStatus& status, const ViewSettings& settings) {
    if (framed_scene_ != status.scene_path && frame_uploaded_) {
        frame_all(w, h, status, settings);
        framed_scene_ = status.scene_path;
    }
    const bool is3d = dimension_ == 3;
    // The spheres' drawing as chosen; sprites sort a host copy, which a switch uploads again.
    const render::SphereDrawing spheres = settings.spheres == 1   ? render::SphereDrawing::Exact
                                          : settings.spheres == 2 ? render::SphereDrawing::Sprites
                                                                  : particles_.default_sphere_drawing();
    if (spheres != particles_.sphere_drawing()) {
        particles_.set_sphere_drawing(spheres);
        if (frame_uploaded_ && !frame_.on_device)
            particles_.upload(frame_.count, frame_.position.data(), frame_.scalar.empty() ? nullptr : frame_.scalar.data());
    }
    const glm::mat4 view_proj = is3d ? cam3_.view_proj(w, h) : cam2_.view_proj(w, h);
    const glm::mat4 view = is3d ? cam3_.view() : glm::mat4(1.0f);

    // The picture of the last draw still holds: show it (a copy) instead of drawing the
    // particles again. Otherwise draw into the target, then show that; but while the simulation
    // brings a new picture every window frame, it is drawn straight into the window: the copy
    // cost 6-7 ms a frame at 1440 x 900 on Mesa's llvmpipe (a fifth of the default scene's
    // frame). A simulation slower than the window (its last picture shown in several frames),
    // or a paused one, keeps the cache, so each picture is drawn once.
    if (frame_.version != shown_version_) {
        shown_repeated_ = shown_frames_ > 1;
        shown_version_ = frame_.version;
        shown_frames_ = 0;
    }
    ++shown_frames_;
    const bool straight = status.running && !shown_repeated_;
    const int liquid_view = status.traits.liquid && surface_error_.empty() ? settings.liquid_view : 0;
    const PictureKey key = picture_key(w, h, view_proj, settings, liquid_view);
    if (picture_.holds(w, h) && frame_.version == picture_version_ && key == picture_key_) {
        picture_.show();
        ++pictures_reused_;
        return;
    }
    const bool offscreen = !straight && picture_.begin(w, h);
    picture_key_ = key;
    picture_version_ = offscreen ? frame_.version : ~std::uint64_t{0};
    ++pictures_drawn_;
    glViewport(0, 0, w, h);
    glClearColor(0.09f, 0.10f, 0.12f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    draw_picture(w, h, view_proj, view, settings, liquid_view);
    glDisable(GL_DEPTH_TEST);
    if (offscreen) picture_.show();
}

void SceneView::draw_picture(int w, int h, const glm::mat4& view_proj, const glm::mat4& view,
                             const ViewSettings& settings, int liquid_view) {
    const bool is3d = dimension_ == 3;

    lines_.clear();
    if (settings.show_domain)
        lines_.add_box(glm::vec3(frame_.lo[0], frame_.lo[1], frame_.lo[2]),
                       glm::vec3(frame_.hi[0], frame_.hi[1], frame_.hi[2]), glm::vec4(0.8f, 0.8f, 0.85f, 1.0f));
    if (settings.show_vectors && frame_.velocity.size() == frame_.position.size()) {
        // At most about 1500 arrows, from every k-th particle (the particles lie in cell order, so
        // the ones drawn spread over the whole liquid): a readable field, not a mass of lines.
        const float s = settings.vector_scale;
        const int stride = std::max(1, (frame_.count + 1499) / 1500);
        for (int i = 0; i < frame_.count; i += stride) {
            const float* p = &frame_.position[static_cast<std::size_t>(i) * 3];
            const float* v = &frame_.velocity[static_cast<std::size_t>(i) * 3];
            lines_.add(glm::vec3(p[0], p[1], p[2]), glm::vec3(p[0] + s * v[0], p[1] + s * v[1], p[2] + s * v[2]),
                       glm::vec4(1.0f, 1.0f, 1.0f, 0.6f));
        }
    }
    // Obstacles as solid shapes, under the particles in 2D.
    meshes_.clear();
    const glm::vec4 solid(0.55f, 0.57f, 0.62f, 1.0f);
    for (const Obstacle& o : frame_.obstacles) {
        switch (o.shape) {
            case Obstacle::Shape::Box:
                meshes_.add_box(glm::vec3(o.lo[0], o.lo[1], o.lo[2]), glm::vec3(o.hi[0], o.hi[1], o.hi[2]), solid);
                break;
            case Obstacle::Shape::Sphere:
                meshes_.add_sphere(glm::vec3(o.center[0], o.center[1], o.center[2]), static_cast<float>(o.radius),
                                   solid);
                break;
            case Obstacle::Shape::Polygon: {
                std::vector<glm::vec3> pts;
                for (std::size_t k = 0; k + 1 < o.points.size(); k += 2)
                    pts.emplace_back(o.points[k], o.points[k + 1], 0.0f);
                meshes_.add_convex_polygon(pts, solid);
                break;
            }
            case Obstacle::Shape::Mesh: {
                const auto& q = o.points;
                for (std::size_t k = 0; k + 8 < q.size(); k += 9)
                    meshes_.add_triangle(glm::vec3(q[k], q[k + 1], q[k + 2]), glm::vec3(q[k + 3], q[k + 4], q[k + 5]),
                                         glm::vec3(q[k + 6], q[k + 7], q[k + 8]), solid);
                break;
            }
        }
    }
    // The particles' own cells (ot), filled with their particle's colour and outlined: the
    // liquid as its solver sees it. The particles are then drawn small on top.
    const bool polygons = settings.show_polygons && !is3d &&
                          frame_.polygon_start.size() == static_cast<std::size_t>(frame_.count) + 1;
    polygons_.clear();
    if (polygons) {
        const float plo = settings.auto_range ? data_range_[0] : settings.range[0];
        const float phi = settings.auto_range ? data_range_[1] : settings.range[1];
        const bool coloured = frame_.scalar.size() == static_cast<std::size_t>(frame_.count);
        std::vector<glm::vec2> pts;
        for (int k = 0; k < frame_.count; ++k) {
            pts.clear();
            for (int q = frame_.polygon_start[static_cast<std::size_t>(k)]; q < frame_.polygon_start[static_cast<std::size_t>(k) + 1]; ++q)
                pts.emplace_back(frame_.polygon_xy[2 * static_cast<std::size_t>(q)], frame_.polygon_xy[2 * static_cast<std::size_t>(q) + 1]);
            const float t = coloured && phi > plo ? (frame_.scalar[static_cast<std::size_t>(k)] - plo) / (phi - plo) : 0.5f;
            const glm::vec3 rgb = render::colormap_rgb(settings.colormap, std::clamp(t, 0.0f, 1.0f));
            polygons_.add(pts, glm::vec4(0.85f * rgb, 1.0f));
        }
    }
    // The liquid's surface mesh (liquid_view 3 and 4: the export's triangles, made by the
    // simulation's thread each frame), water-blue, with vertex normals averaged from its faces.
    // Until the first mesh comes (it is made on the simulation's thread), the particles show.
    const bool mesh = is3d && liquid_view >= 3 && !frame_.mesh_triangles.empty();
    if (mesh) {
        const auto& p = frame_.mesh_points;
        const auto& t = frame_.mesh_triangles;
        auto at = [&](int v) { return glm::vec3(p[3 * static_cast<std::size_t>(v)], p[3 * static_cast<std::size_t>(v) + 1],
                                                p[3 * static_cast<std::size_t>(v) + 2]); };
        std::vector<glm::vec3> normal(p.size() / 3, glm::vec3(0.0f));
        for (std::size_t k = 0; k + 2 < t.size(); k += 3) {
            const glm::vec3 n = glm::cross(at(t[k + 1]) - at(t[k]), at(t[k + 2]) - at(t[k]));  // area-weighted
            for (int c = 0; c < 3; ++c) normal[static_cast<std::size_t>(t[k + c])] += n;
        }
        for (glm::vec3& n : normal) n = glm::length(n) > 0.0f ? glm::normalize(n) : glm::vec3(0.0f, 1.0f, 0.0f);
        const glm::vec4 water(0.25f, 0.55f, 0.9f, 1.0f);
        for (std::size_t k = 0; k + 2 < t.size(); k += 3)
            meshes_.add_triangle(at(t[k]), at(t[k + 1]), at(t[k + 2]), normal[static_cast<std::size_t>(t[k])],
                                 normal[static_cast<std::size_t>(t[k + 1])], normal[static_cast<std::size_t>(t[k + 2])], water);
    }
    meshes_.draw(view_proj, is3d ? glm::vec3(0.3f, 0.8f, 0.5f) : glm::vec3(0.0f, 0.0f, 1.0f));
    polygons_.draw(view_proj, glm::vec4(0.05f, 0.05f, 0.08f, 0.8f));
    cells_.clear();
    add_cells(settings);
    const float lo = settings.auto_range ? data_range_[0] : settings.range[0];
    const float hi = settings.auto_range ? data_range_[1] : settings.range[1];
    if (is3d) glEnable(GL_DEPTH_TEST);
    const float radius = static_cast<float>(frame_.radius * settings.size_scale * (polygons ? 0.35 : 1.0));
    // A liquid's surface (liquid_view 1) over its walls' particles, or (2) over all its
    // particles, half transparent. The particles' own radius sets its scale, not the size slider.
    if (mesh) {
        // the mesh stands for the particles
    } else if (liquid_view == 1 || liquid_view == 2) {
        // (3D liquids have no wall particles: FLIP's walls are its grid's)
        if (liquid_view == 2 || !is3d)
            particles_.draw(view_proj, view, is3d, radius, settings.colormap, lo, hi, h, liquid_view == 1);
        surface_.draw(particles_, view_proj, view, is3d, static_cast<float>(frame_.radius), settings.colormap, lo, hi,
                      !frame_.color_field.empty(), w, h,
                      glm::vec3(frame_.lo[0], frame_.lo[1], frame_.lo[2]),
                      glm::vec3(frame_.hi[0], frame_.hi[1], frame_.hi[2]), liquid_view == 2 ? 0.55f : 1.0f);
    } else {
        particles_.draw(view_proj, view, is3d, radius, settings.colormap, lo, hi, h);
    }
    // The cells after the particles: a slice over them, translucent (it lay hidden under them
    // before), every cell's box against the particles' depth.
    if (settings.cells_mode == 1) glDisable(GL_DEPTH_TEST);
    cells_.draw(view_proj, is3d ? glm::vec3(0.3f, 0.8f, 0.5f) : glm::vec3(0.0f, 0.0f, 1.0f));
    if (is3d) glEnable(GL_DEPTH_TEST);
    lines_.draw(view_proj);
}

// The cell overlay: a slice of cells across z (every kind, air pale) or every fluid and solid cell
// as a box shrunk to 60% (so the cells stay apart). Colours: ViewSettings' legend (panels).
void SceneView::add_cells(const ViewSettings& settings) {
    const CellGrid& c = frame_.cells;
    if (settings.cells_mode == 0 || c.kind.empty()) return;
    const glm::vec4 colour[3] = {glm::vec4(0.85f, 0.88f, 0.95f, 0.18f), glm::vec4(0.20f, 0.45f, 0.95f, 0.75f),
                                 glm::vec4(0.50f, 0.50f, 0.52f, 0.9f)};
    const float dx = static_cast<float>(c.dx);
    const glm::vec3 o(c.origin[0], c.origin[1], c.origin[2]);
    auto kind = [&](int i, int j, int k) { return c.kind[i + c.n[0] * (j + c.n[1] * static_cast<std::size_t>(k))]; };
    if (settings.cells_mode == 1) {
        const int k = std::clamp(static_cast<int>(settings.slice_z * c.n[2]), 0, c.n[2] - 1);
        const float z = o.z + (k + 0.5f) * dx;
        for (int j = 0; j < c.n[1]; ++j)
            for (int i = 0; i < c.n[0]; ++i) {
                const float x0 = o.x + i * dx, y0 = o.y + j * dx;
                cells_.add_quad_2d({x0, y0}, {x0 + dx, y0}, {x0 + dx, y0 + dx}, {x0, y0 + dx},
                                    colour[std::min<int>(kind(i, j, k), 2)], z);
            }
        return;
    }
    constexpr std::size_t kMaxBoxes = 60000;  // ~720k triangles: still interactive
    std::size_t boxes = 0;
    for (int k = 0; k < c.n[2]; ++k)
        for (int j = 0; j < c.n[1]; ++j)
            for (int i = 0; i < c.n[0] && boxes < kMaxBoxes; ++i) {
                const int t = kind(i, j, k);
                if (t == CellGrid::Air) continue;
                const glm::vec3 lo = o + dx * glm::vec3(i + 0.2f, j + 0.2f, k + 0.2f);
                cells_.add_box(lo, lo + glm::vec3(0.6f * dx), colour[std::min(t, 2)]);
                ++boxes;
            }
}

}  // namespace fs
