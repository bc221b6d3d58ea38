// The window's App (app.cpp: the window, its OpenGL context and the frame loop; app_input.cpp:
// keys, the mouse, key and mouse scripts, screenshots and recordings). Internal to app/: the rest
// of the program opens the window through app.hpp's run_app.
#pragma once

#include "render/gl.hpp"
#include <SDL.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "app/actions.hpp"
#include "app/capture.hpp"
#include "app/gpu_draw_timer.hpp"
#include "app/hand_input.hpp"
#include "app/panels.hpp"
#include "app/scene_view.hpp"
#include "app/simulation_host.hpp"
#include "app/view_settings.hpp"
#include "cli/options.hpp"
#include "io/hand_script.hpp"

namespace fs {

class App {
public:
    App(const Options& o, SimulationHost& host)
        : o_(o), host_(host),
          panels_(host, status_, history_, view_, scene_, capture_,
                  {[this](Action a) { apply(a); }, [this] { quit_ = true; }}) {}

    int run();  // the exit status on the desktop; in the browser, the page's frames go on

private:
    bool begin();   // opens the window; false when it cannot (the error is printed)
    bool frame();   // draws one frame; false once the window is to close
    int finish();   // the self-closing run's summary, then closes the window
    void follow_canvas();  // browser: the window takes the canvas's size
    void publish_page_state();  // browser: the state the page's scripts read
    bool init_window();
    void shutdown();
    void handle_event(const SDL_Event& e);
    void apply(Action a);
    void hold_rotation(double direction, double dt);
    // The mouse script's frame: its point's pixel is set as ImGui's mouse before the frame
    // (so ImGui says whether a panel is there), then played as the mouse would be.
    void prepare_mouse_script();
    void play_mouse_script();
    void take_screenshot(const std::string& path);
    void start_recording(const std::vector<std::string>& paths, bool print);
    void toggle_recording();
    void stop_recording();

    const Options& o_;
    SimulationHost& host_;
    SDL_Window* window_ = nullptr;
    SDL_GLContext gl_ = nullptr;
    bool quit_ = false;
    bool reframe_ = false;
    std::chrono::steady_clock::time_point record_start_{};  // frame all once this frame's panels have given the free area
    int exit_code_ = kExitOk;

    SimStatus status_;
    StatsHistory history_;
    ViewSettings view_;
    SceneView scene_;
    GpuDrawTimer draw_timer_;  // only while the window closes itself (its summary)
    long long gl_errors_ = 0;  // likewise, with the first one's code
    GLenum first_gl_error_ = GL_NO_ERROR;
    Capture capture_;
    Panels panels_;
    HandInput hands_{host_, scene_, view_};

    std::vector<HandFrame> mouse_script_;
    std::size_t mouse_at_ = 0;
    glm::dvec2 mouse_px_{0.0};       // the script's cursor this frame
    Hand::Tool mouse_tool_ = Hand::Tool::None;  // what its button holds
    long long mouse_over_panel_ = 0;  // presses that met a panel (not the scene), for the summary

    std::vector<ScriptedFrame> script_;
    std::size_t script_at_ = 0;
    long long frame_index_ = 0;
    double fps_ = 0.0;
    std::int64_t downloads_offered_ = 0;  // status_.written_serial already offered
    std::array<double, 3> work_ms_{};     // this frame's steps, panels and OpenGL calls

    // The frame loop's clock and the self-closing run's measurements.
    int max_fps_ = 0;
    std::chrono::steady_clock::duration frame_period_{};
    std::chrono::steady_clock::time_point start_{}, last_{};
    double fps_acc_ = 0.0;
    int fps_frames_ = 0;
    double slowest_ = 0.0;        // the longest frame after the first (which loads fonts and shaders)
    long long over_33_ = 0;       // frames under 30 per second
    std::vector<double> frame_ms_;  // every frame's time after the first, for the summary's percentiles
};

}  // namespace fs
