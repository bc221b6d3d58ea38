// Panels: the window's ImGui panels (menu bar, Simulation, Parameters, Stats, Help, the colour
// legend, the problem box, notices), generated from the host's status and the registry. The frame's
// layout is panels.cpp; each panel is defined in a file of its own (panels_menu, panels_simulation,
// panels_parameters, panels_stats, panels_compare, panels_overlays).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/actions.hpp"
#include "app/capture.hpp"
#include "app/scene_view.hpp"
#include "app/simulation_host.hpp"
#include "app/view_settings.hpp"

namespace fs {

// The scene files in scenes_dir(), sorted: the File menu and the Simulation panel list them.
std::vector<std::string> bundled_scenes();

// What the panels ask of the window: the keys' actions (from the menus) and closing it.
struct PanelActions {
    std::function<void(Action)> apply;
    std::function<void()> quit;
};

// Reads the window's status, history, scene and recording as they are each frame; sends
// commands to the host and the view settings' changes back to the window.
class Panels {
public:
    Panels(SimulationHost& host, const SimStatus& status, const StatsHistory& history, ViewSettings& view,
           const SceneView& scene, const Capture& capture, PanelActions actions)
        : host_(host), status_(status), history_(history), view_(view), scene_(scene), capture_(capture),
          actions_(std::move(actions)) {}

    // Builds every panel for this frame (between ImGui::NewFrame and ImGui::Render).
    void draw(double fps);
    void note(const std::string& text);  // a line at the top of the window for a few seconds
    void show_problem(const std::string& text);  // a message box until the user closes it

private:
    void ui_menu();
    void ui_simulation();
    // Its parts (panels_simulation.cpp); W: the panel's width, which widgets scale with.
    void sim_scene();
    void sim_backend();
    void sim_controls(float W);
    void sim_hands();
    void sim_clock();
    void sim_colouring(float W);
    void sim_export(float W);
    void ui_parameters();
    bool ui_param(const ParamMeta& m, const nlohmann::json& value);
    void ui_stats();
    static float panel_width();
    static float menu_bottom();
    void note_left_panel();
    void ui_stats_numbers();
    void plot_history(std::size_t k);
    void ui_help();
    void ui_compare();
    void ui_legend();
    void ui_gravity();
    void ui_errors();

    SimulationHost& host_;
    const SimStatus& status_;
    const StatsHistory& history_;
    ViewSettings& view_;
    const SceneView& scene_;
    const Capture& capture_;
    PanelActions actions_;

    double fps_ = 0.0;
    std::int64_t shown_error_ = 0;
    std::string popup_error_;
    std::string notice_;
    double notice_until_ = 0.0;
    float left_right_ = 0.0f;        // the left column's right edge this frame (window points)
    float simulation_bottom_ = 400.0f; // the Simulation panel's bottom edge
    int layout_frames_ = 0;            // frames drawn with the panels (the first ones place them)
    // The per-stage bars' recent times (running median), and the step they were last taken at.
    std::vector<std::vector<double>> stage_history_;
    std::int64_t stage_step_ = -1;
    std::map<std::string, std::pair<double, double>> fixed_ranges_;  // plots whose range the user fixed
    // Simulated against wall time, for the real-time ratio.
    double ratio_sim_ = 0.0, ratio_wall_ = 0.0, ratio_ = -1.0;
    std::int64_t ratio_steps_ = 0;
    bool compare_tab_ = false;  // the Stats panel showed its Compare tab this frame
    float stats_left_ = -1.0f;  // the Stats panel's left edge this frame (-1: hidden), for the legend
};

}  // namespace fs
