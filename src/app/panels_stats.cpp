// The Stats panel: its two tabs (the numbers, and Compare: panels_compare.cpp), the per-stage
// bars and the plots of each stat over time.
#include "app/panels.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/plot_scale.hpp"

namespace fs {

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
    const PlotScale scale = plot_scale(name, status_.traits.stat_scales);
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

}  // namespace fs
