// The window's frame loop follows Dear ImGui's example_sdl2_opengl3: poll events (respecting
// io.WantCaptureMouse / WantCaptureKeyboard), start the frame (renderer, platform, ImGui), build
// the panels, render the scene and the UI, swap. The simulation steps on its own thread
// (SimulationHost); each frame only tells it a frame began and draws its latest data. In the
// browser the page's animation frames call frame(), and the host steps within them.
// What this file implements: the window and its OpenGL context, the frame loop, the key script
// (--keys) and runs that close themselves (--frames, --seconds, --screenshot). Elsewhere: the App
// class (app_window.hpp), keys (Space P R W A S D Q E F G B F12 V Esc F1), the mouse and its
// script (app_input.cpp; the hands in hand_input.cpp), the panels (panels.hpp; a file each), the
// scene and cameras (scene_view.cpp), screenshots and recordings (capture.cpp), the page (page.hpp).
#include "app/app.hpp"
#include "app/app_window.hpp"

#include "render/gl.hpp"
#include <SDL.h>
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif
#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>
#include <backends/imgui_impl_sdl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/resource.h>
#endif

#include "app/actions.hpp"
#include "app/capture.hpp"
#include "app/gpu_draw_timer.hpp"
#include "app/hand_input.hpp"
#include "app/page.hpp"
#include "app/panels.hpp"
#include "app/scene_view.hpp"
#include "app/simulation_host.hpp"
#include "app/view_settings.hpp"
#include "core/memory.hpp"
#include "io/hand_script.hpp"
#include "io/stats_writer.hpp"
#include "render/particle_renderer.hpp"

namespace fs {

namespace {

// A software rasteriser (Mesa's llvmpipe: a machine without a GPU driver, or Xvfb) draws on a
// thread per core, and at the same priority those take turns on the simulation's core while a
// frame is drawn. Its threads run at a lower priority (nice +5) instead: the simulation comes
// first, and the drawing still has every core the simulation leaves idle (a 3D scene that keeps
// pace with the clock draws about as fast as before). Measured under Xvfb on the 2-core machine,
// two rounds (docs/benchmarks.md, Real time): `default` 0.72x -> 0.85x real time, `vortex_paddle`
// 0.42x -> 0.56x. Keeping llvmpipe to one thread (LP_NUM_THREADS=1) gained as much for the
// simulation but cost `flip_hydrostatic` a third of its frames (40 -> 26 frames/s). Only threads
// the driver named so are touched; Linux only.
constexpr int kRasteriserNice = 5;

void yield_software_rasteriser() {
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
    std::error_code ec;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
        std::ifstream comm(task.path() / "comm");
        std::string name;
        if (!std::getline(comm, name) || name.rfind("llvmpipe-", 0) != 0) continue;
        const int tid = std::atoi(task.path().filename().c_str());
        if (tid > 0) setpriority(PRIO_PROCESS, static_cast<id_t>(tid), kRasteriserNice);  // per thread on Linux
    }
#endif
}

}  // namespace

bool App::init_window() {
    // No SDL timers in the browser: the page's programs are one compilation, SDL's with its
    // pthread driver, whose timer thread the single-threaded program cannot start.
    if (SDL_Init(kInBrowser ? SDL_INIT_VIDEO : SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) {
        std::cerr << "fluid-sandbox: cannot open a window: " << SDL_GetError()
                  << " (use --headless without a display)\n";
        return false;
    }
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, 0);
    // Desktop: OpenGL 3.3 core. Browser: OpenGL ES 3.0, which Emscripten gives as WebGL2.
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, render::kGlEs ? SDL_GL_CONTEXT_PROFILE_ES : SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, render::kGlEs ? 0 : 3);
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
        std::cerr << "fluid-sandbox: no " << (render::kGlEs ? "WebGL2" : "OpenGL 3.3 core") << " context: " << SDL_GetError() << '\n';
        return false;
    }
#ifndef __EMSCRIPTEN__
    if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(SDL_GL_GetProcAddress))) {
        std::cerr << "fluid-sandbox: cannot load the OpenGL functions\n";
        return false;
    }
#endif
    SDL_GL_SetSwapInterval(1);
    if (render::is_software_renderer(reinterpret_cast<const char*>(glGetString(GL_RENDERER))))
        yield_software_rasteriser();

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // the layout is the program's, not a file in the cwd
    ImGui::StyleColorsDark();
    ImGui_ImplSDL2_InitForOpenGL(window_, gl_);
    ImGui_ImplOpenGL3_Init(render::kGlEs ? "#version 300 es" : "#version 330 core");

    scene_.init(window_);
    capture_.attach(window_);
    return true;
}

void App::follow_canvas() {
    if constexpr (kInBrowser) {
        int css_w = 0, css_h = 0, w = 0, h = 0;
        page::canvas_css_size(css_w, css_h);
        SDL_GetWindowSize(window_, &w, &h);
        // SDL sizes the canvas's pixels by the device pixel ratio (SDL_WINDOW_ALLOW_HIGHDPI).
        if (css_w > 0 && css_h > 0 && (css_w != w || css_h != h)) SDL_SetWindowSize(window_, css_w, css_h);
    }
}

void App::publish_page_state() {
    if constexpr (kInBrowser) {
        // WebGL's glGetError waits for the GPU process: read the (sticky) error flags twice a second.
        if (frame_index_ % 30 == 1)
            for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError())
                if (gl_errors_++ == 0) first_gl_error_ = e;
        int w = 0, h = 0;
        SDL_GL_GetDrawableSize(window_, &w, &h);
        nlohmann::json j;
        j["frame"] = frame_index_;
        j["fps"] = fps_;
        j["drawable"] = {w, h};
        j["scene"] = status_.scene_path;
        j["solver"] = status_.solver;
        j["running"] = status_.running;
        j["steps"] = status_.steps;
        j["time"] = status_.time;
        j["step_ms"] = status_.step_ms;
        j["params"] = status_.params;
        j["stats"] = stats_record(status_.stats);
        j["error"] = status_.error;
        j["gl_errors"] = gl_errors_;
        j["first_gl_error"] = static_cast<unsigned>(first_gl_error_);
        j["recording"] = capture_.recording();
        j["work_ms"] = {{"steps", work_ms_[0]}, {"panels", work_ms_[1]}, {"gl", work_ms_[2]}};
        j["threaded"] = browser_threads();  // the threaded page's program (index-threads.js)
        j["threads"] = cpu_threads();     // the most its steps use (the governor may take fewer)
        page::publish_state(j.dump());
    }
}

void App::shutdown() {
    stop_recording();
    if (gl_) draw_timer_.release();
    scene_.release();
    if (ImGui::GetCurrentContext()) {
        ImGui_ImplOpenGL3_Shutdown();
        ImGui_ImplSDL2_Shutdown();
        ImGui::DestroyContext();
    }
    if (gl_) SDL_GL_DeleteContext(gl_);
    if (window_) SDL_DestroyWindow(window_);
    SDL_Quit();
}


bool App::begin() {
    if (!o_.keys.empty()) script_ = parse_key_script(o_.keys);
    if (!o_.mouse.empty()) mouse_script_ = parse_hand_script(o_.mouse);
    if (!init_window()) {
        shutdown();
        return false;
    }
    view_.record_realtime = !o_.fixed_steps;  // --step-per-frame: a video frame per step
    view_.spheres = o_.spheres == "exact" ? 1 : o_.spheres == "sprites" ? 2 : 0;
    if (!o_.record_path.empty()) toggle_recording();
    if (o_.video) start_recording(fresh_paths("video", {".mp4", ".gif"}), true);

    // The frame-rate cap. Without it a window whose swap does not wait for vsync (no display:
    // SDL's offscreen driver; a driver forcing vsync off) draws thousands of frames a second,
    // and on one GPU the OpenGL and CUDA contexts take turns: on an H100 every CUDA stage then
    // waited ~5 ms for its turn, and a 4.7 ms FLIP step took 270 ms.
    // In the browser the page's animation frames pace the loop (the display's rate).
    int max_fps = kInBrowser ? 0 : o_.max_fps;
    if (max_fps < 0) {
        SDL_DisplayMode mode;
        max_fps = SDL_GetWindowDisplayMode(window_, &mode) == 0 && mode.refresh_rate > 0 ? mode.refresh_rate : 60;
    }
    max_fps_ = max_fps;
    frame_period_ = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(max_fps > 0 ? 1.0 / max_fps : 0.0));
    start_ = last_ = std::chrono::steady_clock::now();
    return true;
}

bool App::frame() {
    follow_canvas();
    SDL_Event e;
    while (SDL_PollEvent(&e)) handle_event(e);

    const auto now = std::chrono::steady_clock::now();
    const double dt = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    if (frame_index_ > 1) {
        slowest_ = std::max(slowest_, dt);
        over_33_ += dt > 1.0 / 30.0;
        frame_ms_.push_back(1e3 * dt);
    }
    fps_acc_ += dt;
    if (++fps_frames_ >= 10) {
        fps_ = fps_frames_ / std::max(fps_acc_, 1e-9);
        fps_acc_ = 0.0;
        fps_frames_ = 0;
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

    host_.show_comparisons(view_.show_compare);
    const auto before_sim = std::chrono::steady_clock::now();
    host_.frame_tick();
    const auto after_sim = std::chrono::steady_clock::now();
    // --step-per-frame: the frame waits for its step, so a key script meets the same steps
    // every time (the run is reproducible, not paced by how fast this machine draws).
    if (o_.fixed_steps) host_.wait_idle();
    status_ = host_.status();
    history_ = host_.history();
    if (status_.written_serial != downloads_offered_) {  // the browser's way: a download
        downloads_offered_ = status_.written_serial;
        page::offer_download(status_.written_file);
    }
    if (auto notice = scene_.update(host_, status_, view_)) panels_.note(*notice);

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    // Dear ImGui 1.86 asserts a positive DeltaTime, which SDL's clock does not promise when two
    // frames come within its resolution (the browser's, under a virtual clock).
    if (ImGui::GetIO().DeltaTime <= 0.0f) ImGui::GetIO().DeltaTime = 1e-4f;
    prepare_mouse_script();
    ImGui::NewFrame();
    play_mouse_script();
    panels_.draw(fps_);
    if (!ImGui::GetIO().WantCaptureMouse || hands_.holding()) {
        int mx = 0, my = 0;
        SDL_GetMouseState(&mx, &my);
        const bool scripted = mouse_at_ > 0 && mouse_at_ <= mouse_script_.size();
        hands_.draw_cursor(scripted ? mouse_px_ : glm::dvec2(mx, my), status_);
    }
    if (frame_index_ == 2) reframe_ = true;  // the panels have found their places
    if (reframe_) {
        reframe_ = false;
        apply(Action::FrameAll);
    }
    ImGui::Render();
    const auto after_ui = std::chrono::steady_clock::now();

    int w = 0, h = 0;
    SDL_GL_GetDrawableSize(window_, &w, &h);
    const bool timed = o_.frames > 0 || o_.seconds > 0 || !script_.empty() || !mouse_script_.empty();
    if (timed) draw_timer_.begin();
    scene_.draw(w, h, status_, view_);
    if (timed) {
        draw_timer_.end();
        for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError())  // for the summary
            if (gl_errors_++ == 0) first_gl_error_ = e;
    }
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    const auto after_gl = std::chrono::steady_clock::now();
    // The frame's work by part, for the page (the browser's benchmark): the steps taken here
    // (no simulation thread there), the panels, and handing the drawing to OpenGL.
    const auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    work_ms_ = {ms(before_sim, after_sim), ms(after_sim, after_ui), ms(after_ui, after_gl)};

    ++frame_index_;
    // Recorded frames are the window as drawn, from the frame the panels have found their
    // places (a recording started with the window would lack them in its first frames).
    if (capture_.recording() && frame_index_ > 3) {
        try {
            const double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - record_start_).count();
            capture_.add_frame(view_.record_realtime ? capture_.frames_due(since) : 1);
        } catch (const std::exception& ex) {
            panels_.show_problem(ex.what());
        }
    }
    // --frames N closes after N frames; a key or mouse script alone closes when it ends.
    const bool script_done = script_at_ >= script_.size() && mouse_at_ >= mouse_script_.size();
    bool last_frame =
        script_done && (o_.frames > 0 ? frame_index_ >= o_.frames : !script_.empty() || !mouse_script_.empty());
    if (o_.seconds > 0) {  // --seconds: the wall clock decides (and --frames, when reached first)
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        last_frame = elapsed >= o_.seconds || (o_.frames > 0 && frame_index_ >= o_.frames);
    }
    if (last_frame && !o_.screenshot_path.empty()) {
        try {
            capture_.screenshot(o_.screenshot_path);
        } catch (const std::exception& ex) {
            std::cerr << "fluid-sandbox: " << ex.what() << '\n';
            exit_code_ = kExitSimulationFailed;
        }
    }
    if (capture_.recording()) {  // the recording mark: after the frame was taken, so in no frame
        glEnable(GL_SCISSOR_TEST);
        glScissor(w - 28, h - 46, 16, 16);
        glClearColor(0.95f, 0.2f, 0.2f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glDisable(GL_SCISSOR_TEST);
    }
    SDL_GL_SwapWindow(window_);
    if (last_frame) quit_ = true;
    publish_page_state();
    if (max_fps_ > 0) std::this_thread::sleep_until(now + frame_period_);  // now: this frame's start
    return !quit_;
}

int App::finish() {
    // A run that closes itself (--frames, a key script) says how the window kept up: the
    // measurement behind "the window stays at 30 frames per second however slow a step is".
    if (o_.frames > 0 || o_.seconds > 0 || !script_.empty() || !mouse_script_.empty()) {
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        const SimStatus s = host_.status();
        std::printf("window: %lld frames in %.2f s (%.1f frames/s; slowest %.1f ms, %lld under 30 frames/s); "
                    "simulation: %lld steps, %.1f ms the last\n",
                    frame_index_, seconds, frame_index_ / std::max(seconds, 1e-9), 1e3 * slowest_, over_33_,
                    static_cast<long long>(s.steps), s.step_ms);
        // The frame times' spread, and how the simulation's frames reached OpenGL: a frame that
        // waited for a step would show as a long hand-over.
        auto percentile_of = [](std::vector<double>& v, double q) {
            if (v.empty()) return 0.0;
            const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
            std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
            return v[k];
        };
        auto percentile = [&](double q) { return percentile_of(frame_ms_, q); };
        const long long over_60 = std::count_if(frame_ms_.begin(), frame_ms_.end(), [](double ms) { return ms > 1e3 / 60.0; });
        const auto& h = scene_.hand_over();
        std::printf("frames: median %.2f ms, 99th percentile %.2f ms, %lld under 60 frames/s; simulation frames "
                    "drawn: %lld through CUDA-OpenGL interop, %lld through host memory, longest hand-over %.2f ms\n",
                    percentile(0.5), percentile(0.99), over_60, h.interop, h.host, h.longest_ms);
        std::printf("GPU time of the scene's draw: median %.2f ms, 99th percentile %.2f ms (the particles drawn "
                    "%lld times, the last picture shown again %lld times); the simulation thread's frame read: "
                    "last %.2f ms, longest %.2f ms\n",
                    percentile_of(draw_timer_.ms(), 0.5), percentile_of(draw_timer_.ms(), 0.99), scene_.pictures_drawn(),
                    scene_.pictures_reused(), s.publish_ms, s.publish_ms_max);
        auto gl_text = [](GLenum name) {
            const auto* t = reinterpret_cast<const char*>(glGetString(name));
            return t ? t : "?";
        };
        const char* driver = SDL_GetCurrentVideoDriver();
        const bool sprites = scene_.sphere_drawing() == render::SphereDrawing::Sprites;
        // How 3D particles were drawn; a 2D scene draws flat discs either way.
        const std::string spheres =
            scene_.dimension() != 3 ? std::string("not drawn (a 2D scene: discs)")
            : sprites ? "as sorted sprites (the last picture: " + std::to_string(scene_.sprites_drawn()) + " of " +
                            std::to_string(scene_.particle_count()) + " drawn, the rest hidden)"
                      : std::string("with exact depth");
        std::printf("drawn by: %s (OpenGL %s, SDL video driver %s), at most %s frames/s, 3D spheres %s; OpenGL "
                    "errors: %lld",
                    gl_text(GL_RENDERER), gl_text(GL_VERSION), driver ? driver : "?",
                    max_fps_ > 0 ? std::to_string(max_fps_).c_str() : "any", spheres.c_str(), gl_errors_);
        if (gl_errors_ > 0) std::printf(" (the first 0x%04x)", static_cast<unsigned>(first_gl_error_));
        std::printf("\n");
        if (!mouse_script_.empty())
            std::printf("mouse script: %zu frames played, %lld press(es) over a panel (not given to the scene)\n",
                        mouse_at_, mouse_over_panel_);
        std::fflush(stdout);  // the summary survives whatever happens while the simulation stops
    }
    host_.wait_idle();
    shutdown();
    return exit_code_;
}

int App::run() {
    if (!begin()) return kExitBadInput;
#ifdef __EMSCRIPTEN__
    // The page's animation frames drive the loop; this call does not return. The App and its
    // host live on the heap (run_app), so nothing here is lost when the stack unwinds.
    emscripten_set_main_loop_arg(
        [](void* self) {
            auto* app = static_cast<App*>(self);
            if (!app->frame()) {
                app->finish();
                emscripten_cancel_main_loop();
            }
        },
        this, 0, 1);
    return kExitOk;
#else
    while (frame()) {
    }
    return finish();
#endif
}

namespace {
// What the window needs before it opens: a display, a key script it can play, a usable GPU for
// --backend cuda. The one-line reason it cannot, or nothing.
std::optional<std::string> cannot_open(const Options& o) {
    // Without a display SDL would fall back to a driver that shows nothing and never closes.
    // An explicit SDL_VIDEODRIVER (a console's kmsdrm, ...) is the user's choice.
    const auto set = [](const char* name) { return std::getenv(name) && *std::getenv(name); };
    if (!kInBrowser && !set("DISPLAY") && !set("WAYLAND_DISPLAY") && !set("SDL_VIDEODRIVER"))
        return std::string("no display found (DISPLAY and WAYLAND_DISPLAY are unset): run with --headless, or run the "
                           "window under xvfb-run -a");
    // (a mouse script was checked with the other options: headless runs take it too)
    if (!o.keys.empty()) {
        try {
            parse_key_script(o.keys);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
    }
    if (o.backend == Backend::Cuda && !cuda_status().usable)
        return "--backend cuda: " + cuda_status().reason + "; allowed here: cpu";
    return std::nullopt;
}
}  // namespace

int run_app(const Options& o) {
    if (const auto why = cannot_open(o)) {
        std::cerr << "fluid-sandbox: " << *why << '\n';
        return kExitBadInput;
    }
    // The window keeps a core of its own: the simulation gets the others (at least one). A
    // lower priority for the simulation's threads instead was measured to be much worse:
    // OpenMP's barriers then wait on descheduled threads (an MGPCG step went from 18 ms to
    // seconds). The drawing's own helper threads yield instead (yield_software_rasteriser).
    const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    set_cpu_threads(o.threads > 0 ? o.threads : std::max(1, cores - 1));
    HostConfig config;
    config.scene = o.scene;
    config.backend = o.backend;
    config.sets = o.sets;
    config.stats_path = o.stats_path;
    config.export_path = o.export_path;
    config.export_every = o.export_every;
    config.realtime = !o.fixed_steps;
    config.start_running = !o.paused;
    // The simulation on a thread of its own, as on the desktop, in the browser's threaded program
    // too (the page's thread keeps SDL, Dear ImGui and WebGL); the single-threaded program's
    // frames step it.
    config.own_thread = !kInBrowser || browser_threads();
    std::unique_ptr<SimulationHost> host;
    try {
        host = std::make_unique<SimulationHost>(config);
    } catch (const SceneError& e) {
        std::cerr << "fluid-sandbox: " << e.what() << '\n';
        if (!kInBrowser) return kExitBadInput;
        // The page's URL named a scene or a setting it cannot open: the page shows the line
        // above, and the default scene opens instead of a blank page.
        config.scene = default_scene();
        config.sets.clear();
        host = std::make_unique<SimulationHost>(config);
    } catch (const CudaError& e) {
        std::cerr << "fluid-sandbox: " << cuda_setup_message(e.what()) << '\n';
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::cerr << "fluid-sandbox: " << e.what() << '\n';
        return kExitBadInput;
    }
    if constexpr (kInBrowser) {
        // The page's animation loop outlives this call: the host and the window stay for the
        // page's life.
        static Options options;
        options = o;
        auto* app = new App(options, *host.release());
        return app->run();
    }
    App app(o, *host);
    return app.run();
}

int run_app_on(const Options& o, std::unique_ptr<Solver>& solver, Scene& scene) {
    if (const auto why = cannot_open(o)) throw WindowError(*why);
    HostConfig config;
    config.backend = solver->backend();
    config.realtime = !o.fixed_steps;
    config.start_running = !o.paused;
    SimulationHost host(config, std::move(solver), scene);
    int status = kExitBadInput;
    try {
        App app(o, host);
        status = app.run();
    } catch (...) {
        solver = host.take_solver(scene);
        throw;
    }
    solver = host.take_solver(scene);
    return status;
}

}  // namespace fs
