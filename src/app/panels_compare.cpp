// The Stats panel's Compare tab: each comparison with a known answer as a plot.
#include "app/panels.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace fs {

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
        ImGui::TextWrapped("This scene has no known answer to compare with. %s", known_answers().c_str());
    }
    for (std::size_t k = 0; k < status_.comparisons.size(); ++k) {
        if (k > 0) ImGui::Separator();
        plot_comparison(status_.comparisons[k]);
    }
}

}  // namespace fs
