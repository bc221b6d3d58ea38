// The surface mesh's benchmark (issue 15): the FLIP dam break of tests/bench/flip_scaling.sh at
// 64^3 (5.0e5 particles in the unit cube, 8 a cell), stepped 0.2 s into its surge, meshed on
// the level set the issue names (the FLIP grid's own 64^3 cells: cell_scale 2) and on the
// default one (a node every particle spacing: cell_scale 1, 128^3 cells), by each method
// (zhu_bridson, smooth) without and with the velocity carried onto the vertices, the median of
// several runs each.
//   surface_bench [cpu|cuda] [RUNS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "solvers/flip/flip_solver.hpp"
#include "surface/particle_surface.hpp"

int main(int argc, char** argv) {
    const std::string backend = argc > 1 ? argv[1] : "cpu";
    const int runs = argc > 2 ? std::atoi(argv[2]) : 7;
    fs::flip::FlipSolver s;
    auto set = [&](const char* name, const char* value) { s.params().at(name).set_text(value); };
    set("domain_size", "1,1,1");
    set("resolution", "64");
    set("fluid_box", "0,0,0,0.4,0.6,1");
    set("pressure_solver", "mgpcg");
    s.reset();
    while (s.time() < 0.2) s.step();
    if (backend == "cuda") s.set_backend(fs::Backend::Cuda);
    std::printf("FLIP dam break 64^3 at t = %.2f s: %d particles, on %s\n", s.time(), s.particle_count(),
                backend.c_str());
    struct Case {
        fs::SurfaceMethod method;
        std::vector<std::string> fields;
    };
    const Case cases[] = {{fs::SurfaceMethod::ZhuBridson, {}},
                          {fs::SurfaceMethod::ZhuBridson, {"velocity"}},
                          {fs::SurfaceMethod::Smooth, {"velocity"}}};
    for (double cell : {2.0, 1.0})
        for (const Case& c : cases) {
            fs::SurfaceSettings settings;
            settings.cell_scale = cell;
            settings.method = c.method;
            std::vector<double> ms;
            fs::SurfaceMesh mesh;
            for (int k = 0; k < runs + 1; ++k) {
                const auto t0 = std::chrono::steady_clock::now();
                mesh = fs::solver_surface(s, settings, c.fields);
                const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                if (k > 0) ms.push_back(t);  // the first run allocates
            }
            std::sort(ms.begin(), ms.end());
            const double h = 2.0 * s.particle_radius();
            std::printf("cell_scale %.0f (level-set cell %.4f m, %.0f cells across the box), %s%s: median %.1f ms of %d "
                        "runs (%.1f to %.1f); %d vertices, %d triangles\n",
                        cell, cell * h, 1.0 / (cell * h), fs::to_string(c.method),
                        c.fields.empty() ? "" : " with velocity", ms[ms.size() / 2], runs, ms.front(), ms.back(),
                        mesh.vertex_count(), mesh.triangle_count());
        }
    return 0;
}
