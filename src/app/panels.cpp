// Panels: every ImGui window the sandbox shows over the scene, and the notices; parameter widgets
// come from the registry's descriptions (ParamMeta), never from the solver itself. This file lays
// out the frame; each panel has a file of its own (panels_*.cpp).
#include "app/panels.hpp"

#include <imgui.h>

#include <algorithm>

namespace fs {

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

// The right edge of a panel in the left column (left of the window's middle) widens the part of
// the window the panels cover on the left.
void Panels::note_left_panel() {
    const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    if (at.x + 0.5f * size.x < vp->WorkPos.x + 0.5f * vp->WorkSize.x) left_right_ = std::max(left_right_, at.x + size.x);
}

}  // namespace fs
