// The main menu bar (File, View, Help) and the Help window with the keys and the mouse.
#include "app/panels.hpp"

#include <imgui.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "app/capture.hpp"
#include "app/page.hpp"
#include "cli/options.hpp"

namespace fs {

std::vector<std::string> bundled_scenes() {
    std::vector<std::string> out;
    for (const std::string& name : bundled_scene_names()) out.push_back(scenes_dir() + "/" + name + ".json");
    return out;
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
        if (ImGui::MenuItem("Save stats (CSV, the plots' steps)")) {
            const std::string path = fresh_paths("stats", {".csv"})[0];
            try {
                write_csv(history_, path);
                page::offer_download(path);
                note("stats: " + path);
            } catch (const std::exception& e) {
                note(e.what());
            }
        }
        if (ImGui::MenuItem(capture_.recording() ? "Stop recording" : "Record video", "V"))
            actions_.apply(Action::Record);
        ImGui::MenuItem("Record as GIF (else MP4)", nullptr, &view_.record_gif);
        ImGui::MenuItem("Record in real time (else a video frame per window frame)", nullptr,
                        &view_.record_realtime);
        if constexpr (!kInBrowser) {  // a page is closed by its browser
            ImGui::Separator();
            if (ImGui::MenuItem("Quit")) actions_.quit();
        }
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
                           "  drag: left-drag a body (a barrier, an obstacle, a solid) to move it;\n"
                           "        3D: in the plane facing you, Shift along the view axis\n"
                           "  push/pull: left pushes the liquid away, right pulls it in\n"
                           "        (Ctrl does the same with any tool)\n"
                           "  pour: left pours liquid at the cursor\n"
                           "Step back (B) undoes a drag; Reset returns to the scene file.");
    ImGui::TextUnformatted("Parameters marked (R) apply on Reset; the others at the next step.\n"
                           "Hover any control for its meaning, unit and source.");
    ImGui::End();
}

}  // namespace fs
