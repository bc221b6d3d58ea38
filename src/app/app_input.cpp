// The window's input: the actions its keys and buttons name (apply), SDL's events (the camera
// here, the hands in hand_input.cpp), the mouse script (--mouse), screenshots and recordings.
#include "app/app_window.hpp"

#include <imgui.h>
#include <backends/imgui_impl_sdl.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "app/page.hpp"

namespace fs {

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
                panels_.note("this solver has no gravity to turn");
                break;
            }
            const auto dir = gravity_direction_for(a, status_.params["gravity_direction"].size() == 3 ? 3 : 2);
            host_.set_param("gravity_direction", dir);
            break;
        }
        case Action::RotateCcw:
        case Action::RotateCw: break;  // held keys: see hold_rotation
        case Action::FrameAll: scene_.frame_all(w, h, status_, view_); break;
        case Action::GridCells:
            if (!status_.has_cells) {
                panels_.note("this solver has no grid cells to show");
                break;
            }
            view_.cells_mode = (view_.cells_mode + 1) % 3;
            host_.set_cell_overlay(view_.cells_mode != 0);
            break;
        case Action::LiquidView:
            if (!status_.traits.liquid) {
                panels_.note("only a liquid has a surface to draw, and this scene's solver is not one");
                break;
            }
            if (!scene_.surface_error().empty()) {
                panels_.note("the surface view is unavailable: " + scene_.surface_error());
                break;
            }
            // particles, surface, both, and for a 3D liquid its mesh by either method
            view_.liquid_view = (view_.liquid_view + 1) % (status_.traits.surface_mesh ? 5 : 3);
            host_.set_surface_mesh(view_.mesh_method());
            break;
        case Action::StepBack: host_.step_back(); break;
        case Action::Screenshot: take_screenshot(fresh_paths("screenshot", {".png"})[0]); break;
        case Action::Record: toggle_recording(); break;
        case Action::StopRecording: stop_recording(); break;
        case Action::Help: view_.show_help = !view_.show_help; break;
        case Action::Compare: view_.show_compare = !view_.show_compare; break;
        case Action::Panels:
            view_.show_panels = !view_.show_panels;
            reframe_ = true;  // once the panels have been drawn (or not) and the free area is known
            break;
    }
}

// Q/E: the barrier turns while the key is held, at the scene's rate.
void App::hold_rotation(double direction, double dt) {
    if (!host_.rotate_barrier(direction, dt)) panels_.note("this scene has no barrier to rotate");
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
    // A hand lets go wherever the button comes up (over a panel too), and holds the mouse while
    // it moves; it only takes hold in the scene, never over a panel.
    if (e.type == SDL_MOUSEBUTTONUP && hands_.holding()) {
        hands_.release();
        return;
    }
    if (e.type == SDL_MOUSEMOTION && hands_.holding()) {
        hands_.move({static_cast<double>(e.motion.x), static_cast<double>(e.motion.y)},
                    (SDL_GetModState() & KMOD_SHIFT) != 0);
        return;
    }
    if (io.WantCaptureMouse) return;
    if (e.type == SDL_MOUSEBUTTONDOWN) {
        hands_.press({static_cast<double>(e.button.x), static_cast<double>(e.button.y)}, e.button.button,
                     (SDL_GetModState() & KMOD_CTRL) != 0, status_);
        return;
    }
    if (e.type == SDL_MOUSEMOTION && e.motion.state) {
        const glm::dvec2 d{static_cast<double>(e.motion.xrel), static_cast<double>(e.motion.yrel)};
        scene_.drag(d, (e.motion.state & SDL_BUTTON_LMASK) != 0);
    }
    if (e.type == SDL_MOUSEWHEEL && e.wheel.y != 0) {
        int mx = 0, my = 0;
        SDL_GetMouseState(&mx, &my);
        scene_.zoom(std::pow(1.15, e.wheel.y), {static_cast<double>(mx), static_cast<double>(my)});
    }
}

// The script starts once the panels have found their places and the scene is framed (frame 3),
// so its points land where they will be seen.
void App::prepare_mouse_script() {
    if (mouse_at_ >= mouse_script_.size() || frame_index_ < 3) return;
    const HandFrame& f = mouse_script_[mouse_at_];
    mouse_px_ = scene_.to_screen({f.at[0], f.at[1], f.at[2]});
    ImGui::GetIO().MousePos = ImVec2(static_cast<float>(mouse_px_.x), static_cast<float>(mouse_px_.y));
}

void App::play_mouse_script() {
    if (mouse_at_ >= mouse_script_.size() || frame_index_ < 3) return;
    const HandFrame& f = mouse_script_[mouse_at_++];
    if (f.press) {
        hands_.release();
        mouse_tool_ = Hand::Tool::None;
        // The script's tool is chosen as a person would choose it in the panel.
        view_.hand_tool = f.tool == Hand::Tool::Drag ? 0 : f.tool == Hand::Tool::Pour ? 2 : 1;
        if (ImGui::GetIO().WantCaptureMouse) {  // a panel is under the cursor: the scene gets nothing
            ++mouse_over_panel_;
            return;
        }
        if (hands_.press(mouse_px_, f.tool == Hand::Tool::Pull ? 3 : 1, false, status_)) mouse_tool_ = f.tool;
        return;
    }
    if (f.tool == Hand::Tool::None) {
        hands_.release();
        mouse_tool_ = Hand::Tool::None;
    } else if (mouse_tool_ != Hand::Tool::None) {
        hands_.move(mouse_px_, false);
    }
}

void App::take_screenshot(const std::string& path) {
    try {
        capture_.screenshot(path);
        page::offer_download(path);
        panels_.note("screenshot: " + path);
    } catch (const std::exception& e) {
        panels_.note(e.what());
    }
}

void App::start_recording(const std::vector<std::string>& paths, bool print) {
    try {
        capture_.start(paths, print);
        record_start_ = std::chrono::steady_clock::now();
        // No notice: it would be in every recorded frame. The window's title and a red mark
        // drawn after the frame is taken say that it records.
        SDL_SetWindowTitle(window_, ("fluid-sandbox - recording " + capture_.paths() + " (V or Esc stops)").c_str());
    } catch (const std::exception& e) {
        panels_.show_problem(e.what());
    }
}

void App::toggle_recording() {
    if (capture_.recording()) {
        stop_recording();
        return;
    }
    start_recording({!o_.record_path.empty() && frame_index_ == 0
                         ? o_.record_path
                         : fresh_paths("recording", {view_.record_gif ? ".gif" : ".mp4"})[0]},
                    false);
}

void App::stop_recording() {
    const std::string done = capture_.stop();
    if (window_) SDL_SetWindowTitle(window_, "fluid-sandbox");
    if (!done.empty() && ImGui::GetCurrentContext()) panels_.note(done);
}

}  // namespace fs
