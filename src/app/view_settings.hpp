// ViewSettings: what the user picks in the window (colours, overlays, panels shown, file names),
// read by the panels, the scene view and the event loop.
#pragma once

#include <optional>

#include "render/colormap.hpp"
#include "surface/particle_surface.hpp"

namespace fs {

struct ViewSettings {
    render::Colormap colormap = render::Colormap::Viridis;
    bool auto_range = true;
    float range[2] = {0.0f, 1.0f};
    bool show_vectors = false;
    float vector_scale = 0.075f;  // the tutorial's show_speeds scale
    bool show_domain = true;
    bool show_polygons = true;  // the particles' cells, for solvers whose particles own cells (ot)
    // Grid cells coloured by kind (fluid / air / solid), for grid solvers: a slice across z at
    // slice_z (a fraction of the depth) or every fluid and solid cell.
    int cells_mode = 0;  // 0 off, 1 slice, 2 all
    float slice_z = 0.5f;
    float size_scale = 1.0f;
    // How 3D spheres are drawn (render/particle_renderer.hpp): 0 as the renderer suits (sorted
    // sprites on a software rasteriser, else exact), 1 exact depth, 2 sorted sprites.
    int spheres = 0;
    // A liquid (flip, sph, ot) drawn as 0 particles, 1 its surface, 2 both (L cycles).
    int liquid_view = 0;  // 0 particles, 1 surface, 2 both, 3 mesh (smooth), 4 mesh (zhu_bridson)
    // The surface mesh the frames must carry for liquid_view (3D liquids), or none.
    std::optional<SurfaceMethod> mesh_method() const {
        if (liquid_view == 3) return SurfaceMethod::Smooth;
        if (liquid_view == 4) return SurfaceMethod::ZhuBridson;
        return std::nullopt;
    }
    int steps_per_push = 1;
    // What the left mouse button does in the scene (core/hands.hpp): 0 drags bodies (elsewhere it
    // moves the camera), 1 pushes (the right button pulls), 2 pours. Ctrl pushes and pulls with
    // any tool.
    int hand_tool = 0;
    bool show_help = false;
    bool show_stats = true;
    bool show_params = true;
    bool show_compare = false;
    bool show_panels = true;  // Tab hides every panel (the menu bar stays, a strip)
    // The part of the window between the side panels, in window points (left and right edges),
    // measured as the panels are drawn: framing fits the domain there. Zero: not yet measured.
    float free_left = 0.0f, free_right = 0.0f;
    char save_path[256] = "my_scene.json";
    char export_path[256] = "export.usda";
    int export_every = 1;
    bool export_surface = false;  // the export carries the liquid's surface mesh (3D liquids)
    int export_surface_method = 0;  // its method: 0 smooth, 1 zhu_bridson (SurfaceMethod's order)
    bool record_gif = false;
    // How a recording is timed: true, with the clock (a frame shown for a tenth of a second fills
    // three video frames; a fast window's extra frames are dropped); false, one video frame per
    // window frame (with --step-per-frame, one per step).
    bool record_realtime = true;
};

}  // namespace fs
