// What the window draws over the scene outside the panels: the gravity arrow, the colour legend
// and the problem box (a solver's or the GPU's failure, with what the user can do).
#include "app/panels.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/backend.hpp"
#include "render/colormap.hpp"

namespace fs {

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
