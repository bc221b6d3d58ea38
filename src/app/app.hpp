// The desktop sandbox: an SDL2 window with OpenGL 3.3 and Dear ImGui, drawing the simulation
// that a SimulationHost runs on its own thread.
#pragma once

#include <memory>
#include <stdexcept>

#include "cli/options.hpp"
#include "core/solver.hpp"
#include "io/scene.hpp"

namespace fs {

// Opens the window on o.scene and runs until it is closed (or --frames N have been drawn with
// --screenshot/--record). Returns the process exit status.
int run_app(const Options& o);

// The window cannot open here (no display, ...): the one-line reason.
struct WindowError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The window on a solver that already exists (the Python module's show() and screenshot()): it
// runs `solver`, loaded from `scene`, and hands it back, as the window left it, when the window
// closes (both replaced when the window loaded another scene). Throws WindowError when the
// window cannot open; returns the window's exit status.
int run_app_on(const Options& o, std::unique_ptr<Solver>& solver, Scene& scene);

}  // namespace fs
