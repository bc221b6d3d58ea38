// What the vortex solver's tests share: setting a parameter by name, loading a bundled scene with
// --set style overrides, and running stages up to a given one.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "io/scene.hpp"
#include "solvers/solvers.hpp"
#include "solvers/vortex/vortex_solver.hpp"

namespace vortex_test {

inline void set(fs::vortex::VortexSolver& s, const std::string& name, const std::string& value) {
    s.params().at(name).set_text(value);
}
// A real parameter to all its digits (std::to_string keeps six decimals: dt = 1/30 s became 0.033333).
inline void set(fs::vortex::VortexSolver& s, const std::string& name, double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    set(s, name, std::string(text));
}

// A scene from scenes/ with `sets` applied as --set would, then reset.
inline void load(fs::vortex::VortexSolver& s, const std::string& scene, const std::vector<std::string>& sets = {}) {
    const fs::Scene sc = fs::load_scene(std::string(FS_SOURCE_DIR) + "/scenes/" + scene, fs::solver_names());
    fs::apply_scene_params(s, sc, sets);
    s.reset();
}

// Runs stages until `stage` is the next one.
inline void run_until(fs::vortex::VortexSolver& s, int stage) {
    while (s.next_stage() != stage) s.advance_stage();
}

}  // namespace vortex_test
