// The window's frame loop follows Dear ImGui's example_sdl2_opengl3: poll events (respecting
// io.WantCaptureMouse / WantCaptureKeyboard), start the frame (renderer, platform, ImGui), build
// the panels, render the scene and the UI, swap. The simulation steps on its own thread
// (SimulationHost); each frame only tells it a frame began and draws its latest data.
//
// What this file implements:
// - particles (discs in 2D, sphere impostors in 3D) coloured by any solver field through a
//   colour map with a legend (auto or fixed range); domain box; velocity vectors;
// - cameras: 2D pan/zoom, 3D orbit/pan/zoom, F frames all;
// - panels: Simulation, Parameters (generated from the registry), Stats (plots), Help;
// - keys (Space P R W A S D Q E F F12 V Esc F1), key scripts (--keys), screenshots, recording.
#include "app/app.hpp"

#include <glad/gl.h>
#include <SDL.h>
#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>
#include <backends/imgui_impl_sdl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <limits>
#include <optional>
#include <thread>

#include "app/actions.hpp"
#include "app/recorder.hpp"
#include "app/simulation_host.hpp"
#include "core/memory.hpp"
#include "render/camera.hpp"
#include "render/colormap.hpp"
#include "render/cuda_gl_interop.hpp"
#include "render/line_renderer.hpp"
#include "render/mesh_renderer.hpp"
#include "render/particle_renderer.hpp"

namespace fs {

namespace {

std::string timestamped(const char* prefix, const char* ext) {
    const std::time_t now = std::time(nullptr);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&now));
    return std::string(prefix) + "-" + buf + ext;
}

std::vector<std::string> bundled_scenes() {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(scenes_dir(), ec))
        if (e.path().extension() == ".json") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

// View settings the user picks in the window.
struct ViewSettings {
    render::Colormap colormap = render::Colormap::Viridis;
    bool auto_range = true;
    float range[2] = {0.0f, 1.0f};
    bool show_vectors = false;
    float vector_scale = 0.075f;  // the tutorial's show_speeds scale
    bool show_domain = true;
    // Grid cells coloured by kind (fluid / air / solid), for grid solvers: a slice across z at
    // slice_z (a fraction of the depth) or every fluid and solid cell.
    int cells_mode = 0;  // 0 off, 1 slice, 2 all
    float slice_z = 0.5f;
    float size_scale = 1.0f;
    int steps_per_push = 1;
    bool show_help = false;
    bool show_stats = true;
    bool show_params = true;
    char save_path[256] = "my_scene.json";
    char export_path[256] = "export.usda";
    int export_every = 1;
    bool record_gif = false;
};

class App {
public:
    App(const Options& o, SimulationHost& host) : o_(o), host_(host) {}

    int run();

private:
    bool init_window();
    void shutdown();
    void handle_event(const SDL_Event& e);
    void apply(Action a);
    void hold_rotation(double direction, double dt);
    void update_frame_data();
    void draw_scene(int w, int h);
    void add_cells();
    void frame_all(int w, int h);
    void ui();
    void ui_menu();
    void ui_simulation();
    void ui_parameters();
    bool ui_param(const ParamMeta& m, const nlohmann::json& value);
    void ui_stats();
    void ui_help();
    void ui_legend();
    void ui_errors();
    std::vector<unsigned char> read_pixels(int& w, int& h);
    void take_screenshot(const std::string& path);
    void toggle_recording();
    void stop_recording();
    void note(const std::string& text);

    const Options& o_;
    SimulationHost& host_;
    SDL_Window* window_ = nullptr;
    SDL_GLContext gl_ = nullptr;
    bool quit_ = false;
    int exit_code_ = kExitOk;

    SimStatus status_;
    StatsHistory history_;
    FrameData frame_;
    bool frame_uploaded_ = false;
    int dimension_ = 2;
    std::string framed_scene_;

    render::Camera2D cam2_;
    render::Camera3D cam3_;
    render::ParticleRenderer particles_;
    // CUDA-OpenGL interop: on the CUDA backend the particles go from the simulation's device
    // memory into particles_' buffers on the GPU. Off for good once it failed (then frames come
    // through host memory and a notice says why).
    render::CudaGlBuffers interop_;
    bool interop_failed_ = false;
    bool device_frames_ = false;     // what the host was last told
    bool velocity_overlay_ = false;  // likewise
    render::LineRenderer lines_;
    render::MeshRenderer meshes_;
    ViewSettings view_;
    float data_range_[2] = {0.0f, 1.0f};

    VideoRecorder recorder_;
    std::vector<ScriptedFrame> script_;
    std::size_t script_at_ = 0;
    long long frame_index_ = 0;
    std::int64_t shown_error_ = 0;
    std::string popup_error_;
    std::string notice_;
    double notice_until_ = 0.0;
    std::map<std::string, double> edit_value_;  // in-progress edits (the host applies them async)
    double fps_ = 0.0;
    float stats_left_ = -1.0f;  // the Stats panel's left edge this frame (-1: hidden), for the legend
};

bool App::init_window() {
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) {
        std::cerr << "fluid-sandbox: cannot open a window: " << SDL_GetError()
                  << " (use --headless without a display)\n";
        return false;
    }
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, 0);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
    window_ = SDL_CreateWindow("fluid-sandbox", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                               o_.width, o_.height,
                               SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!window_) {
        std::cerr << "fluid-sandbox: cannot open a window: " << SDL_GetError() << '\n';
        return false;
    }
    gl_ = SDL_GL_CreateContext(window_);
    if (!gl_ || SDL_GL_MakeCurrent(window_, gl_) != 0) {
        std::cerr << "fluid-sandbox: no OpenGL 3.3 core context: " << SDL_GetError() << '\n';
        return false;
    }
    if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(SDL_GL_GetProcAddress))) {
        std::cerr << "fluid-sandbox: cannot load the OpenGL functions\n";
        return false;
    }
    SDL_GL_SetSwapInterval(1);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // the layout is the program's, not a file in the cwd
    ImGui::StyleColorsDark();
    ImGui_ImplSDL2_InitForOpenGL(window_, gl_);
    ImGui_ImplOpenGL3_Init("#version 330 core");

    particles_.init();
    lines_.init();
    meshes_.init();
    return true;
}

void App::shutdown() {
    stop_recording();
    // GL objects go while their context is still current (CUDA lets go of its buffers first).
    interop_.detach();
    particles_.release();
    lines_.release();
    meshes_.release();
    if (ImGui::GetCurrentContext()) {
        ImGui_ImplOpenGL3_Shutdown();
        ImGui_ImplSDL2_Shutdown();
        ImGui::DestroyContext();
    }
    if (gl_) SDL_GL_DeleteContext(gl_);
    if (window_) SDL_DestroyWindow(window_);
    SDL_Quit();
}

void App::note(const std::string& text) {
    notice_ = text;
    notice_until_ = ImGui::GetTime() + 4.0;
}

void App::apply(Action a) {
    int w = 0, h = 0;
    SDL_GL_GetDrawableSize(window_, &w, &h);
    switch (a) {
        case Action::TimeStep: host_.time_step(view_.steps_per_push); break;
        case Action::RunPause: host_.toggle_running(); break;
        case Action::Reset: host_.reset(); break;
        case Action::GravityUp:
        case Action::GravityLeft:
        case Action::GravityDown:
        case Action::GravityRight: {
            if (!status_.params.contains("gravity_direction")) {
                note("this solver has no gravity to turn");
                break;
            }
            const auto dir = gravity_direction_for(a, status_.params["gravity_direction"].size() == 3 ? 3 : 2);
            host_.set_param("gravity_direction", dir);
            break;
        }
        case Action::RotateCcw:
        case Action::RotateCw: break;  // held keys: see hold_rotation
        case Action::FrameAll: frame_all(w, h); break;
        case Action::GridCells:
            if (!status_.has_cells) {
                note("this solver has no grid cells to show");
                break;
            }
            view_.cells_mode = (view_.cells_mode + 1) % 3;
            host_.set_cell_overlay(view_.cells_mode != 0);
            break;
        case Action::StepBack: host_.step_back(); break;
        case Action::Screenshot: take_screenshot(timestamped("screenshot", ".png")); break;
        case Action::Record: toggle_recording(); break;
        case Action::StopRecording: stop_recording(); break;
        case Action::Help: view_.show_help = !view_.show_help; break;
    }
}

// Q/E: the barrier turns while the key is held, at the scene's rate.
void App::hold_rotation(double direction, double dt) {
    if (!host_.rotate_barrier(direction, dt)) note("this scene has no barrier to rotate");
}

void App::handle_event(const SDL_Event& e) {
    ImGui_ImplSDL2_ProcessEvent(&e);
    const ImGuiIO& io = ImGui::GetIO();
    if (e.type == SDL_QUIT) quit_ = true;
    if (e.type == SDL_WINDOWEVENT && e.window.event == SDL_WINDOWEVENT_CLOSE &&
        e.window.windowID == SDL_GetWindowID(window_))
        quit_ = true;
    if (e.type == SDL_KEYDOWN && !io.WantCaptureKeyboard && !e.key.repeat) {
        if (auto a = action_for_key(SDL_GetKeyName(e.key.keysym.sym))) apply(*a);
    }
    if (io.WantCaptureMouse) return;
    int w = 0, h = 0;
    SDL_GetWindowSize(window_, &w, &h);
    if (e.type == SDL_MOUSEMOTION && e.motion.state) {
        const glm::dvec2 d{static_cast<double>(e.motion.xrel), static_cast<double>(e.motion.yrel)};
        if (dimension_ == 2) {
            cam2_.pan_pixels(d);
        } else if (e.motion.state & SDL_BUTTON_LMASK) {
            cam3_.orbit(d.x, d.y);
        } else {
            cam3_.pan_pixels(d, h);
        }
    }
    if (e.type == SDL_MOUSEWHEEL && e.wheel.y != 0) {
        const double factor = std::pow(1.15, e.wheel.y);
        int mx = 0, my = 0;
        SDL_GetMouseState(&mx, &my);
        if (dimension_ == 2)
            cam2_.zoom_at({static_cast<double>(mx), static_cast<double>(my)}, factor, w, h);
        else
            cam3_.zoom(1.0 / factor);
    }
}

void App::frame_all(int w, int h) {
    // Fit the domain into the part of the window between the side panels (when they are open).
    int window_w = 0, window_h = 0;
    SDL_GetWindowSize(window_, &window_w, &window_h);
    const double to_pixels = window_w > 0 ? static_cast<double>(w) / window_w : 1.0;
    const double left = (view_.show_params ? 360.0 : 0.0) * to_pixels;
    const double right = (view_.show_stats ? 380.0 : 0.0) * to_pixels;
    const double free_w = left + right < 0.6 * w ? w - left - right : w;
    const double shift = left + right < 0.6 * w ? 0.5 * (left - right) : 0.0;
    if (dimension_ == 2) {
        cam2_.frame({frame_.lo[0], frame_.lo[1]}, {frame_.hi[0], frame_.hi[1]}, static_cast<int>(free_w), h);
        cam2_.pan_pixels({shift, 0.0});
    } else {
        if (framed_scene_ != status_.scene_path) {  // a new scene: a three-quarter view from above
            cam3_.yaw = 0.55;
            cam3_.pitch = 0.45;
        }
        cam3_.frame({frame_.lo[0], frame_.lo[1], frame_.lo[2]}, {frame_.hi[0], frame_.hi[1], frame_.hi[2]},
                    free_w > 0 && h > 0 ? free_w / h : 1.0);
        cam3_.pan_pixels({shift, 0.0}, h);
    }
}

void App::update_frame_data() {
    // Tell the simulation thread what the frames should carry (only when it changes).
    const bool want_device = status_.backend == Backend::Cuda && cuda_status().usable && !interop_failed_;
    if (want_device != device_frames_) host_.set_device_frames(device_frames_ = want_device);
    if (view_.show_vectors != velocity_overlay_) host_.set_velocity_overlay(velocity_overlay_ = view_.show_vectors);

    if (!host_.take_frame(frame_) && frame_uploaded_) return;
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
                n = host_.copy_device_frame(xyz, scalar, particles_.capacity(), range);
            });
            particles_.set_count(n, true);
        } catch (const CudaError& e) {
            interop_.detach();
            interop_failed_ = true;
            host_.set_device_frames(device_frames_ = false);
            note(std::string("CUDA-OpenGL interop is not available (") + e.what() +
                 "): particles now reach OpenGL through host memory");
            return;  // the next frame comes through the host
        }
    } else {
        interop_.detach();  // upload() may reallocate the buffers
        particles_.upload(frame_.count, frame_.position.data(), frame_.scalar.data());
    }
    frame_uploaded_ = true;
    dimension_ = frame_.dimension;
    // The auto range over the drawn values (boundary particles are NaN: skipped).
    if (range.lo <= range.hi) {
        data_range_[0] = range.lo;
        data_range_[1] = range.hi > range.lo ? range.hi : range.lo + 1e-6f;
    }
}

void App::draw_scene(int w, int h) {
    glViewport(0, 0, w, h);
    glClearColor(0.09f, 0.10f, 0.12f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    if (framed_scene_ != status_.scene_path && frame_uploaded_) {
        frame_all(w, h);
        framed_scene_ = status_.scene_path;
    }
    const bool is3d = dimension_ == 3;
    const glm::mat4 view_proj = is3d ? cam3_.view_proj(w, h) : cam2_.view_proj(w, h);
    const glm::mat4 view = is3d ? cam3_.view() : glm::mat4(1.0f);

    lines_.clear();
    if (view_.show_domain)
        lines_.add_box(glm::vec3(frame_.lo[0], frame_.lo[1], frame_.lo[2]),
                       glm::vec3(frame_.hi[0], frame_.hi[1], frame_.hi[2]), glm::vec4(0.8f, 0.8f, 0.85f, 1.0f));
    if (view_.show_vectors && frame_.velocity.size() == frame_.position.size()) {
        const float s = view_.vector_scale;
        for (int i = 0; i < frame_.count; ++i) {
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
    add_cells();
    meshes_.draw(view_proj, is3d ? glm::vec3(0.3f, 0.8f, 0.5f) : glm::vec3(0.0f, 0.0f, 1.0f));
    const float lo = view_.auto_range ? data_range_[0] : view_.range[0];
    const float hi = view_.auto_range ? data_range_[1] : view_.range[1];
    if (is3d) glEnable(GL_DEPTH_TEST);
    particles_.draw(view_proj, view, is3d, static_cast<float>(frame_.radius * view_.size_scale),
                    view_.colormap, lo, hi, h);
    lines_.draw(view_proj);
    glDisable(GL_DEPTH_TEST);
}

std::vector<unsigned char> App::read_pixels(int& w, int& h) {
    SDL_GL_GetDrawableSize(window_, &w, &h);
    std::vector<unsigned char> rgb(static_cast<std::size_t>(w) * h * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, rgb.data());
    return rgb;
}

// The cell overlay: a slice of cells across z (every kind, air pale) or every fluid and solid cell
// as a box shrunk to 60% (so the cells stay apart), drawn with the obstacles.
void App::add_cells() {
    const CellGrid& c = frame_.cells;
    if (view_.cells_mode == 0 || c.kind.empty()) return;
    const glm::vec4 colour[3] = {glm::vec4(0.85f, 0.88f, 0.95f, 0.18f), glm::vec4(0.20f, 0.45f, 0.95f, 0.55f),
                                 glm::vec4(0.50f, 0.50f, 0.52f, 0.9f)};
    const float dx = static_cast<float>(c.dx);
    const glm::vec3 o(c.origin[0], c.origin[1], c.origin[2]);
    auto kind = [&](int i, int j, int k) { return c.kind[i + c.n[0] * (j + c.n[1] * static_cast<std::size_t>(k))]; };
    if (view_.cells_mode == 1) {
        const int k = std::clamp(static_cast<int>(view_.slice_z * c.n[2]), 0, c.n[2] - 1);
        const float z = o.z + (k + 0.5f) * dx;
        for (int j = 0; j < c.n[1]; ++j)
            for (int i = 0; i < c.n[0]; ++i) {
                const float x0 = o.x + i * dx, y0 = o.y + j * dx;
                meshes_.add_quad_2d({x0, y0}, {x0 + dx, y0}, {x0 + dx, y0 + dx}, {x0, y0 + dx},
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
                meshes_.add_box(lo, lo + glm::vec3(0.6f * dx), colour[std::min(t, 2)]);
                ++boxes;
            }
}

void App::take_screenshot(const std::string& path) {
    int w = 0, h = 0;
    const auto rgb = read_pixels(w, h);
    try {
        write_png(path, w, h, rgb);
        note("screenshot: " + path);
    } catch (const std::exception& e) {
        note(e.what());
    }
}

void App::toggle_recording() {
    if (recorder_.recording()) {
        stop_recording();
        return;
    }
    int w = 0, h = 0;
    SDL_GL_GetDrawableSize(window_, &w, &h);
    const std::string path =
        !o_.record_path.empty() && frame_index_ == 0 ? o_.record_path
                                                     : timestamped("recording", view_.record_gif ? ".gif" : ".mp4");
    try {
        recorder_.start(path, w, h, 30);
        note("recording " + path + " (V or Esc stops)");
    } catch (const std::exception& e) {
        popup_error_ = e.what();
    }
}

void App::stop_recording() {
    if (!recorder_.recording()) return;
    const std::string path = recorder_.path();
    const int frames = recorder_.frames();
    const int status = recorder_.stop();
    if (ImGui::GetCurrentContext())
        note(status == 0 ? "recorded " + path + " (" + std::to_string(frames) + " frames)"
                         : "ffmpeg failed to finish " + path);
    if (status != 0) std::cerr << "fluid-sandbox: ffmpeg failed to finish " << path << '\n';
}

// ---------------------------------------------------------------------------------------------
// Panels

void App::ui() {
    ui_menu();
    ui_simulation();
    if (view_.show_params) ui_parameters();
    stats_left_ = -1.0f;
    if (view_.show_stats) ui_stats();
    if (view_.show_help) ui_help();
    ui_legend();
    ui_errors();
    if (!notice_.empty() && ImGui::GetTime() < notice_until_) {
        const ImGuiViewport* vp = ImGui::GetMainViewport();
        ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + 8), ImGuiCond_Always,
                                ImVec2(0.5f, 0.0f));
        ImGui::SetNextWindowBgAlpha(0.7f);
        ImGui::Begin("##notice", nullptr,
                     ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoInputs |
                         ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing);
        ImGui::TextUnformatted(notice_.c_str());
        ImGui::End();
    }
}

void App::ui_menu() {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::BeginMenu("Open scene")) {
            for (const auto& path : bundled_scenes())
                if (ImGui::MenuItem(std::filesystem::path(path).stem().string().c_str(), nullptr,
                                    path == status_.scene_path))
                    host_.load_scene(path);
            ImGui::EndMenu();
        }
        if (ImGui::MenuItem("Screenshot", "F12")) apply(Action::Screenshot);
        if (ImGui::MenuItem(recorder_.recording() ? "Stop recording" : "Record video", "V")) toggle_recording();
        ImGui::MenuItem("Record as GIF (else MP4)", nullptr, &view_.record_gif);
        ImGui::Separator();
        if (ImGui::MenuItem("Quit")) quit_ = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        ImGui::MenuItem("Parameters", nullptr, &view_.show_params);
        ImGui::MenuItem("Stats", nullptr, &view_.show_stats);
        ImGui::MenuItem("Velocity vectors", nullptr, &view_.show_vectors);
        ImGui::MenuItem("Domain box", nullptr, &view_.show_domain);
        if (ImGui::MenuItem("Frame all", "F")) apply(Action::FrameAll);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        ImGui::MenuItem("Keys and mouse", "F1", &view_.show_help);
        ImGui::EndMenu();
    }
    ImGui::SameLine(ImGui::GetWindowWidth() - 360);
    ImGui::Text("%.0f fps | %s | %s", fps_, status_.solver.c_str(), status_.running ? "running" : "paused");
    if (recorder_.recording()) {
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(1, 0.3f, 0.3f, 1), " REC %d", recorder_.frames());
    }
    ImGui::EndMainMenuBar();
}

void App::ui_simulation() {
    ImGui::SetNextWindowPos(ImVec2(10, 30), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(340, 0), ImGuiCond_FirstUseEver);
    ImGui::Begin("Simulation");
    // Scene picker: every file in scenes/.
    const std::string current = std::filesystem::path(status_.scene_path).stem().string();
    if (ImGui::BeginCombo("Scene", current.c_str())) {
        for (const auto& path : bundled_scenes()) {
            const std::string name = std::filesystem::path(path).stem().string();
            if (ImGui::Selectable(name.c_str(), path == status_.scene_path)) host_.load_scene(path);
        }
        ImGui::EndCombo();
    }
    if (!status_.scene_description.empty() && ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", status_.scene_description.c_str());
    ImGui::Text("Solver: %s (%dD)", status_.solver.c_str(), dimension_);

    // Backend: CUDA disabled, with the reason, when no GPU is usable.
    const CudaStatus& cuda = cuda_status();
    int backend = status_.backend == Backend::Cuda ? 1 : 0;
    ImGui::Text("Backend:");
    ImGui::SameLine();
    if (ImGui::RadioButton("CPU", backend == 0) && backend != 0) host_.set_backend(Backend::Cpu);
    ImGui::SameLine();
    ImGui::BeginDisabled(!cuda.usable);
    if (ImGui::RadioButton("CUDA", backend == 1) && backend != 1) host_.set_backend(Backend::Cuda);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", cuda.usable ? cuda.device_name.c_str() : cuda.reason.c_str());
    if (status_.device_lost) {
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1.0f), "The GPU failed: the state there is lost.");
        if (ImGui::Button("Continue on CPU")) host_.set_backend(Backend::Cpu);
    }

    ImGui::Separator();
    if (ImGui::Button(status_.running ? "Pause (P)" : "Run (P)", ImVec2(110, 0))) host_.toggle_running();
    ImGui::SameLine();
    if (ImGui::Button("TimeStep", ImVec2(110, 0))) host_.time_step(view_.steps_per_push);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Space: run \"steps per push\" steps, then pause");
    ImGui::SetNextItemWidth(140);
    if (ImGui::InputInt("steps per push", &view_.steps_per_push)) view_.steps_per_push = std::clamp(view_.steps_per_push, 1, 100000);
    const std::string next = status_.stages.empty() ? "" : status_.stages[static_cast<std::size_t>(status_.next_stage)].name;
    if (ImGui::Button("Stage", ImVec2(110, 0))) host_.advance_stage();
    ImGui::SameLine();
    ImGui::Text("next: %s", next.c_str());
    if (ImGui::IsItemHovered() && !status_.stages.empty())
        ImGui::SetTooltip("%s", status_.stages[static_cast<std::size_t>(status_.next_stage)].source.c_str());
    ImGui::BeginDisabled(status_.rewind_steps == 0);
    if (ImGui::Button("Step back", ImVec2(110, 0))) host_.step_back();
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::TextDisabled("%d kept", status_.rewind_steps);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("The states before the last steps are kept: Step back returns to them (after a failure, "
                          "to the last good one), TimeStep goes forward again the same way.");
    const bool pending = status_.reset_pending;
    if (pending) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.7f, 0.45f, 0.1f, 1.0f));
    if (ImGui::Button("Reset (R)", ImVec2(110, 0))) host_.reset();
    if (pending) {
        ImGui::PopStyleColor();
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(1.0f, 0.7f, 0.3f, 1.0f), "changes apply on Reset");
    }
    bool realtime = status_.realtime;
    if (ImGui::Checkbox("real time", &realtime)) host_.set_realtime(realtime);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Each frame runs steps until the simulated time keeps pace with the clock\n"
                          "(slower when the steps do not fit in a frame)");
    if (!realtime) {
        int spf = status_.steps_per_frame;
        ImGui::SameLine();
        ImGui::SetNextItemWidth(100);
        if (ImGui::SliderInt("steps/frame", &spf, 1, 200)) host_.set_steps_per_frame(spf);
    }
    ImGui::Text("t = %.5g s   step %lld", status_.time, static_cast<long long>(status_.steps));

    ImGui::Separator();
    // Colour by any field the solver names.
    if (ImGui::BeginCombo("Colour by", frame_.color_field.c_str())) {
        for (const auto& f : status_.fields) {
            if (f.name == "position") continue;
            const std::string label = f.components > 1 ? "|" + f.name + "|" : f.name;
            if (ImGui::Selectable(label.c_str(), f.name == frame_.color_field)) host_.set_color_field(f.name);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s (%s)", f.description.c_str(), f.unit.c_str());
        }
        ImGui::EndCombo();
    }
    const auto names = render::colormap_names();
    int cm = static_cast<int>(view_.colormap);
    if (ImGui::BeginCombo("Colour map", names[static_cast<std::size_t>(cm)].c_str())) {
        for (std::size_t k = 0; k < names.size(); ++k)
            if (ImGui::Selectable(names[k].c_str(), static_cast<int>(k) == cm))
                view_.colormap = static_cast<render::Colormap>(k);
        ImGui::EndCombo();
    }
    ImGui::Checkbox("auto range", &view_.auto_range);
    if (!view_.auto_range) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(160);
        ImGui::InputFloat2("##range", view_.range);
    } else {
        view_.range[0] = data_range_[0];
        view_.range[1] = data_range_[1];
    }
    ImGui::Checkbox("velocity vectors", &view_.show_vectors);
    ImGui::SameLine();
    ImGui::Checkbox("domain", &view_.show_domain);
    if (status_.has_cells) {
        ImGui::SetNextItemWidth(120);
        if (ImGui::Combo("grid cells", &view_.cells_mode, "off\0slice\0all\0"))
            host_.set_cell_overlay(view_.cells_mode != 0);
        if (view_.cells_mode == 1) {
            ImGui::SameLine();
            ImGui::SetNextItemWidth(120);
            ImGui::SliderFloat("z", &view_.slice_z, 0.0f, 1.0f, "%.2f");
        }
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("Cells by kind: fluid blue, air pale, solid grey (a slice across z, or every "
                              "fluid and solid cell)");
    }
    ImGui::SetNextItemWidth(140);
    ImGui::SliderFloat("particle size", &view_.size_scale, 0.1f, 5.0f, "x%.2f", ImGuiSliderFlags_Logarithmic);

    ImGui::Separator();
    ImGui::SetNextItemWidth(200);
    ImGui::InputText("##usd", view_.export_path, sizeof view_.export_path);
    ImGui::SameLine();
    if (!status_.exporting) {
        if (ImGui::Button("Export USD")) host_.start_export(view_.export_path, view_.export_every);
    } else if (ImGui::Button("Stop export")) {
        host_.stop_export();
    }
    ImGui::SetNextItemWidth(120);
    if (ImGui::InputInt("every K steps", &view_.export_every)) view_.export_every = std::max(1, view_.export_every);
    if (status_.exporting) ImGui::TextDisabled("exporting to %s", status_.export_path.c_str());
    ImGui::End();
}

// One parameter's widget; returns whether it was changed.
bool App::ui_param(const ParamMeta& m, const nlohmann::json& value) {
    const ParamSpec& s = m.spec;
    const std::string label = s.label + (s.unit.empty() ? "" : " (" + s.unit + ")") + "##" + s.name;
    bool changed = false;
    if (s.read_only) {
        ImGui::Text("%s: %s", s.label.c_str(), value.dump().c_str());
    } else {
        switch (m.type) {
            case ParamType::Real: {
                double v = value.get<double>();
                const double lo = s.min, hi = s.max;
                const bool bounded = std::isfinite(lo) && std::isfinite(hi);
                const bool log = bounded && lo > 0 && hi / lo > 1e3;
                if (bounded) {
                    changed = ImGui::SliderScalar(label.c_str(), ImGuiDataType_Double, &v, &lo, &hi, "%.6g",
                                                  log ? ImGuiSliderFlags_Logarithmic : 0);
                } else {
                    changed = ImGui::InputDouble(label.c_str(), &v, 0, 0, "%.6g", ImGuiInputTextFlags_EnterReturnsTrue);
                }
                // Sliders clamp; typed values (Ctrl+click) are clamped here to the registry's range.
                if (changed) host_.set_param(s.name, std::clamp(v, lo, hi));
                break;
            }
            case ParamType::Int: {
                long long v = value.get<long long>();
                changed = ImGui::InputScalar(label.c_str(), ImGuiDataType_S64, &v, nullptr, nullptr, "%lld",
                                             ImGuiInputTextFlags_EnterReturnsTrue);
                if (changed)
                    host_.set_param(s.name, static_cast<long long>(std::clamp<double>(static_cast<double>(v), s.min, s.max)));
                break;
            }
            case ParamType::Bool: {
                bool v = value.get<bool>();
                changed = ImGui::Checkbox(label.c_str(), &v);
                if (changed) host_.set_param(s.name, v);
                break;
            }
            case ParamType::Choice: {
                const std::string v = value.get<std::string>();
                if (ImGui::BeginCombo(label.c_str(), v.c_str())) {
                    for (const auto& c : m.choices)
                        if (ImGui::Selectable(c.c_str(), c == v)) {
                            host_.set_param(s.name, c);
                            changed = true;
                        }
                    ImGui::EndCombo();
                }
                break;
            }
            case ParamType::Vec: {
                std::vector<double> v = value.get<std::vector<double>>();
                if (m.components == 0) {  // a list (e.g. a polytope's planes): edited in the scene file
                    ImGui::Text("%s: %zu numbers", s.label.c_str(), v.size());
                    break;
                }
                const double lo = s.min, hi = s.max;
                ImGuiDataType t = ImGuiDataType_Double;
                if (std::isfinite(lo) && std::isfinite(hi))
                    changed = ImGui::SliderScalarN(label.c_str(), t, v.data(), m.components, &lo, &hi, "%.4g");
                else
                    changed = ImGui::InputScalarN(label.c_str(), t, v.data(), m.components, nullptr, nullptr, "%.4g",
                                                  ImGuiInputTextFlags_EnterReturnsTrue);
                if (changed) host_.set_param(s.name, v);
                break;
            }
        }
    }
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
        ImGui::TextUnformatted(s.description.c_str());
        ImGui::TextDisabled("%s%s%s", s.name.c_str(), s.unit.empty() ? "" : (", " + s.unit).c_str(),
                            s.needs_reset ? " - applies on Reset" : "");
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
    if (s.needs_reset && !s.read_only) {
        ImGui::SameLine();
        ImGui::TextDisabled("(R)");
    }
    return changed;
}

void App::ui_parameters() {
    ImGui::SetNextWindowPos(ImVec2(10, 470), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(340, 420), ImGuiCond_FirstUseEver);
    ImGui::Begin("Parameters", &view_.show_params);
    if (!status_.param_meta) {
        ImGui::End();
        return;
    }
    ImGui::PushItemWidth(150);
    // Groups in order of first appearance in the registry.
    std::vector<std::string> groups;
    for (const auto& m : *status_.param_meta)
        if (std::find(groups.begin(), groups.end(), m.spec.group) == groups.end()) groups.push_back(m.spec.group);
    for (const auto& g : groups) {
        if (!ImGui::CollapsingHeader(g.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) continue;
        for (const auto& m : *status_.param_meta)
            if (m.spec.group == g && status_.params.contains(m.spec.name))
                ui_param(m, status_.params[m.spec.name]);
    }
    ImGui::PopItemWidth();
    ImGui::Separator();
    ImGui::SetNextItemWidth(180);
    ImGui::InputText("##save", view_.save_path, sizeof view_.save_path);
    ImGui::SameLine();
    if (ImGui::Button("Save scene as...")) host_.save_scene(view_.save_path);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Writes the current parameters as a scene file that loads back to the same state");
    ImGui::End();
}

void App::ui_stats() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - 370, 30), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(360, std::max(300.0f, vp->WorkSize.y - 40)), ImGuiCond_FirstUseEver);
    ImGui::Begin("Stats", &view_.show_stats);
    stats_left_ = ImGui::GetWindowPos().x;
    ImGui::Text("%.1f frames/s   %d particles", fps_, frame_.count);
    ImGui::Text("%.3f ms per step", status_.step_ms);
    // A bar per stage, scaled to the slowest.
    const double slowest = status_.stage_ms.empty() ? 0.0 : *std::max_element(status_.stage_ms.begin(), status_.stage_ms.end());
    for (std::size_t k = 0; k < status_.stages.size() && k < status_.stage_ms.size(); ++k) {
        char overlay[64];
        std::snprintf(overlay, sizeof overlay, "%.3f ms", status_.stage_ms[k]);
        ImGui::ProgressBar(slowest > 0 ? static_cast<float>(status_.stage_ms[k] / slowest) : 0.0f, ImVec2(150, 0), overlay);
        ImGui::SameLine();
        ImGui::TextUnformatted(status_.stages[k].name.c_str());
    }
    ImGui::Separator();
    // Plots over time: kinetic energy and max speed first, then the solver's own numbers in the
    // order it reports them (its headline ones first).
    std::vector<std::size_t> order;
    for (const char* first : {"kinetic_energy", "max_speed"})
        for (std::size_t k = 0; k < history_.names.size(); ++k)
            if (history_.names[k] == first) order.push_back(k);
    for (std::size_t k = 0; k < history_.names.size(); ++k)
        if (std::find(order.begin(), order.end(), k) == order.end() && history_.names[k] != "n_particles" &&
            history_.names[k] != "dt")
            order.push_back(k);
    for (std::size_t k : order) {
        const auto& series = history_.values[k];
        if (series.empty()) continue;
        char overlay[96];
        std::snprintf(overlay, sizeof overlay, "%.6g", series.back());
        ImGui::TextUnformatted(history_.names[k].c_str());
        ImGui::PlotLines(("##" + history_.names[k]).c_str(), series.data(), static_cast<int>(series.size()), 0,
                         overlay, FLT_MAX, FLT_MAX, ImVec2(ImGui::GetContentRegionAvail().x, 50));
    }
    ImGui::End();
}

void App::ui_help() {
    ImGui::SetNextWindowPos(ImVec2(380, 80), ImGuiCond_FirstUseEver);
    ImGui::Begin("Help", &view_.show_help, ImGuiWindowFlags_AlwaysAutoResize);
    ImGui::TextUnformatted("Keys (not while typing in a field)");
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg)) {
        for (const auto& b : key_bindings()) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(b.key);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(b.what);
        }
        ImGui::EndTable();
    }
    ImGui::Separator();
    ImGui::TextUnformatted("Mouse: 2D drag pans, wheel zooms at the cursor;\n"
                           "3D left-drag orbits, right-drag pans, wheel zooms.");
    ImGui::TextUnformatted("Parameters marked (R) apply on Reset; the others at the next step.\n"
                           "Hover any control for its meaning, unit and source.");
    ImGui::End();
}

void App::ui_legend() {
    // Bottom right of the view, left of the Stats panel when that reaches down to it.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    float right = vp->WorkPos.x + vp->WorkSize.x - 12;
    if (stats_left_ >= 0.0f && stats_left_ < right) right = std::max(vp->WorkPos.x + 260.0f, stats_left_ - 12);
    ImGui::SetNextWindowPos(ImVec2(right, vp->WorkPos.y + vp->WorkSize.y - 12), ImGuiCond_Always, ImVec2(1.0f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.6f);
    ImGui::Begin("##legend", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
    const float lo = view_.auto_range ? data_range_[0] : view_.range[0];
    const float hi = view_.auto_range ? data_range_[1] : view_.range[1];
    std::string unit;
    for (const auto& f : status_.fields)
        if (f.name == frame_.color_field) unit = f.unit;
    ImGui::Text("%s%s%s%s", frame_.color_field.c_str(), unit.empty() ? "" : " (", unit.c_str(), unit.empty() ? "" : ")");
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float width = 220.0f, height = 14.0f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int n = 32;
    for (int k = 0; k < n; ++k) {
        const glm::vec3 a = render::colormap_rgb(view_.colormap, static_cast<float>(k) / n);
        const glm::vec3 b = render::colormap_rgb(view_.colormap, static_cast<float>(k + 1) / n);
        const ImU32 ca = ImGui::GetColorU32(ImVec4(a.r, a.g, a.b, 1.0f));
        const ImU32 cb = ImGui::GetColorU32(ImVec4(b.r, b.g, b.b, 1.0f));
        dl->AddRectFilledMultiColor(ImVec2(at.x + width * k / n, at.y), ImVec2(at.x + width * (k + 1) / n, at.y + height),
                                    ca, cb, cb, ca);
    }
    ImGui::Dummy(ImVec2(width, height));
    ImGui::Text("%.4g", lo);
    ImGui::SameLine(width - ImGui::CalcTextSize("0000000").x + 8);
    ImGui::Text("%.4g", hi);
    if (!view_.auto_range) ImGui::TextDisabled("fixed range");
    ImGui::End();
}

void App::ui_errors() {
    if (status_.error_serial != shown_error_) {
        shown_error_ = status_.error_serial;
        popup_error_ = status_.error;
    }
    if (!popup_error_.empty() && !ImGui::IsPopupOpen("Problem")) ImGui::OpenPopup("Problem");
    if (ImGui::BeginPopupModal("Problem", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36.0f);
        ImGui::TextUnformatted(popup_error_.c_str());
        ImGui::PopTextWrapPos();
        if (status_.device_lost) {
            // The GPU's state is gone; the host kept the last good one (SimulationHost).
            ImGui::TextDisabled("The simulation is paused; your settings are kept.");
            if (ImGui::Button("Continue on CPU", ImVec2(160, 0))) {
                host_.set_backend(Backend::Cpu);
                popup_error_.clear();
                ImGui::CloseCurrentPopup();
            }
            ImGui::SameLine();
            if (ImGui::Button("Stay paused", ImVec2(120, 0))) {
                popup_error_.clear();
                ImGui::CloseCurrentPopup();
            }
        } else {
            ImGui::TextDisabled("%s", status_.error_paused
                                          ? "The simulation is paused; the previous scene and your settings are kept."
                                          : "The current scene keeps running, with your settings.");
            if (ImGui::Button("OK", ImVec2(120, 0))) {
                popup_error_.clear();
                ImGui::CloseCurrentPopup();
            }
        }
        ImGui::EndPopup();
    }
}

// ---------------------------------------------------------------------------------------------

int App::run() {
    if (!o_.keys.empty()) script_ = parse_key_script(o_.keys);
    if (!init_window()) {
        shutdown();
        return kExitBadInput;
    }
    if (!o_.record_path.empty()) toggle_recording();

    auto last = std::chrono::steady_clock::now();
    const auto start = last;
    double fps_acc = 0.0;
    int fps_frames = 0;
    double slowest = 0.0;    // the longest frame after the first (which loads fonts and shaders)
    long long over_33 = 0;   // frames under 30 per second
    while (!quit_) {
        SDL_Event e;
        while (SDL_PollEvent(&e)) handle_event(e);

        const auto now = std::chrono::steady_clock::now();
        const double dt = std::chrono::duration<double>(now - last).count();
        last = now;
        if (frame_index_ > 1) {
            slowest = std::max(slowest, dt);
            over_33 += dt > 1.0 / 30.0;
        }
        fps_acc += dt;
        if (++fps_frames >= 10) {
            fps_ = fps_frames / std::max(fps_acc, 1e-9);
            fps_acc = 0.0;
            fps_frames = 0;
        }

        // Held keys (Q/E) and the key script.
        const ImGuiIO& io = ImGui::GetIO();
        if (!io.WantCaptureKeyboard) {
            const Uint8* keys = SDL_GetKeyboardState(nullptr);
            if (keys[SDL_SCANCODE_Q]) hold_rotation(+1.0, dt);
            if (keys[SDL_SCANCODE_E]) hold_rotation(-1.0, dt);
        }
        if (script_at_ < script_.size()) {
            for (Action a : script_[script_at_].actions) {
                if (a == Action::RotateCcw || a == Action::RotateCw)
                    hold_rotation(a == Action::RotateCcw ? 1.0 : -1.0, 1.0 / 30.0);
                else
                    apply(a);
            }
            ++script_at_;
        }

        host_.frame_tick();
        status_ = host_.status();
        history_ = host_.history();
        update_frame_data();

        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplSDL2_NewFrame();
        ImGui::NewFrame();
        ui();
        ImGui::Render();

        int w = 0, h = 0;
        SDL_GL_GetDrawableSize(window_, &w, &h);
        draw_scene(w, h);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

        ++frame_index_;
        if (recorder_.recording()) {
            int rw = 0, rh = 0;
            auto rgb = read_pixels(rw, rh);
            if (rw == recorder_.width() && rh == recorder_.height()) {
                try {
                    recorder_.add_frame(rgb);
                } catch (const std::exception& ex) {
                    popup_error_ = ex.what();
                }
            }
        }
        // --frames N closes after N frames; a key script alone closes when it ends.
        const bool script_done = script_at_ >= script_.size();
        bool last_frame = script_done && (o_.frames > 0 ? frame_index_ >= o_.frames : !script_.empty());
        if (o_.seconds > 0) {  // --seconds: the wall clock decides (and --frames, when reached first)
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            last_frame = elapsed >= o_.seconds || (o_.frames > 0 && frame_index_ >= o_.frames);
        }
        if (last_frame && !o_.screenshot_path.empty()) {
            int sw = 0, sh = 0;
            auto rgb = read_pixels(sw, sh);
            try {
                write_png(o_.screenshot_path, sw, sh, rgb);
            } catch (const std::exception& ex) {
                std::cerr << "fluid-sandbox: " << ex.what() << '\n';
                exit_code_ = kExitSimulationFailed;
            }
        }
        SDL_GL_SwapWindow(window_);
        if (last_frame) quit_ = true;
    }
    // A run that closes itself (--frames, a key script) says how the window kept up: the
    // measurement behind "the window stays at 30 frames per second however slow a step is".
    if (o_.frames > 0 || o_.seconds > 0 || !script_.empty()) {
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const SimStatus s = host_.status();
        std::printf("window: %lld frames in %.2f s (%.1f frames/s; slowest %.1f ms, %lld under 30 frames/s); "
                    "simulation: %lld steps, %.1f ms the last\n",
                    frame_index_, seconds, frame_index_ / std::max(seconds, 1e-9), 1e3 * slowest, over_33,
                    static_cast<long long>(s.steps), s.step_ms);
    }
    host_.wait_idle();
    shutdown();
    return exit_code_;
}

}  // namespace

int run_app(const Options& o) {
    if (!o.keys.empty()) {
        try {
            parse_key_script(o.keys);
        } catch (const std::invalid_argument& e) {
            std::cerr << "fluid-sandbox: " << e.what() << '\n';
            return kExitBadInput;
        }
    }
    if (o.backend == Backend::Cuda && !cuda_status().usable) {
        std::cerr << "fluid-sandbox: --backend cuda: " << cuda_status().reason << "; allowed here: cpu\n";
        return kExitBadInput;
    }
    // The window keeps a core of its own: the simulation gets the others (at least one). A
    // lower thread priority instead was measured to be much worse: OpenMP's barriers then wait
    // on descheduled threads (an MGPCG step went from 18 ms to seconds).
    set_cpu_threads(o.threads > 0 ? o.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1));
    HostConfig config;
    config.scene = o.scene;
    config.backend = o.backend;
    config.sets = o.sets;
    config.stats_path = o.stats_path;
    config.export_path = o.export_path;
    config.export_every = o.export_every;
    config.realtime = !o.fixed_steps;
    std::unique_ptr<SimulationHost> host;
    try {
        host = std::make_unique<SimulationHost>(config);
    } catch (const SceneError& e) {
        std::cerr << "fluid-sandbox: " << e.what() << '\n';
        return kExitBadInput;
    } catch (const CudaError& e) {
        std::cerr << "fluid-sandbox: CUDA, setting up the scene: " << e.what() << "; allowed: --backend cpu\n";
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::cerr << "fluid-sandbox: " << e.what() << '\n';
        return kExitBadInput;
    }
    App app(o, *host);
    return app.run();
}

}  // namespace fs
