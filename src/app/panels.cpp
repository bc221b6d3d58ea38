// Panels: every ImGui window the sandbox shows over the scene, and the notices; parameter widgets
// come from the registry's descriptions (ParamMeta), never from the solver itself.
#include "app/panels.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/backend.hpp"
#include "core/hands.hpp"
#include "headless/options.hpp"
#include "app/plot_scale.hpp"
#include "render/colormap.hpp"

namespace fs {

namespace {

std::vector<std::string> bundled_scenes();

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

std::vector<std::string> bundled_scenes() {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(scenes_dir(), ec))
        if (e.path().extension() == ".json") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

void Panels::note(const std::string& text) {
    notice_ = text;
    notice_until_ = ImGui::GetTime() + 4.0;
}

void Panels::show_problem(const std::string& text) {
    popup_error_ = text;
}

// Below the main menu bar (the viewport's work area excludes it only from the frame after it).
float Panels::menu_bottom() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    return std::max(vp->WorkPos.y, vp->Pos.y + ImGui::GetFrameHeight());
}

float Panels::panel_width() {
    // A quarter of the window each side, within [250, 340] points: at 1024 wide the two columns
    // leave the simulation 500 points, at 1440 760.
    return std::clamp(0.26f * ImGui::GetMainViewport()->WorkSize.x, 250.0f, 340.0f);
}

void Panels::draw(double fps) {
    fps_ = fps;
    ui_menu();
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    left_right_ = vp->WorkPos.x;
    stats_left_ = -1.0f;
    if (view_.show_panels) {
        ui_simulation();
        if (view_.show_params) ui_parameters();
        if (view_.show_compare && !compare_tab_) view_.show_stats = true;  // C opens the Compare tab
        if (view_.show_stats) {
            ui_stats();
        } else {
            view_.show_compare = compare_tab_ = false;
        }
        ++layout_frames_;
    } else {
        view_.show_compare = compare_tab_ = false;
    }
    view_.free_left = left_right_;
    view_.free_right = stats_left_ > left_right_ ? stats_left_ : vp->WorkPos.x + vp->WorkSize.x;
    if (view_.show_help) ui_help();
    ui_legend();
    ui_gravity();
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

void Panels::ui_menu() {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::BeginMenu("Open scene")) {
            for (const auto& path : bundled_scenes())
                if (ImGui::MenuItem(std::filesystem::path(path).stem().string().c_str(), nullptr,
                                    path == status_.scene_path))
                    host_.load_scene(path);
            ImGui::EndMenu();
        }
        if (ImGui::MenuItem("Screenshot", "F12")) actions_.apply(Action::Screenshot);
        if (ImGui::MenuItem(capture_.recording() ? "Stop recording" : "Record video", "V"))
            actions_.apply(Action::Record);
        ImGui::MenuItem("Record as GIF (else MP4)", nullptr, &view_.record_gif);
        ImGui::MenuItem("Record in real time (else a video frame per window frame)", nullptr,
                        &view_.record_realtime);
        ImGui::Separator();
        if (ImGui::MenuItem("Quit")) actions_.quit();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        ImGui::MenuItem("Parameters", nullptr, &view_.show_params);
        ImGui::MenuItem("Stats", nullptr, &view_.show_stats);
        if (ImGui::MenuItem("All panels", "Tab", view_.show_panels)) actions_.apply(Action::Panels);
        if (ImGui::MenuItem("Compare", "C", compare_tab_)) actions_.apply(Action::Compare);
        ImGui::MenuItem("Velocity vectors", nullptr, &view_.show_vectors);
        ImGui::MenuItem("Domain box", nullptr, &view_.show_domain);
        if (ImGui::BeginMenu("3D spheres")) {
            // Sorted sprites: far fewer fragments shaded on a software rasteriser (llvmpipe), at
            // the cost of flat depth where two spheres cross (render/particle_renderer.hpp).
            if (ImGui::MenuItem("As the renderer suits", nullptr, view_.spheres == 0)) view_.spheres = 0;
            if (ImGui::MenuItem("Exact depth", nullptr, view_.spheres == 1)) view_.spheres = 1;
            if (ImGui::MenuItem("Sorted sprites (fast without a GPU)", nullptr, view_.spheres == 2)) view_.spheres = 2;
            ImGui::EndMenu();
        }
        if (ImGui::MenuItem("Frame all", "F")) actions_.apply(Action::FrameAll);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        ImGui::MenuItem("Keys and mouse", "F1", &view_.show_help);
        ImGui::EndMenu();
    }
    ImGui::SameLine(ImGui::GetWindowWidth() - 360);
    ImGui::Text("%.0f fps | %s | %s", fps_, status_.solver.c_str(), status_.running ? "running" : "paused");
    ImGui::EndMainMenuBar();
}

// The right edge of a panel in the left column (left of the window's middle) widens the part of
// the window the panels cover on the left.
void Panels::note_left_panel() {
    const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    if (at.x + 0.5f * size.x < vp->WorkPos.x + 0.5f * vp->WorkSize.x) left_right_ = std::max(left_right_, at.x + size.x);
}

void Panels::ui_simulation() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + 8, menu_bottom() + 6), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(panel_width(), 0), ImGuiCond_FirstUseEver);
    ImGui::Begin("Simulation");
    note_left_panel();
    simulation_bottom_ = ImGui::GetWindowPos().y + ImGui::GetWindowSize().y;
    const float W = ImGui::GetContentRegionAvail().x;  // widgets scale with the panel
    // The scene: its title and what to watch (the description), then the picker, which names
    // each bundled scene by its title with the file beside it.
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
    // The mouse's hands (core/hands.hpp): the tools this solver offers.
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

    ImGui::Separator();
    // Colour by any field the solver names.
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
    if (SceneView::is_liquid(status_.solver)) {  // L cycles it too
        ImGui::SetNextItemWidth(0.55f * W);
        ImGui::Combo("draw (L)", &view_.liquid_view, "particles\0surface\0both\0");
    }

    ImGui::Separator();
    ImGui::SetNextItemWidth(0.55f * W);
    ImGui::InputText("##usd", view_.export_path, sizeof view_.export_path);
    ImGui::SameLine();
    if (!status_.exporting) {
        if (ImGui::Button("Export USD"))
            host_.start_export(view_.export_path, view_.export_every, view_.export_surface && status_.solver == "flip");
    } else if (ImGui::Button("Stop export")) {
        host_.stop_export();
    }
    ImGui::SetNextItemWidth(0.35f * W);
    if (ImGui::InputInt("every K steps", &view_.export_every)) view_.export_every = std::max(1, view_.export_every);
    if (status_.solver == "flip") {  // only a 3D liquid has a surface
        ImGui::BeginDisabled(status_.exporting);
        ImGui::Checkbox("with the surface mesh", &view_.export_surface);
        ImGui::EndDisabled();
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("Each exported frame also carries the liquid's surface as a closed triangle mesh\n"
                              "(/World/surface), which Blender imports as a moving water surface.");
    }
    if (status_.exporting) ImGui::TextDisabled("exporting to %s", status_.export_path.c_str());
    ImGui::End();
}

// A vector parameter's components, each with its name (x, y, z; a box's min and max corners on
// two rows; a sphere's centre and radius r), as drag fields: no slider handle over the digits.
// Returns whether one changed.
static bool vector_fields(const std::string& id, std::vector<double>& v, double lo, double hi) {
    const int n = static_cast<int>(v.size());
    const bool box = id.find("box") != std::string::npos && (n == 4 || n == 6);  // x0, y0[, z0], x1, y1[, z1]
    const bool sphere = id.find("sphere") != std::string::npos && n == 4;     // x, y, z, r
    static const char* kAxes[] = {"x", "y", "z", "w"};
    static const char* kSphere[] = {"x", "y", "z", "r"};
    const char* const* names = sphere ? kSphere : kAxes;
    const int per_row = box ? n / 2 : std::min(n, 4);
    const bool bounded = std::isfinite(lo) && std::isfinite(hi);
    const double speed = bounded ? (hi - lo) * 1e-3 : 0.01;
    bool changed = false;
    for (int row = 0; row < (box ? 2 : 1); ++row) {
        if (box) {
            ImGui::AlignTextToFramePadding();
            ImGui::TextDisabled(row == 0 ? "min" : "max");
            ImGui::SameLine();
        }
        const float label_w = ImGui::CalcTextSize("x").x + ImGui::GetStyle().ItemInnerSpacing.x;
        const float field_w = (ImGui::GetContentRegionAvail().x - per_row * label_w -
                               (per_row - 1) * ImGui::GetStyle().ItemSpacing.x) / per_row;
        for (int k = 0; k < per_row; ++k) {
            if (k > 0) ImGui::SameLine();
            ImGui::AlignTextToFramePadding();
            ImGui::TextUnformatted(names[k]);
            ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
            ImGui::SetNextItemWidth(std::max(20.0f, field_w));
            double& x = v[static_cast<std::size_t>(row * per_row + k)];
            const std::string field = "##" + id + std::to_string(row * per_row + k);
            changed |= bounded ? ImGui::DragScalar(field.c_str(), ImGuiDataType_Double, &x, static_cast<float>(speed),
                                                   &lo, &hi, "%.4g", ImGuiSliderFlags_AlwaysClamp)
                               : ImGui::DragScalar(field.c_str(), ImGuiDataType_Double, &x, 0.01f, nullptr,
                                                   nullptr, "%.4g");
        }
    }
    return changed;
}

// One parameter as a row of the Parameters table: its label (unit, and "(R)" when it applies on
// Reset) wrapped in the left column, its widget filling the right one. Returns whether it changed.
bool Panels::ui_param(const ParamMeta& m, const nlohmann::json& value) {
    const ParamSpec& s = m.spec;
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::AlignTextToFramePadding();
    const bool reset_mark = s.needs_reset && !s.read_only;
    // The mark is part of the wrapped text, so it can never be cut off at the column's edge.
    const std::string text = s.label + (s.unit.empty() ? "" : " (" + s.unit + ")") + (reset_mark ? " (R)" : "");
    if (reset_mark) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.82f, 0.6f, 1.0f));
    ImGui::TextWrapped("%s", text.c_str());
    if (reset_mark) ImGui::PopStyleColor();
    const bool label_hovered = ImGui::IsItemHovered();
    ImGui::TableSetColumnIndex(1);
    ImGui::SetNextItemWidth(-FLT_MIN);
    const std::string id = "##" + s.name;
    bool changed = false;
    if (s.read_only) {
        ImGui::AlignTextToFramePadding();
        ImGui::TextDisabled("%s", value.dump().c_str());
    } else {
        switch (m.type) {
            case ParamType::Real: {
                double v = value.get<double>();
                const double lo = s.min, hi = s.max;
                const bool bounded = std::isfinite(lo) && std::isfinite(hi);
                const bool log = bounded && lo > 0 && hi / lo > 1e3;
                if (bounded) {
                    changed = ImGui::SliderScalar(id.c_str(), ImGuiDataType_Double, &v, &lo, &hi, "%.6g",
                                                  log ? ImGuiSliderFlags_Logarithmic : 0);
                } else {
                    changed = ImGui::InputDouble(id.c_str(), &v, 0, 0, "%.6g", ImGuiInputTextFlags_EnterReturnsTrue);
                }
                // Sliders clamp; typed values (Ctrl+click) are clamped here to the registry's range.
                if (changed) host_.set_param(s.name, std::clamp(v, lo, hi));
                break;
            }
            case ParamType::Int: {
                long long v = value.get<long long>();
                changed = ImGui::InputScalar(id.c_str(), ImGuiDataType_S64, &v, nullptr, nullptr, "%lld",
                                             ImGuiInputTextFlags_EnterReturnsTrue);
                if (changed)
                    host_.set_param(s.name, static_cast<long long>(std::clamp<double>(static_cast<double>(v), s.min, s.max)));
                break;
            }
            case ParamType::Bool: {
                bool v = value.get<bool>();
                changed = ImGui::Checkbox(id.c_str(), &v);
                if (changed) host_.set_param(s.name, v);
                break;
            }
            case ParamType::Choice: {
                const std::string v = value.get<std::string>();
                if (ImGui::BeginCombo(id.c_str(), v.c_str())) {
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
                    ImGui::AlignTextToFramePadding();
                    ImGui::TextDisabled("%zu numbers (scene file)", v.size());
                    break;
                }
                changed = vector_fields(s.name, v, s.min, s.max);
                if (changed) host_.set_param(s.name, v);
                break;
            }
        }
    }
    if (label_hovered || ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
        ImGui::TextUnformatted(s.description.c_str());
        ImGui::TextDisabled("%s%s%s", s.name.c_str(), s.unit.empty() ? "" : (", " + s.unit).c_str(),
                            reset_mark ? " - (R): applies on Reset" : "");
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
    return changed;
}

void Panels::ui_parameters() {
    // Under the Simulation panel down to the bottom of the window, whatever its height: placed
    // over the first frames, while the Simulation panel finds its height, then left to the user.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const ImGuiCond cond = layout_frames_ < 3 ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
    const float top = simulation_bottom_ + 8;
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + 8, top), cond);
    ImGui::SetNextWindowSize(ImVec2(panel_width(), std::max(120.0f, vp->WorkPos.y + vp->WorkSize.y - top - 8)), cond);
    ImGui::Begin("Parameters", &view_.show_params);
    note_left_panel();
    if (!status_.param_meta) {
        ImGui::End();
        return;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("(R), in a warmer colour: applies on Reset. Hover a name for its meaning and source.");
    ImGui::PopStyleColor();
    // Groups in order of first appearance in the registry; each a two-column table.
    std::vector<std::string> groups;
    for (const auto& m : *status_.param_meta)
        if (std::find(groups.begin(), groups.end(), m.spec.group) == groups.end()) groups.push_back(m.spec.group);
    for (const auto& g : groups) {
        if (!ImGui::CollapsingHeader(g.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) continue;
        if (!ImGui::BeginTable(("##" + g).c_str(), 2, ImGuiTableFlags_SizingStretchProp)) continue;
        ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthStretch, 0.42f);
        ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 0.58f);
        for (const auto& m : *status_.param_meta)
            if (m.spec.group == g && status_.params.contains(m.spec.name)) {
                ImGui::PushID(m.spec.name.c_str());
                ui_param(m, status_.params[m.spec.name]);
                ImGui::PopID();
            }
        ImGui::EndTable();
    }
    ImGui::Separator();
    ImGui::SetNextItemWidth(0.5f * ImGui::GetContentRegionAvail().x);
    ImGui::InputText("##save", view_.save_path, sizeof view_.save_path);
    ImGui::SameLine();
    if (ImGui::Button("Save scene as...")) host_.save_scene(view_.save_path);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Writes the current parameters as a scene file that loads back to the same state");
    ImGui::End();
}

void Panels::ui_stats() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - panel_width() - 8, menu_bottom() + 6),
                            ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(panel_width(), std::max(200.0f, vp->WorkPos.y + vp->WorkSize.y - menu_bottom() - 14)),
                             ImGuiCond_FirstUseEver);
    ImGui::Begin("Stats", &view_.show_stats);
    if (ImGui::GetWindowPos().x + 0.5f * ImGui::GetWindowSize().x > vp->WorkPos.x + 0.5f * vp->WorkSize.x)
        stats_left_ = ImGui::GetWindowPos().x;
    // Two tabs: the numbers, and the comparisons with known answers (C, or View > Compare,
    // selects the second; view_.show_compare then says which tab shows).
    bool compare_now = false;
    if (ImGui::BeginTabBar("##stats_tabs")) {
        const bool switch_tab = view_.show_compare != compare_tab_;
        if (ImGui::BeginTabItem("Stats", nullptr,
                                switch_tab && !view_.show_compare ? ImGuiTabItemFlags_SetSelected : 0)) {
            ui_stats_numbers();
            ImGui::EndTabItem();
        }
        if (ImGui::BeginTabItem("Compare", nullptr,
                                switch_tab && view_.show_compare ? ImGuiTabItemFlags_SetSelected : 0)) {
            compare_now = true;
            ui_compare();
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    compare_tab_ = compare_now;
    view_.show_compare = compare_now;
    ImGui::End();
}

void Panels::ui_stats_numbers() {
    ImGui::Text("%.1f frames/s   %d particles", fps_, scene_.frame().count);
    ImGui::Text("%.3f ms per step", status_.step_ms);
    // A bar per stage: the median of its last 31 steps (one slow step on a busy machine does not
    // make a stage jump), scaled to the slowest; hover for the last step's own time.
    if (status_.steps != stage_step_) {
        stage_step_ = status_.steps;
        stage_history_.resize(status_.stage_ms.size());
        for (std::size_t k = 0; k < status_.stage_ms.size(); ++k) {
            auto& h = stage_history_[k];
            h.push_back(status_.stage_ms[k]);
            if (h.size() > 31) h.erase(h.begin());
        }
    }
    std::vector<double> median(stage_history_.size());
    for (std::size_t k = 0; k < median.size(); ++k) median[k] = running_median(stage_history_[k], 31);
    const double slowest = median.empty() ? 0.0 : *std::max_element(median.begin(), median.end());
    for (std::size_t k = 0; k < status_.stages.size() && k < median.size(); ++k) {
        char overlay[64];
        std::snprintf(overlay, sizeof overlay, "%.3f ms", median[k]);
        ImGui::ProgressBar(slowest > 0 ? static_cast<float>(median[k] / slowest) : 0.0f,
                           ImVec2(0.45f * ImGui::GetContentRegionAvail().x, 0), overlay);
        if (ImGui::IsItemHovered() && k < status_.stage_ms.size())
            ImGui::SetTooltip("median of the last %zu steps; the last step: %.3f ms", stage_history_[k].size(),
                              status_.stage_ms[k]);
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
    for (std::size_t k : order) plot_history(k);
}

// One stat over time: its name and unit, the range shown (never narrower than the quantity's
// floor: plot_scale.hpp) at the left, the first and last sample's time under it; hovering gives
// the step, the time and the value. Right-click fixes the range (or frees it).
void Panels::plot_history(std::size_t k) {
    const auto& series = history_.values[k];
    if (series.empty()) return;
    const std::string& name = history_.names[k];
    const PlotScale scale = plot_scale(name);
    const std::string unit = scale.unit.empty() ? "" : " (" + scale.unit + ")";
    ImGui::Text("%s%s", name.c_str(), unit.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled(scale.count ? "%.0f" : "%.6g", series.back());
    auto fixed = fixed_ranges_.find(name);
    std::pair<double, double> range = fixed != fixed_ranges_.end() ? fixed->second : plot_range(series, scale);
    const float height = 50.0f;
    const ImVec2 size(ImGui::GetContentRegionAvail().x, height);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(("##plot_" + name).c_str(), size);
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 lo(at.x, at.y), hi(at.x + size.x, at.y + size.y);
    draw->AddRectFilled(lo, hi, ImGui::GetColorU32(ImGuiCol_FrameBg));
    const std::size_t n = series.size();
    auto point = [&](std::size_t i) {
        const double f = n > 1 ? static_cast<double>(i) / static_cast<double>(n - 1) : 0.5;
        const double v = (series[i] - range.first) / (range.second - range.first);
        return ImVec2(lo.x + static_cast<float>(f) * size.x,
                      hi.y - 2 - static_cast<float>(std::clamp(v, 0.0, 1.0)) * (size.y - 4));
    };
    const ImU32 line = ImGui::GetColorU32(ImGuiCol_PlotLines);
    for (std::size_t i = 1; i < n; ++i) draw->AddLine(point(i - 1), point(i), line, 1.0f);
    if (n == 1) draw->AddCircleFilled(point(0), 2.0f, line);
    char text[48];
    const ImU32 grey = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    std::snprintf(text, sizeof text, "%.4g", range.second);
    draw->AddText(ImVec2(lo.x + 3, lo.y + 1), grey, text);
    std::snprintf(text, sizeof text, "%.4g", range.first);
    draw->AddText(ImVec2(lo.x + 3, hi.y - ImGui::GetTextLineHeight() - 1), grey, text);
    if (fixed != fixed_ranges_.end()) draw->AddText(ImVec2(hi.x - ImGui::CalcTextSize("fixed").x - 3, lo.y + 1), grey, "fixed");
    // The samples' steps and times (history_.steps/times end with the newest sample).
    const std::size_t offset = history_.steps.size() >= n ? history_.steps.size() - n : 0;
    auto time_of = [&](std::size_t i) { return offset + i < history_.times.size() ? history_.times[offset + i] : 0.0; };
    auto step_of = [&](std::size_t i) {
        return offset + i < history_.steps.size() ? static_cast<long long>(history_.steps[offset + i]) : 0LL;
    };
    ImGui::TextDisabled("t = %.4g s", time_of(0));
    ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetContentRegionMax().x - 110));
    ImGui::TextDisabled("%.4g s", time_of(n - 1));
    if (hovered) {
        const float f = (ImGui::GetIO().MousePos.x - lo.x) / std::max(1.0f, size.x);
        const auto i = static_cast<std::size_t>(std::clamp(std::lround(f * static_cast<float>(n - 1)), 0L, static_cast<long>(n - 1)));
        draw->AddLine(ImVec2(point(i).x, lo.y), ImVec2(point(i).x, hi.y), grey);
        ImGui::SetTooltip("step %lld, t = %.6g s\n%s = %.6g%s\n(right-click: fix or free the range)", step_of(i),
                          time_of(i), name.c_str(), series[i], unit.c_str());
    }
    if (ImGui::BeginPopupContextItem(("##range_" + name).c_str())) {
        bool is_fixed = fixed != fixed_ranges_.end();
        if (ImGui::Checkbox("fixed range", &is_fixed)) {
            if (is_fixed)
                fixed_ranges_[name] = range;
            else
                fixed_ranges_.erase(name);
        }
        if (is_fixed) {
            auto& r = fixed_ranges_[name];
            ImGui::InputDouble("min", &r.first, 0, 0, "%.6g");
            ImGui::InputDouble("max", &r.second, 0, 0, "%.6g");
            if (!(r.second > r.first)) r.second = r.first + std::max(1e-30, scale.floor);
        }
        ImGui::EndPopup();
    }
}

// One comparison as a plot: the known answer in orange, the simulation in blue (dots for
// samples, a line for a curve), axes from both curves' extent, the figure and the source below.
static void plot_comparison(const Comparison& c) {
    ImGui::TextUnformatted(c.title.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("(y: %s)", c.y_label.c_str());
    const ImVec2 size(std::max(200.0f, ImGui::GetContentRegionAvail().x), 170.0f);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(("##plot" + c.name).c_str(), size);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    double x0 = DBL_MAX, x1 = -DBL_MAX, y0 = DBL_MAX, y1 = -DBL_MAX;
    for (const CompareCurve* k : {&c.simulation, &c.reference})
        for (std::size_t i = 0; i < k->x.size() && i < k->y.size(); ++i) {
            x0 = std::min(x0, k->x[i]);
            x1 = std::max(x1, k->x[i]);
            y0 = std::min(y0, k->y[i]);
            y1 = std::max(y1, k->y[i]);
        }
    const float left = 52.0f, bottom = 18.0f;
    const ImVec2 lo(at.x + left, at.y + 4), hi(at.x + size.x - 6, at.y + size.y - bottom);
    draw->AddRectFilled(lo, hi, IM_COL32(20, 22, 28, 255));
    draw->AddRect(lo, hi, IM_COL32(110, 110, 120, 255));
    if (!(x1 > x0) || !(y1 >= y0)) {
        draw->AddText(ImVec2(lo.x + 8, lo.y + 8), IM_COL32(200, 200, 200, 255), "waiting for samples");
    } else {
        if (y1 == y0) y1 = y0 + 1;
        const double pad = 0.05 * (y1 - y0);
        y0 -= pad;
        y1 += pad;
        auto to_screen = [&](double x, double y) {
            return ImVec2(lo.x + static_cast<float>((x - x0) / (x1 - x0)) * (hi.x - lo.x),
                          hi.y - static_cast<float>((y - y0) / (y1 - y0)) * (hi.y - lo.y));
        };
        auto curve = [&](const CompareCurve& k, ImU32 colour) {
            const std::size_t n = std::min(k.x.size(), k.y.size());
            if (k.dots) {
                for (std::size_t i = 0; i < n; ++i) draw->AddCircleFilled(to_screen(k.x[i], k.y[i]), 2.5f, colour);
            } else {
                for (std::size_t i = 1; i < n; ++i)
                    draw->AddLine(to_screen(k.x[i - 1], k.y[i - 1]), to_screen(k.x[i], k.y[i]), colour, 2.0f);
            }
        };
        draw->PushClipRect(lo, hi, true);
        curve(c.reference, IM_COL32(255, 160, 40, 255));
        curve(c.simulation, IM_COL32(90, 180, 255, 255));
        draw->PopClipRect();
        char text[64];
        const ImU32 grey = IM_COL32(190, 190, 190, 255);
        std::snprintf(text, sizeof text, "%.3g", y1);
        draw->AddText(ImVec2(at.x, lo.y), grey, text);
        std::snprintf(text, sizeof text, "%.3g", y0);
        draw->AddText(ImVec2(at.x, hi.y - ImGui::GetTextLineHeight()), grey, text);
        std::snprintf(text, sizeof text, "%.3g", x0);
        draw->AddText(ImVec2(lo.x, hi.y + 2), grey, text);
        std::snprintf(text, sizeof text, "%.3g", x1);
        draw->AddText(ImVec2(hi.x - ImGui::CalcTextSize(text).x, hi.y + 2), grey, text);
        const std::string axis = c.x_label;
        draw->AddText(ImVec2(0.5f * (lo.x + hi.x) - 0.5f * ImGui::CalcTextSize(axis.c_str()).x, hi.y + 2), grey,
                      axis.c_str());
    }
    ImGui::TextColored(ImVec4(0.35f, 0.7f, 1.0f, 1), "%s %s", c.simulation.dots ? "o" : "-", c.simulation.label.c_str());
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.0f, 0.63f, 0.16f, 1), "   %s %s", c.reference.dots ? "o" : "-", c.reference.label.c_str());
    ImGui::TextWrapped("%s", c.verdict.empty() ? "Nothing to compare yet: run the simulation." : c.verdict.c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("Source: %s", c.source.c_str());
    ImGui::PopStyleColor();
}

void Panels::ui_compare() {
    if (status_.comparisons.empty()) {
        ImGui::TextWrapped(
            "This scene has no known answer to compare with. Comparisons exist for a column twice as high as "
            "wide collapsing (sph_dam_break: Martin & Moyce's surge front), liquid under gravity (SPH and FLIP "
            "scenes: pressure against rho0 g depth, which holds at rest: sph_hydrostatic, flip_hydrostatic), a "
            "vortex ring alone (vortex_ring: Saffman's speed) and particles under gravity (Euler scenes: the "
            "centre of mass in free fall until a wall pushes).");
    }
    for (std::size_t k = 0; k < status_.comparisons.size(); ++k) {
        if (k > 0) ImGui::Separator();
        plot_comparison(status_.comparisons[k]);
    }
}

void Panels::ui_help() {
    // Top right, over the Stats panel, not over the simulation the keys act on.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - 12, vp->WorkPos.y + 12), ImGuiCond_Appearing,
                            ImVec2(1.0f, 0.0f));
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
                           "3D left-drag orbits, right-drag pans, wheel zooms.\n"
                           "Hands (the Simulation panel's \"mouse\" row):\n"
                           "  drag: left-drag a body (barrier, obstacle, vortex body) to move it;\n"
                           "        3D: in the plane facing you, Shift along the view axis\n"
                           "  push/pull: left pushes the liquid away, right pulls it in\n"
                           "        (Ctrl does the same with any tool)\n"
                           "  pour: left pours liquid at the cursor\n"
                           "Step back (B) undoes a drag; Reset returns to the scene file.");
    ImGui::TextUnformatted("Parameters marked (R) apply on Reset; the others at the next step.\n"
                           "Hover any control for its meaning, unit and source.");
    ImGui::End();
}

// Gravity's direction as an arrow in the bottom-left corner of the view (W/A/S/D turn it), as
// the view shows it in 3D, with its magnitude.
void Panels::ui_gravity() {
    if (!status_.params.contains("gravity") || !status_.params.contains("gravity_direction")) return;
    const nlohmann::json& d = status_.params["gravity_direction"];
    glm::dvec3 dir(0.0);
    for (std::size_t k = 0; k < d.size() && k < 3; ++k) dir[static_cast<int>(k)] = d[k].get<double>();
    const double g = status_.params["gravity"].get<double>();
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const ImVec2 c(std::max(view_.free_left, vp->WorkPos.x) + 46, vp->WorkPos.y + vp->WorkSize.y - 58);
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    const float r = 26.0f;
    draw->AddCircleFilled(c, r + 4, IM_COL32(20, 22, 28, 170));
    draw->AddCircle(c, r + 4, IM_COL32(120, 120, 130, 200));
    const glm::vec2 s = scene_.screen_direction(dir);
    const bool none = !(g > 0) || glm::length(dir) == 0.0;
    if (!none && glm::length(s) > 0) {
        const ImVec2 tip(c.x + r * s.x, c.y - r * s.y);
        const ImVec2 tail(c.x - 0.6f * r * s.x, c.y + 0.6f * r * s.y);
        const ImU32 col = IM_COL32(255, 200, 90, 255);
        draw->AddLine(tail, tip, col, 3.0f);
        const ImVec2 back(-s.x, s.y), side(s.y, s.x);  // screen coordinates: y down
        draw->AddTriangleFilled(tip, ImVec2(tip.x + 9 * back.x + 5 * side.x, tip.y + 9 * back.y + 5 * side.y),
                                ImVec2(tip.x + 9 * back.x - 5 * side.x, tip.y + 9 * back.y - 5 * side.y), col);
    } else if (!none) {
        draw->AddCircleFilled(c, 5.0f, IM_COL32(255, 200, 90, 255));  // along the view axis
    }
    char text[48];
    std::snprintf(text, sizeof text, none ? "g = 0" : "g %.3g m/s^2", g);
    draw->AddText(ImVec2(c.x - 0.5f * ImGui::CalcTextSize(text).x, c.y + r + 8), IM_COL32(220, 220, 220, 255), text);
}

void Panels::ui_legend() {
    // Bottom right of the view, left of the Stats panel when that reaches down to it.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    float right = vp->WorkPos.x + vp->WorkSize.x - 12;
    if (stats_left_ >= 0.0f && stats_left_ < right) right = std::max(vp->WorkPos.x + 260.0f, stats_left_ - 12);
    ImGui::SetNextWindowPos(ImVec2(right, vp->WorkPos.y + vp->WorkSize.y - 12), ImGuiCond_Always, ImVec2(1.0f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.6f);
    ImGui::Begin("##legend", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
    const float lo = view_.auto_range ? scene_.data_range()[0] : view_.range[0];
    const float hi = view_.auto_range ? scene_.data_range()[1] : view_.range[1];
    std::string unit;
    for (const auto& f : status_.fields)
        if (f.name == scene_.frame().color_field) unit = f.unit;
    ImGui::Text("%s%s%s%s", scene_.frame().color_field.c_str(), unit.empty() ? "" : " (", unit.c_str(), unit.empty() ? "" : ")");
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
    if (status_.has_cells && view_.cells_mode != 0) {  // the cell overlay's colours (scene_view.cpp)
        ImGui::Separator();
        const ImVec4 kinds[3] = {ImVec4(0.85f, 0.88f, 0.95f, 1), ImVec4(0.20f, 0.45f, 0.95f, 1), ImVec4(0.50f, 0.50f, 0.52f, 1)};
        const char* names[3] = {"air", "fluid", "solid"};
        ImGui::TextUnformatted("cells:");
        for (int k = 0; k < 3; ++k) {
            ImGui::SameLine();
            ImGui::ColorButton(names[k], kinds[k], ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
            ImGui::SameLine(0, 3);
            ImGui::TextUnformatted(names[k]);
        }
        if (view_.cells_mode == 1) ImGui::TextDisabled("slice at z = %.2f of the depth", view_.slice_z);
    }
    ImGui::End();
}

void Panels::ui_errors() {
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
                                          ? "The simulation is paused at the last good step (Step back goes further "
                                            "back); your settings are kept."
                                          : "The current scene keeps running, with your settings.");
            if (ImGui::Button("OK", ImVec2(120, 0))) {
                popup_error_.clear();
                ImGui::CloseCurrentPopup();
            }
        }
        ImGui::EndPopup();
    }
}

}  // namespace fs
