// The Parameters panel: one row per registered parameter (ParamMeta), grouped, with the widget its
// type and range call for, and the scene's Save as.
#include "app/panels.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace fs {

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

}  // namespace fs
