// The Simulation panel: the scene and its picker, the backend, run/step/stage controls, the
// mouse's hands, the colouring, and the screenshot/recording/export buttons.
#include "app/panels.hpp"

#include <imgui.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "core/hands.hpp"
#include "render/colormap.hpp"

namespace fs {

namespace {

// Each bundled scene's path and title (read once: the files do not change while the window runs).
const std::vector<std::pair<std::string, std::string>>& scene_titles() {
    static const std::vector<std::pair<std::string, std::string>> titles = [] {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& path : bundled_scenes()) {
            std::string title;
            try {
                std::ifstream in(path);
                const nlohmann::json doc = nlohmann::json::parse(in);
                if (doc.contains("title") && doc["title"].is_string()) title = doc["title"].get<std::string>();
            } catch (const std::exception&) {
                // A scene that does not parse is listed by its file name; opening it says why.
            }
            out.emplace_back(path, title);
        }
        return out;
    }();
    return titles;
}

}  // namespace

void Panels::ui_simulation() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + 8, menu_bottom() + 6), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(panel_width(), 0), ImGuiCond_FirstUseEver);
    ImGui::Begin("Simulation");
    note_left_panel();
    simulation_bottom_ = ImGui::GetWindowPos().y + ImGui::GetWindowSize().y;
    const float W = ImGui::GetContentRegionAvail().x;  // widgets scale with the panel
    sim_scene();
    sim_backend();
    ImGui::Separator();
    sim_controls(W);
    sim_hands();
    sim_clock();
    ImGui::Separator();
    sim_colouring(W);
    ImGui::Separator();
    sim_export(W);
    ImGui::End();
}

// The scene: its title and what to watch (the description), then the picker, which names each
// bundled scene by its title with the file beside it, and the solver.
void Panels::sim_scene() {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.55f, 1.0f));
    ImGui::TextWrapped("%s", status_.scene_title.empty() ? std::filesystem::path(status_.scene_path).stem().string().c_str()
                                                         : status_.scene_title.c_str());
    ImGui::PopStyleColor();
    if (!status_.scene_description.empty()) {
        // Open at first where the window is tall enough to leave the Parameters panel room.
        const bool tall = ImGui::GetMainViewport()->WorkSize.y >= 850;
        if (ImGui::TreeNodeEx("About this scene", tall ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextDisabled("%s", status_.scene_description.c_str());
            ImGui::PopTextWrapPos();
            ImGui::TreePop();
        }
    }
    const std::string current = std::filesystem::path(status_.scene_path).stem().string();
    if (ImGui::BeginCombo("Scene", current.c_str())) {
        for (const auto& [path, title] : scene_titles()) {
            const std::string name = std::filesystem::path(path).stem().string();
            const std::string label = (title.empty() ? name : title + "  (" + name + ")") + "##" + path;
            if (ImGui::Selectable(label.c_str(), path == status_.scene_path)) host_.load_scene(path);
        }
        ImGui::EndCombo();
    }
    ImGui::Text("Solver: %s (%dD)", status_.solver.c_str(), scene_.dimension());
}

// The backend: CUDA disabled, with the reason, when no GPU is usable.
void Panels::sim_backend() {
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
}

// Run, TimeStep, Stage, Step back, Reset, real time.
void Panels::sim_controls(float W) {
    if (ImGui::Button(status_.running ? "Pause (P)" : "Run (P)", ImVec2(0.42f * W, 0))) host_.toggle_running();
    ImGui::SameLine();
    if (ImGui::Button("TimeStep", ImVec2(0.42f * W, 0))) host_.time_step(view_.steps_per_push);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Space: run \"steps per push\" steps, then pause");
    ImGui::SetNextItemWidth(0.42f * W);
    if (ImGui::InputInt("steps per push", &view_.steps_per_push)) view_.steps_per_push = std::clamp(view_.steps_per_push, 1, 100000);
    const std::string next = status_.stages.empty() ? "" : status_.stages[static_cast<std::size_t>(status_.next_stage)].name;
    if (ImGui::Button("Stage", ImVec2(0.42f * W, 0))) host_.advance_stage();
    ImGui::SameLine();
    ImGui::Text("next: %s", next.c_str());
    if (ImGui::IsItemHovered() && !status_.stages.empty())
        ImGui::SetTooltip("%s", status_.stages[static_cast<std::size_t>(status_.next_stage)].source.c_str());
    ImGui::BeginDisabled(status_.rewind_steps == 0);
    if (ImGui::Button("Step back", ImVec2(0.42f * W, 0))) host_.step_back();
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::TextDisabled("%d kept", status_.rewind_steps);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("The states before the last steps are kept: Step back returns to them (after a failure, "
                          "to the last good one), TimeStep goes forward again the same way.");
    const bool pending = status_.reset_pending;
    if (pending) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.7f, 0.45f, 0.1f, 1.0f));
    if (ImGui::Button("Reset (R)", ImVec2(0.42f * W, 0))) host_.reset();
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
        ImGui::SetNextItemWidth(0.3f * W);
        if (ImGui::SliderInt("steps/frame", &spf, 1, 200)) host_.set_steps_per_frame(spf);
    }
}

// The mouse's hands (core/hands.hpp): the tools this solver offers.
void Panels::sim_hands() {
    if (status_.hand_tools != 0) {
        ImGui::Text("Mouse:");
        const struct {
            const char* label;
            unsigned need;
            const char* tip;
        } tools[] = {
            {"drag", kHandDrag,
             "Left-drag a body to move it (3D: in the plane facing you; Shift: along the view axis); elsewhere the "
             "mouse moves the camera. The fluid feels the body's velocity."},
            {"push/pull", kHandPushPull,
             "Left button pushes the liquid away from the cursor, right button pulls it in, within the circle "
             "(Hands: radius, strength). Ctrl does this with any tool."},
            {"pour", kHandPour, "Left button pours liquid at the cursor (Hands: pour rate, up to the particle budget)."},
        };
        for (int k = 0; k < 3; ++k) {
            // Without bodies to drag, the first choice leaves the mouse to the camera.
            const bool offered = (status_.hand_tools & tools[k].need) != 0;
            if (!offered && k > 0) continue;
            ImGui::SameLine();
            if (ImGui::RadioButton(offered ? tools[k].label : "camera", view_.hand_tool == k)) view_.hand_tool = k;
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", offered ? tools[k].tip : "The mouse moves the camera.");
        }
    }
}

// The time, the step and how fast simulated time goes against the clock.
void Panels::sim_clock() {
    ImGui::Text("t = %.5g s   step %lld", status_.time, static_cast<long long>(status_.steps));
    // How fast simulated time goes against the clock (over the last second or so), in real
    // time mode: a slow simulation says so instead of looking like slow motion.
    const double now = ImGui::GetTime();
    if (status_.time < ratio_sim_ || status_.steps < ratio_steps_) {  // reset or stepped back
        ratio_sim_ = status_.time;
        ratio_wall_ = now;
        ratio_ = -1;
    }
    ratio_steps_ = status_.steps;
    if (now - ratio_wall_ >= 1.0) {
        ratio_ = status_.running ? (status_.time - ratio_sim_) / (now - ratio_wall_) : -1;
        ratio_sim_ = status_.time;
        ratio_wall_ = now;
    }
    if (status_.running && status_.realtime && ratio_ >= 0) {
        ImGui::SameLine();
        if (ratio_ < 0.95)
            ImGui::TextColored(ImVec4(1.0f, 0.7f, 0.3f, 1.0f), "%.2fx real time", ratio_);
        else
            ImGui::TextDisabled("real time");
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("Simulated seconds per second of the clock, over the last second: below 1 the steps "
                              "take longer than the time they simulate");
    }
}

// Colouring (by any field the solver names), vectors, cells, particle size and the liquid's views.
void Panels::sim_colouring(float W) {
    if (ImGui::BeginCombo("Colour by", scene_.frame().color_field.c_str())) {
        for (const auto& f : status_.fields) {
            if (f.name == "position") continue;
            const std::string label = f.components > 1 ? "|" + f.name + "|" : f.name;
            if (ImGui::Selectable(label.c_str(), f.name == scene_.frame().color_field)) host_.set_color_field(f.name);
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
        ImGui::SetNextItemWidth(0.55f * W);
        ImGui::InputFloat2("##range", view_.range);
    } else {
        view_.range[0] = scene_.data_range()[0];
        view_.range[1] = scene_.data_range()[1];
    }
    ImGui::Checkbox("velocity vectors", &view_.show_vectors);
    ImGui::SameLine();
    ImGui::Checkbox("domain", &view_.show_domain);
    if (!scene_.frame().polygon_start.empty()) {
        ImGui::Checkbox("cells", &view_.show_polygons);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("Each particle's Laguerre cell, filled with its colour (the particle drawn small on top)");
    }
    if (view_.show_vectors) {
        ImGui::SetNextItemWidth(0.42f * W);
        ImGui::SliderFloat("vector scale (s)", &view_.vector_scale, 0.001f, 10.0f, "%.3g", ImGuiSliderFlags_Logarithmic);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("An arrow is the velocity times this many seconds; at most about 1500 are drawn, from "
                              "every k-th particle");
    }
    if (status_.has_cells) {
        ImGui::SetNextItemWidth(0.35f * W);
        if (ImGui::Combo("grid cells", &view_.cells_mode, "off\0slice\0all\0"))
            host_.set_cell_overlay(view_.cells_mode != 0);
        if (view_.cells_mode == 1) {
            ImGui::SetNextItemWidth(0.35f * W);
            ImGui::SliderFloat("slice z (of the depth)", &view_.slice_z, 0.0f, 1.0f, "%.2f");
        }
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("Cells by kind: fluid blue, air pale, solid grey (a slice across z, or every "
                              "fluid and solid cell)");
    }
    ImGui::SetNextItemWidth(0.42f * W);
    ImGui::SliderFloat("particle size", &view_.size_scale, 0.1f, 5.0f, "x%.2f", ImGuiSliderFlags_Logarithmic);
    if (status_.traits.liquid) {  // L cycles it too
        ImGui::SetNextItemWidth(0.55f * W);
        // 3D liquids also as the export's triangle mesh, made each frame on the simulation's
        // thread (--surface-method's two ways: docs/window.md).
        const bool meshes = status_.traits.surface_mesh;
        if (ImGui::Combo("draw (L)", &view_.liquid_view,
                         meshes ? "particles\0surface\0both\0mesh: smooth\0mesh: zhu_bridson\0"
                                : "particles\0surface\0both\0"))
            host_.set_surface_mesh(view_.mesh_method());
        if (meshes && ImGui::IsItemHovered())
            ImGui::SetTooltip("surface: drawn from the particles on the screen (fast)\n"
                              "mesh: the export's triangle mesh, made every frame on the solver's grid cells\n"
                              "(--surface-cell 2), by the smooth or the zhu_bridson method (--surface-method)");
    }
}

// USD export and its surface mesh.
void Panels::sim_export(float W) {
    ImGui::SetNextItemWidth(0.55f * W);
    ImGui::InputText("##usd", view_.export_path, sizeof view_.export_path);
    ImGui::SameLine();
    if (!status_.exporting) {
        if (ImGui::Button("Export USD"))
            host_.start_export(view_.export_path, view_.export_every, view_.export_surface && status_.traits.surface_mesh,
                               view_.export_surface_method == 1 ? SurfaceMethod::ZhuBridson : SurfaceMethod::Smooth);
    } else if (ImGui::Button("Stop export")) {
        host_.stop_export();
    }
    ImGui::SetNextItemWidth(0.35f * W);
    if (ImGui::InputInt("every K steps", &view_.export_every)) view_.export_every = std::max(1, view_.export_every);
    if (status_.traits.surface_mesh) {  // only a 3D liquid has a surface
        ImGui::BeginDisabled(status_.exporting);
        ImGui::Checkbox("with the surface mesh", &view_.export_surface);
        ImGui::EndDisabled();
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("Each exported frame also carries the liquid's surface as a closed triangle mesh\n"
                              "(/World/surface), with the velocity at each vertex, which Blender imports as a\n"
                              "moving water surface.");
        ImGui::BeginDisabled(status_.exporting || !view_.export_surface);
        ImGui::SetNextItemWidth(0.45f * W);
        ImGui::Combo("surface", &view_.export_surface_method, "smooth\0zhu_bridson\0");
        ImGui::EndDisabled();
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("smooth: still water flat, splashes kept (--surface-method smooth)\n"
                              "zhu_bridson: the particles' level set as it is, a bump over each particle");
    }
    if (status_.exporting) ImGui::TextDisabled("exporting to %s", status_.export_path.c_str());
}

}  // namespace fs
